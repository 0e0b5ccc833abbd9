"""Command-line value types: sizes, shares and sampling numbers (issue 11)."""

import argparse
import re

import pytest

from medrcube_desktop.cli.argtypes import byte_size, finite, fraction, share
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


def test_a_base_url_needs_http_or_https_and_a_host():
    from medrcube_desktop.cli.argtypes import base_url

    assert base_url(" http://localhost:8000/v1 ") == "http://localhost:8000/v1"
    assert base_url("https://api.openai.com/v1") == "https://api.openai.com/v1"
    for good in ("http://[::1]:8000/v1", "http://[fe80::1%25eth0]:9/v1", "http://u:p@h:1/v1",
                 "http://10.0.0.2/v1", "https://my-azure.openai.azure.com/openai"):  # fmt: skip
        assert base_url(good) == good
    for bad, said in (
        ("notaurl", "not an http(s) URL with a host: 'notaurl'"),
        ("localhost:8000/v1", "not an http(s) URL"),  # the scheme forgotten
        ("ftp://host/v1", "not an http(s) URL"),
        ("http:///v1", "not an http(s) URL"),
        ("http://host:99999/v1", "not a URL: 'http://host:99999/v1' (Port out of range"),
        ("http://host:port/v1", "not a URL"),
        ("http://localhost:1/v1 x", "not a URL: 'http://localhost:1/v1 x' (a space inside"),
        ("http://[::1]x/v1", "not a URL: 'http://[::1]x/v1' (the host and port cannot be read)"),
        ("http://h:/v1", "not a URL: 'http://h:/v1' (the host and port cannot be read)"),
    ):
        with pytest.raises(argparse.ArgumentTypeError, match=re.escape(said)):
            base_url(bad)


def test_a_share_that_is_not_a_number_is_told_so_not_that_it_is_out_of_range():
    assert (share("0"), share("1"), share("0.25")) == (0.0, 1.0, 0.25)
    for bad, said in (("", "expected a number from 0 to 1, got ''"),
                      ("half", "expected a number from 0 to 1, got 'half'"),
                      ("nan", "expected a number from 0 to 1, got 'nan'"),
                      ("1.01", "must be between 0 and 1, got '1.01'"),
                      ("-0.1", "must be between 0 and 1, got '-0.1'"),
                      ("inf", "must be between 0 and 1, got 'inf'")):  # fmt: skip
        with pytest.raises(argparse.ArgumentTypeError, match=f"^{re.escape(said)}$"):
            share(bad)
