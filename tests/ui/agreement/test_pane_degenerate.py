"""The Agreement pane on degenerate input says "undefined" with the reason, in the words
the ``agreement`` command prints (issue 21, part 6)."""

import html

from medrcube_desktop.cli import main
from tests.ui.agreement.test_pane import prepare
from tests.ui.review.test_review_binding_window import open_window

KAPPA = (
    "Cohen's kappa, Kappa interval, AC1 interval for 1.1, 1.2, 1.4, P2, 2.1, 2.2, 2.3 "
    "undefined: both raters gave 'pass' to every item"
)
DISAGREE = (
    "Agreement interval for sample, P1, 1.3; All-match interval for P1 undefined: no item "
    "agrees (no variation to resample)"
)


def test_the_agreement_pane_says_undefined_as_the_command_does(
    qtbot, ct_benchmark, tmp_path, capsys
):
    prepare(tmp_path / "s.db")  # dr-b and the LLM judged ct-1 and ct-2, the LLM fails 1.3
    window, _ = open_window(qtbot, ct_benchmark, tmp_path / "s.db", reviewer="dr-b")
    pane = window.open_agreement_pane()
    pane.first.setCurrentIndex(pane.first.findData("dr-b"))
    pane.bootstrap.setValue(50)
    with qtbot.waitSignal(pane.computed, timeout=30000):
        pane.compute_button.click()
    table = pane.table
    labels = [table.item(r, 0).text() for r in range(table.rowCount())]
    row = labels.index("1.1 Clinical & Anatomical Accuracy")
    # both pass both items: kappa 0/0, no interval (it showed "—" and [1.00, 1.00])
    assert [table.item(row, c).text() for c in (1, 2, 3)] == [
        "1.00 [undefined]",
        "undefined",
        "1.00",
    ]
    row = labels.index("1.3 Unambiguous Phrasing")  # dr-b passes, the LLM fails: kappa 0
    assert [table.item(row, c).text() for c in (1, 2)] == ["0.00 [undefined]", "0.00"]
    notes = [line.strip() for line in html.unescape(pane.summary.text()).split("<br>")]
    assert KAPPA in notes and DISAGREE in notes
    capsys.readouterr()
    args = ["agreement", "--db", str(tmp_path / "s.db"), "--reviewer", "dr-b", "--model", "gpt-5.1"]
    assert main([*args, "--bootstrap", "50"]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert KAPPA in printed and DISAGREE in printed
    pane.close()
