"""The evaluation prompt of paper Table 9, exactly, with its whitespace pinned.

``resources/prompts/evaluation_table9.txt`` holds the template; ``README.md`` beside it
documents the layout. The run records the template's SHA-256.
"""

from __future__ import annotations

import functools
import hashlib
from importlib.resources import files

from medrcube_desktop.core.items import Item
from medrcube_desktop.errors import EngineError

TEMPLATE_FILE = "evaluation_table9.txt"


@functools.cache
def template() -> str:
    """The Table 9 template (``{question}``, ``{options}``); raises EngineError when the
    shipped file is missing (a packaging error)."""
    try:
        text = files("medrcube_desktop.resources").joinpath("prompts").joinpath(TEMPLATE_FILE)
        return text.read_text("utf-8")
    except OSError as exc:
        raise EngineError(f"resources/prompts/{TEMPLATE_FILE}: cannot read: {exc}") from exc


def prompt_sha256() -> str:
    """Hex SHA-256 of the template, stored with every run."""
    return hashlib.sha256(template().encode()).hexdigest()


def format_options(item: Item) -> str:
    """``A. text`` lines in the item's option order, joined with ``\\n``."""
    return "\n".join(f"{letter}. {text}" for letter, text in item.options.items())


def build_prompt(item: Item) -> str:
    """The text the model gets after the image (paper Table 9)."""
    return template().format(question=item.question, options=format_options(item))
