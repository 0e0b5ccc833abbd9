"""Decoding parameters out of range are refused before anything is sent (issue 21:
``--top-p 2`` was sent as is); one declaration (``SAMPLING_RANGES``) for the CLI and
the engines the Evaluate pane builds."""

from __future__ import annotations

import pytest

from medrcube_desktop.cli import main
from medrcube_desktop.errors import EngineError
from medrcube_desktop.evaluation.engines.base import SamplingConfig
from medrcube_desktop.evaluation.engines.factory import EngineOptions, build_engine
from tests.llm.fake_openai import FakeOpenAI


def _status(args) -> int:
    """``main``'s exit status, a usage error (argparse's SystemExit) included."""
    try:
        return main(args)
    except SystemExit as exc:
        return int(exc.code)


@pytest.mark.parametrize(
    ("flag", "value", "words"),
    [
        ("--top-p", "2", "greater than 0 and at most 1"),
        ("--top-p", "0", "greater than 0 and at most 1"),
        ("--top-p", "-0.5", "greater than 0 and at most 1"),
        ("--top-p", "nan", "greater than 0 and at most 1"),
        ("--temperature", "2.5", "from 0 to 2"),
        ("--temperature", "-0.1", "from 0 to 2"),
        ("--temperature", "inf", "from 0 to 2"),
        ("--max-tokens", "0", "a whole number from 1 to 1,048,576"),
        ("--max-tokens", "1.5", "a whole number from 1 to 1,048,576"),
        ("--seed", "-1", "a whole number from 0 to 4294967295"),
    ],
)
def test_evaluate_refuses_a_decoding_value_out_of_range_before_sending(
    bench, tmp_path, capsys, flag, value, words
):
    with FakeOpenAI() as server:
        args = ["evaluate", "--dataset", str(bench), "--db", str(tmp_path / "s.db")]
        args += ["--engine", "openai", "--model", "m", "--base-url", server.base_url]
        assert _status([*args, flag, value]) == 2
        assert server.requests == []
    err = capsys.readouterr().err
    assert f"argument {flag}: must be {words}, got {value!r}" in err
    assert not (tmp_path / "s.db").exists()


def test_values_at_the_ends_of_their_ranges_are_taken():
    config = SamplingConfig(temperature=2.0, top_p=1.0, max_tokens=1, seed=2**32 - 1)
    assert (config.temperature, config.top_p, config.max_tokens) == (2.0, 1.0, 1)
    SamplingConfig(temperature=0.0, top_p=1e-9)


@pytest.mark.parametrize("field", ["top_p", "temperature", "max_tokens"])
def test_the_engines_the_pane_builds_refuse_it_too(field):
    bad = {"top_p": 2.0, "temperature": 3.0, "max_tokens": 0}[field]
    options = EngineOptions(engine="openai", model="m", base_urls=["http://127.0.0.1:9/v1"])
    setattr(options, field, bad)
    with pytest.raises(EngineError, match=f"^{field} must be"):
        build_engine(options)
