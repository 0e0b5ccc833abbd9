"""Restricted items (the release ships them without their image) reviewed on their text."""

import os

from PySide6.QtCore import Qt

from medrcube_desktop import settings
from medrcube_desktop.review.session import ItemFilter, ReviewSessionState
from medrcube_desktop.store import StudyStore
from medrcube_desktop.ui.main_window import MainWindow
from medrcube_desktop.ui.window_factory import build_window, load_for_review
from tests.conftest import dicom_file, item, write_benchmark


def _benchmark(tmp_path):
    return write_benchmark(
        tmp_path / "b",
        {
            "ds1": [
                item("good"),
                item("secret", image="images/r.png", restricted=True, dataset="SourceSet"),
            ]
        },
        {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")},
    )


def test_the_session_lists_restricted_items_only_when_asked(tmp_path):
    benchmark = load_for_review(_benchmark(tmp_path))
    store = StudyStore(tmp_path / "s.db")
    try:
        session = ReviewSessionState(
            benchmark.items, store, "dr-a", restricted=benchmark.restricted
        )
        assert [i.id for i in session.visible] == ["good"]
        assert [i.id for i in session.set_filter(ItemFilter(include_restricted=True))] == [
            "good", "secret",
        ]  # fmt: skip
        assert session.text_only("secret") and not session.text_only("good")
        assert "SourceSet" in session.choices("dataset")
        assert session.set_filter(ItemFilter(dataset="SourceSet")) == []
        assert session.progress() == (0, 1)  # progress counts the items with their image
    finally:
        store.close()


def test_a_restricted_item_is_reviewed_on_its_text(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("MEDRCUBE_CONFIG_DIR", str(tmp_path / "config"))
    benchmark = load_for_review(_benchmark(tmp_path))
    store = StudyStore(tmp_path / "study.db")
    prefs = settings.Settings()
    window = build_window(MainWindow, benchmark, store, "dr-a", prefs)
    qtbot.addWidget(window)
    try:
        with qtbot.waitSignal(window.first_item_shown, timeout=10000):
            window.show()
        box = window.list_pane.include_restricted
        assert box.isVisibleTo(window) and not box.isChecked()  # off by default
        assert window.list_pane.count() == 1
        box.setChecked(True)
        assert window.list_pane.count() == 2
        assert window.list_pane.row_text(1).endswith("· text only")
        assert "text only" not in window.list_pane.row_text(0)
        assert settings.Settings.load().include_restricted  # remembered
        window.show_item("secret")
        expected = "Image not redistributed: obtain it from the source dataset (SourceSet)"
        assert window.image_view.placeholder == expected
        assert expected in window.image_message.text()
        assert "Cannot show" not in window.image_message.text()
        os.makedirs(tmp_path / "shots", exist_ok=True)
        window.resize(1280, 760)
        qtbot.wait(50)
        window.grab().save(str(tmp_path / "shots" / "restricted.png"))
        if os.environ.get("MEDRCUBE_SHOT"):
            window.grab().save(os.environ["MEDRCUBE_SHOT"])
        window.activateWindow()
        qtbot.keyClick(window.image_view, Qt.Key.Key_P)  # every unscored rule passes
        qtbot.keyClick(window.image_view, Qt.Key.Key_Return)
        saved = store.latest_reviews("dr-a")["secret"]
        assert set(saved.scores.values()) == {1} and len(saved.scores) == 7
    finally:
        window.close()
        store.close()


def test_the_choice_is_read_back_from_the_settings(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("MEDRCUBE_CONFIG_DIR", str(tmp_path / "config"))
    benchmark = load_for_review(_benchmark(tmp_path))
    store = StudyStore(tmp_path / "study.db")
    window = build_window(
        MainWindow, benchmark, store, "dr-a", settings.Settings(include_restricted=True)
    )
    qtbot.addWidget(window)
    try:
        with qtbot.waitSignal(window.first_item_shown, timeout=10000):
            window.show()
        assert window.list_pane.include_restricted.isChecked()
        assert [i.id for i in window.session.visible] == ["good", "secret"]
    finally:
        window.close()
        store.close()


def test_a_benchmark_of_restricted_items_only_says_how_to_review_them(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("MEDRCUBE_CONFIG_DIR", str(tmp_path / "config"))
    root = write_benchmark(
        tmp_path / "b",
        {"ds1": [item(f"r{n}", image=f"images/r{n}.png", restricted=True) for n in range(3)]},
    )
    benchmark = load_for_review(root)
    store = StudyStore(tmp_path / "study.db")
    window = build_window(MainWindow, benchmark, store, "dr-a", settings.Settings())
    qtbot.addWidget(window)
    try:
        window.show()
        qtbot.waitUntil(lambda: "ships without its image" in window.image_message.text())
        assert "Every item of this benchmark (3)" in window.image_message.text()
        window.list_pane.include_restricted.setChecked(True)
        assert window.list_pane.count() == 3
    finally:
        window.close()
        store.close()
