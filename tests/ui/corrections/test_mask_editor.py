"""The mask editor: a stroke of a known radius in mm on a known spacing paints the pixel
count computed by hand, under a zoom; right button erases; Ctrl+Z takes strokes back;
the result comes back in the stored slice's order."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QEvent, Qt

from medrcube_desktop.imaging.geometry import DisplayTransform
from medrcube_desktop.ui.corrections.mask_editor import MaskEditor
from tests.ui.corrections.slices import drag, edit_slice, mouse, viewport_point


def _editor(qtbot, edit, zoom=4.0):
    editor = MaskEditor()
    qtbot.addWidget(editor)
    editor.resize(700, 600)
    editor.show()
    qtbot.waitExposed(editor)
    editor.set_slice(edit)
    editor.view.zoom(zoom)
    return editor


def test_one_dab_of_2_2_mm_on_half_by_one_mm_pixels_paints_29_pixels(qtbot):
    # rows 0.5 mm apart, columns 1 mm: for a column offset dc the rows within 2.2 mm are
    # |dr| <= sqrt(2.2^2 - dc^2) / 0.5: dc 0 -> 4.4 (9 rows), ±1 -> 3.92 (7 each),
    # ±2 -> 1.83 (3 each): 9 + 14 + 6 = 29
    editor = _editor(qtbot, edit_slice(spacing=(0.5, 1.0), box=None))
    view = editor.view
    view.centerOn(view._pixmap_item.mapToScene(60.0, 40.0))
    editor.radius.setValue(2.2)
    point = viewport_point(view, 60.5, 40.5)
    here = view.image_point(point)
    assert abs(here.x() - 60.5) < 0.1 and abs(here.y() - 40.5) < 0.1
    mouse(view, QEvent.Type.MouseButtonPress, point)
    mouse(view, QEvent.Type.MouseButtonRelease, point)
    assert int(np.count_nonzero(view.labels)) == 29
    assert set(np.flatnonzero(view.labels[:, 60])) == set(range(36, 45))
    assert "0 now in the item, 29 proposed" in editor.counts.text()


def test_a_drag_paints_the_capsule_and_ctrl_z_takes_it_back(qtbot):
    # radius 1.2 mm, rows 0.5 mm, columns 1 mm, from x 30.5 to 50.5 on row 40's centre:
    # 5 rows (|dr| <= 2.4) on columns 30..50 = 105, and each cap's column (dc 1: |dr| <=
    # 1.33, 3 rows) = 6: 111
    editor = _editor(qtbot, edit_slice(spacing=(0.5, 1.0), box=None), zoom=3.0)
    view = editor.view
    view.centerOn(view._pixmap_item.mapToScene(40.0, 40.0))
    editor.radius.setValue(1.2)
    editor.label.setValue(4)
    drag(view, viewport_point(view, 30.5, 40.5), viewport_point(view, 50.5, 40.5), steps=7)
    assert int(np.count_nonzero(view.labels)) == 111
    assert set(np.unique(view.labels)) == {0, 4}
    assert editor.changed_labels()
    qtbot.keyClick(view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert not view.labels.any() and not editor.changed_labels()


def test_right_button_erases_the_items_labels_and_the_result_is_in_stored_order(qtbot):
    transform = DisplayTransform(transpose=True, flip_rows=True)
    stored = np.zeros((160, 100), dtype=np.int32)  # the file's slice: 160 rows x 100 cols
    stored[50:70, 20:40] = 2
    shown = transform.apply(stored)
    edit = edit_slice(rows=100, cols=160, spacing=None, transform=transform, box=None,
                      labels=shown, volume_axis=2)  # fmt: skip
    editor = _editor(qtbot, edit)
    view = editor.view
    assert editor.label.value() == 2  # the mask's own label is painted
    assert np.array_equal(view.stored(), stored)
    ys, xs = np.nonzero(shown)
    cx, cy = float(xs.mean()) + 0.5, float(ys.mean()) + 0.5
    view.centerOn(view._pixmap_item.mapToScene(cx, cy))
    point = viewport_point(view, cx, cy)
    mouse(view, QEvent.Type.MouseButtonPress, point, Qt.MouseButton.RightButton)
    mouse(view, QEvent.Type.MouseButtonRelease, point, Qt.MouseButton.RightButton)
    erased = int(np.count_nonzero(shown)) - int(np.count_nonzero(view.labels))
    assert erased > 0
    back = view.stored()
    assert back.shape == (160, 100)
    assert int(np.count_nonzero(stored)) - int(np.count_nonzero(back)) == erased
    assert not (back & ~stored).any()  # only erased, inside the stored labels
    assert "slice 4 of 8" in editor.counts.text()


def test_a_stroke_shows_blue_over_the_items_mask_outlined_yellow_with_a_legend(qtbot):
    """The overlay the view draws, pixel by pixel: the item's mask (rows 20–29, columns
    30–49) outlined in opaque yellow, its inside and a new dab beside it filled in the
    proposed blue at alpha 110 — never the red the review window gives a mask (a new
    stroke was the same red as the mask it corrects); the legend names both."""

    labels = np.zeros((100, 160), dtype=np.int32)
    labels[20:30, 30:50] = 1
    editor = _editor(qtbot, edit_slice(spacing=(0.5, 1.0), box=None, labels=labels))
    view = editor.view
    view.centerOn(view._pixmap_item.mapToScene(100.0, 60.0))
    point = viewport_point(view, 100.5, 60.5)
    mouse(view, QEvent.Type.MouseButtonPress, point)
    mouse(view, QEvent.Type.MouseButtonRelease, point)
    image = view._overlay.pixmap().toImage()

    def rgba(x, y):
        c = image.pixelColor(x, y)
        return c.red(), c.green(), c.blue(), c.alpha()

    assert rgba(30, 20) == (255, 214, 0, 255)  # the old mask's border
    assert rgba(49, 25) == (255, 214, 0, 255)
    assert rgba(40, 25) == (30, 144, 255, 110)  # inside: kept in the proposal
    assert rgba(100, 60) == (30, 144, 255, 110)  # the new dab
    assert rgba(5, 5) == (0, 0, 0, 0)
    legend = editor.legend.text()
    assert "proposed labels (filled blue)" in legend and "rgb(30, 144, 255)" in legend
    assert "the item's mask now (yellow outline)" in legend and "rgb(255, 214, 0)" in legend
