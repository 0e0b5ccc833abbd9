"""Decoding ranges declared once, one whole-number parser for every whole-number flag."""

import argparse
import math

import pytest

from medrcube_desktop.cli.argtypes import count, positive, sampling, seed, whole
from medrcube_desktop.errors import EngineError
from medrcube_desktop.evaluation.engines.base import SAMPLING_RANGES, SamplingConfig


def test_max_tokens_has_an_upper_bound_on_the_flag_and_in_the_config():
    assert SAMPLING_RANGES["max_tokens"][1] == 2**20
    parse = sampling("max_tokens")
    assert parse("1048576") == 2**20
    for text in ("99999999999999999999", "1048577"):
        with pytest.raises(argparse.ArgumentTypeError, match="1,048,576"):
            parse(text)
    with pytest.raises(EngineError, match="max_tokens"):
        SamplingConfig(max_tokens=2**20 + 1)


def test_every_whole_number_flag_reads_1e3_alike():
    for parse in (whole, positive, count, seed, sampling("seed"), sampling("max_tokens")):
        with pytest.raises(argparse.ArgumentTypeError):
            parse("1e3")
        with pytest.raises(argparse.ArgumentTypeError):
            parse("1.0")
        with pytest.raises(argparse.ArgumentTypeError):
            parse("1_000")
        with pytest.raises(argparse.ArgumentTypeError):
            parse("\u0661\u0662")  # Arabic-Indic digits: int() reads them as 12
        assert parse("1000") == 1000


def test_a_negative_zero_temperature_is_stored_as_zero():
    value = sampling("temperature")("-0")
    assert value == 0 and math.copysign(1.0, value) == 1.0
    config = SamplingConfig(temperature=-0.0)
    assert math.copysign(1.0, config.temperature) == 1.0


def test_the_slice_and_milliseconds_flags_use_the_same_parser():
    from medrcube_desktop.cli.benchmark import slice_choice
    from medrcube_desktop.cli.gui import milliseconds

    assert slice_choice("auto") is None and slice_choice("12") == 12
    assert milliseconds("300") == 300
    for parse in (slice_choice, milliseconds):
        for text in ("1e3", "\u00b2", "-1"):  # a superscript two passed str.isdigit()
            with pytest.raises(argparse.ArgumentTypeError):
                parse(text)
