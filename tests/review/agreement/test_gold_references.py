"""The gold standard's overall verdict (issue 26): an adjudicated verdict is gold's
verdict, and it is what the verdict row compares with, whatever the seven rules say."""

import pytest

from medrcube_desktop.core.rubric import RULE_IDS
from medrcube_desktop.review.agreement.gold import gold_standard
from medrcube_desktop.review.agreement.panel import JUDGMENTS, group_columns, rater_matrix
from medrcube_desktop.store.adjudications import VERDICT, Adjudication

ALL_PASS = dict.fromkeys(RULE_IDS, 1)


def _experts():
    # dr-a and dr-b agree that every rule passes on i1..i4: consensus gold "all pass"
    items = ("i1", "i2", "i3", "i4")
    return {name: {i: dict(ALL_PASS) for i in items} for name in ("dr-a", "dr-b")}


def test_an_adjudicated_overall_verdict_is_golds_verdict_though_every_rule_passes():
    # mutant: the adjudicated "verdict" ignored when the gold standard is formed
    adjudications = {
        "i2": {VERDICT: Adjudication("i2", VERDICT, 0, "unsafe as a whole", "dr-c")},
        "i3": {VERDICT: Adjudication("i3", VERDICT, 1, "acceptable", "dr-c")},
    }
    gold = gold_standard(_experts(), adjudications)
    assert gold.verdicts == {"i2": 0, "i3": 1}
    assert gold.scores["i2"] == ALL_PASS  # the rules stay the experts' shared values
    universe = sorted(gold.scores)
    matrix = rater_matrix(gold.scores, universe, gold.verdicts)
    verdict = matrix.values[:, JUDGMENTS.index("verdict")]
    assert verdict.tolist() == [1, 0, 1, 1]  # i1..i4: only i2's verdict is fail


def test_the_verdict_row_against_gold_counts_the_adjudicated_verdict():
    adjudications = {
        item: {VERDICT: Adjudication(item, VERDICT, 0, "unsafe as a whole", "dr-c")}
        for item in ("i1", "i2")
    }
    gold = gold_standard(_experts(), adjudications)
    universe = sorted(gold.scores)
    raters = {
        "gold": rater_matrix(gold.scores, universe, gold.verdicts),
        "llm": rater_matrix({i: dict(ALL_PASS) for i in universe}, universe),
    }
    (column,) = group_columns(raters, [("llm vs gold", "gold", [("llm", "gold")])], 0, 0)
    # the LLM passes everything: it agrees with gold's verdict on i3, i4 only (2 of 4),
    # and with every rule everywhere
    assert column.rows["verdict"].agreement == pytest.approx(0.5)
    assert column.rows["1.1"].agreement == pytest.approx(1.0)
    # kappa: p_e = 1·0.5 + 0·0.5 = 0.5, (0.5 − 0.5)/0.5 = 0; AC1: π = 0.75,
    # p_e = 2·0.75·0.25 = 0.375, (0.5 − 0.375)/0.625 = 0.2
    assert column.rows["verdict"].cohen_kappa == pytest.approx(0.0)
    assert column.rows["verdict"].gwet_ac1 == pytest.approx(0.2)
