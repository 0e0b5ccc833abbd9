"""Each window the renderer picks, tried with the slice it exists for (issue 26 items 1
and 3, ``python -m tests.mutation.run --modules imaging.render``): the user's window over
the file's, the file's over CT's soft-tissue default, an 8-bit picture as stored (a
float one rounded and clipped), no finite value black, MONOCHROME1 inverted on the float
path as on the table path, a box on a reduced decode, and the one-value note. Expected
grey levels computed here from PS3.3 C.11.2.1.3.2 (LINEAR_EXACT: (x - (c - w/2)) / w,
clipped to [0, 1], times 255, rounded)."""

import numpy as np
import pytest

from medrcube_desktop.imaging.render import (
    CT_SOFT_TISSUE_WINDOW,
    box_on_slice,
    compose_rgba,
    gray_rgba,
    shrink_for_display,
    to_gray8,
)
from medrcube_desktop.imaging.slice_data import SliceData


def _exact(values, center, width, inverted=False):
    values = np.asarray(values, dtype=np.float64)
    unit = np.clip((values - (center - width / 2)) / width, 0.0, 1.0)
    if inverted:  # MONOCHROME1: the window's output inverted (1 - y), then scaled
        unit = 1.0 - unit
    return np.rint(unit * 255).astype(np.uint8)


def _slice(pixels, **kw):
    return SliceData(np.asarray(pixels), False, kw.pop("photometric", "MONOCHROME2"), **kw)


FLOATS = [[0.5, 25.25, 50.0], [74.75, 99.5, 120.0]]  # not whole: the float path


@pytest.mark.parametrize("pixels", [FLOATS, [[0, 25, 50], [75, 100, 120]]])
def test_the_users_window_is_used_over_the_files(pixels):
    data = _slice(
        np.asarray(pixels, dtype=np.float64), window=(10.0, 20.0), voi_lut_function="LINEAR_EXACT"
    )
    gray, used = to_gray8(data, window=(50.0, 100.0))
    assert used == (50.0, 100.0)
    np.testing.assert_array_equal(gray, _exact(pixels, 50, 100))
    inverted, _ = to_gray8(data, window=(50.0, 100.0), invert=True)
    np.testing.assert_array_equal(inverted, 255 - _exact(pixels, 50, 100))
    # the file's window when the user gives none
    gray, used = to_gray8(data)
    assert used == (10.0, 20.0)
    np.testing.assert_array_equal(gray, _exact(pixels, 10, 20))


@pytest.mark.parametrize("pixels", [FLOATS, [[0, 25, 50], [75, 100, 120]]])
def test_monochrome1_is_inverted_after_the_window_on_either_path(pixels):
    data = _slice(
        np.asarray(pixels, dtype=np.float64),
        photometric="MONOCHROME1",
        window=(50.0, 100.0),
        voi_lut_function="LINEAR_EXACT",
    )
    gray, _ = to_gray8(data)
    np.testing.assert_array_equal(gray, _exact(pixels, 50, 100, inverted=True))
    rgba, _ = gray_rgba(data)
    np.testing.assert_array_equal(rgba[..., 0], _exact(pixels, 50, 100, inverted=True))
    assert (rgba[..., 3] == 255).all()


def test_ct_without_a_window_gets_the_soft_tissue_window_and_a_file_window_wins():
    hu = np.array([[-1000.0, -160.5, 40.25], [239.5, 240.0, 1000.0]])
    gray, used = to_gray8(_slice(hu, modality="CT"))
    assert used == CT_SOFT_TISSUE_WINDOW
    np.testing.assert_array_equal(gray, _exact(hu, 40, 400))
    gray, used = to_gray8(
        _slice(hu, modality="CT", window=(0.0, 2000.0), voi_lut_function="LINEAR_EXACT")
    )
    assert used == (0.0, 2000.0)
    np.testing.assert_array_equal(gray, _exact(hu, 0, 2000))


def test_an_8_bit_picture_is_shown_as_stored_and_a_float_one_rounded_and_clipped():
    stored = np.array([[0, 7, 128], [200, 254, 255]], dtype=np.uint8)
    gray, used = to_gray8(_slice(stored, source_bits=8))
    assert used is None and gray.dtype == np.uint8
    np.testing.assert_array_equal(gray, stored)
    floats = np.array([[-3.0, 0.4, 0.6], [127.5, 254.6, 300.0]])
    gray, used = to_gray8(_slice(floats, source_bits=8))
    assert used is None and gray.dtype == np.uint8
    np.testing.assert_array_equal(gray, [[0, 0, 1], [128, 255, 255]])
    # a user window still applies to an 8-bit picture
    gray, used = to_gray8(_slice(stored, source_bits=8), window=(100.0, 50.0))
    assert used == (100.0, 50.0)
    np.testing.assert_array_equal(gray, _exact(stored, 100, 50))


def test_a_slice_without_a_finite_value_is_black_with_a_note():
    data = _slice(np.full((2, 3), np.nan))
    gray, used = to_gray8(data)
    assert used is None and gray.dtype == np.uint8 and gray.shape == (2, 3) and not gray.any()
    rendered = compose_rgba(data)
    assert rendered.rgba.shape == (2, 3, 4) and not rendered.rgba[..., :3].any()
    assert (rendered.rgba[..., 3] == 255).all()
    assert any("no pixel of this slice holds a finite value" in n for n in rendered.notes)


@pytest.mark.parametrize("dtype", [np.int16, np.float64])
def test_one_value_throughout_is_said_so_and_two_values_are_not(dtype):
    one = compose_rgba(_slice(np.full((3, 3), 7, dtype=dtype)))
    assert "the image holds one value (7) throughout: shown mid-grey" in one.notes
    two = np.full((3, 3), 7, dtype=dtype)
    two[0, 0] = 9
    assert not any("one value" in n for n in compose_rgba(_slice(two)).notes)


def test_a_box_on_a_reduced_decode_is_divided_by_the_reduction():
    # a 40 x 60 file decoded at a quarter (10 x 15): the box (8, 4, 40, 36) in file
    # pixels is (2, 1, 10, 9) on the slice
    data = _slice(np.zeros((10, 15)), stored_shape=(10, 15), reduction=4)
    assert box_on_slice(data, (8.0, 4.0, 40.0, 36.0)) == (2, 1, 10, 9)
    full = _slice(np.zeros((10, 15)))
    assert box_on_slice(full, (2.0, 1.0, 10.0, 9.0)) == (2, 1, 10, 9)
    assert box_on_slice(_slice(np.zeros((4, 30))), (20.0, 0.0, 29.0, 3.0)) == (20, 0, 29, 3)


def test_a_large_picture_is_shrunk_by_the_smallest_factor_and_says_so():
    pixels = np.arange(10 * 7, dtype=np.float64).reshape(10, 7)
    rendered = compose_rgba(_slice(pixels, window=(35.0, 70.0), voi_lut_function="LINEAR_EXACT"))
    assert rendered.facts.factor == 1
    assert shrink_for_display(rendered, 10) is rendered  # fits: unchanged
    small = shrink_for_display(rendered, 4)  # ceil(10 / 4) = 3: 10 x 7 -> 4 x 3 (Pillow)
    assert small.rgba.shape == (4, 3, 4)
    assert small.notes[-1] == "shown at 1/3 resolution (7x10 pixels in the file)"
    assert small.facts.factor == 3 and small.facts.values is rendered.facts.values
    # the top-left 3 x 3 block averaged (Pillow's box reduce)
    block = rendered.rgba[:3, :3, 0].astype(float).mean()
    assert abs(int(small.rgba[0, 0, 0]) - block) <= 0.5
    assert shrink_for_display(small, 2).facts.factor == 6  # factors multiply


def _masked_item(tmp_path):
    import shutil

    from PIL import Image

    from medrcube_desktop.core.items import Item
    from medrcube_desktop.core.taxonomy import canonical_task
    from tests.conftest import dicom_file

    image = tmp_path / "ct.dcm"
    shutil.copy(dicom_file("CT_small.dcm"), image)
    mask = np.zeros((128, 128), dtype=np.uint8)
    mask[40:60, 50:70] = 255
    Image.fromarray(mask).save(tmp_path / "mask.png")
    task = canonical_task("Modality Recognition")
    return Item(
        "ct", "q", {"A": "a"}, "A", task, task.name, "CT", "Chest", "ds", image,
        tmp_path / "test.json", mask_path=tmp_path / "mask.png", bbox=(10.0, 20.0, 100.0, 110.0),
    )  # fmt: skip


def test_an_items_overlay_and_display_choices_reach_the_picture(tmp_path):
    from medrcube_desktop.imaging.render import render_file, render_item

    item = _masked_item(tmp_path)
    plain = render_file(item.image_path).rgba
    g = plain[50, 60, 0].astype(float)
    shown = render_item(item).rgba  # overlay: the mask at 0.4 and the red box
    assert tuple(shown[50, 60, :3]) == (round(0.6 * g + 0.4 * 255), round(0.6 * g), round(0.6 * g))
    assert tuple(shown[20, 50]) == (255, 0, 0, 255)  # the box's top edge
    bare = render_item(item, overlay=False).rgba  # neither mask nor box
    np.testing.assert_array_equal(bare, plain)
    opaque = render_item(item, mask_alpha=1.0).rgba
    assert tuple(opaque[50, 60, :3]) == (255, 0, 0)
    outline = render_item(item, mask_outline=True).rgba  # only the mask's border
    np.testing.assert_array_equal(outline[50, 60], plain[50, 60])
    assert tuple(outline[40, 60, :3]) != tuple(plain[40, 60, :3])
    windowed = render_item(item, window=(0.0, 100.0), overlay=False)
    assert windowed.window == (0.0, 100.0)
    negative = render_item(item, overlay=False, invert=True).rgba
    np.testing.assert_array_equal(negative[..., :3], 255 - plain[..., :3])


def test_mr_gets_the_foreground_window_and_other_modalities_the_robust_one():
    from medrcube_desktop.imaging.auto_window import foreground_window, robust_window

    # a dark background (0) around tissue 100..199: the foreground's percentiles differ
    # from those of every pixel
    pixels = np.zeros((40, 40), dtype=np.float64)
    pixels[10:30, 10:30] = 100.0 + np.arange(400).reshape(20, 20) % 100
    assert foreground_window(pixels) != robust_window(pixels)
    _, used = to_gray8(_slice(pixels, modality="MR"))
    assert used == foreground_window(pixels)
    _, used = to_gray8(_slice(pixels, modality="OT"))
    assert used == robust_window(pixels)
    _, used = to_gray8(_slice(pixels))  # modality unknown
    assert used == robust_window(pixels)


def test_a_users_narrow_window_is_kept_down_to_a_millionth():
    gray, used = to_gray8(_slice(np.array([[49.0, 50.25, 51.0]])), window=(50.0, 0.5))
    assert used == (50.0, 0.5)
    np.testing.assert_array_equal(gray, _exact([[49.0, 50.25, 51.0]], 50, 0.5))
    _, used = to_gray8(_slice(np.array([[1.5, 2.5]])), window=(2.0, 0.0))
    assert used == (2.0, 1e-6)


def test_the_negative_of_a_float_slice_as_rgba():
    data = _slice(np.array(FLOATS), window=(50.0, 100.0), voi_lut_function="LINEAR_EXACT")
    rgba, _ = gray_rgba(data, invert=True)
    np.testing.assert_array_equal(rgba[..., 0], 255 - _exact(FLOATS, 50, 100))
    assert (rgba[..., 3] == 255).all()


def test_one_value_with_padding_is_still_one_value():
    pixels = np.full((3, 3), 7.0)
    pixels[0, 0] = np.nan  # padding
    assert (
        "the image holds one value (7) throughout: shown mid-grey"
        in compose_rgba(_slice(pixels)).notes
    )


def test_the_files_overlay_planes_and_a_supplemental_palette_are_drawn_and_a_plain_slice_is_grey():
    from medrcube_desktop.imaging.compositing import GRAPHICS_RGB

    pixels = np.full((3, 4), 50.0)
    plain = compose_rgba(_slice(pixels, window=(50.0, 100.0), voi_lut_function="LINEAR_EXACT"))
    assert plain.gray is True and plain.legend == []
    graphics = np.zeros((3, 4), dtype=bool)
    graphics[1, 2] = True
    drawn = compose_rgba(
        _slice(pixels, window=(50.0, 100.0), voi_lut_function="LINEAR_EXACT", graphics=graphics)
    )
    assert tuple(drawn.rgba[1, 2, :3]) == tuple(GRAPHICS_RGB)
    np.testing.assert_array_equal(drawn.rgba[0, 0], plain.rgba[0, 0])
    supplemental = np.zeros((3, 4), dtype=bool)
    supplemental[2, 0] = True
    colours = np.zeros((3, 4, 3), dtype=np.uint8)
    colours[..., 1] = 200
    tinted = compose_rgba(
        _slice(
            pixels,
            window=(50.0, 100.0),
            voi_lut_function="LINEAR_EXACT",
            supplemental=supplemental,
            supplemental_rgb=colours,
        )
    )
    assert tuple(tinted.rgba[2, 0, :3]) == (0, 200, 0)
    np.testing.assert_array_equal(tinted.rgba[0, 0], plain.rgba[0, 0])
    # a box on a slice with nothing else drawn: red, and the picture no longer grey
    boxed = compose_rgba(_slice(pixels, window=(50.0, 100.0)), bbox=(0.0, 0.0, 3.0, 2.0))
    assert tuple(boxed.rgba[0, 0]) == (255, 0, 0, 255) and boxed.gray is False


def test_a_box_is_clipped_to_the_slice_and_divided_by_any_reduction_above_one():
    data = _slice(np.zeros((10, 15)), stored_shape=(10, 15), reduction=4)
    assert box_on_slice(data, (8.0, 4.0, 20.0, 12.0)) == (2, 1, 5, 3)
    half = _slice(np.zeros((10, 15)), stored_shape=(10, 15), reduction=2)
    assert box_on_slice(half, (8.0, 4.0, 20.0, 12.0)) == (4, 2, 10, 6)
    wide = _slice(np.zeros((4, 30)))  # rows 0..3: y clipped to 3
    assert box_on_slice(wide, (0.0, 2.0, 3.0, 10.0)) == (0, 2, 3, 3)
