"""The RGBA word tables lookup_tables keeps (issue 26, mutants the earlier suite could
not see): a table covering the values asked is reused as it is, one that does not is
built again over the range joined with the kept one's, the last WORD_TABLES_KEPT (16)
are kept and the least recently used is dropped first, and a kept table is read-only.
Every table's words are checked against window_gray8's levels too."""

from collections import OrderedDict

import numpy as np
import pytest

from medrcube_desktop.imaging import lookup_tables
from medrcube_desktop.imaging.lookup_tables import WORD_TABLES_KEPT, _word_table, window_gray8

U16 = np.dtype(np.uint16)


@pytest.fixture(autouse=True)
def fresh(monkeypatch):
    """An empty memory of tables for each test."""
    kept = OrderedDict()
    monkeypatch.setattr(lookup_tables, "_WORD_TABLES", kept)
    return kept


def _table(low, high, center=40.0):
    return _word_table(U16, (center, 400.0), "LINEAR", False, False, low, high)


def _words(table, values, center=40.0):
    """The table's bytes R, G, B, A of ``values``, and the levels by the formula."""
    got = table.view(np.uint8).reshape(-1, 4)[np.asarray(values)]
    level = window_gray8(np.asarray(values, np.float64), (center, 400.0), "LINEAR", False)
    expected = np.stack([level, level, level, np.full_like(level, 255)], axis=-1)
    return got, expected


def test_a_table_covering_the_range_is_reused_at_its_edges_and_inside(fresh):
    table = _table(0, 100)
    assert not table.flags.writeable
    assert _table(0, 100) is table  # the same range: both edges included
    assert _table(10, 20) is table  # inside: above the low end, below the high end
    assert _table(0, 0) is table and _table(100, 100) is table
    got, expected = _words(table, [0, 17, 100])
    np.testing.assert_array_equal(got, expected)
    assert list(fresh.values())[0][:2] == (0, 100)


def test_a_range_beyond_the_kept_table_builds_one_over_both(fresh):
    first = _table(0, 100)
    joined = _table(200, 300)
    assert joined is not first
    assert list(fresh.values())[0][:2] == (0, 300)
    assert _table(0, 10) is joined  # the first range is covered by the joined table
    got, expected = _words(joined, [0, 100, 150, 200, 300])  # 150: between, built too
    np.testing.assert_array_equal(got, expected)


def test_sixteen_tables_are_kept_and_the_least_recently_used_dropped_first(fresh):
    assert WORD_TABLES_KEPT == 16
    tables = [_table(0, 10, center=float(c)) for c in range(16)]
    assert len(fresh) == 16
    assert all(_table(0, 10, center=float(c)) is tables[c] for c in range(16))
    assert _table(0, 10, center=0.0) is tables[0]  # used last now: 1 is the oldest
    newest = _table(0, 10, center=16.0)  # a 17th: the oldest (centre 1) goes
    assert len(fresh) == 16
    assert _table(0, 10, center=16.0) is newest
    assert _table(0, 10, center=0.0) is tables[0]
    assert all(_table(0, 10, center=float(c)) is tables[c] for c in range(2, 16))
    rebuilt = _table(0, 10, center=1.0)
    assert rebuilt is not tables[1]
    np.testing.assert_array_equal(rebuilt, tables[1])  # the same words, built again
