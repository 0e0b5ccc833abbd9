"""Re-scoring stored runs on a corrected release without calling a model (issue 23
item 4).

Each stored run is copied to a new run ``<run>@<version>`` over the release
(:func:`rescore_runs`), in the same ``eval_runs`` / ``eval_responses`` tables, so that
``compare``, ``credibility``, ``export-run`` and the panes read it as any run:

- an answer to an item whose answer key changed is scored again from the stored parsed
  letter (and the public evaluator's letter, ``official_answer``, likewise); every kept
  item is scored against the release's key;
- an answer to a retired item is dropped (the item is not in the release);
- an answer to an item whose question, options or image changed
  (``needs_new_answer`` in ``changes.json``) is not copied: the item is listed as
  "needs a new answer", and ``evaluate --only-changed --run <run>@<version>`` answers
  just those, resuming the rescored run.

The rescored run keeps the source run's engine, model, prompt hash, text-only flag,
revision and versions (so a text-only run still pairs with its model's image run); its
``params`` are the source's plus ``rescored_from``, ``release_version``,
``release_dir``, ``release_digest`` and ``release_source``; its ``benchmark`` is the
release folder. Answers keep their own ``created_at`` (when the model answered).

Running it again is idempotent: a rescored run made from the same run on the same
release (same :attr:`~.release_read.Release.digest`) is kept, only answers it lacks are
added (a source run resumed since), and answers ``evaluate --only-changed`` stored stay.
A release rewritten under the same version (another digest) is refused unless
``replace`` is given, which deletes the rescored run (its new answers too) and makes it
again. The source runs are never changed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from medrcube_desktop import __version__
from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.evaluation.release_read import Release
from medrcube_desktop.store.evaluation import RunRecord

RESCORE_PARAMS: tuple[str, ...] = (
    "rescored_from", "release_version", "release_dir", "release_digest", "release_source",
)  # fmt: skip
"""What a rescored run's ``params`` add to its source run's."""


def rescored_name(run: str, version: str) -> str:
    """The name of run ``run`` rescored on release ``version``: ``"<run>@<version>"``."""
    return f"{run}@{version}"


def is_rescored(run: RunRecord) -> bool:
    """Whether ``run`` was made by :func:`rescore_runs`."""
    return "rescored_from" in run.params


@dataclass(frozen=True)
class RescoredRun:
    """What rescoring one run did.

    Attributes
    ----------
    run, source : str
        The rescored run and the run it was made from.
    status : str
        ``"rescored"`` (made now), ``"replaced"`` (made again with ``replace``) or
        ``"kept"`` (it existed on this release: only missing answers added).
    added : int
        Responses stored by this call.
    scored : int
        The source's answers copied to the release (kept items, needs-new-answer items
        left out), whether by this call or before.
    correct_before, correct_after : int
        Of the source's answers, right against the old key (every answered item the
        release knows of, retired included) and right against the release's key
        (over ``scored``).
    answered_before : int
        The source's answers the comparison counts before (items of the release or
        listed in ``changes.json``).
    retired : int
        Answers to retired items, dropped.
    key_changed : int
        Answers to kept items whose key changed (rescored from the stored letter).
    to_right, to_wrong : int
        Of those, wrong → right and right → wrong.
    needs_new_answer : list of str
        Ids of the items the source answered whose question, options or image changed:
        not scored (``evaluate --only-changed`` answers them).
    not_in_release : int
        Answers to items neither in the release nor in ``changes.json`` (another
        benchmark, or an item the release cannot load): dropped.
    benchmark_differs : bool
        The source run was answered on a benchmark other than the release's source.
    """

    run: str
    source: str
    status: str
    added: int
    scored: int
    correct_before: int
    correct_after: int
    answered_before: int
    retired: int
    key_changed: int
    to_right: int
    to_wrong: int
    needs_new_answer: list[str] = field(default_factory=list)
    not_in_release: int = 0
    benchmark_differs: bool = False

    def accuracy(self, after: bool) -> float | None:
        """Accuracy (0–1) before or after; None without answers."""
        right, n = (
            (self.correct_after, self.scored)
            if after
            else (self.correct_before, self.answered_before)
        )
        return right / n if n else None

    def to_dict(self) -> dict[str, object]:
        """JSON-ready, with ``accuracy_before`` and ``accuracy_after``."""
        return {
            **asdict(self),
            "accuracy_before": self.accuracy(False),
            "accuracy_after": self.accuracy(True),
        }


@dataclass(frozen=True)
class RescoreSummary:
    """Every run rescored on one release (``rescore --json`` prints :meth:`to_dict`)."""

    release: dict[str, object]
    runs: list[RescoredRun]
    skipped: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        """``{"release": {"version", "dir", "digest"}, "runs": [...], "skipped"}``."""
        return {
            "release": self.release,
            "runs": [run.to_dict() for run in self.runs],
            "skipped": self.skipped,
        }


def rescored_record(source: RunRecord, release: Release) -> RunRecord:
    """The :class:`RunRecord` of ``source`` rescored on ``release`` (see the module)."""
    from medrcube_desktop.store import utc_now

    params = {
        **source.params,
        "rescored_from": source.name,
        "release_version": release.version,
        "release_dir": str(release.root),
        "release_digest": release.digest,
        "release_source": release.source,
    }
    return RunRecord(
        name=rescored_name(source.name, release.version), engine=source.engine,
        model=source.model, params=params, prompt_sha256=source.prompt_sha256,
        app_version=__version__, created_at=utc_now(), model_revision=source.model_revision,
        text_only=source.text_only, library_versions=dict(source.library_versions),
        gpu=source.gpu, benchmark=str(release.root),
        # an ablation run stays one, linked to its image run rescored on the same release
        image_mode=source.image_mode,
        image_run=rescored_name(source.image_run, release.version) if source.image_run else "",
    )  # fmt: skip


def _plan(store, release: Release, runs: Sequence[str] | None, replace: bool):
    """``[(source record, existing target or None)]`` and the runs skipped; raises
    before anything is written."""
    names = store.eval_run_names()
    skipped: list[str] = []
    if runs is None:
        records = [store.eval_run(n) for n in names]
        chosen = []
        for record in records:
            if is_rescored(record):
                continue  # a rescored run is not rescored again unless named
            if record.benchmark == str(release.root):
                skipped.append(f"{record.name}: answered on this release already")
                continue
            chosen.append(record)
    else:
        missing = [r for r in runs if r not in names]
        if missing:
            raise MedRCubeError(
                f"no run named {', '.join(map(repr, missing))} (runs: {', '.join(names) or 'none'})"
            )
        chosen = [store.eval_run(r) for r in dict.fromkeys(runs)]
        for record in chosen:  # its answers carry one release's corrections already
            if is_rescored(record):
                raise MedRCubeError(
                    f"run {record.name!r} is already rescored on release "
                    f"{record.params.get('release_version', '?')!r}: rescoring it again "
                    "would apply the corrections twice; rescore its source run "
                    f"{record.params['rescored_from']!r} instead"
                )
    plan = []
    for record in chosen:
        target = store.eval_run(rescored_name(record.name, release.version))
        if target is not None:
            if target.params.get("rescored_from") != record.name:
                raise MedRCubeError(
                    f"run {target.name!r} exists and was not made by rescoring run "
                    f"{record.name!r}: rename or delete it first"
                )
            if target.params.get("release_digest") != release.digest and not replace:
                raise MedRCubeError(
                    f"run {target.name!r} was rescored on another release of version "
                    f"{release.version!r} (release.json or changes.json of {release.root} "
                    "changed since): give the new release another --version, or pass "
                    "--replace to rescore it again (answers `evaluate --only-changed` "
                    "stored in it are deleted with it)"
                )
        plan.append((record, target))
    return plan, skipped


def _item_rows(release: Release) -> list[tuple[str, str | None, str | None, int]]:
    """``(item_id, old_key, new_key, status)`` per item of the release and per retired
    item (:func:`~medrcube_desktop.store.evaluation.set_rescore_items`)."""
    from medrcube_desktop.store import evaluation as ev

    rows: list[tuple[str, str | None, str | None, int]] = []
    for item in release.items:
        change = release.changes.get(item.id)
        if change is None:
            rows.append((item.id, item.answer, item.answer, ev.RESCORE_KEPT))
        elif change.needs_new_answer:
            rows.append((item.id, change.answer_before, item.answer, ev.RESCORE_NEEDS_NEW))
        else:
            status = ev.RESCORE_KEY_CHANGED if change.key_changed else ev.RESCORE_KEPT
            rows.append((item.id, change.answer_before, item.answer, status))
    rows += [(c.item_id, c.answer_before, None, ev.RESCORE_RETIRED)
             for c in release.changes.values() if c.retired]  # fmt: skip
    return rows


def rescore_runs(
    store, release: Release, runs: Sequence[str] | None = None, replace: bool = False
) -> RescoreSummary:
    """Score ``runs`` of ``store`` (default: every run not itself rescored) on
    ``release`` from their stored answers, each into a run ``<run>@<version>``.

    Parameters
    ----------
    store : StudyStore
        Opened for writing.
    release : Release
        :func:`~.release_read.read_release` with its items.
    runs : sequence of str or None
        Run names; None: every stored run but the rescored ones and those answered on
        the release itself (listed in ``skipped``).
    replace : bool
        Delete and make again a rescored run made on another release of this version.

    Returns
    -------
    RescoreSummary

    Raises
    ------
    MedRCubeError
        A named run is not stored, or is itself a rescored run (``<run>@<version>``:
        its corrections would apply twice); a target name is held by a run not rescored from its
        source; or a target was rescored on another release of this version and
        ``replace`` is False. Nothing is written then.
    StoreError
        The database cannot be written (the whole rescoring is rolled back).
    """
    from medrcube_desktop.store import evaluation

    if not release.items:
        raise MedRCubeError(f"{release.root}: the release holds no loadable item")
    plan, skipped = _plan(store, release, runs, replace)
    done = []
    source_root = Path(release.source).expanduser().resolve() if release.source else None
    with store.transaction(f"rescore {len(plan)} runs on release {release.version}") as db:
        evaluation.set_rescore_items(db, _item_rows(release))
        for record, target in plan:
            counts = evaluation.changed_counts(db, record.name)
            answered = counts["answered"]
            if not answered:
                skipped.append(f"{record.name}: no stored answer")
                continue
            new = rescored_record(record, release)
            status = "kept"
            if target is None or target.params.get("release_digest") != release.digest:
                status = "rescored" if target is None else "replaced"
                if target is not None:
                    evaluation.delete_run(db, target.name)
                evaluation.insert_run(db, new)
            added, right_added = evaluation.copy_rescored(
                db, record.name, new.name, fresh=status != "kept"
            )
            if status == "kept":  # what it held before, and what was added now
                kept, kept_right = evaluation.kept_counts(db, new.name)
            else:  # every answer to a kept item was copied now
                kept = added - counts["key_changed"]
                kept_right = right_added - counts["key_correct_after"]
            differs = bool(
                record.benchmark
                and source_root is not None
                and Path(record.benchmark).expanduser().resolve() != source_root
            )
            done.append(
                RescoredRun(
                    run=new.name, source=record.name, status=status, added=added,
                    scored=kept + counts["key_changed"],
                    correct_before=kept_right + counts["correct_before"],
                    correct_after=kept_right + counts["key_correct_after"],
                    answered_before=kept + counts["changed"], retired=counts["retired"],
                    key_changed=counts["key_changed"], to_right=counts["to_right"],
                    to_wrong=counts["to_wrong"], needs_new_answer=counts["needs_new_answer"],
                    not_in_release=answered - kept - counts["changed"],
                    benchmark_differs=differs,
                )
            )  # fmt: skip
    return RescoreSummary(release.describe(), done, skipped)
