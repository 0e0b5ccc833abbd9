"""``demo build --with-examples``: a study database beside the demo, so that every pane and
command can be tried from the demo alone (issue 22 item 5).

Everything is made the way a user makes it, through the functions the commands call,
against a local scripted endpoint (:class:`~medrcube_desktop.demo.stub_endpoint.StubEndpoint`
on 127.0.0.1, no model, no network):

- five evaluation runs through :func:`~medrcube_desktop.evaluation.runner.run_evaluation`
  with the ``openai`` engine (what ``evaluate --engine openai`` runs): four models of
  different accuracy (:data:`~medrcube_desktop.demo.example_script.PERSONALITIES`; four, the fewest the voxel correlation
  takes) and a text-only baseline of the strongest, stored as ``evaluate --text-only``
  stores it (same model, ``text_only`` set);
- two experts' first judgments of every item, committed through
  :class:`~medrcube_desktop.review.session.ReviewSessionState` as the window commits them
  (image shown, a comment on every failed rule), disagreeing on some rules;
- an LLM judge's judgment of every item through :func:`~medrcube_desktop.llm.judge.run_judge`,
  then each expert's note on why they keep their scores where the LLM differs (what
  Enter stores once the judgment is revealed);
- one adjudication, of the first item the experts disagree on, through
  :func:`~medrcube_desktop.review.adjudication.adjudicate`.

Every answer, score and comment is drawn from ``random.Random`` seeded with the seed and
a fixed label (:mod:`~medrcube_desktop.demo.example_script`): the same seed gives
the same database content (time stamps and measured seconds aside).
"""

from __future__ import annotations

import threading
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from medrcube_desktop.core.items import Item
from medrcube_desktop.core.progress import Progress, ProgressFn, report
from medrcube_desktop.core.rubric import RULE_IDS
from medrcube_desktop.demo.example_script import (
    DEFAULT_SEED,
    EXPERTS,
    JUDGE,
    PERSONALITIES,
    Personality,
    responder,
    scripted_answers,
    scripted_scores,
)
from medrcube_desktop.errors import DatasetError

EXAMPLES_VERSION = "1"
"""Bump when what the examples hold changes. The database records it with the demo's
:data:`~medrcube_desktop.demo.build.BUILDER_VERSION` (:data:`VERSION_KEY`,
:func:`recorded_version`), so ``--demo --with-examples`` rebuilds a study made for
another demo."""
VERSION_KEY = "demo_examples_version"
DB_SUFFIX = "-examples.sqlite"
"""``demo build OUT --with-examples`` writes the study to ``OUT`` + this, beside ``OUT``."""


@dataclass
class ExamplesSummary:
    """What :func:`build_examples` stored (the ``demo build --with-examples`` summary).

    ``runs``: run name → ``{"model", "text_only", "answered", "correct"}``;
    ``disagreements``: items the two experts differ on (any rule);
    ``adjudicated``: the item adjudicated (``None`` when none differed); in
    :meth:`to_dict` ``adjudicated`` is how many items were (0 or 1, a count beside
    ``disagreements``) and ``adjudicated_items`` their ids.
    """

    db: str
    dataset: str
    seed: int
    runs: dict[str, dict[str, object]] = field(default_factory=dict)
    reviewers: list[str] = field(default_factory=list)
    judge_model: str = JUDGE
    judged: int = 0
    disagreements: int = 0
    adjudicated: str | None = None
    failed: list[dict[str, str]] = field(default_factory=list)
    cancelled: bool = False

    @property
    def adjudicated_count(self) -> int:
        """How many items were adjudicated (0 or 1)."""
        return 1 if self.adjudicated else 0

    def to_dict(self) -> dict[str, object]:
        return {
            "db": self.db,
            "dataset": self.dataset,
            "seed": self.seed,
            "runs": self.runs,
            "reviewers": self.reviewers,
            "judge_model": self.judge_model,
            "judged": self.judged,
            "disagreements": self.disagreements,
            "adjudicated": self.adjudicated_count,
            "adjudicated_items": [self.adjudicated] if self.adjudicated else [],
            "failed": self.failed,
            "cancelled": self.cancelled,
        }


def recorded_version() -> str:
    """What a current examples database records under :data:`VERSION_KEY`:
    ``"<examples version>/<demo builder version>"``."""
    from medrcube_desktop.demo.build import BUILDER_VERSION

    return f"{EXAMPLES_VERSION}/{BUILDER_VERSION}"


def examples_db_path(demo_dir: Path) -> Path:
    """Where ``demo build DIR --with-examples`` puts the study: ``DIR-examples.sqlite``
    beside ``DIR`` (``.`` and ``..`` read as the folders they name: ``demo build .``
    in ``/data/demo`` gives ``/data/demo-examples.sqlite``).

    Raises
    ------
    DatasetError
        ``DIR`` is the file system's root (nothing is beside it).
    """
    import os

    folder = Path(os.path.abspath(demo_dir))  # normalised: no "." or ".." left
    if not folder.name:
        raise DatasetError(f"{demo_dir}: the examples study goes beside the demo's folder")
    return folder.with_name(folder.name + DB_SUFFIX)


def build_examples(
    demo_dir: Path,
    db_path: Path,
    *,
    progress: ProgressFn | None = None,
    cancel: threading.Event | None = None,
    seed: int = DEFAULT_SEED,
) -> ExamplesSummary:
    """Write the examples study for the demo at ``demo_dir`` into a new ``db_path``.

    The database is built in a hidden file beside ``db_path`` and moved into place
    when complete, never over a file that appeared there meanwhile (another build of the
    same folder, say: what it wrote, and any review added to it since, stays): a failure
    or a cancel leaves no file.

    Parameters
    ----------
    demo_dir : Path
        A built demo benchmark (:func:`~medrcube_desktop.demo.build.build_demo`).
    db_path : Path
        The study database to create; it must not exist.
    progress : callable, optional
        Gets a :class:`~medrcube_desktop.core.progress.Progress` (unit "step", its label
        the step) before each step and once at the end with ``done == total``.
    cancel : threading.Event, optional
        Set it to stop between steps (then nothing is kept and ``cancelled`` is set).
    seed : int
        Seeds every scripted answer and score.

    Returns
    -------
    ExamplesSummary

    Raises
    ------
    DatasetError
        ``db_path`` exists (before the build or at its end), the demo cannot be loaded
        or has problems, or a step failed (an item not answered or not judged: the
        message names it).
    StoreError
        The database cannot be written.
    """
    from medrcube_desktop.core.dataset import load_benchmark

    db_path = Path(db_path)
    if db_path.exists() or db_path.is_symlink():
        raise DatasetError(f"{db_path}: already exists; the examples go into a new database")
    benchmark = load_benchmark(Path(demo_dir))
    if benchmark.problems or not benchmark.items:
        raise DatasetError(
            f"{demo_dir}: not a usable demo ({len(benchmark.problems)} problems, "
            f"{len(benchmark.items)} items); build it again with demo build"
        )
    items = list(benchmark.items)
    cancel = cancel or threading.Event()
    summary = ExamplesSummary(str(db_path), str(benchmark.root), seed)
    db_path.parent.mkdir(parents=True, exist_ok=True)
    staging = db_path.with_name(f".{db_path.name}.building-{uuid.uuid4().hex[:8]}")
    try:
        _build(staging, items, str(benchmark.root), summary, progress, cancel)
        if summary.cancelled:
            return summary
        _move_into_place(staging, db_path)
    finally:
        for path in (staging, *_sidecars(staging)):
            path.unlink(missing_ok=True)
    return summary


def _move_into_place(staging: Path, db_path: Path) -> None:
    """Give the complete database at ``staging`` the name ``db_path``, which must still
    be free (a hard link fails if it is taken, where a rename would replace the file);
    on a file system without hard links, a rename after a last look.

    Raises
    ------
    DatasetError
        ``db_path`` exists now.
    """
    import os

    taken = DatasetError(
        f"{db_path}: appeared while the examples were built (another build?); it is "
        "kept as it is and these examples are not written"
    )
    try:
        os.link(staging, db_path, follow_symlinks=False)
    except FileExistsError:
        raise taken from None
    except OSError:  # no hard links here (FAT, some network shares)
        if db_path.exists() or db_path.is_symlink():
            raise taken from None
        staging.rename(db_path)


def try_commands(demo_dir: Path, db_path: Path, program: str = "medrcube-desktop") -> list[str]:
    """The commands to try on the examples study, one line each, paths quoted for a
    POSIX shell: ``compare``, ``credibility``, ``agreement`` (two experts and the
    LLM), ``adjudicate-queue`` and the window on it."""
    from shlex import quote

    db, root = quote(str(db_path)), quote(str(demo_dir))
    study = f"--db {db} --dataset {root}"
    experts = " ".join(f"--reviewer {name}" for name in EXPERTS)
    return [
        f"{program} compare {study}",
        f"{program} credibility --run {PERSONALITIES[0].run} {study}",
        f"{program} agreement --db {db} {experts} --model {JUDGE}",
        f"{program} adjudicate-queue {study}",
        f"{program} --dataset {root} --db {db}",
    ]


def ensure_examples(demo_dir: Path, db_path: Path, progress: ProgressFn | None = None) -> Path:
    """The examples study at ``db_path``, built unless a current one is there.

    A database that records another :func:`recorded_version` (or none, or cannot be
    read) is kept, renamed to ``<name>.replaced-<8 hex>`` beside it (reviews added to it
    are never lost), and a new one is built.

    Returns
    -------
    Path
        ``db_path``.

    Raises
    ------
    DatasetError, StoreError
        As :func:`build_examples`.
    """
    import logging

    from medrcube_desktop.errors import StoreError
    from medrcube_desktop.store import StudyStore

    db_path = Path(db_path)
    if db_path.is_file():
        why = "was made for another demo"
        try:
            store = StudyStore(db_path, read_only=True)
            try:
                version = store.get_state(VERSION_KEY)
            finally:
                store.close()
        except StoreError as exc:  # truncated, not a database: set aside all the same
            version, why = None, f"could not be read ({exc})"
        if version == recorded_version():
            return db_path
        aside = db_path.with_name(f"{db_path.name}.replaced-{uuid.uuid4().hex[:8]}")
        db_path.rename(aside)
        for sidecar, moved in zip(_sidecars(db_path), _sidecars(aside), strict=True):
            if sidecar.exists():
                sidecar.rename(moved)
        logging.getLogger(__name__).warning(
            "the demo examples study %s %s: kept as %s, built again", db_path, why, aside
        )
    build_examples(demo_dir, db_path, progress=progress)
    return db_path


def _sidecars(db: Path) -> list[Path]:
    return [db.with_name(db.name + suffix) for suffix in ("-wal", "-shm", "-journal")]


def _build(
    db: Path,
    items: list[Item],
    root: str,
    summary: ExamplesSummary,
    progress: ProgressFn | None,
    cancel: threading.Event,
) -> None:
    from medrcube_desktop.demo.stub_endpoint import StubEndpoint
    from medrcube_desktop.store import StudyStore

    answers = scripted_answers(items, summary.seed)
    scores = scripted_scores(items, summary.seed)
    steps = [*(f"run {p.run}" for p in PERSONALITIES), *(f"reviews of {e}" for e in EXPERTS)]
    steps += [f"judgments of {JUDGE}", *(f"notes of {e}" for e in EXPERTS), "one adjudication"]
    total = len(steps)
    with StubEndpoint(responder(items, answers, scores)) as stub:
        store = StudyStore(db)
        try:
            store.set_state(VERSION_KEY, recorded_version())
            for done, label in enumerate(steps):
                if cancel.is_set():
                    summary.cancelled = True
                    return
                report(progress, Progress(done, total, "step", label))
                if done < len(PERSONALITIES):
                    _evaluate(store, items, root, PERSONALITIES[done], stub.base_url, summary)
                elif label.startswith("reviews of "):
                    _review(store, items, label.removeprefix("reviews of "), scores)
                elif label.startswith("judgments"):
                    _judge(store, items, stub.base_url, summary)
                elif label.startswith("notes of "):
                    _notes(store, items, label.removeprefix("notes of "))
                else:
                    _adjudicate(store, items, scores, summary)
            summary.reviewers = list(EXPERTS)
            report(progress, Progress(total, total, "step", "done"))
        finally:
            store.close()


def _evaluate(
    store, items: list[Item], root: str, person: Personality, url: str, summary: ExamplesSummary
) -> None:
    """One run, as ``evaluate --engine openai --model M [--text-only]`` makes it."""
    from medrcube_desktop.evaluation.engines.factory import EngineOptions, build_engine
    from medrcube_desktop.evaluation.runner import ImageOptions, run_evaluation, run_record

    engine = build_engine(EngineOptions(engine="openai", model=person.model, base_urls=[url]))
    # prepared in this process (29 images: no worker processes to start) and kept in the
    # user's image cache as evaluate keeps them, so the next run reuses them
    images = ImageOptions(person.text_only, workers=0)
    record = run_record(person.run, engine, person.model, images, root)
    try:
        state = run_evaluation(items, store, record, engine, images)
    finally:
        engine.close()
    if state.failed:
        first = state.failed[0]
        raise DatasetError(
            f"demo examples: run {person.run}: {len(state.failed)} items not answered "
            f"(item {first['item']}: {first['error']})"
        )
    summary.runs[person.run] = {
        "model": person.model,
        "text_only": person.text_only,
        "answered": state.answered,
        "correct": state.correct,
    }


def _review(store, items: list[Item], expert: str, scores: dict[str, dict]) -> None:
    """The expert's first judgment of every item, committed as the window commits it:
    the image shown, each failed rule scored (then the rest passed), a comment naming
    the failed rules."""
    from medrcube_desktop.core.rubric import load_rubric
    from medrcube_desktop.review.session import ReviewSessionState

    labels = {rule.id: rule.label for rule in load_rubric().rules}
    ticks = iter(range(0, 10**9, 7))  # a clock: 7 s between inputs, the same every build
    session = ReviewSessionState(items, store, expert, clock=lambda: float(next(ticks)))
    for item in items:
        session.select(item.id)
        session.image_displayed(item.id, True)
        failed = [rule for rule in RULE_IDS if scores[expert][item.id][rule] == 0]
        for rule in failed:
            session.toggle(rule)  # unscored → fail
        session.pass_unscored()
        if failed:
            session.set_comment("Fails " + "; ".join(labels[rule] for rule in failed) + ".")
        session.commit()


def _notes(store, items: list[Item], expert: str) -> None:
    """The expert's reasons for keeping their scores where the LLM judgment (revealed
    after their commit) differs: what Enter stores on such an item in the window."""
    from medrcube_desktop.review.session import ReviewSessionState

    session = ReviewSessionState(items, store, expert, clock=lambda: 0.0)
    for item in items:
        session.select(item.id)
        pending = session.note_needed
        if pending is not None:
            session.commit(
                note=f"I keep my scores on {', '.join(pending[1])}: read the item again."
            )


def _judge(store, items: list[Item], url: str, summary: ExamplesSummary) -> None:
    """Every item judged by :data:`JUDGE`, as ``judge --model demo-judge`` does."""
    from medrcube_desktop.llm.config import JudgeConfig
    from medrcube_desktop.llm.judge import run_judge

    result = run_judge(items, store, JudgeConfig(model=JUDGE, base_url=url), api_key="demo")
    if result.failed:
        first = result.failed[0]
        raise DatasetError(
            f"demo examples: {len(result.failed)} items not judged "
            f"(item {first['item']}: {first['error']})"
        )
    summary.judged = result.judged


def _adjudicate(
    store, items: list[Item], scores: dict[str, dict], summary: ExamplesSummary
) -> None:
    """The first item the experts disagree on, adjudicated by the first expert to the
    scripted truth on every rule they differ on."""
    from medrcube_desktop.review.adjudication import adjudicate, build_queue
    from medrcube_desktop.review.study import StudySettings

    queue = build_queue(store, list(EXPERTS), items={item.id for item in items})
    summary.disagreements = len(queue.entries)
    if not queue.entries:
        return
    entry = queue.entries[0]
    truth = scores["truth"][entry.item_id]
    values = {rule: truth[rule] for rule in entry.rules}
    reasons = {
        rule: f"Consensus meeting: rule {rule} {'passes' if value else 'fails'}."
        for rule, value in values.items()
    }
    adjudicate(store, entry, EXPERTS[0], values, reasons, blind=StudySettings.load(store).blind)
    summary.adjudicated = entry.item_id
