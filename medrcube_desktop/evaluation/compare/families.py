"""Model families: the series a model belongs to (InternVL, Lingshu, …) and its group
(proprietary, medical-specific, general-purpose), as the paper's Table 3 sorts its 33
models (Appendix D.2). The table is data, ``resources/model_families.json``; a model it
does not know gets the leading word of its name as its series and the group "Other".
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from importlib.resources import files

OTHER = "Other"
"""The group of a model that the table does not know."""


@dataclass(frozen=True)
class Family:
    """A model's ``series`` ("InternVL") and ``group`` ("General-purpose")."""

    series: str
    group: str


@functools.cache
def _table() -> tuple[tuple[str, ...], tuple[tuple[str, Family], ...]]:
    data = json.loads(
        files("medrcube_desktop.resources").joinpath("model_families.json").read_text("utf-8")
    )
    patterns: list[tuple[str, Family]] = []
    for entry in data["series"]:
        family = Family(entry["series"], entry["group"])
        patterns.extend((match.lower(), family) for match in entry["match"])
    # the longest pattern first, so "llava-med" wins over "llava" and "qwen3-vl-plus"
    # over "qwen3-vl"
    patterns.sort(key=lambda p: -len(p[0]))
    return tuple(data["groups"]), tuple(patterns)


def groups() -> tuple[str, ...]:
    """The groups in the paper's order, then :data:`OTHER`."""
    return (*_table()[0], OTHER)


def model_family(model: str) -> Family:
    """The family of a model name as runs store it (a Hugging Face id such as
    ``"OpenGVLab/InternVL3_5-8B"``, an API model such as ``"gpt-5.1"``, or a local
    checkpoint folder such as ``"/data/ckpt/Qwen2.5-VL-7B-Instruct/"`` or
    ``"C:\\models\\InternVL3_5-8B"``).

    Only the last non-empty component, split on ``/`` and ``\\``, counts (the
    organisation or the folders before it are ignored); ``_`` reads as ``-``, case is
    ignored; the longest name in the table that it starts with decides. Otherwise the
    series is its leading run of letters (``"Foo"`` for ``"foo-7b"``).
    """
    base = last_component(model)
    name = base.lower().replace("_", "-")
    for pattern, family in _table()[1]:
        if name.startswith(pattern):
            return family
    leading = re.match(r"[A-Za-z]+", base)
    return Family(leading.group(0) if leading else (model or "?"), OTHER)


def last_component(model: str) -> str:
    """The last non-empty part of ``model`` split on ``/`` and ``\\``, stripped
    (``"/data/ckpt/m/"`` → ``"m"``); ``model`` stripped when it has no such part."""
    parts = [p.strip() for p in re.split(r"[/\\]", model) if p.strip()]
    return parts[-1] if parts else model.strip()
