"""``import-run`` over many ``results.json`` files: which files a command line names
(folders searched a few levels deep), the run each one becomes, the model a text-only
run is the baseline of, and the import of them all, a bad file reported while the
others go on. One file is stored by :func:`~.results_json.import_run`.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from medrcube_desktop.core.items import Item
from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.store import StudyStore

MAX_DEPTH = 3
"""How many folders below a folder given on the command line ``results.json`` is looked
for (``results/org/model/results.json`` is 2)."""

TEXT_ONLY_SUFFIXES = ("-text-only", "_text_only", "-textonly", "-text", "_text")
"""Endings of a run name that mark a text-only baseline (matched ignoring case, the
longest first): ``Lingshu-7B-text`` is the baseline of ``Lingshu-7B``."""


@dataclass(frozen=True)
class ResultsFile:
    """One file to import: its ``path``, the ``run`` it becomes, the run's ``model``
    (None: the run name, or for a text-only run the model its name implies, see
    :func:`baseline_model`) and whether it is a text-only baseline (``text_only``)."""

    path: Path
    run: str
    model: str | None = None
    text_only: bool = False


def run_name_of(path: str | Path) -> str:
    """A run name for a results file: its stem, or its folder's name when the stem is
    ``results`` (``gpt-5.1/results.json`` → ``gpt-5.1``, ``lingshu-7b.json`` →
    ``lingshu-7b``)."""
    path = Path(path)
    return path.parent.resolve().name if path.stem == "results" else path.stem


def results_files(
    paths: Sequence[str | Path], depth: int = MAX_DEPTH
) -> tuple[list[Path], list[str], list[str]]:
    """The results files ``paths`` name, one problem per path that names none, and what
    was skipped inside folders (one line each, saying why).

    A file is taken as it is. A folder gives the ``*.json`` directly in it and every
    ``results.json`` up to ``depth`` folders below it (one per model, as a folder of the
    public evaluator's outputs holds them: ``<model>/results.json`` or
    ``<org>/<model>/results.json``), sorted; symbolic links to folders are not followed.
    Skipped and said: other ``*.json`` in subfolders, a ``*.json`` that is not a regular
    file (a named pipe), a linked folder, a ``results.json`` one level too deep. A file
    named twice (``./a/../a/results.json`` and ``a/results.json``, by its resolved
    path) is taken once, under its first spelling.
    """
    from medrcube_desktop.core.files import describe_missing

    found: dict[Path, Path] = {}
    problems: list[str] = []
    skipped: list[str] = []
    for path in map(Path, paths):
        if path.is_dir():
            inside = _folder_files(path, depth, skipped)
            if not inside:
                problems.append(f"{path}: a folder without results.json files")
            for file in inside:
                found.setdefault(file.resolve(), file)
            continue
        missing = describe_missing(path, "results file")
        if missing:
            problems.append(missing)
        else:
            found.setdefault(path.resolve(), path)
    return list(found.values()), problems, skipped


def _folder_files(folder: Path, depth: int, skipped: list[str]) -> list[Path]:
    """:func:`results_files` of one folder; what it leaves out goes to ``skipped``."""
    from medrcube_desktop.core.files import not_a_file

    taken: list[Path] = []
    others: list[Path] = []
    for top, dirs, names in os.walk(folder):  # symbolic links to folders not followed
        here = Path(top)
        level = len(here.relative_to(folder).parts)
        for name in sorted(dirs):
            if (here / name).is_symlink():
                skipped.append(f"{here / name}: a symbolic link to a folder; not followed")
        dirs[:] = sorted(d for d in dirs if not (here / d).is_symlink())
        if level == depth:
            skipped.extend(
                f"{here / d / 'results.json'}: more than {depth} folders deep; not searched "
                "(name it, or its folder)"
                for d in dirs
                if (here / d / "results.json").exists()
            )
            dirs[:] = []
        for name in sorted(names):
            file = here / name
            if not name.lower().endswith(".json"):
                continue
            problem = not_a_file(file)
            if problem:
                skipped.append(f"{file}: {problem}; skipped")
            elif name == "results.json" or level == 0:
                taken.append(file)
            else:
                others.append(file)
    if others:
        shown = ", ".join(map(str, others[:5])) + (
            f" and {len(others) - 5} more" if len(others) > 5 else ""
        )
        skipped.append(
            f"{folder}: skipped {len(others)} .json file(s) in subfolders not named "
            f"results.json ({shown}); name a file to import it"
        )
    return sorted(taken)


def baseline_model(run: str, image_models: dict[str, str]) -> str | None:
    """The model a text-only run named ``run`` is the baseline of: ``run`` less a
    :data:`TEXT_ONLY_SUFFIXES` ending, when that names an image run or an image run's
    model in ``image_models`` (name or model → model; exactly, else ignoring case when
    one matches); None otherwise."""
    lower = run.lower()
    for suffix in sorted(TEXT_ONLY_SUFFIXES, key=len, reverse=True):
        if lower.endswith(suffix) and len(run) > len(suffix):
            base = run[: -len(suffix)]
            if base in image_models:
                return image_models[base]
            folded = {image_models[k] for k in image_models if k.lower() == base.lower()}
            if len(folded) == 1:
                return folded.pop()
    return None


def _image_models(store: StudyStore, files: Sequence[ResultsFile]) -> dict[str, str]:
    """Image runs' names and models (→ model), stored and about to be imported."""
    found: dict[str, str] = {}
    for name in store.eval_run_names():
        run = store.eval_run(name)
        if run is not None and not run.text_only:
            found.update({run.name: run.model, run.model: run.model})
    for file in files:
        if not file.text_only:
            model = file.model or file.run
            found.update({file.run: model, model: model})
    return found


def _stored_model(store: StudyStore, run: str, given: str) -> str:
    """The model run ``run`` was stored with (an ablation file without ``--model`` takes
    its linked image run's), ``given`` when it is not stored."""
    stored = store.eval_run(run)
    return stored.model if stored is not None else given


def _has_image_run(store: StudyStore, model: str) -> bool:
    for name in store.eval_run_names():
        run = store.eval_run(name)
        if run is not None and not run.text_only and run.model == model:
            return True
    return False


READ_AHEAD_FILES = 3
"""Files at least for :func:`import_results` to read them ahead on other cores (the
workers' start, about a second, is then paid back: a file of 7,626 records takes about
0.2 s to read, match, re-parse and fingerprint, most of an import's time)."""

_items: Sequence[Item] = ()  # the benchmark's items in a reading worker


def _init_reader(items: Sequence[Item]) -> None:
    global _items
    _items = items


def _read_ahead(path: Path, run: str, text_only: bool, keys: dict[str, str], cwd: str):
    """:func:`~.results_json.read_answers` in a worker, as the importing process would
    read: from its folder ``cwd`` (a path as given may be relative), scrubbing the keys
    of its environment (``keys``), not the worker's."""
    from medrcube_desktop.evaluation.results_json import environment_redactor, read_answers

    if os.getcwd() != cwd:
        os.chdir(cwd)
    return read_answers(path, _items, run, text_only, environment_redactor(keys))


class _Reader:
    """Reads files ahead in a pool of processes (at most 2 workers, a window of 2 files
    a worker), in the order :func:`import_results` stores them; None from
    :meth:`answers` where it does not read one (the file is then read in the thread
    that stores it)."""

    @classmethod
    def start(cls, files: Sequence[ResultsFile], items: Sequence[Item]) -> _Reader | None:
        """A reader of ``files``, or None where reading ahead does not pay: fewer than
        :data:`READ_AHEAD_FILES` files, or no idle core (:func:`_idle_cores` below 1:
        on cores busy with other work the workers only add their start and the copies
        of the rows, about 30 % more CPU time, and end no sooner), or a frozen app (the
        bundle's spawned children were never tried with this pool: read in turn there)."""
        if len(files) < READ_AHEAD_FILES or _idle_cores() < 1 or getattr(sys, "frozen", False):
            return None
        return cls(files, items)

    def __init__(self, files: Sequence[ResultsFile], items: Sequence[Item]) -> None:
        from concurrent import futures

        from medrcube_desktop.core.names import check_name
        from medrcube_desktop.evaluation.results_json import environment_keys

        self._files, self._keys = files, environment_keys()
        self._futures: dict[int, futures.Future] = {}
        self._cwd = os.getcwd()
        self._names: dict[int, str] = {}
        for n, file in enumerate(files):
            try:  # a name import_run refuses is refused before any reading
                self._names[n] = check_name(file.run, "run name") if file.run.strip() else ""
            except ValueError:
                self._names[n] = ""
        workers = 2
        self._window = 2 * workers
        self._next = 0
        self._pool = futures.ProcessPoolExecutor(
            workers,
            # spawn: fork is unsafe in a process with threads (this runs on a job's), and
            # the workers are this process's children (their CPU time is counted in its)
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_init_reader,
            initargs=(list(items),),
        )

    def answers(self, n: int):
        """The future of file ``n``'s answers, the next files submitted; or None."""
        while self._next < min(len(self._files), n + self._window):
            k, self._next = self._next, self._next + 1
            if self._names[k]:
                file = self._files[k]
                try:
                    self._futures[k] = self._pool.submit(
                        _read_ahead,
                        file.path,
                        self._names[k],
                        file.text_only,
                        self._keys,
                        self._cwd,
                    )
                except RuntimeError:  # BrokenProcessPool: a worker died (killed, out of
                    # memory) and the pool takes no more work; the rest are read in turn
                    self._next = len(self._files)
                    break
        return _Fallback(self._futures.pop(n, None))

    def close(self) -> None:
        """Ends the workers: the files not begun are not read, and no worker is left
        once :func:`import_results` returns."""
        self._pool.shutdown(wait=True, cancel_futures=True)


def _idle_cores() -> float:
    """Cores this process may use less the last minute's load average (runnable
    processes, this one included), so at least one is idle for a worker when >= 1;
    0 where the load is not known."""
    from medrcube_desktop.evaluation.prepare import default_workers

    try:
        return default_workers() - os.getloadavg()[0]
    except (AttributeError, OSError):  # not on this platform
        return 0.0


class _Fallback:
    """A read-ahead future whose ``result()`` is None where the worker failed for a
    reason of its own (a broken pool, a worker killed, something not picklable):
    :func:`~.results_json.import_run` then reads the file itself, and raises what the
    file's reading raises (a MedRCubeError from the worker is raised as it came)."""

    def __init__(self, future) -> None:
        self._future = future

    def result(self):
        if self._future is None:
            return None
        try:
            return self._future.result()
        except MedRCubeError:
            raise
        except Exception:  # noqa: BLE001 - the pool's failure, not the file's
            return None


def import_results(
    store: StudyStore,
    files: Sequence[ResultsFile],
    items: Sequence[Item],
    *,
    replace: bool = False,
    progress=None,
    cancel=None,
) -> list[dict[str, object]]:
    """Import many results files, each as its own run: a bad file is reported and the
    others go on.

    A text-only file without a model takes the one :func:`baseline_model` finds among
    the stored image runs and this call's (said in its ``notes``), else its run name; a
    text-only run stored with no image run of its model in the database gets a warning
    saying how to pair it (``compare`` would pair it with none).

    Parameters
    ----------
    files : sequence of ResultsFile
        Each file with its run name (:func:`run_name_of`), model and mode.
    replace : bool
        As :func:`~.results_json.import_run`, for every file.
    progress : callable or None
        Receives a :class:`~medrcube_desktop.core.progress.Progress` per file (unit
        "file", the run name as label, counts ``stored`` and ``failed``) once a file was
        stored: nothing while every file so far was refused, so no bar is drawn when
        none is usable.
    cancel : threading.Event or None
        Checked between files; the files not begun are left out of the result.

    Returns
    -------
    list of dict
        Per file begun: ``file``, ``run``, ``model``, ``text_only``, ``stored``
        (responses added), ``already`` (the file's answers the run held before),
        ``problems`` (bad records), ``notes`` and ``warnings`` (lines for people) and
        ``error`` (why the file was refused, or None). A run name given by an earlier
        file of the same call is refused for the later one (two files would otherwise
        mix in one run). An ablation file whose ``image_run`` names no stored run is
        tried again once after every other file (that run's file may come later).
    """
    from medrcube_desktop.core.progress import Progress, report
    from medrcube_desktop.evaluation.results_json import ImageRunNotStored, import_run

    results: list[dict[str, object]] = []
    later: list = []  # ablation files whose image run was not stored when they were met
    seen: dict[str, Path] = {}
    stored_total = failed = 0
    image_models = _image_models(store, files) if any(f.text_only for f in files) else {}
    reader = _Reader.start(files, items)
    for done, file in enumerate(files):
        if cancel is not None and cancel.is_set():
            break
        if failed < done:  # drawn once a file was usable: none usable, no bar
            report(progress, Progress(done, len(files), "file", file.run,
                                      {"stored": stored_total, "failed": failed}))  # fmt: skip
        notes: list[str] = []
        model = file.model
        if model is None and file.text_only:
            model = baseline_model(file.run, image_models)
            if model is not None:
                notes.append(f"run {file.run}: text-only baseline of model {model}")
        model = model or file.run
        row: dict[str, object] = {
            "file": str(file.path), "run": file.run, "model": model,
            "text_only": file.text_only, "stored": 0, "already": 0, "problems": [],
            "notes": notes, "warnings": [], "error": None,
        }  # fmt: skip
        if file.run in seen:
            row["error"] = (
                f"{file.path}: run {file.run!r} is also the run of {seen[file.run]}; "
                "import one of them alone with --run another name"
            )
        else:
            try:
                done_ = import_run(store, file.run, model, items, file.path,
                                   text_only=file.text_only, replace=replace,
                                   model_from_link=file.model is None,
                                   answers=reader and reader.answers(done))  # fmt: skip
                row.update(stored=done_.stored, already=done_.already, problems=done_.problems,
                           warnings=list(done_.warnings), model=_stored_model(store, file.run, model))  # fmt: skip
                seen[file.run] = file.path
            except MedRCubeError as exc:
                row["error"] = str(exc)
                if isinstance(exc, ImageRunNotStored):  # its image run's file may come later
                    later.append((row, file, model))
        stored_total += int(row["stored"])  # type: ignore[call-overload]
        failed += row["error"] is not None
        results.append(row)
    if reader is not None:  # the files not begun (cancelled) are not read
        reader.close()
    for row, file, model in later:  # once, after every file: the image run may now be stored
        if file.run in seen:
            continue
        try:
            done_ = import_run(store, file.run, model, items, file.path,
                               text_only=file.text_only, replace=replace,
                               model_from_link=file.model is None)  # fmt: skip
        except MedRCubeError as exc:
            row["error"] = str(exc)
            continue
        row.update(stored=done_.stored, already=done_.already, problems=done_.problems,
                   warnings=list(done_.warnings), error=None, model=_stored_model(store, file.run, model))  # fmt: skip
        seen[file.run] = file.path
        stored_total += done_.stored
        failed -= 1
    for row in results:  # after every file: an image run may come after its baseline
        if (
            row["error"] is None
            and row["text_only"]
            and not _has_image_run(store, str(row["model"]))
        ):
            row["warnings"] = [
                *row["warnings"],  # type: ignore[misc]
                f"run {row['run']} is text-only but the database holds no image run of model "
                f"{row['model']!r}, so compare pairs it with none: import it again with "
                f"--replace --run {row['run']} --model NAME (the image run's model), or "
                "import that image run",
            ]
    if failed < len(results):
        report(progress, Progress(len(results), len(files), "file", "",
                                  {"stored": stored_total, "failed": failed}))  # fmt: skip
    return results
