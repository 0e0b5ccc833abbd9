"""A window or a hidden overlay never carries silently to an image where it means
something else; what is in force is always named on the image."""

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage

from medrcube_desktop.ui.review.display_state import DisplayChoice, window_scale
from tests.conftest import dicom_file, item, write_benchmark
from tests.ui.review.test_review_binding_window import open_window

CTRL = Qt.KeyboardModifier.ControlModifier


@pytest.fixture
def mixed_benchmark(tmp_path):
    """CT, MR, CT, X-ray (a radiograph of pydicom-data), in this order."""
    return write_benchmark(
        tmp_path / "b",
        {
            "ds1": [
                item("ct-1", bbox=[10, 10, 100, 100]),
                item("mr-1", image="images/mr.dcm", modality="MRI", bbox=[10, 10, 40, 40]),
                item("ct-2"),
                item("xr-1", image="images/xr.dcm", modality="X-ray"),
            ]
        },
        {
            "ds1/images/ct.dcm": dicom_file("CT_small.dcm"),
            "ds1/images/mr.dcm": dicom_file("MR_small.dcm"),
            "ds1/images/xr.dcm": dicom_file("RG1_UNCR.dcm"),
        },
    )


def go(qtbot, window, key, modifier=Qt.KeyboardModifier.NoModifier):
    with qtbot.waitSignal(window.image_view.image_shown, timeout=20000):
        qtbot.keyClick(window.image_view, key, modifier)


def red_pixels(window) -> int:
    image = window.image_view._pixmap_item.pixmap().toImage()
    image = image.convertToFormat(QImage.Format.Format_RGBA8888)
    pixels = np.frombuffer(image.constBits(), np.uint8).reshape(image.height(), image.width(), 4)
    return int(((pixels[..., 0] == 255) & (pixels[..., 1] == 0)).sum())


def test_only_a_ct_window_carries_and_only_to_ct():
    choice = DisplayChoice((400.0, 1800.0), "CT (HU)")

    class Fake:
        def __init__(self, modality):
            self.modality = modality

    assert window_scale(Fake(" ct ")) == "CT (HU)" and window_scale(Fake("MRI")) is None
    assert choice.carried_to(Fake("CT")).window == (400.0, 1800.0)
    assert choice.carried_to(Fake("MRI")).window is None
    assert DisplayChoice((40.0, 80.0), None).carried_to(Fake("MRI")).window is None


def test_a_ct_preset_does_not_follow_to_an_mri_or_a_radiograph(qtbot, mixed_benchmark, tmp_path):
    window, _ = open_window(qtbot, mixed_benchmark, tmp_path / "s.db")
    go(qtbot, window, Qt.Key.Key_8, CTRL)  # CT bone preset
    assert "W 1800  C 400 (set by you)" in window.image_view.corner_text
    assert "(set by you" in window.image_message.text()
    go(qtbot, window, Qt.Key.Key_Down, CTRL)  # to the MRI
    assert window.session.current.id == "mr-1"
    # before: the MRI was shown through the bone window (C 400 / W 1800): nearly black
    assert window.image.display_window is None
    assert "set by you" not in window.image_view.corner_text
    assert window.image._shown_window != (400.0, 1800.0)
    assert "window back to the file's own" in window.statusBar().currentMessage()
    go(qtbot, window, Qt.Key.Key_8, CTRL)  # a CT preset on the MRI: shown as such
    assert "(set by you)" in window.image_view.corner_text
    go(qtbot, window, Qt.Key.Key_Down, CTRL)  # MRI units mean nothing on the next CT
    assert window.session.current.id == "ct-2" and window.image.display_window is None
    go(qtbot, window, Qt.Key.Key_4, CTRL)  # lung on CT ...
    go(qtbot, window, Qt.Key.Key_Down, CTRL)  # ... never on the radiograph
    assert window.session.current.id == "xr-1" and window.image.display_window is None
    assert window.image._shown_window != (-600.0, 1500.0)


def test_a_hidden_overlay_is_named_and_shown_again_on_the_next_item(
    qtbot, mixed_benchmark, tmp_path
):
    window, _ = open_window(qtbot, mixed_benchmark, tmp_path / "s.db")
    assert red_pixels(window) > 300
    go(qtbot, window, Qt.Key.Key_M)
    assert red_pixels(window) == 0
    assert "overlay hidden (M)" in window.image_view.corner_text
    go(qtbot, window, Qt.Key.Key_Down, CTRL)
    # before: the next item's box stayed hidden, and nothing on screen said so
    assert window.image.show_overlay and red_pixels(window) > 50
    assert "overlay hidden" not in window.image_view.corner_text
    assert "overlay shown again" in window.statusBar().currentMessage()
    go(qtbot, window, Qt.Key.Key_I)
    assert "inverted (I)" in window.image_view.corner_text
