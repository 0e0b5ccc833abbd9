"""In the real window: the value under the cursor, the caliper (D, drag, Esc) and the
next item shown from the prefetch without a render."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pydicom
from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtGui import QImage, QMouseEvent
from PySide6.QtWidgets import QApplication

from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.imaging.render_cache import render_key
from medrcube_desktop.review.session import ReviewSessionState
from medrcube_desktop.store import StudyStore
from medrcube_desktop.ui.main_window import MainWindow
from medrcube_desktop.ui.widgets.image_view import ImageView
from tests.conftest import dicom_file, item, write_benchmark

SHOTS = Path("/work/scratch/render")


def open_window(qtbot, root, db_path):
    benchmark = load_benchmark(root)
    window = MainWindow(ReviewSessionState(benchmark.items, StudyStore(db_path), "dr-a"), benchmark)
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.first_item_shown, timeout=10000):
        window.show()
    qtbot.waitExposed(window)
    qtbot.waitUntil(lambda: window.image_view.facts is not None, timeout=10000)
    return window


def viewport_point(view, x: float, y: float):
    """The viewport point over the shown image's pixel coordinate (x, y)."""
    return view.mapFromScene(view._pixmap_item.mapToScene(QPointF(x, y)))


def mouse(view, kind, point, button, buttons) -> None:
    event = QMouseEvent(kind, QPointF(point), QPointF(view.viewport().mapToGlobal(point)),
                        button, buttons, Qt.KeyboardModifier.NoModifier)  # fmt: skip
    QApplication.sendEvent(view.viewport(), event)


def save_shot(window, name: str) -> None:
    if SHOTS.is_dir():
        window.grab().save(str(SHOTS / name))


def test_hu_under_the_cursor_follows_zoom(qtbot, ct_benchmark, tmp_path):
    window = open_window(qtbot, ct_benchmark, tmp_path / "s.db")
    view = window.image_view
    ds = pydicom.dcmread(dicom_file("CT_small.dcm"))
    none = Qt.MouseButton.NoButton
    for zoom in (1.0, 2.5):
        view.zoom(zoom)
        r, c = 40, 70
        point = viewport_point(view, c + 0.5, r + 0.5)
        mouse(view, QEvent.Type.MouseMove, point, none, none)
        hu = int(ds.pixel_array[r, c]) * int(ds.RescaleSlope) + int(ds.RescaleIntercept)
        assert view.readout_text == f"x {c}  y {r}   {hu} HU"
    save_shot(window, "readout.png")


def test_readout_names_the_files_pixel_of_a_flipped_radiograph(qtbot, tmp_path):
    ds = pydicom.dcmread(dicom_file("CT_small.dcm"))
    ds.Modality, ds.PatientOrientation = "DX", ["R", "H"]  # shown flipped both ways
    source = tmp_path / "flipped.dcm"
    ds.save_as(source)
    root = write_benchmark(
        tmp_path / "bench", {"ds1": [item("dx-1")]}, {"ds1/images/ct.dcm": source}
    )
    window = open_window(qtbot, root, tmp_path / "s.db")
    view = window.image_view
    assert view.facts.transform.flip_rows and view.facts.transform.flip_cols
    none = Qt.MouseButton.NoButton
    height, width = ds.pixel_array.shape
    for y, x in ((10, 20), (100, 3)):  # the shown image's row and column
        mouse(view, QEvent.Type.MouseMove, viewport_point(view, x + 0.5, y + 0.5), none, none)
        r, c = height - 1 - y, width - 1 - x  # the file's pixel under the cursor
        value = int(ds.pixel_array[r, c]) * int(ds.RescaleSlope) + int(ds.RescaleIntercept)
        assert view.readout_text == f"x {c}  y {r}   {value} stored value"


def test_caliper_with_d_drag_and_escape(qtbot, ct_benchmark, tmp_path):
    window = open_window(qtbot, ct_benchmark, tmp_path / "s.db")
    view = window.image_view
    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_D)
    assert view.measuring
    left, none = Qt.MouseButton.LeftButton, Qt.MouseButton.NoButton
    start, end = viewport_point(view, 10.5, 20.5), viewport_point(view, 70.5, 100.5)
    mouse(view, QEvent.Type.MouseButtonPress, start, left, left)
    mouse(view, QEvent.Type.MouseMove, end, none, left)
    mouse(view, QEvent.Type.MouseButtonRelease, end, left, none)
    ds = pydicom.dcmread(dicom_file("CT_small.dcm"))
    row_mm, col_mm = (float(v) for v in ds.PixelSpacing)
    line = view.caliper
    dx, dy = line[1].x() - line[0].x(), line[1].y() - line[0].y()
    assert abs(dx - 60) < 0.5 and abs(dy - 80) < 0.5  # viewport rounding: under a pixel
    assert view.caliper_text == f"{math.hypot(dy * row_mm, dx * col_mm):.1f} mm"
    assert abs(math.hypot(dy * row_mm, dx * col_mm) - math.hypot(80 * row_mm, 60 * col_mm)) < 0.5
    save_shot(window, "caliper.png")
    qtbot.keyClick(view, Qt.Key.Key_Escape)
    assert view.caliper is None and not view.measuring


def test_next_item_is_prefetched_and_shown_without_a_render(qtbot, ct_benchmark, tmp_path):
    window = open_window(qtbot, ct_benchmark, tmp_path / "s.db")
    following = window.session.visible[1]
    key = render_key(following, *window.image._display_args(following, None, True, None))
    qtbot.waitUntil(lambda: key in window.image.render_cache, timeout=10000)
    shown = []
    window.image_view.image_shown.connect(lambda: shown.append(True))
    window.step_item(1)
    assert shown, "the prefetched item is on screen when step_item returns"
    assert window.session.current.id == following.id
    assert window.image_view.facts is not None


def test_jpeg2000_radiograph_is_decoded_reduced_for_a_small_view_and_full_on_zoom(qtbot, tmp_path):
    from tests.conftest import item, write_benchmark

    root = write_benchmark(
        tmp_path / "bench",
        {"ds1": [item("cr-1", "images/cr.dcm", gt_answer="X-ray")]},
        {"ds1/images/cr.dcm": dicom_file("RG1_J2KR.dcm")},  # 1841 x 1955, JPEG 2000
    )
    benchmark = load_benchmark(root)
    window = MainWindow(
        ReviewSessionState(benchmark.items, StudyStore(tmp_path / "s.db"), "dr-a"), benchmark
    )
    qtbot.addWidget(window)
    window.resize(900, 700)
    with qtbot.waitSignal(window.first_item_shown, timeout=20000):
        window.show()
    qtbot.waitUntil(lambda: window.image_view.facts is not None, timeout=20000)
    view = window.image_view
    facts = view.facts
    side = window.image._display_side()
    assert side >= view.display_side() and 2 * side <= 1955  # the view is small
    assert facts.reduction >= 2 and "reduced 1/" in window.image_message.text()
    shown = view._pixmap_item.pixmap().width()
    assert shown == -(-1841 // facts.reduction) and shown >= view.display_side() / 2
    with qtbot.waitSignal(view.image_shown, timeout=20000):
        view.zoom(4.0)  # past the decoded pixels: the full image is asked for
        centre = view.image_point(view.viewport().rect().center())
    assert view.facts.reduction == 1 and view._pixmap_item.pixmap().width() == 1841
    full_key = render_key(
        window.session.current,
        *window.image._display_args(window.session.current, None, True, None),
    )
    assert full_key[-1] is None and full_key in window.image.render_cache  # rendered once, kept
    after = view.image_point(view.viewport().rect().center())  # about the same point
    assert abs(after.x() - centre.x() * facts.reduction) < 0.015 * 1841
    assert abs(after.y() - centre.y() * facts.reduction) < 0.015 * 1955
    view.zoom(1.25)  # zooming further renders nothing new
    assert not window.image_message.text().startswith("Rendering")


def test_d_pressed_while_the_next_image_loads_keeps_caliper_mode_and_its_spacing(qtbot, tmp_path):
    """A NIfTI with pixdim (2.0, 1.5, 3.0) mm opened from a DICOM: D pressed before its
    image arrives says nothing false, and the mode holds when it arrives, measuring in
    the NIfTI's own spacing."""
    import nibabel as nib

    root = write_benchmark(
        tmp_path / "bench",
        {"ds1": [item("ct-1"), item("vol-1", image="images/vol.nii.gz", modality="MRI")]},
        {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")},
    )
    volume = np.arange(40 * 30 * 5, dtype=np.float32).reshape(40, 30, 5)
    nib.save(nib.Nifti1Image(volume, np.diag([2.0, 1.5, 3.0, 1.0])), root / "ds1/images/vol.nii.gz")
    window = open_window(qtbot, root, tmp_path / "s.db")
    view = window.image_view
    window.image.render_cache.clear()  # not prefetched: it has to load
    window.image._prefetch_stale.set()
    window.show_item("vol-1")
    assert view.facts is None  # still loading
    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_D)
    assert view.measuring
    message = window.statusBar().currentMessage()
    assert "no pixel spacing" not in message and "once it is shown" in message
    qtbot.waitUntil(lambda: view.facts is not None, timeout=10000)
    assert view.measuring  # the mode held when the image arrived
    assert window.statusBar().currentMessage() == (
        "Caliper: drag on the image; lengths in mm from NIfTI zooms (pixdim)."
    )
    left, none = Qt.MouseButton.LeftButton, Qt.MouseButton.NoButton
    start, end = viewport_point(view, 2.5, 3.5), viewport_point(view, 22.5, 3.5)
    mouse(view, QEvent.Type.MouseButtonPress, start, left, left)
    mouse(view, QEvent.Type.MouseMove, end, none, left)
    mouse(view, QEvent.Type.MouseButtonRelease, end, left, none)
    # shown turned (radiological): screen columns run along voxel axis 0, 2.0 mm apart
    dx = view.caliper[1].x() - view.caliper[0].x()
    assert abs(dx - 20) < 0.5 and view.facts.spacing[1] == 2.0
    assert view.caliper_text == f"{abs(dx) * 2.0:.1f} mm"


def _yellow_rows(view, columns: slice) -> np.ndarray:
    """Rows of the viewport holding overlay-yellow pixels within ``columns``."""
    shot = view.viewport().grab().toImage().convertToFormat(QImage.Format.Format_RGBA8888)
    pixels = np.frombuffer(shot.constBits(), np.uint8).reshape(shot.height(), shot.width(), 4)
    part = pixels[:, columns].astype(int)
    yellow = (part[..., 0] > 180) & (part[..., 1] > 180) & (part[..., 2] < 90)
    return np.nonzero(yellow.any(axis=1))[0]


def test_a_long_readout_moves_below_the_top_letter(qtbot):
    view = ImageView()
    qtbot.addWidget(view)
    view.resize(420, 420)
    view.show()
    qtbot.waitExposed(view)
    rgba = np.zeros((100, 100, 4), np.uint8)
    rgba[..., 3] = 255
    view.set_image(rgba, edge_labels={"top": "S", "bottom": "I", "left": "R", "right": "L"})
    width = view.viewport().width()
    centre = slice(width // 2 - 8, width // 2 + 8)
    left = slice(0, 40)  # the readout's first characters only
    view.readout_text = "x 1"
    view.viewport().repaint()
    letter = _yellow_rows(view, slice(width // 2 - 8, width // 2 + 8))
    letter = letter[letter < view.viewport().height() // 2]  # the top letter, not "I"
    short = _yellow_rows(view, left)
    assert short.min() < letter.max()  # a short readout stays beside the letter
    view.readout_text = "x 1841  y 1955   ≈15043 stored value (and a long tail)"
    view.viewport().repaint()
    long = _yellow_rows(view, left)
    assert long.min() > letter.max()  # wholly below the letter
    assert _yellow_rows(view, centre)[:3].min() == letter.min()  # the letter itself stays


def test_the_caliper_hint_leaves_the_status_bar_with_the_caliper(qtbot, tmp_path):
    root = write_benchmark(
        tmp_path / "bench",
        {"ds1": [item("ct-1"), item("ct-2")]},
        {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")},
    )
    window = open_window(qtbot, root, tmp_path / "s.db")
    view = window.image_view
    qtbot.waitUntil(lambda: view.facts is not None, timeout=10000)
    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_D)
    assert window.statusBar().currentMessage().startswith("Caliper: drag on the image")
    qtbot.keyClick(view, Qt.Key.Key_D)  # D again: the caliper is left, and its hint
    assert not view.measuring and window.statusBar().currentMessage() == "Caliper off (key D)"
    qtbot.keyClick(view, Qt.Key.Key_D)
    qtbot.keyClick(view, Qt.Key.Key_Escape)
    assert window.statusBar().currentMessage() == "Caliper off (key Esc)"
    qtbot.keyClick(view, Qt.Key.Key_D)
    window.show_item("ct-2")  # moving on leaves the caliper (the line was the item's)
    qtbot.waitUntil(lambda: window.session.current.id == "ct-2" and view.facts is not None,
                    timeout=10000)  # fmt: skip
    assert not view.measuring and window.statusBar().currentMessage() == ""
    window.statusBar().showMessage("Saved.", 3000)  # another message is left alone
    qtbot.keyClick(view, Qt.Key.Key_Escape)
    assert window.statusBar().currentMessage() == "Saved."
