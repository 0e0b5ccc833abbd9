"""The settings of an agreement study and of several experts' work, declared once
(issue 22 item 2; rows: :class:`~medrcube_desktop.core.options.Option`).

- :data:`AGREEMENT`: ``agreement``'s ``--bootstrap``, ``--seed`` and
  ``--image-shown-only``; the Agreement study pane's fields; the defaults of
  :func:`~.agreement.stats.compare`, :func:`~.agreement.run.run_study`,
  :func:`~.agreement.panel_run.run_panel` and :func:`~.agreement.panel_run.run_gold`.
- :data:`STUDY`: ``study``'s ``--seed`` and ``--stratify`` (the pane's New study… asks
  for the same strata), :func:`~.studies.create_or_extend_study`'s ``stratify``.
- :data:`QUEUE`: ``adjudicate-queue``'s ``--against``, ``--on`` and ``--open-only``,
  :func:`~.adjudication.build_queue`'s defaults.
- :data:`ASSIGNMENT`: ``assign``'s ``--overlap`` and ``--seed``.

``docs/agreement-options.md`` holds :func:`agreement_options_markdown`. Light on purpose
(no numpy): the CLI builds its parser from it at every start.
"""

from __future__ import annotations

from medrcube_desktop.core.options import SEED_MAX, Option, markdown_table, options

MAX_BOOTSTRAP = 1_000_000
"""Most bootstrap draws a comparison makes: beyond, the intervals change in digits no one
reads, and the time (about half a minute per million draws of a few hundred items) and
the memory of one value per draw and figure are wasted."""

AGREEMENT: dict[str, Option] = options(
    Option("bootstrap", "--bootstrap", "Bootstrap draws", 2000,
           "bootstrap draws of the 95%% intervals, resampling items (0: none; "
           "%(default)s gives intervals to two decimals)", int, 0, MAX_BOOTSTRAP,
           kind="count", metavar="N"),
    Option("seed", "--seed", "Seed", 0,
           "seed of the bootstrap draws (%(default)s); the pane's New study… draws its "
           "sample with it too", int, 0, SEED_MAX, kind="seed", metavar="S"),
    Option("image_shown_only", "--image-shown-only", "", False,
           "leave out the reviews committed without the image shown (text only; "
           "reviews of unknown display, from before schema v6, are kept)", bool),
    Option("evidence", "--ablation-evidence", "Rule 1.4 vs ablation evidence", "",
           "also compare each expert's rule 1.4 with the evidence of the ablation runs "
           "stored in the database, scored on this benchmark folder: an item answerable "
           "without the image (compare's --answerable-share) is expected to fail 1.4 "
           "(default: off)", str, metavar="DIR"),
)  # fmt: skip
"""The settings of ``agreement`` (one comparison, several experts or the gold standard)."""

STUDY: dict[str, Option] = options(
    Option("seed", "--seed", "Seed", 0, "seed of the random sample (%(default)s)", int, 0,
           SEED_MAX, kind="seed", metavar="S"),
    Option("stratify", "--stratify", "Stratify by", "",
           "draw the same share from each task, modality or region (default: none)", str,
           choices=("task", "modality", "region")),
)  # fmt: skip
"""The settings of ``study`` (a named, seeded sample of items)."""

QUEUE: dict[str, Option] = options(
    Option("against", "--against", "", "experts",
           "disagreements between experts, an expert and the LLM, or either", str,
           choices=("experts", "llm", "any")),
    Option("on", "--on", "", "rules",
           "any rule differs, or only the overall verdict (all seven pass)", str,
           choices=("rules", "verdict")),
    Option("open_only", "--open-only", "", False,
           "leave out items already fully adjudicated", bool),
)  # fmt: skip
"""The settings of ``adjudicate-queue``."""

ASSIGNMENT: dict[str, Option] = options(
    Option("overlap", "--overlap", "", 0.2, "share reviewed by two (0-1)", float, 0, 1,
           kind="share", metavar="F"),
    Option("seed", "--seed", "", 0, "seed of the assignment (%(default)s)", int, 0,
           SEED_MAX, kind="seed", metavar="S"),
)  # fmt: skip
"""The settings of ``assign``."""

TABLES: dict[str, dict[str, Option]] = {
    "agreement": AGREEMENT, "study": STUDY, "adjudicate-queue": QUEUE, "assign": ASSIGNMENT,
}  # fmt: skip
"""Each command's table, by command."""


def agreement_options_markdown() -> str:
    """The Markdown of :data:`TABLES` (a heading per command, then its table), as
    ``docs/agreement-options.md`` holds it between its ``agreement-options`` markers."""
    parts = [f"### `{command}`\n\n{markdown_table(table.values())}"
             for command, table in TABLES.items()]  # fmt: skip
    return "\n".join(parts)
