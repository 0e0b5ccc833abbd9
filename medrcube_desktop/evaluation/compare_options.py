"""The options of a comparison, declared once (issue 21): each one's flag, the pane's
label, default, range and help. The ``compare`` command's flags, the Compare models
pane's fields and the report's "Reproduce" line (:func:`command_line`) are all made
from :data:`SETTINGS`.

Light on purpose (no numpy): the CLI builds its parser from it at every start.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from medrcube_desktop.evaluation.compare.result import CompareResult


@dataclass(frozen=True)
class Setting:
    """One option of a comparison: its ``CompareSettings`` field, the CLI flag, the
    pane's label, the default, the smallest value (None: a choice or a flag) and the
    help text (``%(default)s`` is the default, as argparse writes it)."""

    field: str
    flag: str
    label: str
    default: object
    minimum: int | None
    help: str
    choices: tuple[str, ...] = ()


SETTINGS: dict[str, Setting] = {
    s.field: s
    for s in (
        Setting("sort", "--sort", "Order", "family", None,
                "leaderboard rows by model group and series (paper Table 3), by accuracy, "
                "or as given (%(default)s)", ("family", "accuracy", "none")),
        Setting("min_items", "--min-items", "Min. items per voxel", 5, 1,
                "leave out voxels with fewer items (%(default)s); Fig. 3 needs 2 voxels "
                "of at least this many items"),
        Setting("clusters", "--clusters", "Clusters", 3, 1,
                "voxel clusters to cut the tree into (%(default)s)"),
        Setting("preset", "--preset", "Pairing", "paper", None,
                "pairing of credibility (paper Section 6, or the public script's); both: "
                "each, the paper's first (%(default)s)", ("paper", "official", "both")),
        Setting("n_boot", "--bootstrap", "Bootstrap", 1000, 0,
                "bootstrap replicates of the credibility intervals, resampling images "
                "(0: none; %(default)s)"),
        Setting("seed", "--seed", "Seed", 0, 0, "bootstrap seed (%(default)s)"),
        Setting("n_stability", "--stability", "Stability", 100, 0,
                "bootstrap replicates over models for the voxel tree's stability (0: "
                "none; %(default)s)"),
        Setting("leakage", "--leakage", "Leakage", False, None,
                "list the items each text-only run answered right (prior leakage)"),
    )
}  # fmt: skip
"""Every option of :class:`CompareSettings`, by field name."""


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

    @classmethod
    def of(cls, result: CompareResult) -> CompareSettings:
        """The settings ``result`` was computed with."""
        return cls(
            sort=result.sort, min_items=result.min_items, clusters=result.clusters,
            preset=result.preset, n_boot=result.n_boot, seed=result.seed,
            n_stability=result.n_stability, leakage=result.leakage is not None,
        )  # fmt: skip

    @classmethod
    def from_args(cls, args: object) -> CompareSettings:
        """The settings of parsed ``compare`` arguments (the flags' destinations)."""
        return cls(**{
            s.field: getattr(args, s.flag.lstrip("-").replace("-", "_"))
            for s in SETTINGS.values()
        })  # fmt: skip


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
        value = getattr(settings, s.field)
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
    ``extra`` (``written_by``)."""
    from medrcube_desktop import __version__
    from medrcube_desktop.store.database import utc_now

    return {
        "app_version": __version__,
        "database": str(Path(db).expanduser().resolve()) if db else ":memory:",
        "dataset": str(Path(dataset).expanduser().resolve()),
        "command": command_line(db, dataset, runs, settings, out),
        "created_at": utc_now(),
        **extra,
    }
