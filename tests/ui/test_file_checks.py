"""The window opens on record checks only; the file checks report as they come."""

import os

from medrcube_desktop.review.session import ReviewSessionState
from medrcube_desktop.store import StudyStore
from medrcube_desktop.ui.main_window import MainWindow
from medrcube_desktop.ui.window_factory import load_for_review
from tests.conftest import dicom_file, item, write_benchmark


def open_window(qtbot, root, tmp_path):
    benchmark = load_for_review(root)
    store = StudyStore(tmp_path / "study.db")
    window = MainWindow(ReviewSessionState(benchmark.items, store, "dr-a"), benchmark)
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.first_item_shown, timeout=10000):
        window.show()
    return window, store


def test_a_missing_image_is_found_in_the_background_after_the_first_item_is_shown(qtbot, tmp_path):
    outside = tmp_path / "outside.dcm"
    outside.write_bytes(dicom_file("CT_small.dcm").read_bytes())
    root = write_benchmark(
        tmp_path / "b",
        {
            "ds1": [
                item("good", original_task="modality classification"),
                item("gone", image="images/gone.dcm"),
                item("escape", image="images/evil.dcm"),
                item("restricted", image="images/r.png", restricted=True),
            ]
        },
        {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")},
    )
    os.symlink(outside, root / "ds1" / "images" / "evil.dcm")
    window, store = open_window(qtbot, root, tmp_path)
    try:
        assert window.session.current.id == "good"  # on screen before any file check
        assert not window.benchmark.files_checked and window.file_checks is not None
        qtbot.waitUntil(lambda: not window.checking_files(), timeout=10000)
        qtbot.waitUntil(lambda: "2 benchmark problems" in window.problems_label.text())
        assert {(p.item, p.field) for p in window.benchmark.problems} == {
            ("gone", "image_path"),
            ("escape", "image_path"),
        }
        assert "1 item without its image" in window.problems_label.text()
        assert [i.id for i in window.benchmark.restricted] == ["restricted"]
        # the item whose link leaves the root is refused when shown
        window.show_item("escape")
        qtbot.waitUntil(lambda: "Cannot show the image" in window.image_message.text())
        assert "leaves the benchmark root" in window.image_message.text()
    finally:
        window.close()
        store.close()


def test_original_task_shown_and_filterable_and_a_drawn_in_overlay_is_said(qtbot, tmp_path):
    root = write_benchmark(
        tmp_path / "b",
        {
            "ds1": [
                item(
                    "a",
                    original_task="organ segmentation",
                    question="Which organ lies in the red mask area?",
                ),
                item("b", original_task="modality classification"),
            ]
        },  # fmt: skip
        {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")},
    )
    window, store = open_window(qtbot, root, tmp_path)
    try:
        pane = window.item_pane
        assert "Original task: organ segmentation" in pane.meta.text()
        assert pane.drawn_note.isVisibleTo(window)
        assert "overlay controls" in pane.drawn_note.text()
        combo = window.list_pane.combos["original_task"]
        combo.setCurrentIndex(combo.findData("modality classification"))
        assert [i.id for i in window.session.visible] == ["b"]
        assert not pane.drawn_note.isVisibleTo(window)
    finally:
        window.close()
        store.close()


def test_the_window_lists_the_problems_validate_lists(qtbot, tmp_path):
    """An item with a record problem and a missing file: both, as ``validate`` says."""
    from medrcube_desktop.core.dataset import load_benchmark

    root = write_benchmark(
        tmp_path / "b",
        {
            "ds1": [
                item("good"),
                item("both", image="images/gone.dcm", question=""),
                item("files-only", image="images/gone2.dcm"),
            ]
        },
        {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")},
    )
    validate = load_benchmark(root)
    window, store = open_window(qtbot, root, tmp_path)
    try:
        qtbot.waitUntil(lambda: not window.checking_files(), timeout=10000)
        qtbot.waitUntil(lambda: "3 benchmark problems" in window.problems_label.text())
        assert sorted(map(str, window.benchmark.problems)) == sorted(map(str, validate.problems))
        assert {(p.item, p.field) for p in window.benchmark.problems} >= {
            ("both", "question"), ("both", "image_path"),
        }  # fmt: skip
    finally:
        window.close()
        store.close()


def test_items_with_a_file_problem_leave_the_list_and_the_progress_and_say_it_once(qtbot, tmp_path):
    root = write_benchmark(
        tmp_path / "b",
        {"ds1": [item("gone", image="images/gone.dcm"), item("good"), item("lost",
                 image="images/lost.dcm"), item("also")]},
        {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")},
    )  # fmt: skip
    window, store = open_window(qtbot, root, tmp_path)
    try:
        assert window.session.current.id == "gone"
        qtbot.waitUntil(lambda: "Cannot show the image" in window.image_message.text())
        message = window.image_message.text()
        assert message.count("item gone") == 1, message  # not "item gone: … item gone …"
        qtbot.waitUntil(lambda: not window.checking_files(), timeout=10000)
        qtbot.waitUntil(lambda: window.list_pane.count() == 3)  # "lost" left; "gone" shown
        assert window.list_pane.count_label.text() == (
            "3 items shown · 2 left out for file problems"
        )
        assert window.progress_label.text().startswith("0 of 2 reviewed")
        window.session.pass_unscored()
        window.session.commit()  # committed without its image: recorded so
        assert store.latest_reviews("dr-a")["gone"].image_shown is False
        window.step_item(1)  # the reviewer moves on: the item on screen leaves too
        assert window.session.current.id == "good"
        qtbot.waitUntil(lambda: window.session.image_shown("good") is True)
        window.session.pass_unscored()
        window.session.commit()
        assert store.latest_reviews("dr-a")["good"].image_shown is True
        assert window.list_pane.count() == 2
        assert window.list_pane.model.row_of("gone") is None
    finally:
        window.close()
        store.close()
