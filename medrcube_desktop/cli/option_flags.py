"""The argparse flags of declared options (:class:`medrcube_desktop.core.options.Option`):
each flag's type, default, choices, metavar and help come from its row, never typed
again by the command (argparse is imported only in ``cli/`` and ``jobs/``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from medrcube_desktop.cli import argtypes
from medrcube_desktop.core.options import Option


def value_type(option: Option, types: Mapping[str, Callable[[str], Any]] | None = None):
    """The argparse ``type`` of ``option``: ``types[option.kind]`` (a parser the command
    passes), else the :mod:`~medrcube_desktop.cli.argtypes` function named ``kind``, else
    ``option.type`` (None for ``str``).

    Raises
    ------
    KeyError
        ``kind`` names neither.
    """
    if option.kind:
        if types and option.kind in types:
            return types[option.kind]
        if not hasattr(argtypes, option.kind):
            raise KeyError(f"option {option.name!r}: no parser {option.kind!r}")
        return getattr(argtypes, option.kind)
    return None if option.type is str else option.type


def add_flag(
    parser,
    option: Option,
    *,
    types: Mapping[str, Callable[[str], Any]] | None = None,
    choices: tuple[str, ...] | None = None,
):
    """Add ``option``'s flag to ``parser`` (an ``ArgumentParser`` or group); ``choices``
    narrows the row's (a command that takes some of them). Returns argparse's action."""
    kwargs: dict[str, Any] = {"help": option.help}
    if option.type is bool:
        return parser.add_argument(option.flag, action="store_true", **kwargs)
    if option.choices:
        kwargs["choices"] = choices or option.choices
    else:
        kwargs["type"] = value_type(option, types)
    if option.metavar:
        kwargs["metavar"] = option.metavar
    if option.required:
        kwargs["required"] = True
    else:
        kwargs["default"] = option.default
    return parser.add_argument(option.flag, **kwargs)


def add_flags(
    parser,
    table: Mapping[str, Option],
    names: Iterable[str] | None = None,
    *,
    types: Mapping[str, Callable[[str], Any]] | None = None,
) -> None:
    """Add the flags of ``table`` (or of its ``names``, in that order) to ``parser``."""
    for name in table if names is None else names:
        add_flag(parser, table[name], types=types)
