"""How a McNemar p is printed (issue 26): three decimals, and "<0.001" for every p
below 0.001: a p of 0.0005 printed as "0.000" or "0.001" reads as a different result."""

import pytest
from scipy import stats

from medrcube_desktop.review.agreement.stats import mcnemar_exact_p
from medrcube_desktop.review.agreement.table import cell, fmt_p


@pytest.mark.parametrize(
    ("p", "text"),
    [
        (0.00004, "<0.001"),
        (0.0002, "<0.001"),
        (0.00049, "<0.001"),
        (0.00051, "<0.001"),
        (0.000999, "<0.001"),
        (0.001, "0.001"),
        (0.0123, "0.012"),
        (0.5, "0.500"),
        (1.0, "1.000"),
    ],
)
def test_fmt_p_writes_every_p_below_one_in_a_thousand_as_below(p, text):
    # mutant: a p between 0.0001 and 0.001 printed as 0.000
    assert fmt_p(p) == text


def test_a_table_cell_prints_a_real_mcnemar_p_between_1e4_and_1e3_as_below_0001():
    table = [[10, 0], [12, 30]]  # 12 discordant pairs, all one way: p = 2 / 2**12
    p = mcnemar_exact_p(table)
    assert p == pytest.approx(stats.binomtest(0, 12, 0.5).pvalue)
    assert 1e-4 < p < 1e-3
    assert cell({"mcnemar_p": p, "undefined": {}}, "mcnemar_p") == "<0.001"
