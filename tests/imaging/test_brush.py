"""The brush of a proposed mask: a disc of a radius in mm on an anisotropic grid."""

from __future__ import annotations

import io

import numpy as np
import pytest

from medrcube_desktop.imaging.brush import (
    brush_pixels,
    labels_npy,
    paint_stroke,
    stroke_pixels,
)


def test_disc_of_2_mm_on_0_5_by_1_mm_pixels_counted_by_hand():
    # centre on pixel [10, 10]'s centre; rows 0.5 mm apart, columns 1 mm apart, r = 2 mm:
    # |dc| <= 2 columns; for each dc the rows with (dr*0.5)^2 + dc^2 <= 4:
    # dc=0: |dr| <= 4 -> 9; dc=±1: |dr| <= sqrt(3)/0.5 = 3.46 -> 7 each;
    # dc=±2: dr = 0 -> 1 each. 9 + 14 + 2 = 25
    covered = brush_pixels((21, 21), (10.5, 10.5), 2.0, (0.5, 1.0))
    assert covered.sum() == 25
    assert covered[10 - 4, 10] and covered[10 + 4, 10] and not covered[10 - 5, 10]
    assert covered[10, 12] and not covered[10, 13] and not covered[9, 12]


def test_isotropic_disc_matches_a_direct_count():
    radius, spacing = 3.3, (0.7, 0.7)
    covered = brush_pixels((40, 40), (20.0, 17.25), radius, spacing)
    rows, cols = np.mgrid[0:40, 0:40]
    direct = np.hypot((cols + 0.5 - 20.0) * 0.7, (rows + 0.5 - 17.25) * 0.7) <= radius
    assert np.array_equal(covered, direct)


def test_a_stroke_is_the_capsule_along_its_segment():
    # a horizontal stroke from x 5.5 to 15.5 on row centre 10.5, radius 1 px (no spacing):
    # rows 9..11 on columns 5..15 (distance 1 at the row above/below), plus the caps'
    # pixels at columns 4 and 16 on row 10 -> 3*11 + 2 = 35
    covered = stroke_pixels((20, 20), [(5.5, 10.5), (15.5, 10.5)], 1.0, None)
    assert covered.sum() == 35
    # a fast drag leaves no gap: every column between the ends is painted on row 10
    assert covered[10, 4:17].all()


def test_paint_and_erase_count_the_changed_pixels():
    labels = np.zeros((21, 21), dtype=np.uint8)
    assert paint_stroke(labels, [(10.5, 10.5)], 2.0, (0.5, 1.0), 3) == 25
    assert set(np.unique(labels)) == {0, 3}
    assert paint_stroke(labels, [(10.5, 10.5)], 2.0, (0.5, 1.0), 3) == 0  # already 3
    erased = paint_stroke(labels, [(10.5, 10.5)], 1.0, (0.5, 1.0), 0)
    # r = 1 mm: dc=0 |dr|<=2 -> 5; dc=±1 dr=0 -> 2: 7 erased
    assert erased == 7 and labels.sum() == 3 * (25 - 7)


def test_a_stroke_off_the_grid_paints_nothing():
    assert not stroke_pixels((10, 10), [(-50.0, -50.0)], 2.0, None).any()


@pytest.mark.parametrize("bad", [0.0, -1.0, float("nan")])
def test_bad_radius_is_refused(bad):
    with pytest.raises(ValueError, match="radius"):
        brush_pixels((5, 5), (1.0, 1.0), bad, None)


def test_bad_spacing_is_refused():
    with pytest.raises(ValueError, match="spacing"):
        brush_pixels((5, 5), (1.0, 1.0), 1.0, (0.0, 1.0))


def test_labels_npy_round_trips_in_the_smallest_dtype():
    small = np.array([[0, 1], [2, 255]], dtype=np.int32)
    read = np.load(io.BytesIO(labels_npy(small)))
    assert read.dtype == np.uint8 and np.array_equal(read, small)
    wide = np.array([[0, 300]], dtype=np.int32)
    read = np.load(io.BytesIO(labels_npy(wide)))
    assert read.dtype == np.uint16 and read.tolist() == [[0, 300]]
    with pytest.raises(ValueError, match="0..65535"):
        labels_npy(np.array([[-1, 0]]))
    with pytest.raises(ValueError, match="2-D"):
        labels_npy(np.zeros((2, 2, 2), dtype=np.uint8))
