"""argparse value types shared by every subcommand: one message per kind of bad value."""

from __future__ import annotations

import argparse
import math
import re
from collections.abc import Callable

from medrcube_desktop.core import options
from medrcube_desktop.core.units import parse_byte_size

_WHOLE = re.compile(r"[+-]?[0-9]+")


def whole(text: str) -> int:
    """A whole number written as digits (an optional sign, ASCII digits): the one parser
    of every whole-number flag. ``1e3``, ``1.0``, ``1_000`` and other digits than 0-9 are
    refused alike, whichever flag they are given to.

    Raises
    ------
    argparse.ArgumentTypeError
        ``text`` is not such a number.
    """
    if not _WHOLE.fullmatch(text.strip()):
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}")
    return int(text)


_whole = whole


def positive(text: str) -> int:
    """A whole number of at least 1."""
    value = _whole(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def concurrency(text: str) -> int:
    """Requests in flight: 1 to ``llm.config.MAX_CONCURRENCY``."""
    from medrcube_desktop.llm.config import MAX_CONCURRENCY

    value = _whole(text)
    if not 1 <= value <= MAX_CONCURRENCY:
        raise argparse.ArgumentTypeError(f"must be between 1 and {MAX_CONCURRENCY}, got {value}")
    return value


def count(text: str) -> int:
    """A whole number of at least 0."""
    value = _whole(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {value}")
    return value


MAX_REPLICATES = options.MAX_REPLICATES
"""Bootstrap replicates at most (:data:`medrcube_desktop.core.options.MAX_REPLICATES`)."""


def replicates(text: str) -> int:
    """Bootstrap replicates: 0 (none) to :data:`MAX_REPLICATES`."""
    value = count(text)
    if value > MAX_REPLICATES:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_REPLICATES:,}, got {value:,}")
    return value


def seed(text: str) -> int:
    """A seed from 0 to :data:`~medrcube_desktop.core.options.SEED_MAX` (2**32 − 1, what
    numpy's generators take)."""
    value = _whole(text)
    if not 0 <= value <= options.SEED_MAX:
        raise argparse.ArgumentTypeError(f"must be between 0 and {options.SEED_MAX}, got {value}")
    return value


def _number(text: str) -> float:
    """``text`` as a float, NaN when it is none (every check below refuses NaN)."""
    try:
        return float(text)
    except ValueError:
        return math.nan


def seconds(text: str) -> float:
    """A positive, finite number of seconds."""
    value = _number(text)
    if not (value > 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text!r}")
    return value


def new_name(text: str) -> str:
    """A name that creates something (a run, a model's judgments, a reviewer's reviews,
    a study, an assignment): NFC, stripped, not blank, showing something, not too long
    and without a character that is not shown as itself
    (:func:`medrcube_desktop.core.names.check_name`): what is stored."""
    from medrcube_desktop.core.names import check_name

    try:
        return check_name(text, "the name")
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix("the name: ")) from None


name = new_name
"""Former name of :func:`new_name`."""


def existing_name(text: str) -> str:
    """A name that selects something already stored (whose reviews to export, which runs
    to compare): taken as given, not stripped or checked, so that every name an older
    database holds (a control character in it, white space around it) can be reached.
    Only the empty string is refused. Whatever is printed of it goes through
    :func:`medrcube_desktop.core.names.visible`."""
    if not text:
        raise argparse.ArgumentTypeError("an empty name")
    return text


def fraction(text: str) -> float:
    """A number greater than 0 and at most 1 (a share, such as vLLM's memory fraction)."""
    value = _number(text)
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"expected a fraction in (0, 1], got {text!r}")
    return value


def share(text: str) -> float:
    """A share from 0 to 1, both ends included (``assign --overlap``); NaN and the
    infinities are refused."""
    value = _number(text)
    if math.isnan(value):  # not a number at all (an empty value, a typo), or "nan"
        raise argparse.ArgumentTypeError(f"expected a number from 0 to 1, got {text!r}")
    if not (math.isfinite(value) and 0 <= value <= 1):
        raise argparse.ArgumentTypeError(f"must be between 0 and 1, got {text!r}")
    return value


def byte_size(text: str) -> int:
    """A size in bytes (``2G``, ``512MiB``; :func:`core.units.parse_byte_size`)."""
    try:
        return parse_byte_size(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def finite(text: str) -> float:
    """A finite number (not NaN or infinite), as a sampling parameter must be."""
    value = _number(text)
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
    return value


def sampling(parameter: str) -> Callable[[str], float]:
    """The argparse type of a decoding parameter: a number in its range, as declared
    once in :data:`medrcube_desktop.evaluation.engines.base.SAMPLING_RANGES`."""

    def parse(text: str) -> float:
        from medrcube_desktop.evaluation.engines.base import WHOLE_SAMPLING, check_sampling

        value: float = _number(text)
        if parameter in WHOLE_SAMPLING:  # the one whole-number parser: 1e3 is refused
            value = whole(text) if _WHOLE.fullmatch(text.strip()) else math.nan
        try:
            return check_sampling(parameter, value)
        except ValueError:
            words = _range(parameter)[3]
            raise argparse.ArgumentTypeError(f"must be {words}, got {text!r}") from None

    parse.__name__ = parameter  # argparse names the type in its messages
    return parse


def _range(parameter: str) -> tuple[float, float, bool, str]:
    from medrcube_desktop.evaluation.engines.base import SAMPLING_RANGES

    return SAMPLING_RANGES[parameter]


def base_url(text: str) -> str:
    """An endpoint's base URL (:func:`medrcube_desktop.llm.keys.check_base_url`)."""
    from medrcube_desktop.llm.keys import check_base_url

    try:
        return check_base_url(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
