"""Overlay planes (60xx groups, PS3.3 C.9.2) drawn as the image's graphics (issue 26):
every group read, not only the first present; an unreadable plane noted and skipped; a
plane on another grid left out; a multi-frame overlay's plane for the frame shown, none
past its frames. The planes are written by hand (bits packed with pydicom's pack_bits)
into pydicom's CT_small.dcm (128 x 128)."""

import numpy as np
import pydicom
import pytest
from pydicom.data import get_testdata_file
from pydicom.pixels import pack_bits

from medrcube_desktop.imaging.dicom import _overlay_planes, _plain_overlay

SHAPE = (128, 128)


def _plane(rows=128, columns=128, marks=((0, 0),)):
    plane = np.zeros((rows, columns), np.uint8)
    for r, c in marks:
        plane[r, c] = 1
    return plane


def _add(ds, group, planes):
    frames = np.stack(planes)
    rows, columns = frames.shape[1:]
    ds.add_new((group << 16) | 0x0010, "US", rows)
    ds.add_new((group << 16) | 0x0011, "US", columns)
    ds.add_new((group << 16) | 0x0040, "CS", "G")
    ds.add_new((group << 16) | 0x0050, "SS", [1, 1])
    ds.add_new((group << 16) | 0x0100, "US", 1)
    ds.add_new((group << 16) | 0x0102, "US", 0)
    if len(planes) > 1:
        ds.add_new((group << 16) | 0x0015, "IS", len(planes))
    ds.add_new((group << 16) | 0x3000, "OW", pack_bits(frames.ravel()))


def _ct():
    return pydicom.dcmread(get_testdata_file("CT_small.dcm"))


def test_a_plane_in_a_later_group_alone_is_drawn():
    ds = _ct()
    _add(ds, 0x6002, [_plane(marks=[(3, 4)])])
    notes = []
    graphics = _overlay_planes(ds, SHAPE, 0, notes)
    np.testing.assert_array_equal(graphics, _plane(marks=[(3, 4)]).astype(bool))
    assert notes == []


def test_several_groups_are_combined():
    ds = _ct()
    _add(ds, 0x6000, [_plane(marks=[(1, 1)])])
    _add(ds, 0x6004, [_plane(marks=[(2, 7)])])
    _add(ds, 0x601E, [_plane(marks=[(127, 127)])])  # the last of the 16 groups
    graphics = _overlay_planes(ds, SHAPE, 0, [])
    assert graphics.dtype == bool
    np.testing.assert_array_equal(np.argwhere(graphics), [[1, 1], [2, 7], [127, 127]])


def test_an_unreadable_plane_is_noted_and_the_next_still_drawn():
    ds = _ct()
    _add(ds, 0x6000, [_plane()])
    del ds[0x60000010]  # no Overlay Rows: pydicom cannot read the plane
    _add(ds, 0x6002, [_plane(marks=[(5, 6)])])
    notes = []
    graphics = _overlay_planes(ds, SHAPE, 0, notes)
    np.testing.assert_array_equal(np.argwhere(graphics), [[5, 6]])
    assert len(notes) == 1 and notes[0].startswith("overlay 6000 unreadable: ")


def test_a_plane_on_another_grid_is_noted_and_the_next_still_drawn():
    ds = _ct()
    _add(ds, 0x6000, [_plane(64, 64)])
    _add(ds, 0x6002, [_plane(marks=[(9, 9)])])
    notes = []
    graphics = _overlay_planes(ds, SHAPE, 0, notes)
    np.testing.assert_array_equal(np.argwhere(graphics), [[9, 9]])
    assert notes == ["overlay 6000 is on another grid: not drawn"]


def test_a_multi_frame_overlay_gives_the_frame_shown_and_nothing_past_its_frames():
    ds = _ct()
    _add(ds, 0x6000, [_plane(marks=[(0, 1)]), _plane(marks=[(2, 3)])])
    assert np.asarray(ds.overlay_array(0x6000)).shape == (2, 128, 128)
    np.testing.assert_array_equal(np.argwhere(_overlay_planes(ds, SHAPE, 0, [])), [[0, 1]])
    np.testing.assert_array_equal(np.argwhere(_overlay_planes(ds, SHAPE, 1, [])), [[2, 3]])
    for frame in (2, 5):  # past the overlay's two frames: an empty plane on the grid
        notes = []
        graphics = _overlay_planes(ds, SHAPE, frame, notes)
        assert graphics.shape == SHAPE and graphics.dtype == bool and not graphics.any()
        assert notes == []


def test_no_overlay_is_none():
    assert _overlay_planes(_ct(), SHAPE, 0, []) is None


def test_loading_notes_an_unreadable_plane_and_draws_the_frames_own(tmp_path):
    from medrcube_desktop.imaging.dicom import load_dicom_slice

    ds = pydicom.dcmread(get_testdata_file("emri_small.dcm"))  # 10 frames
    rows, columns = int(ds.Rows), int(ds.Columns)
    _add(ds, 0x6000, [_plane(rows, columns)])
    del ds[0x60000010]  # unreadable
    _add(ds, 0x6002, [_plane(rows, columns, [(1, 2)]), _plane(rows, columns, [(3, 4)])])
    path = tmp_path / "overlays.dcm"
    ds.save_as(path)
    data = load_dicom_slice(path, 1)
    np.testing.assert_array_equal(np.argwhere(data.graphics), [[3, 4]])
    assert any(note.startswith("overlay 6000 unreadable: ") for note in data.notes)


def _with_overlays(name):
    found = get_testdata_file(name, download=False)
    if found is None:
        pytest.skip(f"{name} is not installed (pydicom-data)")
    return pydicom.dcmread(found)


@pytest.mark.parametrize("name", ["MR-SIEMENS-DICOM-WithOverlays.dcm", "examples_overlay.dcm"])
def test_a_plain_plane_is_read_as_pydicoms_overlay_array(name):
    # pydicom's real files with overlay planes, read by the plain path: pydicom's own
    # overlay_array's bits, as bool, and the planes drawn are those
    ds = _with_overlays(name)
    plane = np.asarray(ds.overlay_array(0x6000))
    marked = _plain_overlay(ds, 0x60003000)
    assert marked is not None and marked.dtype == bool and marked.shape == plane.shape
    np.testing.assert_array_equal(marked, plane == 1)
    assert 0 < marked.sum() < marked.size
    notes = []
    np.testing.assert_array_equal(_overlay_planes(ds, plane.shape, 0, notes), plane == 1)
    assert notes == []


def test_an_odd_sized_plane_is_unpacked_to_its_own_bits():
    # 9 x 15 = 135 bits: 17 bytes and the pad byte; the bits written are read back in
    # place, those past 135 (the last byte's top bit, the pad byte) left out
    ds = _ct()
    bits = np.random.default_rng(2).integers(0, 2, (9, 15), dtype=np.uint8)
    _add(ds, 0x6000, [bits])
    data = bytearray(ds[0x60003000].value)
    assert len(data) == 18
    data[17] = 0xFF  # the pad byte
    data[16] |= 0x80  # bit 135, past the plane
    ds[0x60003000].value = bytes(data)
    marked = _plain_overlay(ds, 0x60003000)
    np.testing.assert_array_equal(marked, bits == 1)
    np.testing.assert_array_equal(marked, np.asarray(ds.overlay_array(0x6000)) == 1)


def test_other_planes_go_pydicoms_way():
    ds = _ct()
    _add(ds, 0x6000, [_plane(marks=[(0, 1)]), _plane(marks=[(2, 3)])])  # two frames
    assert _plain_overlay(ds, 0x60003000) is None
    ds = _ct()
    _add(ds, 0x6000, [_plane(marks=[(4, 5)])])
    ds[0x60003000].value = ds[0x60003000].value + b"\0\0"  # excess padding: pydicom warns
    assert _plain_overlay(ds, 0x60003000) is None
    np.testing.assert_array_equal(np.argwhere(_overlay_planes(ds, SHAPE, 0, [])), [[4, 5]])
    del ds[0x60000100]  # no Overlay Bits Allocated: pydicom refuses the plane
    assert _plain_overlay(ds, 0x60003000) is None
    notes = []
    assert _overlay_planes(ds, SHAPE, 0, notes) is None
    assert notes[0].startswith("overlay 6000 unreadable: ")


def test_a_plain_plane_is_read_without_pydicoms_overlay_array():
    # the plain read exists not to unpack, cut and copy the plane again (issue 25): a
    # single-frame plane of its exact length never reaches ds.overlay_array
    ds = _ct()
    _add(ds, 0x6000, [_plane(marks=[(7, 8)])])

    def refused(group):
        raise AssertionError(f"overlay_array({group:#x}) called for a plain plane")

    ds.overlay_array = refused
    notes = []
    np.testing.assert_array_equal(np.argwhere(_overlay_planes(ds, SHAPE, 0, notes)), [[7, 8]])
    assert notes == []


@pytest.mark.parametrize(
    ("rows", "columns", "length"),
    # PS3.5 8.1.1: ceil(rows x columns / 8) bytes, and a pad byte when that is odd
    [(1, 1, 2), (1, 17, 4), (3, 3, 2), (5, 5, 4), (2, 8, 2)],
)
def test_small_and_odd_planes_are_read_plain_to_their_own_bits(rows, columns, length):
    ds = _ct()
    bits = np.random.default_rng(rows * 100 + columns).integers(0, 2, (rows, columns), np.uint8)
    bits[-1, -1] = 1  # the last bit of the plane is one (bit rows x columns - 1)
    _add(ds, 0x6000, [bits])
    assert len(ds[0x60003000].value) == length
    marked = _plain_overlay(ds, 0x60003000)
    assert marked is not None and marked.dtype == bool
    np.testing.assert_array_equal(marked, bits == 1)
    np.testing.assert_array_equal(marked, np.asarray(ds.overlay_array(0x6000)) == 1)


def test_a_plane_without_pixels_is_left_to_pydicom():
    ds = _ct()
    _add(ds, 0x6000, [_plane(1, 8)])
    ds[0x60000010].value = 0  # Overlay Rows 0: no pixel, no byte
    ds[0x60003000].value = b""
    assert _plain_overlay(ds, 0x60003000) is None
    notes = []
    assert _overlay_planes(ds, SHAPE, 0, notes) is None
    assert notes == ["overlay 6000 is on another grid: not drawn"]


def test_a_plane_of_two_frames_as_long_as_one_is_read_by_frame():
    # 2 x 2 pixels: one frame is 4 bits, two frames 8 bits; either is 1 byte and its pad
    # byte, so only Number of Frames in Overlay (60xx,0015) tells the two apart
    ds = _ct()
    first, second = _plane(2, 2, [(0, 0)]), _plane(2, 2, [(1, 1)])
    _add(ds, 0x6000, [first, second])
    assert len(ds[0x60003000].value) == 2
    assert _plain_overlay(ds, 0x60003000) is None
    np.testing.assert_array_equal(_overlay_planes(ds, (2, 2), 0, []), first == 1)
    np.testing.assert_array_equal(_overlay_planes(ds, (2, 2), 1, []), second == 1)


def test_an_overlay_bits_allocated_pydicom_cannot_read_makes_the_plane_unreadable(tmp_path):
    # a US of 3 bytes: pydicom raises on reading it, in the plain read and in its own
    ds = _ct()
    _add(ds, 0x6000, [_plane(marks=[(1, 2)])])
    path = tmp_path / "bits.dcm"
    ds.save_as(path)
    raw = path.read_bytes()
    good = b"\x00\x60\x00\x01US\x02\x00\x01\x00"  # (6000,0100) US, 2 bytes, 1
    assert raw.count(good) == 1
    path.write_bytes(raw.replace(good, b"\x00\x60\x00\x01US\x03\x00\x01\x00\x00"))
    ds = pydicom.dcmread(path)
    assert _plain_overlay(ds, 0x60003000) is None
    notes = []
    assert _overlay_planes(ds, SHAPE, 0, notes) is None
    assert len(notes) == 1 and notes[0].startswith("overlay 6000 unreadable: ")


def test_a_plane_without_overlay_bits_allocated_or_data_is_unreadable():
    ds = _ct()
    _add(ds, 0x6000, [_plane(marks=[(1, 2)])])
    del ds[0x60000100]  # the exact length, but no Overlay Bits Allocated (PS3.3 C.9.2, type 1)
    assert _plain_overlay(ds, 0x60003000) is None
    notes = []
    assert _overlay_planes(ds, SHAPE, 0, notes) is None
    assert len(notes) == 1 and notes[0].startswith("overlay 6000 unreadable: ")
    ds = _ct()
    _add(ds, 0x6000, [_plane(marks=[(1, 2)])])
    ds[0x60003000].value = None  # an Overlay Data without a value
    assert _plain_overlay(ds, 0x60003000) is None
    notes = []
    assert _overlay_planes(ds, SHAPE, 0, notes) is None
    assert len(notes) == 1 and notes[0].startswith("overlay 6000 unreadable: ")


def test_a_multi_frame_plane_on_another_grid_is_noted_and_the_next_still_drawn():
    ds = _ct()
    _add(ds, 0x6000, [_plane(64, 64), _plane(64, 64)])  # pydicom's read: two frames
    _add(ds, 0x6002, [_plane(marks=[(9, 9)]), _plane(marks=[(9, 10)])])
    notes = []
    graphics = _overlay_planes(ds, SHAPE, 1, notes)
    np.testing.assert_array_equal(np.argwhere(graphics), [[9, 10]])
    assert notes == ["overlay 6000 is on another grid: not drawn"]


def test_plain_and_multi_frame_planes_are_combined_on_the_grid_of_the_first_two_axes():
    ds = _ct()
    _add(ds, 0x6000, [_plane(marks=[(1, 1)])])  # plain
    _add(ds, 0x6002, [_plane(marks=[(2, 2)]), _plane(marks=[(3, 3)])])  # pydicom's
    _add(ds, 0x6004, [_plane(marks=[(4, 4)])])  # plain, after pydicom's
    # the shape of the pixels: its first two axes are the grid (a trailing samples axis
    # does not put the planes on another grid)
    for shape in (SHAPE, (*SHAPE, 2)):
        notes = []
        graphics = _overlay_planes(ds, shape, 1, notes)
        np.testing.assert_array_equal(np.argwhere(graphics), [[1, 1], [3, 3], [4, 4]])
        assert notes == []
