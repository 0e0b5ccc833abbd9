"""render.render_item's display choices reaching the file and the picture, and the
one-value note (issue 26, mutants that survived): the view's size passed to the decode
(a JPEG 2000 file twice the view's size or more decodes reduced), ``overlay=False``
hiding the file's own overlay planes as well as the mask and box, and the "one value"
note kept from a flat window over values that differ (a file's threshold window of width
1) or over no finite value; and what _finish hands the viewer: the empty-mask, box-outside
and no-finite-value notes word for word and only where they hold, the readout's unit
("RGB" for colour), the pixel aspect and edge letters, the legend and grey flag. Files: pydicom's MR_small_jp2klossless.dcm (64 x 64) and CT_small.dcm
with an overlay plane written by hand; grey levels by PS3.3 C.11.2.1.3.2."""

import shutil

import numpy as np
import pydicom
from pydicom.data import get_testdata_file
from pydicom.pixels import pack_bits

from medrcube_desktop.core.items import Item
from medrcube_desktop.core.taxonomy import canonical_task
from medrcube_desktop.imaging.compositing import GRAPHICS_RGB
from medrcube_desktop.imaging.render import compose_rgba, render_file, render_item
from medrcube_desktop.imaging.slice_data import SliceData


def _item(tmp_path, image):
    task = canonical_task("Modality Recognition")
    return Item(
        "it", "q", {"A": "a"}, "A", task, task.name, "MR", "Brain", "ds", image,
        tmp_path / "test.json",
    )  # fmt: skip


def test_the_views_size_reaches_the_decode_of_a_jpeg_2000_file(tmp_path):
    image = tmp_path / "mr.dcm"
    shutil.copy(get_testdata_file("MR_small_jp2klossless.dcm"), image)
    item = _item(tmp_path, image)
    full = render_item(item)
    assert full.rgba.shape[:2] == (64, 64) and full.facts.reduction == 1
    reduced = render_item(item, display_side=16)  # 64 is 4 x 16: two levels down
    assert reduced.rgba.shape[:2] == (16, 16) and reduced.facts.reduction == 4
    assert any(n.startswith("reduced 1/4: decoded at 16x16") for n in reduced.notes)


def test_overlay_false_hides_the_files_overlay_planes(tmp_path):
    ds = pydicom.dcmread(get_testdata_file("CT_small.dcm"))
    plane = np.zeros((128, 128), np.uint8)
    plane[5, 9] = 1
    for element, vr, value in (
        (0x0010, "US", 128), (0x0011, "US", 128), (0x0040, "CS", "G"), (0x0050, "SS", [1, 1]),
        (0x0100, "US", 1), (0x0102, "US", 0), (0x3000, "OW", pack_bits(plane.ravel())),
    ):  # fmt: skip
        ds.add_new(0x60000000 | element, vr, value)
    image = tmp_path / "ct.dcm"
    ds.save_as(image)
    item = _item(tmp_path, image)
    shown = render_item(item)
    assert tuple(shown.rgba[5, 9, :3]) == tuple(GRAPHICS_RGB)
    assert shown.legend == [] and shown.gray is False  # no mask; yellow drawn
    bare = render_item(item, overlay=False)
    plain = render_file(image)  # the picture with its overlay drawn
    np.testing.assert_array_equal(plain.rgba[5, 9, :3], GRAPHICS_RGB)
    # without: the tissue under the mark, grey as its neighbours are
    g = bare.rgba[5, 9, 0]
    assert tuple(bare.rgba[5, 9]) == (g, g, g, 255)
    np.testing.assert_array_equal(
        np.delete(bare.rgba.reshape(-1, 4), 5 * 128 + 9, 0),
        np.delete(plain.rgba.reshape(-1, 4), 5 * 128 + 9, 0),
    )


def test_a_threshold_window_over_two_values_is_not_one_value():
    # a file's Window Width 1 (PS3.3 C.11.2.1.2.1, LINEAR): a threshold at c - 0.5 = 0;
    # the window is as flat as one value's, but the slice holds 0 and 1: black and white
    pixels = np.array([[0, 1, 1], [0, 0, 1]], np.int16)
    data = SliceData(pixels, False, "MONOCHROME2", None, window=(0.5, 1.0))
    rendered = compose_rgba(data)
    assert rendered.window == (0.5, 1.0)
    assert not any("one value" in n for n in rendered.notes)
    np.testing.assert_array_equal(rendered.rgba[..., 0], [[0, 255, 255], [0, 0, 255]])


def test_a_users_flat_window_over_no_finite_value_is_black_and_not_one_value():
    pixels = np.full((2, 3), np.nan)
    rendered = compose_rgba(SliceData(pixels, False, "MONOCHROME2", None), window=(10.0, 1.0))
    assert rendered.window == (10.0, 1.0)
    assert not rendered.rgba[..., :3].any()
    assert rendered.notes == [
        "no pixel of this slice holds a finite value (NaN or infinite): nothing to window"
    ]


def test_a_palette_mask_without_its_colours_or_colours_without_a_mask_draw_nothing():
    pixels = np.array([[0, 50, 100]], np.int16)
    window = (50.0, 100.0)
    plain = compose_rgba(SliceData(pixels, False, "MONOCHROME2", None, window=window))
    mapped = np.array([[False, True, True]])
    colours = np.zeros((1, 3, 3), np.uint8)
    colours[..., 1] = 200
    graphics = np.zeros((1, 3), bool)  # something else drawn: the drawing path is taken
    for supplemental, rgb in ((mapped, None), (None, colours)):
        data = SliceData(
            pixels, False, "MONOCHROME2", None, window=window, graphics=graphics,
            supplemental=supplemental, supplemental_rgb=rgb,
        )  # fmt: skip
        np.testing.assert_array_equal(compose_rgba(data).rgba, plain.rgba)


def test_an_empty_mask_on_a_single_slice_is_said_and_a_labelled_or_volume_one_is_not():
    pixels = np.zeros((3, 4), np.int16)
    empty = np.zeros((3, 4), np.int32)
    said = compose_rgba(SliceData(pixels, False, "MONOCHROME2", None, mask=empty))
    assert "the mask labels no pixel: nothing to draw" in said.notes
    labelled = empty.copy()
    labelled[1, 1] = 1
    quiet = compose_rgba(SliceData(pixels, False, "MONOCHROME2", None, mask=labelled))
    assert not any("mask" in n for n in quiet.notes)
    # a volume's slice without labels: other slices may hold them (loading says where)
    volume = SliceData(pixels, False, "MONOCHROME2", None, mask=empty, slice_count=3)
    assert not any("mask" in n for n in compose_rgba(volume).notes)


def test_a_box_outside_the_slice_is_named_in_a_note():
    data = SliceData(np.zeros((3, 4), np.int16), False, "MONOCHROME2", None)
    rendered = compose_rgba(data, bbox=(10.0, 20.0, 30.0, 40.0))
    assert "the item's box [10.0, 20.0, 30.0, 40.0] lies outside the image: not drawn" in (
        rendered.notes
    )


def test_colour_reads_out_as_rgb_and_grey_in_its_unit():
    rgb = np.zeros((2, 2, 3), np.uint8)
    colour = compose_rgba(SliceData(rgb, True, "RGB", None, value_unit="HU"))
    assert colour.facts.unit == "RGB"
    grey = compose_rgba(SliceData(np.zeros((2, 2), np.int16), False, "MONOCHROME2", None,
                                  value_unit="HU"))  # fmt: skip
    assert grey.facts.unit == "HU"


def test_the_pixel_aspect_and_edge_letters_of_a_dicom_reach_the_rendering(tmp_path):
    # CT_small: axial (Image Orientation (Patient) 1\0\0\0\1\0): rows run to the
    # patient's left, columns to posterior, so A at the top, P at the bottom, R at the
    # left edge, L at the right; Pixel Spacing 0.5\0.25 (row, column): 2.0 tall
    ds = pydicom.dcmread(get_testdata_file("CT_small.dcm"))
    ds.PixelSpacing = [0.5, 0.25]
    image = tmp_path / "ct.dcm"
    ds.save_as(image)
    rendered = render_file(image)
    assert rendered.pixel_aspect == 2.0
    assert rendered.edge_labels == {"top": "A", "bottom": "P", "left": "R", "right": "L"}


def test_the_no_finite_value_note_only_for_a_float_slice_without_one():
    for pixels in (np.full((1, 1), np.nan), np.array([[np.nan, np.inf], [-np.inf, np.nan]])):
        notes = compose_rgba(SliceData(pixels, False, "MONOCHROME2", None)).notes
        assert notes == [
            "no pixel of this slice holds a finite value (NaN or infinite): nothing to window"
        ]
    for pixels in (np.full((1, 1), 2.5), np.array([[np.nan, 1.5], [2.0, 3.0]]), np.zeros((0, 3))):
        rendered = compose_rgba(SliceData(pixels, False, "MONOCHROME2", None))
        assert not any("finite" in n for n in rendered.notes)
        assert rendered.rgba.shape == pixels.shape + (4,)
