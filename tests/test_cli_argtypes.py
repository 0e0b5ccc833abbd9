"""Command-line value types: sizes, shares and sampling numbers (issue 11)."""

import argparse

import pytest

from medrcube_desktop.cli.argtypes import byte_size, finite, fraction
from medrcube_desktop.core.units import byte_size_text, parse_byte_size


def test_byte_sizes_read_with_units_and_written_back_in_the_largest_whole_one():
    assert byte_size("2G") == 2 * 1024**3 and byte_size("512MiB") == 512 * 1024**2
    assert byte_size("1.5K") == 1536 and byte_size("268435456") == 256 * 1024**2
    for size in (2 * 1024**3, 256 * 1024**2, 1536, 1000):
        assert byte_size(byte_size_text(size)) == size
    assert byte_size_text(256 * 1024**2) == "256M" and byte_size_text(1000) == "1000"
    for bad in ("abc", "0", "inf", "1e400", "2X"):
        with pytest.raises(argparse.ArgumentTypeError):
            byte_size(bad)
        with pytest.raises(ValueError, match="such as 2G"):
            parse_byte_size(bad)  # what the Evaluate pane reads


def test_shares_and_sampling_numbers_refuse_what_no_run_can_use():
    assert fraction("0.3") == 0.3 and finite("-1.5") == -1.5
    for bad in ("0", "1.5", "nan", "x"):
        with pytest.raises(argparse.ArgumentTypeError):
            fraction(bad)
    for bad in ("nan", "inf", "-inf", "x"):
        with pytest.raises(argparse.ArgumentTypeError):
            finite(bad)
