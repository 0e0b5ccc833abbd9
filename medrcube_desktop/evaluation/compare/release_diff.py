"""The old release against the corrected one, model by model (issue 23 item 4):
``compare --release-diff DIR`` and the Compare pane's "Old vs new release" tab show
:func:`release_diff_study`'s one :class:`ReleaseDiff`.

Each old run is paired with the run ``rescore`` made of it on the release
(``<run>@<version>``, ``params.rescored_from``). For each pair:

- the accuracy before (the old run over the source benchmark) and after (the rescored
  run over the release: retired items gone, items needing a new answer left out until
  ``evaluate --only-changed`` answers them), each with its Wilson 95 % interval
  (:func:`~.leaderboard.leaderboard`);
- the paired difference after − before over the items both answered, with its 95 %
  bootstrap interval clustered by image (:func:`~.leaderboard.paired_difference`, the
  leaderboard's own), and McNemar's exact p of the answers whose verdict flipped
  (:func:`~medrcube_desktop.review.agreement.stats.mcnemar_exact_p`);
- the rank among the image runs before and after (1 the best; ties share the best rank:
  1 + the runs strictly better), and its change (positive: up);
- per change kind and rule of ``changes.json``: how many of the run's answers went
  wrong → right and right → wrong, how many of its answers to retired items were right
  or wrong, and how many wait for a new answer; an item with two corrections counts in
  both rows. ``most_moved`` names, per run, the row that flipped the most of its answers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from medrcube_desktop.core.options import defaults
from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.evaluation.compare.matrix import RunMatrix
from medrcube_desktop.evaluation.compare_options import RELEASE_DIFF, SETTINGS
from medrcube_desktop.evaluation.release_read import Release

_D = {**defaults(SETTINGS), **defaults(RELEASE_DIFF)}


def _number(x: float | None) -> float | None:
    return None if x is None or not np.isfinite(x) else float(x)


@dataclass(frozen=True)
class ModelShift:
    """One run before and after the release (see the module).

    Accuracies and bounds are 0–1 (None: no answer); ``diff`` and its bounds −1 to 1
    (None without an item answered in both, bounds None with no replicates).
    """

    run: str
    rescored: str
    model: str
    text_only: bool
    n_before: int
    correct_before: int
    accuracy_before: float | None
    low_before: float | None
    high_before: float | None
    n_after: int
    correct_after: int
    accuracy_after: float | None
    low_after: float | None
    high_after: float | None
    n_paired: int
    diff: float | None
    diff_low: float | None
    diff_high: float | None
    to_right: int
    to_wrong: int
    mcnemar_p: float | None
    rank_before: int | None
    rank_after: int | None
    retired: int
    pending: int

    @property
    def rank_change(self) -> int | None:
        """Places gained (before − after; positive: up), None for a text-only run."""
        if self.rank_before is None or self.rank_after is None:
            return None
        return self.rank_before - self.rank_after


@dataclass(frozen=True)
class ChangeEffect:
    """What the corrections of one (kind, rule) did to one run's answers."""

    kind: str
    rule: str
    run: str
    items: int
    to_right: int
    to_wrong: int
    retired_right: int
    retired_wrong: int
    pending: int

    @property
    def moved(self) -> int:
        """Answers whose verdict changed or that left the score: flips plus retired."""
        return self.to_right + self.to_wrong + self.retired_right + self.retired_wrong


@dataclass(frozen=True)
class ReleaseDiff:
    """Everything ``compare --release-diff`` computes (:func:`release_diff`)."""

    release: dict[str, object]
    dataset: str
    shifts: list[ModelShift]
    effects: list[ChangeEffect]
    n_boot: int = _D["diff_boot"]  # type: ignore[assignment]
    seed: int = _D["seed"]  # type: ignore[assignment]
    warnings: list[str] = field(default_factory=list)

    def most_moved(self) -> list[dict[str, object]]:
        """Per run (in :attr:`shifts` order) the (kind, rule) whose corrections moved
        most of its answers (:attr:`ChangeEffect.moved`; ties: the first in
        ``changes.json`` order); runs nothing moved are left out."""
        found = []
        for shift in self.shifts:
            rows = [e for e in self.effects if e.run == shift.run and e.moved]
            if rows:
                top = max(rows, key=lambda e: e.moved)  # max keeps the first of ties
                found.append({"run": shift.run, "kind": top.kind, "rule": top.rule,
                              "moved": top.moved, "net": top.to_right - top.to_wrong
                              - top.retired_right + top.retired_wrong})  # fmt: skip
        return found

    def to_dict(self) -> dict[str, object]:
        """JSON-ready: ``{"release", "dataset", "n_boot", "seed", "models": [...],
        "changes": [...], "most_moved": [...], "warnings"}`` (what ``compare
        --release-diff --json`` prints and the pane shows)."""
        models = [{**asdict(s), "rank_change": s.rank_change} for s in self.shifts]
        changes = [{**asdict(e), "moved": e.moved} for e in self.effects]
        return {
            "release": self.release, "dataset": self.dataset, "n_boot": self.n_boot,
            "seed": self.seed, "models": models, "changes": changes,
            "most_moved": self.most_moved(), "warnings": list(self.warnings),
        }  # fmt: skip


def release_pairs(store, release: Release, runs: Sequence[str] | None) -> list[tuple[str, str]]:
    """``(old run, rescored run)`` for ``runs`` (default: every stored run with a rescored
    run on ``release``); rescored runs among ``runs`` are left out (they are the "after").

    Raises
    ------
    MedRCubeError
        A named run is not stored, or has no rescored run on this release (or one made
        on another release of its version).
    """
    from medrcube_desktop.evaluation.rescore import is_rescored, rescored_name

    names = store.eval_run_names()
    chosen = list(dict.fromkeys(runs)) if runs else names
    missing = [r for r in chosen if r not in names]
    if missing:
        raise MedRCubeError(f"no run named {', '.join(map(repr, missing))} (runs: "
                            f"{', '.join(names) or 'none'})")  # fmt: skip
    pairs = []
    for name in chosen:
        record = store.eval_run(name)
        if is_rescored(record):
            continue
        target = store.eval_run(rescored_name(name, release.version))
        ok = target is not None and target.params.get("rescored_from") == name
        if ok and target.params.get("release_digest") != release.digest:
            raise MedRCubeError(
                f"run {target.name!r} was rescored on another release of version "
                f"{release.version!r}: `rescore --release {release.root} --replace` first"
            )
        if ok:
            pairs.append((name, target.name))
        elif runs:
            raise MedRCubeError(
                f"run {name!r} has no rescored run on release {release.version!r}: run "
                f"`rescore --release {release.root} --db DB` first"
            )
    if not pairs:
        raise MedRCubeError(
            f"no run has been rescored on release {release.version!r} ({release.root}): "
            "run `rescore` first"
        )
    return pairs


def _on_rows(new: RunMatrix, items) -> np.ndarray:
    """``new.correct`` laid on the rows of ``items`` (by id; NaN where absent)."""
    row = {item.id: n for n, item in enumerate(new.items)}
    index = np.array([row.get(item.id, -1) for item in items])
    out = np.full((len(items), len(new.runs)), np.nan)
    present = index >= 0
    out[present] = new.correct[index[present]]
    return out


def _ranks(accuracy: np.ndarray, image: np.ndarray) -> list[int | None]:
    """1 + image runs strictly better; None for text-only or no accuracy."""
    values = np.where(image, np.nan_to_num(accuracy, nan=-1.0), -1.0)
    return [
        int(1 + np.sum(values > values[c])) if image[c] and np.isfinite(accuracy[c]) else None
        for c in range(len(accuracy))
    ]


def _effects(release: Release, items, before: np.ndarray, after: np.ndarray,
             runs: list[str]) -> list[ChangeEffect]:  # fmt: skip
    """Per (kind, rule) in ``changes.json`` order, per run: :class:`ChangeEffect`."""
    row = {item.id: n for n, item in enumerate(items)}
    groups: dict[tuple[str, str], list[int]] = {}
    retired_of: dict[tuple[str, str], bool] = {}
    for change in release.changes.values():
        n = row.get(change.item_id)
        if n is None:
            continue  # not in the old benchmark as loaded
        entries = change.changes
        if change.retired and not entries:
            entries = ({"kind": "retire", "rule": ""},)
        for entry in dict.fromkeys(
            (str(c.get("kind", "")), str(c.get("rule", ""))) for c in entries
        ):
            groups.setdefault(entry, []).append(n)
            retired_of.setdefault(entry, change.retired)
    effects = []
    for (kind, rule), rows in groups.items():
        b, a = before[rows], after[rows]
        for c, run in enumerate(runs):
            old, new = b[:, c], a[:, c]
            gone = np.array([release.changes[items[r].id].retired for r in rows])
            both = ~np.isnan(old) & ~np.isnan(new)
            waiting = ~np.isnan(old) & np.isnan(new) & ~gone
            effects.append(ChangeEffect(
                kind=kind, rule=rule, run=run, items=len(rows),
                to_right=int(np.sum(both & (old == 0) & (new == 1))),
                to_wrong=int(np.sum(both & (old == 1) & (new == 0))),
                retired_right=int(np.sum(gone & (old == 1))),
                retired_wrong=int(np.sum(gone & (old == 0))),
                pending=int(np.sum(waiting)),
            ))  # fmt: skip
    return effects


def release_diff(
    store,
    items,
    release: Release,
    runs: Sequence[str] | None = None,
    n_boot: int = _D["diff_boot"],  # type: ignore[assignment]
    seed: int = _D["seed"],  # type: ignore[assignment]
    dataset: str | Path = "",
) -> ReleaseDiff:
    """The :class:`ReleaseDiff` of ``runs`` (old runs over ``items``, the source
    benchmark's :func:`~.inputs.scored_benchmark` items) and their rescored runs on
    ``release``.

    Raises
    ------
    MedRCubeError
        See :func:`release_pairs`.
    StoreError
        The database cannot be read.
    """
    from medrcube_desktop.evaluation.compare.leaderboard import leaderboard, paired_difference
    from medrcube_desktop.evaluation.compare.matrix import run_matrix
    from medrcube_desktop.review.agreement.stats import mcnemar_exact_p

    pairs = release_pairs(store, release, runs)
    old_runs, new_runs = [p[0] for p in pairs], [p[1] for p in pairs]
    old = run_matrix(store, old_runs, items)
    new = run_matrix(store, new_runs, release.items)
    board_old, board_new = leaderboard(old), leaderboard(new)
    after = _on_rows(new, items)
    both = RunMatrix(
        tuple(items), tuple(old_runs + new_runs), np.hstack([old.correct, after]),
        np.zeros((len(items), 2 * len(pairs)), dtype=bool),
        models=old.models + new.models, text_only=old.text_only + new.text_only,
    )  # fmt: skip
    image = ~np.array(old.text_only, dtype=bool)
    ranks_before = _ranks(board_old.accuracy[:, 0], image)
    ranks_after = _ranks(board_new.accuracy[:, 0], image)
    retired_ids = release.retired
    gone = np.array([item.id in retired_ids for item in items], dtype=bool)
    shifts = []
    for c, (run, rescored) in enumerate(pairs):
        b, a = old.correct[:, c], after[:, c]
        paired = ~np.isnan(b) & ~np.isnan(a)
        to_right = int(np.sum(paired & (b == 0) & (a == 1)))
        to_wrong = int(np.sum(paired & (b == 1) & (a == 0)))
        same_right = int(np.sum(paired & (b == 1) & (a == 1)))
        same_wrong = int(np.sum(paired & (b == 0) & (a == 0)))
        diff: float | None
        low: float | None
        high: float | None
        if paired.any() and n_boot > 0:
            diff, low, high = paired_difference(both, rescored, run, n_boot=n_boot, seed=seed)
        elif paired.any():
            diff, low, high = float(np.mean(a[paired] - b[paired])), None, None
        else:
            diff = low = high = None
        shifts.append(ModelShift(
            run=run, rescored=rescored, model=old.models[c], text_only=bool(old.text_only[c]),
            n_before=int(board_old.n[c, 0]), correct_before=int(board_old.correct[c, 0]),
            accuracy_before=_number(board_old.accuracy[c, 0]),
            low_before=_number(board_old.low[c, 0]), high_before=_number(board_old.high[c, 0]),
            n_after=int(board_new.n[c, 0]), correct_after=int(board_new.correct[c, 0]),
            accuracy_after=_number(board_new.accuracy[c, 0]),
            low_after=_number(board_new.low[c, 0]), high_after=_number(board_new.high[c, 0]),
            n_paired=int(paired.sum()), diff=_number(diff), diff_low=_number(low),
            diff_high=_number(high), to_right=to_right, to_wrong=to_wrong,
            mcnemar_p=mcnemar_exact_p([[same_right, to_wrong], [to_right, same_wrong]])
            if paired.any() else None,
            rank_before=ranks_before[c], rank_after=ranks_after[c],
            retired=int(np.sum(gone & ~np.isnan(b))),
            pending=int(np.sum(~gone & ~np.isnan(b) & np.isnan(a))),
        ))  # fmt: skip
    effects = _effects(release, items, old.correct, after, old_runs)
    warnings = []
    source = Path(release.source).expanduser().resolve() if release.source else None
    if dataset and source is not None and Path(dataset).expanduser().resolve() != source:
        warnings.append(f"--dataset {dataset} is not the release's source ({release.source}): "
                        "the 'before' figures are over the benchmark given")  # fmt: skip
    return ReleaseDiff(release.describe(), str(Path(dataset).expanduser().resolve())
                       if dataset else "", shifts, effects, n_boot, seed, warnings)  # fmt: skip


def release_diff_study(
    store,
    dataset: str | Path,
    release_dir: str | Path,
    runs: Sequence[str] | None = None,
    n_boot: int = _D["diff_boot"],  # type: ignore[assignment]
    seed: int = _D["seed"],  # type: ignore[assignment]
) -> ReleaseDiff:
    """:func:`release_diff` from paths, as the command and the pane call it: the source
    benchmark read by :func:`~.inputs.scored_benchmark`, the release by
    :func:`~medrcube_desktop.evaluation.release_read.read_release`.

    Raises
    ------
    DatasetError
        The benchmark or the release cannot be read.
    MedRCubeError
        See :func:`release_pairs`.
    """
    from medrcube_desktop.evaluation.compare.inputs import scored_benchmark
    from medrcube_desktop.evaluation.release_read import read_release

    items = scored_benchmark(dataset).items
    release = read_release(release_dir)
    return release_diff(store, items, release, runs, n_boot, seed, dataset)
