"""What a comparison is computed from, declared once for every surface (issue 21, "one
computation per figure"): the ``compare`` command, the Compare models pane, its report
and the report's "Reproduce" line all go through :func:`scored_benchmark` (the command
through ``cli.common.load_items(images=False)``),
:class:`~medrcube_desktop.evaluation.compare_options.CompareSettings` and
:func:`compare_study`, so they show the same numbers.

- The items: every loadable item of the benchmark, restricted ones included, in
  benchmark order (:func:`scored_benchmark`). A text-only run answers a restricted item
  (its text ships), and the order of the items decides which images a bootstrap draws,
  so a surface that loads the items otherwise gives other figures.
- The settings: :data:`~medrcube_desktop.evaluation.compare_options.SETTINGS` declares
  each option's flag, label, default and range; the CLI's flags and the pane's fields
  are made from it, and :func:`~medrcube_desktop.evaluation.compare_options.command_line`
  writes the command that computes the same figures again.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from medrcube_desktop.evaluation.compare_options import CompareSettings

if TYPE_CHECKING:
    from medrcube_desktop.core.dataset import Benchmark
    from medrcube_desktop.core.items import Item
    from medrcube_desktop.evaluation.compare.result import CompareResult


def scored_benchmark(dataset: str | Path) -> Benchmark:
    """The benchmark as every figure over stored answers reads it: every loadable item,
    those without their image included (restricted items: a text-only run answers
    them; a user holding the answers but not the pictures can compare), in benchmark
    order (:func:`~medrcube_desktop.core.dataset.load_benchmark` with ``images=False``).

    Raises
    ------
    DatasetError
        ``dataset`` is not a usable benchmark folder.
    """
    from medrcube_desktop.core.dataset import load_benchmark

    return load_benchmark(dataset, images=False)


def compare_study(
    store,
    items: Sequence[Item],
    runs: Sequence[str],
    settings: CompareSettings = CompareSettings(),  # noqa: B008 - frozen
    dataset: str | Path | None = None,
) -> CompareResult:
    """Everything ``compare`` computes for ``runs`` of ``store`` over ``items``: the
    :func:`~.matrix.run_matrix` and :func:`~.result.compare_runs` with ``settings``.

    Parameters
    ----------
    store : StudyStore
    items : sequence of Item
        :func:`scored_benchmark`'s items (``Benchmark.items``).
    runs : sequence of str
        Run names, in the leaderboard's given order.
    settings : CompareSettings
    dataset : str or Path or None
        The benchmark folder ``items`` were read from: when it is a corrected release
        (it holds a ``release.json``), the result records which
        (``CompareResult.release``, ``"release"`` in its JSON).

    Raises
    ------
    MedRCubeError
        A run is not in the database, or no run has an answer to any item.
    StoreError
        The database cannot be read.
    """
    import dataclasses

    from medrcube_desktop.evaluation.compare.matrix import run_matrix
    from medrcube_desktop.evaluation.compare.result import compare_runs  # statsmodels
    from medrcube_desktop.evaluation.release_read import release_of

    release = release_of(dataset) if dataset is not None else None
    matrix = run_matrix(store, list(runs), items)
    result = compare_runs(
        matrix, settings.min_items, settings.clusters, settings.preset,
        n_boot=settings.n_boot, seed=settings.seed, sort=settings.sort,
        leakage=settings.leakage, n_stability=settings.n_stability,
        answerable=settings.answerable,
    )  # fmt: skip
    if release is None:
        return result
    return dataclasses.replace(result, release=release.describe())
