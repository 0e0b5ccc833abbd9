"""The options of a comparison, declared once (issues 21 and 22): each one's flag, the
pane's label, default, type, range and help (:class:`~medrcube_desktop.core.options.Option`).
The ``compare`` command's flags (and ``credibility``'s ``--preset``), the Compare models
pane's fields, the defaults of :func:`~.compare.result.compare_runs` and
:mod:`~.compare.voxels`, the report's "Reproduce" line (:func:`command_line`) and
``docs/compare-options.md`` (:func:`compare_options_markdown`) are all made from
:data:`SETTINGS`.

Light on purpose (no numpy): the CLI builds its parser from it at every start.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from medrcube_desktop.core.options import (
    MAX_REPLICATES,
    SEED_MAX,
    Option,
    markdown_table,
    options,
    values_of,
)

if TYPE_CHECKING:
    from medrcube_desktop.evaluation.compare.result import CompareResult


Setting = Option
"""Former name of :class:`~medrcube_desktop.core.options.Option`."""

SETTINGS: dict[str, Option] = options(
    Option("sort", "--sort", "Order", "family",
           "leaderboard rows by model group and series (paper Table 3), by accuracy, "
           "or as given (%(default)s)", str, choices=("family", "accuracy", "none")),
    Option("min_items", "--min-items", "Min. items per voxel", 5,
           "leave out voxels with fewer items (%(default)s); Fig. 3 needs 2 voxels "
           "of at least this many items", int, 1, kind="positive", metavar="N"),
    Option("clusters", "--clusters", "Clusters", 3,
           "voxel clusters to cut the tree into (%(default)s)", int, 1, kind="positive",
           metavar="K"),
    Option("preset", "--preset", "Pairing", "paper",
           "pairing of credibility (paper Section 6, or the public script's); both: "
           "each, the paper's first (%(default)s)", str,
           choices=("paper", "official", "both")),
    Option("n_boot", "--bootstrap", "Bootstrap", 1000,
           "bootstrap replicates of the credibility intervals, resampling images "
           "(0: none; %(default)s)", int, 0, MAX_REPLICATES, kind="replicates",
           metavar="B"),
    Option("seed", "--seed", "Seed", 0, "bootstrap seed (%(default)s)", int, 0, SEED_MAX,
           kind="seed", metavar="S"),
    Option("n_stability", "--stability", "Stability", 100,
           "bootstrap replicates over models for the voxel tree's stability (0: "
           "none; %(default)s)", int, 0, MAX_REPLICATES, kind="replicates", metavar="B"),
    Option("leakage", "--leakage", "Leakage", False,
           "list the items each text-only run answered right (prior leakage)", bool),
    Option("answerable", "--answerable-share", "Answerable share", 0.5,
           "an item is answerable without the image when more than this share of the "
           "models with an ablation run of it answer it right under ablation "
           "(%(default)s)", float, 0, 1, kind="share", metavar="F"),
)  # fmt: skip
"""Every option of :class:`CompareSettings`, by field name."""

RELEASE_DIFF: dict[str, Option] = options(
    Option("diff_boot", "--diff-bootstrap", "Bootstrap (difference)", 2000,
           "with --release-diff: bootstrap replicates of each paired difference's "
           "interval, resampling images (0: none; %(default)s)", int, 0, MAX_REPLICATES,
           kind="replicates", metavar="B"),
)  # fmt: skip
"""The options of ``compare --release-diff`` (the old release against the corrected one,
:mod:`~.compare.release_diff`) besides ``--seed``, which it shares with
:data:`SETTINGS`; the Compare pane's "Old vs new release" tab has a field for each."""

CREDIBILITY_PRESETS: tuple[str, ...] = tuple(p for p in SETTINGS["preset"].choices if p != "both")
"""The pairings of one run's credibility (``credibility --preset``, the Evaluate pane's
paired outcomes, :data:`medrcube_desktop.evaluation.credibility.PRESETS`): the
``--preset`` choices of :data:`SETTINGS` but ``both``."""


@dataclass(frozen=True)
class CompareSettings:
    """The options of a comparison (defaults: :data:`SETTINGS`); what
    :func:`~.result.compare_runs` takes besides the matrix."""

    sort: str = SETTINGS["sort"].default  # type: ignore[assignment]
    min_items: int = SETTINGS["min_items"].default  # type: ignore[assignment]
    clusters: int = SETTINGS["clusters"].default  # type: ignore[assignment]
    preset: str = SETTINGS["preset"].default  # type: ignore[assignment]
    n_boot: int = SETTINGS["n_boot"].default  # type: ignore[assignment]
    seed: int = SETTINGS["seed"].default  # type: ignore[assignment]
    n_stability: int = SETTINGS["n_stability"].default  # type: ignore[assignment]
    leakage: bool = SETTINGS["leakage"].default  # type: ignore[assignment]
    answerable: float = SETTINGS["answerable"].default  # type: ignore[assignment]

    @classmethod
    def of(cls, result: CompareResult) -> CompareSettings:
        """The settings ``result`` was computed with."""
        return cls(
            sort=result.sort, min_items=result.min_items, clusters=result.clusters,
            preset=result.preset, n_boot=result.n_boot, seed=result.seed,
            n_stability=result.n_stability, leakage=result.leakage is not None,
            answerable=result.answerable,
        )  # fmt: skip

    @classmethod
    def from_args(cls, args: object) -> CompareSettings:
        """The settings of parsed ``compare`` arguments (the flags' destinations)."""
        return cls(**values_of(args, SETTINGS))


def command_line(
    db: str | Path | None,
    dataset: str | Path,
    runs: Sequence[str],
    settings: CompareSettings,
    out: str | Path | None = None,
) -> str:
    """The ``compare`` command that computes the same figures (and, with ``out``, writes
    the same files) again: absolute paths, shell-quoted; the line of the report's
    "Reproduce" footer and the workbook's meta sheet, from the CLI or the pane."""
    database = str(Path(db).expanduser().resolve()) if db else ":memory:"
    parts = ["medrcube-desktop", "compare", "--db", database,
             "--dataset", str(Path(dataset).expanduser().resolve())]  # fmt: skip
    for run in runs:  # a name that starts with "-" must not read as a flag
        parts += [f"--run={run}"] if run.startswith("-") else ["--run", run]
    for s in SETTINGS.values():
        value = getattr(settings, s.name)
        if isinstance(value, bool):
            parts += [s.flag] if value else []
        else:
            parts += [s.flag, str(value)]
    if out is not None:
        parts += ["--out", str(Path(out).expanduser().resolve())]
    return shlex.join(parts)


def report_meta(
    db: str | Path | None,
    dataset: str | Path,
    runs: Sequence[str],
    settings: CompareSettings,
    out: str | Path | None = None,
    **extra: object,
) -> dict[str, object]:
    """Provenance of a report (the XLSX "meta" sheet, the HTML footer), whoever writes
    it: the app's version, the database and benchmark as absolute paths, the
    :func:`command_line` that computes the same figures, the time (ISO 8601, UTC) and
    ``extra`` (``written_by``); when ``dataset`` is a corrected release, its
    ``release_version`` and ``release_digest``."""
    from medrcube_desktop import __version__
    from medrcube_desktop.evaluation.release_read import release_of
    from medrcube_desktop.store.database import utc_now

    release = release_of(dataset)  # a corrected release: its version is said
    if release is not None:
        extra = {"release_version": release.version, "release_digest": release.digest,
                 **extra}  # fmt: skip
    return {
        "app_version": __version__,
        "database": str(Path(db).expanduser().resolve()) if db else ":memory:",
        "dataset": str(Path(dataset).expanduser().resolve()),
        "command": command_line(db, dataset, runs, settings, out),
        "created_at": utc_now(),
        **extra,
    }


def compare_options_markdown() -> str:
    """The Markdown table of :data:`SETTINGS`, as ``docs/compare-options.md`` holds it
    between its ``compare-options`` markers."""
    return markdown_table([*SETTINGS.values(), *RELEASE_DIFF.values()])
