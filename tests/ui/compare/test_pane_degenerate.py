"""The Compare models pane on degenerate input says "undefined" with the reason, in the
words the ``compare`` command prints (issue 21, part 6: it showed "95% CI −1.000 to
1.000, p < 1e-05" for three runs of which two are identical)."""

import warnings

from medrcube_desktop.cli import main
from medrcube_desktop.evaluation.compare.summary_tables import CREDIBILITY_COLUMNS
from tests.evaluation.compare.test_result_degenerate import degenerate_study
from tests.ui.compare.test_pane import open_compared

RUNS = ("one", "two", "other", "allright")
SUMMARY = "r undefined: fewer than 4 distinct points (3 points, 2 distinct), n = 3 models"
ALL_A = "undefined: L right on every pair (C+D = 0)"


def test_the_pane_says_undefined_as_the_command_does(qtbot, tmp_path, capsys):
    root, db = degenerate_study(tmp_path)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        window, pane = open_compared(qtbot, root, db, RUNS)
    assert not [w for w in caught if issubclass(w.category, RuntimeWarning)], [
        str(w.message) for w in caught
    ]
    view = pane.credibility
    assert view.correlation.text().endswith(f": {SUMMARY}")
    assert "CI" not in view.correlation.text() and "p <" not in view.correlation.text()
    table = view.credibility
    names = [table.item(r, 0).text() for r in range(table.rowCount())]
    row = names.index("allright")
    log_or = CREDIBILITY_COLUMNS.index("log OR")
    assert table.item(row, log_or).text() == ALL_A  # it was 2.71 [..] (+0.5)
    assert table.item(row, CREDIBILITY_COLUMNS.index("Permutation p")).text() == ALL_A
    # Fig. 4's title and the Figures tab's note
    figure = pane.comparison.figures["fig4_credibility"]
    (shortcut,) = [a for a in figure.axes if a.get_label() == "shortcut"]
    assert f"Pearson {SUMMARY}" in " ".join(shortcut.get_title().split())
    note = pane.figures.status.text()
    assert "voxel correlation undefined: fewer than 4 distinct points (4 image runs, 3" in note
    # the command prints the same statements
    capsys.readouterr()
    args = ["compare", "--db", str(db), "--dataset", str(root), "--bootstrap", "0"]
    assert main([*args, *[a for run in RUNS for a in ("--run", run)]]) == 0
    printed = capsys.readouterr()
    assert f"Acc_H vs Shortcut Probability: {SUMMARY}" in printed.out
    (line,) = [x for x in printed.out.splitlines() if x.startswith("allright") and ALL_A in x]
    assert line.count(ALL_A) == 2
    assert "voxel correlation undefined: fewer than 4 distinct points (4 image runs, 3" in (
        printed.err
    )
    window.close()
