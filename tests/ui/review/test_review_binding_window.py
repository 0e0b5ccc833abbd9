"""A real review driven with the keyboard, then a new window on the same database."""

import subprocess
import sys

import numpy as np
import pytest
from PIL import Image
from PySide6.QtCore import Qt

from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.review.session import ReviewSessionState
from medrcube_desktop.store import StudyStore
from medrcube_desktop.ui.main_window import MainWindow


def open_window(qtbot, root, db_path, reviewer="dr-a"):
    benchmark = load_benchmark(root)
    store = StudyStore(db_path)
    window = MainWindow(ReviewSessionState(benchmark.items, store, reviewer), benchmark)
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.first_item_shown, timeout=10000):
        window.show()
    window.activateWindow()
    qtbot.waitExposed(window)
    return window, store


def test_keys_1_to_7_and_enter_save_scores_that_a_new_window_shows(qtbot, ct_benchmark, tmp_path):
    db = tmp_path / "study.db"
    window, store = open_window(qtbot, ct_benchmark, db)
    assert window.session.current.id == "ct-1"
    assert (
        "B. CT" in window.item_pane.options.text()
        and "ground truth" in window.item_pane.options.text()
    )
    digit_keys = [
        Qt.Key.Key_1,
        Qt.Key.Key_2,
        Qt.Key.Key_3,
        Qt.Key.Key_4,
        Qt.Key.Key_5,
        Qt.Key.Key_6,
        Qt.Key.Key_7,
    ]
    for key in digit_keys:  # every rule to FAIL ...
        qtbot.keyClick(window.image_view, key)
    for key in (Qt.Key.Key_1, Qt.Key.Key_3, Qt.Key.Key_4, Qt.Key.Key_6, Qt.Key.Key_7):
        qtbot.keyClick(
            window.image_view, key
        )  # ... and these back to PASS: 1.2 and 2.1 stay failed
    assert window.rubric_pane.buttons["1.2"].text().endswith("FAIL")
    window.rubric_pane.comment.setFocus()
    qtbot.keyClicks(window.rubric_pane.comment, "options 1 and 3 overlap")  # digits go to the text
    qtbot.keyClick(window.rubric_pane.comment, Qt.Key.Key_Return)
    assert window.session.current.id == "ct-2"  # Enter committed and moved on
    assert window.progress_label.text().startswith("1 of 2 reviewed")
    saved = store.latest_reviews("dr-a")["ct-1"]
    assert saved.scores == {"1.1": 1, "1.2": 0, "1.3": 1, "1.4": 1, "2.1": 0, "2.2": 1, "2.3": 1}
    assert saved.comment == "options 1 and 3 overlap"
    assert saved.started_at <= saved.committed_at
    window.close()
    store.close()

    again, _ = open_window(qtbot, ct_benchmark, db)
    assert again.session.current.id == "ct-2"  # resumes where the reviewer was
    assert again.progress_label.text().startswith("1 of 2 reviewed")
    again.show_item("ct-1")
    texts = {rule: again.rubric_pane.buttons[rule].text() for rule in ("1.1", "1.2", "2.1")}
    assert (
        texts["1.2"].endswith("FAIL")
        and texts["2.1"].endswith("FAIL")
        and texts["1.1"].endswith("PASS")
    )
    assert again.rubric_pane.comment.toPlainText() == "options 1 and 3 overlap"
    assert "revision 1" in again.rubric_pane.saved_label.text()


def test_filters_restrict_the_list(qtbot, ct_benchmark, tmp_path):
    window, _ = open_window(qtbot, ct_benchmark, tmp_path / "s.db")
    task = window.list_pane.combos["task"]
    task.setCurrentIndex(task.findData("VR"))
    assert window.list_pane.count() == 1
    assert window.session.current.id == "ct-2"


def test_unreadable_image_is_reported_in_the_window_not_fatal(qtbot, tmp_path):
    from tests.conftest import item, write_benchmark

    root = write_benchmark(tmp_path / "b", {"ds1": [item("x", image="images/bad.dcm")]})
    (root / "ds1" / "images").mkdir()
    (root / "ds1" / "images" / "bad.dcm").write_bytes(b"garbage")
    window, _ = open_window(qtbot, root, tmp_path / "s.db")
    assert "Cannot show the image" in window.image_message.text()
    assert "bad.dcm" in window.image_message.text()


@pytest.mark.slow
def test_command_line_screenshot_of_the_first_item_with_its_overlay(ct_benchmark, tmp_path):
    shot = tmp_path / "shot.png"
    boxed = ct_benchmark / "ds1" / "test.json"
    boxed.write_text(
        boxed.read_text().replace(
            '"dataset": "ds1"}', '"dataset": "ds1", "bbox": [10, 10, 60, 60]}', 1
        )
    )
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "medrcube_desktop",
            "--dataset",
            str(ct_benchmark),
            "--db",
            str(tmp_path / "s.db"),
            "--reviewer",
            "dr-a",
            "--screenshot",
            str(shot),
            "--quit-after-ms",
            "200",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    image = np.asarray(Image.open(shot).convert("RGB"))
    assert image.shape[1] >= 1024 and image.shape[0] >= 700
    image = image.astype(int)  # the view scales the image smoothly: allow blended edges
    red = (image[..., 0] > 200) & (image[..., 1] < 60) & (image[..., 2] < 60)
    assert red.sum() > 100  # the box outline is on screen


def test_enter_on_an_unscored_item_saves_nothing_and_says_why(qtbot, ct_benchmark, tmp_path):
    window, store = open_window(qtbot, ct_benchmark, tmp_path / "s.db")
    assert all(b.text().endswith("not scored") for b in window.rubric_pane.buttons.values())
    qtbot.keyClick(window.image_view, Qt.Key.Key_Return)
    assert window.session.current.id == "ct-1" and store.latest_reviews("dr-a") == {}
    assert (
        "score rules 1.1, 1.2, 1.3, 1.4, 2.1, 2.2, 2.3 first"
        in window.rubric_pane.saved_label.text()
    )
    qtbot.keyClick(window.image_view, Qt.Key.Key_4)  # fail 1.4 ...
    qtbot.keyClick(window.image_view, Qt.Key.Key_P)  # ... pass the other six
    qtbot.keyClick(window.image_view, Qt.Key.Key_Return)
    assert "say why in the comment" in window.rubric_pane.saved_label.text()
    assert window.rubric_pane.comment.hasFocus()
    qtbot.keyClicks(window.rubric_pane.comment, "answerable from the text alone")
    qtbot.keyClick(window.rubric_pane.comment, Qt.Key.Key_Return)
    assert store.latest_reviews("dr-a")["ct-1"].scores["1.4"] == 0
    assert window.image_view.hasFocus()  # keys score the next item, not the comment box
    qtbot.keyClick(window.image_view, Qt.Key.Key_2)
    assert (
        window.session.draft.scores["1.2"] == 0 and window.rubric_pane.comment.toPlainText() == ""
    )


def test_unsaved_edits_survive_switching_items_and_are_marked(qtbot, ct_benchmark, tmp_path):
    window, _ = open_window(qtbot, ct_benchmark, tmp_path / "s.db")
    qtbot.keyClick(window.image_view, Qt.Key.Key_3)
    window.show_item("ct-2")
    assert window.list_pane.row_text(0).startswith("✎")
    window.show_item("ct-1")
    assert window.rubric_pane.buttons["1.3"].text().endswith("FAIL")
    assert "Draft saved, not committed" in window.rubric_pane.saved_label.text()


def test_no_matching_item_means_nothing_to_commit(qtbot, ct_benchmark, tmp_path):
    window, store = open_window(qtbot, ct_benchmark, tmp_path / "s.db")
    status = window.list_pane.combos["status"]
    status.setCurrentIndex(status.findData("reviewed"))  # nothing reviewed yet
    assert window.list_pane.count() == 0 and window.session.current is None
    qtbot.keyClick(window.image_view, Qt.Key.Key_P)
    qtbot.keyClick(window.image_view, Qt.Key.Key_Return)
    assert store.latest_reviews("dr-a") == {}
    assert "No item matches the filters" in window.item_pane.meta.text()


def test_closing_keeps_the_draft_without_asking_and_a_new_window_resumes_it(
    qtbot, ct_benchmark, tmp_path
):
    window, store = open_window(qtbot, ct_benchmark, tmp_path / "s.db")
    window.show_item("ct-2")
    qtbot.keyClick(window.image_view, Qt.Key.Key_3)
    window.close()
    assert not window.isVisible()  # nothing to ask: the draft is already saved
    store.close()
    again, _ = open_window(qtbot, ct_benchmark, tmp_path / "s.db")
    assert again.session.current.id == "ct-2"
    assert again.rubric_pane.buttons["1.3"].text().endswith("FAIL")
    assert again.list_pane.row_text(1).startswith("✎")


@pytest.mark.slow
def test_unattended_run_exits_on_an_empty_benchmark_with_broken_settings(
    tmp_path, isolated_settings
):
    from tests.conftest import write_benchmark

    root = write_benchmark(tmp_path / "empty", {"ds1": []})
    config = isolated_settings / "config"
    config.mkdir(parents=True, exist_ok=True)
    (config / "settings.json").write_text("[]")  # valid JSON, wrong shape
    shot = tmp_path / "empty.png"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "medrcube_desktop",
            "--dataset",
            str(root),
            "--screenshot",
            str(shot),
            "--quit-after-ms",
            "100",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert shot.exists() and "ignoring settings file" in result.stderr
    assert (
        '"reviewer": null' in (config / "settings.json").read_text()
    )  # placeholder not remembered


def test_enter_on_an_unchanged_saved_item_adds_no_revision(qtbot, ct_benchmark, tmp_path):
    window, store = open_window(qtbot, ct_benchmark, tmp_path / "s.db")
    qtbot.keyClick(window.image_view, Qt.Key.Key_P)
    qtbot.keyClick(window.image_view, Qt.Key.Key_Return)  # ct-1 committed
    assert window.session.current.id == "ct-2"
    qtbot.keyClick(window.image_view, Qt.Key.Key_P)
    for _ in range(3):
        qtbot.keyClick(window.image_view, Qt.Key.Key_Return)
    assert window.session.current.id == "ct-2"  # every item reviewed: Enter stays
    assert "End of the list" in window.rubric_pane.saved_label.text()
    assert [r.revision for r in store.review_history("dr-a", "ct-2")] == [1]
    qtbot.keyClick(window.image_view, Qt.Key.Key_5)  # pass → fail → pass: back where it was
    qtbot.keyClick(window.image_view, Qt.Key.Key_5)
    qtbot.keyClick(window.image_view, Qt.Key.Key_Return)
    assert [r.revision for r in store.review_history("dr-a", "ct-2")] == [1]
    qtbot.keyClick(window.image_view, Qt.Key.Key_5)  # a real change does make revision 2
    window.rubric_pane.comment.setPlainText("options overlap")
    qtbot.keyClick(window.image_view, Qt.Key.Key_Return)
    history = store.review_history("dr-a", "ct-2")
    assert [r.revision for r in history] == [1, 2]
    assert history[0].scores["2.1"] == 1 and history[1].scores["2.1"] == 0  # original kept


def test_an_item_id_mentioning_comment_does_not_steal_the_keys(qtbot, tmp_path):
    from tests.conftest import dicom_file, item, write_benchmark

    root = write_benchmark(
        tmp_path / "b",
        {"ds1": [item("no-comment-7")]},
        {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")},
    )
    window, _ = open_window(qtbot, root, tmp_path / "s.db")
    qtbot.keyClick(window.image_view, Qt.Key.Key_Return)  # refused: unscored
    qtbot.keyClick(window.image_view, Qt.Key.Key_1)
    assert (
        window.session.draft.scores["1.1"] == 0 and window.rubric_pane.comment.toPlainText() == ""
    )


def test_a_new_item_opens_fitted_and_ctrl_arrows_move_without_committing(
    qtbot, ct_benchmark, tmp_path
):
    window, store = open_window(qtbot, ct_benchmark, tmp_path / "s.db")
    fitted = window.image_view.transform().m11()
    qtbot.keyClick(window.image_view, Qt.Key.Key_Plus)
    qtbot.keyClick(window.image_view, Qt.Key.Key_Plus)
    assert window.image_view.transform().m11() == pytest.approx(fitted * 1.25**2)
    with qtbot.waitSignal(window.image_view.image_shown, timeout=10000):
        qtbot.keyClick(window.image_view, Qt.Key.Key_Down, Qt.KeyboardModifier.ControlModifier)
    assert window.session.current.id == "ct-2"
    assert window.image_view.transform().m11() == pytest.approx(fitted)  # zoom reset
    qtbot.keyClick(window.image_view, Qt.Key.Key_Backspace)
    assert window.session.current.id == "ct-1" and store.latest_reviews("dr-a") == {}


def test_key_m_hides_and_shows_the_overlay(qtbot, tmp_path):
    from PySide6.QtGui import QImage

    from tests.conftest import dicom_file, item, write_benchmark

    root = write_benchmark(
        tmp_path / "b",
        {"ds1": [item("boxed", bbox=[10, 10, 100, 100])]},
        {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")},
    )
    window, _ = open_window(qtbot, root, tmp_path / "s.db")

    def red_pixels() -> int:
        image = (
            window.image_view._pixmap_item.pixmap()
            .toImage()
            .convertToFormat(QImage.Format.Format_RGBA8888)
        )
        pixels = np.frombuffer(image.constBits(), np.uint8).reshape(
            image.height(), image.width(), 4
        )
        return int(((pixels[..., 0] == 255) & (pixels[..., 1] == 0)).sum())

    assert red_pixels() > 300  # the box outline (4 sides of ~90 px)
    with qtbot.waitSignal(window.image_view.image_shown, timeout=10000):
        qtbot.keyClick(window.image_view, Qt.Key.Key_M)
    assert red_pixels() == 0
    with qtbot.waitSignal(window.image_view.image_shown, timeout=10000):
        qtbot.keyClick(window.image_view, Qt.Key.Key_M)
    assert red_pixels() > 300


def test_window_presets_drag_invert_and_reset_persist_across_items(qtbot, ct_benchmark, tmp_path):
    import math

    window, _ = open_window(qtbot, ct_benchmark, tmp_path / "s.db")
    with qtbot.waitSignal(window.image_view.image_shown, timeout=10000):
        qtbot.keyClick(window.image_view, Qt.Key.Key_4, Qt.KeyboardModifier.ControlModifier)  # lung
    assert "Window C -600 / W 1500" in window.image_message.text()
    with qtbot.waitSignal(window.image_view.image_shown, timeout=10000):
        qtbot.keyClick(window.image_view, Qt.Key.Key_Down, Qt.KeyboardModifier.ControlModifier)
    assert (
        window.session.current.id == "ct-2"
        and "Window C -600 / W 1500" in window.image_message.text()
    )
    with qtbot.waitSignal(window.image_view.image_shown, timeout=10000):
        window.image._drag_window(200, 0)  # a right-drag 200 px to the right widens by e
    assert window.image.display_window == pytest.approx((-600.0, 1500.0 * math.e))
    with qtbot.waitSignal(window.image_view.image_shown, timeout=10000):
        qtbot.keyClick(window.image_view, Qt.Key.Key_W)
    assert (
        window.image.display_window is None and "Window C 40 / W 400" in window.image_message.text()
    )
    with qtbot.waitSignal(window.image_view.image_shown, timeout=10000):
        qtbot.keyClick(window.image_view, Qt.Key.Key_I)
    assert window.image.invert


def test_key_v_cycles_the_windows_stored_in_the_file(qtbot, tmp_path):
    from tests.conftest import dicom_file, item, write_benchmark

    root = write_benchmark(
        tmp_path / "b",
        {"ds1": [item("mr", image="images/mr.dcm", modality="MRI")]},
        {"ds1/images/mr.dcm": dicom_file("MR-SIEMENS-DICOM-WithOverlays.dcm")},
    )
    window, _ = open_window(qtbot, root, tmp_path / "s.db")
    first, second = window.image._file_windows
    with qtbot.waitSignal(window.image_view.image_shown, timeout=10000):
        qtbot.keyClick(window.image_view, Qt.Key.Key_V)
    assert window.image.display_window == second
    with qtbot.waitSignal(window.image_view.image_shown, timeout=10000):
        qtbot.keyClick(window.image_view, Qt.Key.Key_V)
    assert window.image.display_window == first
