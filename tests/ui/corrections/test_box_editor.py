"""The box editor: a corner dragged by the mouse under a zoom lands on the image pixels
it was dropped on, in the file's stored pixels; the fields follow; Esc puts it back."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPoint, Qt
from PySide6.QtGui import QTransform

from medrcube_desktop.imaging.geometry import DisplayTransform
from medrcube_desktop.ui.corrections.box_editor import BoxEditor
from tests.ui.corrections.slices import drag, edit_slice, mouse, viewport_point


def _editor(qtbot, edit):
    editor = BoxEditor()
    qtbot.addWidget(editor)
    editor.resize(700, 600)
    editor.show()
    qtbot.waitExposed(editor)
    editor.set_slice(edit)
    return editor


def test_dragging_the_bottom_right_corner_under_a_zoom_sets_the_box_in_image_pixels(qtbot):
    editor = _editor(qtbot, edit_slice(spacing=(0.5, 1.0)))  # pixels twice as wide as high
    view = editor.view
    view.zoom(2.5)
    view.centerOn(view._pixmap_item.mapToScene(70.0, 40.0))
    # a known transform: the view's scale is the fit times 2.5, and the pixel aspect
    # squeezes rows by half (0.5 mm rows, 1 mm columns)
    sx, sy = view.transform().m11(), view.transform().m22()
    assert abs(sy / sx - 1.0) < 1e-9
    assert view._pixmap_item.transform() == QTransform.fromScale(1.0, 0.5)
    assert editor.value() == [20, 10, 59, 49]
    start = viewport_point(view, 60.0, 50.0)  # the bottom-right corner: pixel 59's right edge
    end = viewport_point(view, 90.2, 61.3)  # dropped nearest the border at x 90, y 61
    drag(view, start, end)
    assert editor.value() == [20, 10, 89, 60]  # inclusive pixels: x1 = 90 - 1, y1 = 61 - 1
    assert [spin.value() for spin in editor.fields.values()] == [20, 10, 89, 60]
    # the same drop point in screen pixels, computed by hand from the view's matrices
    scene = view.mapToScene(end)
    image = view._pixmap_item.mapFromScene(scene)
    assert round(image.x()) == 90 and round(image.y()) == 61


def test_on_a_flipped_slice_the_fields_give_the_stored_pixels(qtbot):
    flip = DisplayTransform(flip_cols=True)
    edit = edit_slice(rows=100, cols=160, transform=flip, box=(20, 10, 59, 49), spacing=None)
    editor = _editor(qtbot, edit)
    view = editor.view
    view.zoom(1.5)
    # shown box 20..59 is stored columns 160-1-59 .. 160-1-20 = 100..139
    assert editor.value() == [100, 10, 139, 49]
    drag(view, viewport_point(view, 20.0, 10.0), viewport_point(view, 5.0, 2.0))  # top-left
    assert view.box == (5, 2, 59, 49)
    assert editor.value() == [100, 2, 154, 49]  # the shown left edge is the stored right


def test_typing_a_field_moves_the_box_and_esc_during_a_drag_puts_it_back(qtbot):
    editor = _editor(qtbot, edit_slice())
    view = editor.view
    editor.fields["x1"].setValue(120)
    assert view.box == (20, 10, 120, 49) and editor.value() == [20, 10, 120, 49]
    start = viewport_point(view, 121.0, 50.0)
    mouse(view, QEvent.Type.MouseButtonPress, start)
    mouse(view, QEvent.Type.MouseMove, viewport_point(view, 140.0, 70.0),
          Qt.MouseButton.NoButton, Qt.MouseButton.LeftButton)  # fmt: skip
    assert view.box == (20, 10, 139, 69)
    qtbot.keyClick(view, Qt.Key.Key_Escape)
    assert view.box == (20, 10, 120, 49) and view.dragging is None
    assert editor.fields["x1"].value() == 120


def test_a_press_away_from_the_corners_pans_and_leaves_the_box(qtbot):
    editor = _editor(qtbot, edit_slice())
    view = editor.view
    view.zoom(3.0)
    before = view.box
    middle = viewport_point(view, 40.0, 30.0)
    drag(view, middle, middle + QPoint(30, 20))
    assert view.box == before and view.dragging is None


def test_the_screen_to_image_mapping_is_the_hand_computed_one(qtbot):
    # a known transform: 3 screen pixels per image column, rows squeezed by the pixel
    # aspect 0.5 (0.5 mm rows, 1 mm columns) -> 1.5 screen pixels per row, the picture
    # at the viewport's top-left corner (no scroll): image (x, y) is at (3x, 1.5y)
    editor = _editor(qtbot, edit_slice(rows=100, cols=160, spacing=(0.5, 1.0)))
    view = editor.view
    view.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
    view.setTransform(QTransform.fromScale(3.0, 3.0))
    view.horizontalScrollBar().setValue(view.horizontalScrollBar().minimum())
    view.verticalScrollBar().setValue(view.verticalScrollBar().minimum())
    assert view.mapFromScene(view._pixmap_item.mapToScene(60.0, 50.0)) == QPoint(180, 75)
    # the bottom-right corner (60, 50) dragged to the screen point (270, 92):
    # image x = 270 / 3 = 90, y = 92 / 1.5 = 61.3 -> borders 90 and 61 -> x1 89, y1 60
    drag(view, QPoint(180, 75), QPoint(270, 92))
    assert editor.value() == [20, 10, 89, 60]
    # the corner is now at image (90, 61), screen (270, 91.5): a press 3 pixels off
    # grabs it, one 12 pixels off (beyond HANDLE_PX, 9) grabs none
    assert view.corner_at(QPoint(273, 89)) == 2
    assert view.corner_at(QPoint(270 + 12, 92)) is None
