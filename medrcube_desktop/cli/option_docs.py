"""The option tables of ``docs/*-options.md``, made from the declarations
(:mod:`medrcube_desktop.core.options`): ``python -m medrcube_desktop.cli.option_docs``
writes them between each page's markers, ``--check`` only says which page differs
(exit 1). ``tests/cli/test_option_flags.py`` fails when a committed page is not what this
writes."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from medrcube_desktop.core.options import markers, replace_between_markers

DOCS = Path(__file__).resolve().parents[2] / "docs"
"""The repository's ``docs/`` folder (the pages are not part of the installed package)."""


def _compare() -> str:
    from medrcube_desktop.evaluation.compare_options import compare_options_markdown

    return compare_options_markdown()


def _agreement() -> str:
    from medrcube_desktop.review.agreement_options import agreement_options_markdown

    return agreement_options_markdown()


def _judge() -> str:
    from medrcube_desktop.llm.config import judge_options_markdown

    return judge_options_markdown()


def _engine() -> str:
    from medrcube_desktop.evaluation.engine_options import engine_options_markdown

    return engine_options_markdown()


def _image() -> str:
    from medrcube_desktop.evaluation.image_modes import image_options_markdown

    return image_options_markdown()


PAGES: dict[str, tuple[str, str, Callable[[], str]]] = {
    "compare": ("compare-options.md", "Options of `compare`", _compare),
    "agreement": ("agreement-options.md", "Options of the agreement study and of several "
                  "experts", _agreement),
    "judge": ("judge-options.md", "Options of `judge` and Review › Run LLM review", _judge),
    "engine": ("evaluate-options.md", "Engine options of `evaluate` and Review › Evaluate a "
               "model", _engine),
    "image": ("evaluate-options.md", "Image modes of `evaluate`", _image),
}  # fmt: skip
"""Marker key → (file in ``docs/``, the page's title when it is first written, the
table's maker)."""


def page_text(key: str, current: str | None = None) -> str:
    """The page of ``key`` with its table as the declarations make it now: ``current``
    (the committed text) with the part between its markers replaced, or a new page."""
    _, title, make = PAGES[key]
    if current is None:
        begin, end = markers(key)
        current = (
            f"# {title}\n\nMade from the options' declarations "
            f"(`python -m medrcube_desktop.cli.option_docs`); do not edit the table by "
            f"hand.\n\n{begin}\n{end}\n"
        )
    return replace_between_markers(current, key, make())


def main(argv: list[str] | None = None) -> int:
    """Write (or with ``--check``, compare) every page of :data:`PAGES`; 1 when one
    differs under ``--check``."""
    check = "--check" in (sys.argv[1:] if argv is None else argv)
    stale = []
    for key, (name, _, _) in PAGES.items():
        path = DOCS / name
        current = path.read_text(encoding="utf-8") if path.exists() else None
        wanted = page_text(key, current)
        if wanted != current:
            stale.append(path)
            if not check:
                path.write_text(wanted, encoding="utf-8")
    for path in stale:
        print(f"{'differs' if check else 'wrote'}: {path}")
    return 1 if check and stale else 0


if __name__ == "__main__":
    raise SystemExit(main())
