"""The window's several-experts tools count restricted items (reviewed on their text):
the adjudication queue lists their disagreements, Run LLM review's whole benchmark
includes them, and the study settings say that blinding needs one database per reviewer
(issue 21)."""

from medrcube_desktop import settings
from medrcube_desktop.core.rubric import RULE_IDS
from medrcube_desktop.review.reviewer_files import BLINDING_NOTE
from medrcube_desktop.review.study import StudySettings
from medrcube_desktop.store import Review, StudyStore, utc_now
from medrcube_desktop.ui.dialogs import StudySettingsDialog
from medrcube_desktop.ui.main_window import MainWindow
from medrcube_desktop.ui.window_factory import build_window, load_for_review
from tests.ui.review.test_panes_restricted_items import _benchmark

PASS = dict.fromkeys(RULE_IDS, 1)


def test_restricted_items_are_adjudicated_and_judged(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("MEDRCUBE_CONFIG_DIR", str(tmp_path / "config"))
    benchmark = load_for_review(_benchmark(tmp_path))
    store = StudyStore(tmp_path / "study.db")
    StudySettings(blind=False, repeat_share=0.0).save(store)
    for name, scores in (("dr-a", PASS), ("dr-b", {**PASS, "1.4": 0})):
        store.save_review(Review(name, "secret", scores, name, utc_now(), utc_now()))
    window = build_window(MainWindow, benchmark, store, "dr-a", settings.Settings())
    qtbot.addWidget(window)
    try:
        with qtbot.waitSignal(window.first_item_shown, timeout=10000):
            window.show()
        pane = window.open_adjudication_pane()
        assert [e.item_id for e in pane.entries] == ["secret"]
        dialog = window.open_judge_dialog()
        assert sorted(i.id for i in dialog.everything) == ["good", "secret"]
        dialog.close()
        pane.close()
    finally:
        window.close()
        store.close()


def test_the_study_settings_say_blinding_needs_one_database_per_reviewer(qtbot):
    dialog = StudySettingsDialog(None, StudySettings(), [])
    qtbot.addWidget(dialog)
    assert dialog.blind_note.text() == BLINDING_NOTE
    assert "assign --databases DIR" in BLINDING_NOTE and "merge" in BLINDING_NOTE
