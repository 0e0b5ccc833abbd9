"""Seam: the Compare pane's release tab and ``compare --release-diff --json`` show one
computation (issue 23 item 4; the project's rule: a figure has one computation, every
surface shows it), on the hand-written release of tests/release_fixture.py."""

import json

import pytest

from medrcube_desktop import settings
from medrcube_desktop.cli import main
from medrcube_desktop.store import StudyStore
from medrcube_desktop.ui.main_window import MainWindow
from medrcube_desktop.ui.window_factory import build_window, load_for_review
from tests import release_fixture as rf


@pytest.fixture
def study(tmp_path):
    source = rf.write_source(tmp_path / "source", images=True)
    release = rf.write_release(tmp_path / "release", source, images=True)
    db = rf.write_runs(tmp_path / "study.db", source)
    assert main(["rescore", "--release", str(release), "--db", str(db)]) == 0
    return source, release, db


def test_the_release_tab_shows_what_compare_release_diff_prints(qtbot, study, capsys):
    source, release, db = study
    window = build_window(MainWindow, load_for_review(source), StudyStore(db), "dr-a",
                          settings.Settings())  # fmt: skip
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.first_item_shown, timeout=10000):
        window.show()
    pane = window.open_compare_pane()
    pane.check_all(True)
    tab = pane.releases
    tab.folder.setText(str(release))
    tab.fields["diff_boot"].setValue(400)
    tab.fields["seed"].setValue(7)
    with qtbot.waitSignal(tab.computed, timeout=60000):
        tab.compare_button.click()
    assert tab.diff is not None, tab.status.text()
    capsys.readouterr()
    assert main(["compare", "--db", str(db), "--dataset", str(source), "--release-diff",
                 str(release), "--diff-bootstrap", "400", "--seed", "7", "--json"]) == 0  # fmt: skip
    expected = json.loads(capsys.readouterr().out)
    assert tab.diff.to_dict() == expected
    # on screen, against the fixture's table counted by hand: gamma 8 of 10 → 4 of 8,
    # −37.5 points, first → third; alpha 7 of 10 → 6 of 8, +12.5, second (tied) → first
    cells = {tab.models.item(r, 0).text(): [tab.models.item(r, c).text()
                                            for c in range(tab.models.columnCount())]
             for r in range(tab.models.rowCount())}  # fmt: skip
    assert cells["gamma"][1].startswith("80.0 [") and cells["gamma"][2].startswith("50.0 [")
    assert cells["gamma"][3].startswith("-37.5") and cells["gamma"][5] == "1 → 3 (-2)"
    assert cells["gamma"][6:] == ["0", "3", "1", "1"]
    assert cells["alpha"][3].startswith("+12.5") and cells["alpha"][5] == "2 → 1 (+1)"
    assert cells["gamma-text (text only)"][5] == "—"
    assert tab.changes.rowCount() == len(expected["changes"]) == 4 * 4  # 4 (kind, rule) × 4 runs
    assert "Release <b>v2</b>" in tab.status.text()
    # its export writes what compare --release-diff --out writes, from the same object
    written = tab.export(source.parent / "pane-out")
    assert sorted(p.name for p in written) == sorted(
        ["release_diff.json", "release_diff_models.csv", "release_diff_changes.csv",
         "release_diff.html"]
    )  # fmt: skip
    document = json.loads((source.parent / "pane-out" / "release_diff.json").read_text())
    assert document.pop("meta")["written_by"] == "Compare models pane"
    assert document == expected
    window.close()
