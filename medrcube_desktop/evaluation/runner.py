"""Running a model over the benchmark: each answer parsed and stored as it arrives.

A killed or cancelled run resumes under the same name: items already answered are not
asked again, and the database refuses a second answer to an item (primary key).
"""

from __future__ import annotations

import dataclasses
import logging
import platform
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, TypedDict

from medrcube_desktop import __version__
from medrcube_desktop.core.items import Item
from medrcube_desktop.core.progress import Progress, ProgressFn, report
from medrcube_desktop.core.utf8 import HALF_CHARACTER, storable
from medrcube_desktop.errors import EngineError, StoreError
from medrcube_desktop.evaluation.engine_options import operational_keys
from medrcube_desktop.evaluation.engines.base import Engine, EvalRequest, EvalResponse
from medrcube_desktop.evaluation.image_modes import (
    BLANK,
    IMAGE,
    NOISE,
    SWAPPED,
    TEXT_ONLY,
    check_image_mode,
    image_setting_words,
    run_image_mode,
    run_image_setting,
)
from medrcube_desktop.evaluation.images import (
    DEFAULT_MAX_PIXELS,
    DEFAULT_MIN_SIDE,
    ImageCache,
    default_cache_folder,
)
from medrcube_desktop.evaluation.metrics import Outcome, summarize
from medrcube_desktop.evaluation.parse import cap_answer, official_answer, parse_answer
from medrcube_desktop.evaluation.prepare import ImagePipeline, PipelineStats
from medrcube_desktop.evaluation.prompt import build_prompt, prompt_sha256
from medrcube_desktop.llm.keys import KeyRedactor, url_secrets, warn_short_secrets
from medrcube_desktop.store import StudyStore, utc_now
from medrcube_desktop.store.evaluation import ResponseRecord, RunRecord
from medrcube_desktop.store.locks import process_lock

log = logging.getLogger(__name__)


@dataclass
class ImageOptions:
    """How images are sent: ``text_only`` sends none (the prior-leakage baseline);
    ``mode`` is the run's :mod:`~medrcube_desktop.evaluation.image_modes` mode (``blank``,
    ``swapped``, ``noise`` send an ablated picture; ``text-only`` and ``text_only`` are
    one: setting either sets both) and ``seed`` picks the swapped donor or the noise.

    ``min_side`` and ``max_pixels`` (pixels) decide the image and are recorded with the
    run; ``workers`` (preparing processes, None: one per core, 0: in this process) and
    ``cache`` (keep prepared images in :func:`default_cache_folder` for the next run)
    only decide how fast it is prepared.

    Raises
    ------
    ValueError
        An unknown mode, or ``text_only`` with another ablation mode.
    """

    text_only: bool = False
    min_side: int = DEFAULT_MIN_SIDE
    max_pixels: int = DEFAULT_MAX_PIXELS
    workers: int | None = None
    cache: bool = True
    mode: str = IMAGE
    seed: int = 0

    def __post_init__(self) -> None:
        check_image_mode(self.mode)
        if self.text_only and self.mode not in (IMAGE, TEXT_ONLY):
            raise ValueError(f"text only and image mode {self.mode!r}: choose one")
        if self.text_only or self.mode == TEXT_ONLY:
            self.text_only, self.mode = True, TEXT_ONLY

    def recorded(self) -> dict[str, object]:
        """What the run records (what changes the image a model sees): an image or
        text-only run as before modes existed (so it resumes), an ablation run its
        ``mode`` and ``seed`` too."""
        found: dict[str, object] = {"text_only": self.text_only, "min_side": self.min_side,
                                    "max_pixels": self.max_pixels}  # fmt: skip
        if self.mode in (BLANK, SWAPPED, NOISE):
            found.update(mode=self.mode, seed=self.seed)
        return found


class Timing(TypedDict):
    """Where a run's time went (issue 11), seconds rounded to ms.

    ``prepare_s``: worker seconds preparing images; ``queue_wait_s``: seconds requests
    waited for a prepared image; ``endpoint_s``: the endpoint's seconds summed over
    answers (None when the engine answers in batches); ``images``: images prepared, of
    which ``original`` were sent as stored, ``rendered`` rendered and ``cached`` read
    from the cache; ``image_workers``: processes preparing them.
    """

    prepare_s: float
    queue_wait_s: float
    endpoint_s: float | None
    images: int
    original: int
    rendered: int
    cached: int
    image_workers: int


@dataclass
class EvalProgress:
    """Counts so far: answered in this run, already done before, failed (not stored).

    Also the run's summary (``core.progress.Summary``): ``failed``, ``cancelled`` and
    :meth:`to_dict`.
    """

    total: int = 0
    answered: int = 0
    skipped: int = 0
    unparsed: int = 0
    correct: int = 0
    failed: list[dict[str, str]] = field(default_factory=list)
    cancelled: bool = False
    images: PipelineStats = field(default_factory=PipelineStats)
    endpoint_s: float = 0.0
    """Seconds the endpoint took, summed over answers that report a latency."""
    timed: int = 0
    """Answers that report a latency (the ``vllm`` engine answers in batches: none)."""
    servers: list[str] = field(default_factory=list)
    """A line per server that failed during the run (set aside, HTTP errors, replies
    without an answer, redirect loops), from the engine's ``server_notes``."""

    def timing(self) -> Timing:
        """Where the run's time went so far."""
        stats = self.images
        return {
            "prepare_s": round(stats.prepare_s, 3),
            "queue_wait_s": round(stats.wait_s, 3),
            "endpoint_s": round(self.endpoint_s, 3) if self.timed else None,
            "images": stats.images,
            "original": stats.original,
            "rendered": stats.rendered,
            "cached": stats.cached,
            "image_workers": stats.workers,
        }

    def to_dict(self) -> dict[str, object]:
        """This run's counts as JSON-ready data (``evaluate --json`` adds the figures)."""
        return {
            "answered": self.answered,
            "skipped": self.skipped,
            "unparsed": self.unparsed,
            "correct": self.correct,
            "failed": self.failed,
            "cancelled": self.cancelled,
            "servers": self.servers,
            "timing": self.timing(),
        }

    def progress(self) -> Progress:
        """The progress record now, with a copy of this state as its ``detail``."""
        snapshot = dataclasses.replace(
            self, failed=list(self.failed), images=dataclasses.replace(self.images)
        )
        return Progress(
            self.answered + len(self.failed), self.total, "item", "",
            {"correct": self.correct, "unparsed": self.unparsed, "failed": len(self.failed)},
            snapshot,
        )  # fmt: skip


def run_record(
    name: str,
    engine: Engine,
    model: str,
    images: ImageOptions,
    benchmark: str,
    revision: str = "",
    image_run: str = "",
) -> RunRecord:
    """The run's record: engine parameters, image handling (its mode; ``image_run``: the
    image run an ablation run is linked to, "" for none), prompt hash, versions, GPU."""  # fmt: skip
    params = {**engine.describe(), "image": images.recorded()}
    return RunRecord(
        name=name,
        engine=engine.name,
        model=model,
        params=params,
        prompt_sha256=prompt_sha256(),
        app_version=__version__,
        created_at=utc_now(),
        model_revision=revision,
        text_only=images.text_only,
        image_mode=images.mode,
        image_run=image_run if images.mode != IMAGE else "",
        library_versions={"python": platform.python_version(), **engine.library_versions()},
        gpu=engine.gpu(),
        benchmark=benchmark,
    )


OPERATIONAL_PARAMS = operational_keys() | {"source", "records_sha256", "limit_mm_per_prompt"}
"""Engine parameters that do not change the answers: a resume may use other values: the
operational engine options' (:func:`~.engine_options.operational_keys`: ``base_urls``,
``attached_to``, ``concurrency``…) and two of imported runs.
``limit_mm_per_prompt`` is vLLM's image limit: 0 for a text-only run (the
language-model-only path, issue 24), 1 for the others, and never a different answer (a
text-only run sends no image either way; a text-only run stored before 0 was used resumes).
``source`` is where an imported file was read: a moved copy (same ``source_bytes`` and
``source_sha256``) gives the same answers; ``records_sha256`` (what tells a re-formatted
copy) is not recorded by runs imported before it was, and the bytes decide."""


def resume_conflicts(stored: RunRecord, run: RunRecord) -> list[str]:
    """What differs between a stored run and the one asked for under its name: the
    engine, model, prompt, the picture (``image``: its mode, seed, linked image run and
    size, :func:`~.image_modes.run_image_setting`), benchmark, then every
    answer-relevant engine parameter (all but :data:`OPERATIONAL_PARAMS`) by name,
    sorted. Empty when ``run`` may resume ``stored``.

    A blank benchmark on either side matches any (runs stored before it was recorded).
    """
    differ = [
        name
        for name, old, new in (
            ("engine", stored.engine, run.engine),
            ("model", stored.model, run.model),
            ("prompt", stored.prompt_sha256, run.prompt_sha256),
            # text-only, the ablation mode, its seed and link: one setting, said once
            ("image", run_image_setting(stored), run_image_setting(run)),
            # another benchmark: its items would count as answered by id
            ("benchmark", stored.benchmark or run.benchmark, run.benchmark or stored.benchmark),
        )
        if old != new
    ]
    old_params, new_params = _answer_relevant(stored.params), _answer_relevant(run.params)
    differ += sorted(
        key
        for key in set(old_params) | set(new_params)
        if old_params.get(key) != new_params.get(key)
    )
    return differ


def conflict_values(stored: RunRecord, run: RunRecord, differ: Sequence[str]) -> list[str]:
    """Each of ``differ`` (:func:`resume_conflicts`' names) with both values, as
    ``max_tokens: the run has 512, you gave 256`` (``unset`` for a parameter one side
    lacks; the prompt by its SHA-256's first 12 hex digits; the picture in words,
    ``image: the run is a blank run (image run m), you asked for a noise run (seed 7,
    image run m)``, :func:`~.image_modes.image_setting_words`)."""
    attributes = {"engine": "engine", "model": "model", "prompt": "prompt_sha256",
                  "benchmark": "benchmark"}  # fmt: skip

    def shown(record: RunRecord, key: str) -> str:
        if key in attributes:
            value = getattr(record, attributes[key])
            return value[:12] if key == "prompt" and value else repr(value)
        return repr(record.params[key]) if key in record.params else "unset"

    def image() -> str:
        old, new = run_image_setting(stored), run_image_setting(run)
        sizes = tuple(k for k in ("min_side", "max_pixels") if old.get(k) != new.get(k))
        return (f"image: the run is {image_setting_words(old, sizes)}, you asked for "
                f"{image_setting_words(new, sizes)}")  # fmt: skip

    return [image() if key == "image" else
            f"{key}: the run has {shown(stored, key)}, you gave {shown(run, key)}"
            for key in differ]  # fmt: skip


def _answer_relevant(params: dict) -> dict:
    """``params`` without the operational ones and the picture's (``image``: compared
    as one setting by :func:`resume_conflicts`)."""
    return {key: value for key, value in params.items()
            if key not in OPERATIONAL_PARAMS and key != "image"}  # fmt: skip


def open_run(store: StudyStore, run: RunRecord) -> RunRecord:
    """Create ``run`` in ``store``, or return the stored run of that name to resume it.

    Raises
    ------
    StoreError
        A run of that name exists with another engine, model, prompt, benchmark or
        answer-relevant parameters (:func:`resume_conflicts`): resuming it would mix two
        experiments. The run or model name is blank or holds a character that is not
        shown as itself (:func:`~medrcube_desktop.core.names.check_name`). Or the
        database cannot be written.
    """
    from medrcube_desktop.core.names import check_name
    from medrcube_desktop.store import evaluation

    try:  # where a new run's names enter (the CLI and the Evaluate pane alike)
        check_name(run.name, "run name"), check_name(run.model, "model name")
    except ValueError as exc:
        raise StoreError(str(exc)) from None
    with store.transaction(f"create run {run.name}") as db:  # check and create: one
        stored = evaluation.eval_run(db, run.name)  # transaction (two runs may race)
        if stored is None:
            evaluation.insert_run(db, run)
            return run
    differ = resume_conflicts(stored, run)
    if differ:
        raise StoreError(
            f"run {run.name!r} exists with other settings ({', '.join(differ)} differ); "
            "resume it with the same ones or pick another name ("
            + "; ".join(conflict_values(stored, run, differ))
            + ")"
        )
    return stored


def linked_image_run(store: StudyStore, run: RunRecord, given: str | None, default: str) -> str:
    """The image run an ablation ``run`` is linked to: ``given`` (``--image-run``), else
    the stored link of the run it resumes (a run of ``run``'s name), else ``default``
    (the name the same model and engine get in image mode) when such a run is stored,
    else "" (not known: compare pairs text-only runs by name as before). "" for an
    image run. Another ``given`` than a resumed run's link is refused when the run is
    opened (:func:`resume_conflicts`, its ``image``).

    Raises
    ------
    StoreError
        ``given`` names no stored run, a run that is not an image run, a run of another
        model, or the run itself (a link to nothing or across models would pair the
        ablation with the wrong answers in ``compare``).
    """
    if run_image_mode(run) == IMAGE:
        return ""
    resumed = store.eval_run(run.name)
    if not given and resumed is not None:  # a resume keeps its link unless another is given
        return resumed.image_run or ""
    if given:
        refusal = image_run_refusal(run, given, store.eval_run(given))
        if refusal:
            hint = " (evaluate the image run first, or leave --image-run out)"
            raise StoreError(
                f"--image-run {given}: {refusal}" + (hint if "no run" in refusal else "")
            )
        return given
    stored = store.eval_run(default)  # linked only when --image-run would accept it
    return default if stored is not None and not image_run_refusal(run, default, stored) else ""


def image_run_refusal(run: RunRecord, given: str, stored: RunRecord | None) -> str:
    """Why ``given`` (``stored``: the run of that name, None when none is) cannot be the
    image run the ablation run ``run`` is linked to, in words (``no run of that name is
    stored``), or "" when it can. The one check of ``evaluate --image-run``
    (:func:`linked_image_run`) and ``import-run``'s ``image_run`` field: a link to
    nothing, across models or benchmarks (a blank benchmark, of a run stored before it was
    recorded, matches any), to an ablation run or to itself would pair the ablation with
    the wrong answers in ``compare``."""
    if given == run.name:
        return "itself, not an image run"
    if stored is None:
        return "no run of that name is stored"
    if stored.model != run.model:
        return f"a run of model {stored.model!r}, not of this run's {run.model!r}"
    if run_image_mode(stored) != IMAGE:
        return f"a {run_image_mode(stored)} run, not an image run"
    if stored.benchmark and run.benchmark and stored.benchmark != run.benchmark:
        # another benchmark's answers would pair with this one's by item id alone
        return f"a run on benchmark {stored.benchmark}, not on this run's {run.benchmark}"
    return ""


def answer_redactor(engine: Engine) -> KeyRedactor:
    """What scrubs an answer or an error before it is stored or shown: the engine's API
    key and the secrets in its URLs (user info, query), as ``judge`` does
    (:class:`~medrcube_desktop.llm.keys.KeyRedactor`). An endpoint that echoes the key (a
    proxy, a debug server) then puts ``[API key]`` in the database, never the key.
    Called once at the start of a run: a password too short to scrub on its own is
    warned about here (:func:`~medrcube_desktop.llm.keys.warn_short_secrets`)."""
    key = getattr(engine, "api_key", "") or ""
    urls = [str(url) for url in getattr(engine, "base_urls", None) or []]
    warn_short_secrets(urls)
    return KeyRedactor(str(key), [s for url in urls for s in url_secrets(str(url))])


def run_evaluation(
    items: Sequence[Item],
    store: StudyStore,
    run: RunRecord,
    engine: Engine,
    images: ImageOptions | None = None,
    progress: ProgressFn | None = None,
    cancel: threading.Event | None = None,
) -> EvalProgress:
    """Ask ``engine`` every item ``run`` has no answer to; store each answer at once.

    ``progress`` gets a :class:`~medrcube_desktop.core.progress.Progress` after every
    answer or failure, its ``detail`` a copy of the :class:`EvalProgress` so far; setting
    ``cancel`` stops the run between requests (what is stored stays stored). A new run
    that stores no answer (every item failed, the engine stopped, or it was cancelled
    first) is removed again, with a warning: no empty run looks like a model's result,
    and the same command starts it again.

    Raises
    ------
    StoreError
        The run exists with other settings, or a write failed.
    EngineError
        The engine could not start or died (what was stored stays stored).
    """
    images = images or ImageOptions()
    cancel = cancel or threading.Event()
    new_run = store.eval_run(run.name) is None
    run = open_run(store, run)
    done = store.answered_ids(run.name)
    todo = [item for item in items if item.id not in done]
    state = EvalProgress(total=len(todo), skipped=len(items) - len(todo))
    if not todo and not new_run:
        return state  # every item answered: no model to load for nothing
    by_id = {item.id: item for item in todo}
    sent: dict[str, dict] = {}
    redactor = answer_redactor(engine)

    pipeline = None
    if not images.text_only:
        cache = ImageCache(default_cache_folder()) if images.cache else None
        pipeline = ImagePipeline(todo, images.min_side, images.max_pixels, cache, images.workers,
                                 mode=images.mode, seed=images.seed, pool=items)  # fmt: skip
        state.images = pipeline.stats

    def requests() -> Iterator[EvalRequest]:
        if pipeline is None:
            for item in todo:
                if cancel.is_set():
                    return
                yield EvalRequest(item.id, build_prompt(item))
            return
        for prepared in pipeline:
            if cancel.is_set():
                return
            if prepared.image is None:
                state.failed.append({"item": prepared.item.id, "error": prepared.error})
                report(progress, state.progress())
                continue
            sent[prepared.item.id] = prepared.image.info
            yield EvalRequest(
                prepared.item.id, build_prompt(prepared.item), prepared.image.data,
                prepared.image.mime,
            )  # fmt: skip

    def on_response(response: EvalResponse) -> None:
        item = by_id[response.item_id]
        if response.latency_s is not None:
            state.endpoint_s += response.latency_s
            state.timed += 1
        if response.error:
            state.failed.append({"item": item.id, "error": redactor.scrub(response.error)})
        else:
            # the key never reaches the database; a runaway answer is cut, with a note
            text, halves = storable(cap_answer(redactor.scrub(response.text)))
            if halves:  # UTF-8 (the database) has no code for it: the answer is kept
                log.warning("item %s of run %s: the answer %s", item.id, run.name, HALF_CHARACTER)
            parsed = parse_answer(text, item.options)
            official = official_answer(text)
            stored = store.save_response(
                ResponseRecord(
                    run=run.name,
                    item_id=item.id,
                    response=text,
                    parsed_answer=parsed.letter,
                    parse_method=parsed.method,
                    correct=parsed.letter == item.answer,
                    official_answer=official,
                    official_correct=official == item.answer,
                    created_at=utc_now(),
                    latency_s=response.latency_s,
                    prompt_tokens=response.prompt_tokens,
                    completion_tokens=response.completion_tokens,
                    image=sent.pop(item.id, {}),
                )
            )
            if stored:
                state.answered += 1
                state.unparsed += parsed.letter is None
                state.correct += parsed.letter == item.answer
            else:
                log.warning(
                    "item %s already answered in run %s: not stored twice", item.id, run.name
                )
        report(progress, state.progress())

    with process_lock(store, f"evaluate.running:{run.name}", f"run {run.name}"):
        try:
            if pipeline is not None:
                pipeline.start()  # images get ready while the engine starts (a model loads)
            try:
                engine.run(requests(), on_response, cancel)
            finally:  # a dead or failing server is said, also when the run stopped
                state.servers = list(getattr(engine, "server_notes", None) or [])
        except EngineError:
            if new_run and not store.answered_ids(run.name):
                store.delete_empty_run(run.name)  # an engine that never started leaves no run
            raise
        else:
            if new_run and not store.answered_ids(run.name) and todo:
                # every item failed (or the run was cancelled first): no empty run is left
                # to look like a model's result; the same command starts it again
                store.delete_empty_run(run.name)
                log.warning("run %s stored no answer, so it is not kept", run.name)
        finally:
            if pipeline is not None:
                pipeline.close()
                if pipeline.cache is not None:
                    try:
                        pipeline.cache.prune()
                    except OSError as exc:  # a cache that cannot be trimmed costs only disk
                        log.warning("image cache %s not trimmed: %s", pipeline.cache.folder, exc)
            engine.close()
            if store.eval_run(run.name) is not None:
                store.add_run_provenance(run.name, engine.library_versions(), engine.gpu())
    state.cancelled = cancel.is_set()
    return state


def run_outcomes(store: StudyStore, run: str, items: Sequence[Item]) -> list[Outcome]:
    """The run's answers as outcomes of the benchmark's items (items without an answer
    are left out)."""
    answers = store.responses(run)
    return [Outcome(item, answers[item.id].parsed_answer) for item in items if item.id in answers]


def run_summary(store: StudyStore, run: str, items: Sequence[Item]) -> dict[str, Any]:
    """``{"run", "n", "accuracy", "unparsed", "unparsed_rate", "official_accuracy",
    "random_baseline", "by_task", …}`` over every stored answer of the run."""
    answers = store.responses(run)
    outcomes = run_outcomes(store, run, items)
    summary = summarize(outcomes)
    official = [answers[o.item.id].official_correct for o in outcomes]
    return {
        "run": run,
        **summary,
        "official_accuracy": sum(official) / len(official) if official else None,
    }
