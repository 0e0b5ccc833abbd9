"""The public MedRCube evaluator's ``results.json``: a flat list of the benchmark's item
records, each with ``model_response`` and ``correct`` (and its own ``image_path``
resolved). We export runs in that layout, adding ``response``, ``parsed_answer``,
``parse_method`` and ``official_correct``, and read such files back, re-parsing every
response with our parser (the file's own ``correct`` used the public rule).
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

from medrcube_desktop.core.files import atomic_path, read_file_bytes
from medrcube_desktop.core.items import Item
from medrcube_desktop.core.taxonomy import canonical_task
from medrcube_desktop.errors import MedRCubeError, StoreError
from medrcube_desktop.evaluation.metrics import Outcome
from medrcube_desktop.evaluation.parse import cap_answer, parse_answer
from medrcube_desktop.llm.keys import KeyRedactor
from medrcube_desktop.store import StudyStore

LETTERS = ("A", "B", "C", "D")


def environment_redactor() -> KeyRedactor:
    """A scrubber of every API key this process's environment holds (``OPENAI_API_KEY``
    and each ``MEDRCUBE_API_KEY_<HOST>``): what ``export-run`` and ``import-run`` apply to
    every answer they write, so a key that an endpoint echoed into a database stored
    before answers were scrubbed, or into another tool's file, is not passed on. The OS
    keyring is not asked (an export should never prompt to unlock it)."""
    keys = sorted(
        (value.strip() for name, value in os.environ.items()
         if name == "OPENAI_API_KEY" or name.startswith("MEDRCUBE_API_KEY_")),
        key=len, reverse=True,
    )  # fmt: skip
    keys = [k for k in keys if k]
    return KeyRedactor(keys[0] if keys else "", keys[1:])


def item_record(item: Item) -> dict[str, object]:
    """An item as the public ``test.json`` writes it (image path absolute)."""
    record: dict[str, object] = {"id": item.id, "question": item.question}
    for letter, text in item.options.items():
        record[f"option_{letter}"] = text
    record.update(
        {
            "gt_answer": item.answer_text,
            "image_path": str(Path(item.image_path).resolve()),
            "task": item.raw_task,
            "modality": item.modality,
            "parts": item.region,
            "dataset": item.dataset,
        }
    )
    return record


def export_run(store: StudyStore, run: str, items: Sequence[Item], path: str | Path) -> int:
    """Write ``run``'s answers as ``results.json``; return the records written.

    Every answer is scrubbed of the API keys in the environment
    (:func:`environment_redactor`) on the way out.

    Raises
    ------
    MedRCubeError
        No such run.
    OSError
        The file cannot be written.
    """
    if store.eval_run(run) is None:
        raise MedRCubeError(
            f"no run named {run!r} (runs: {', '.join(store.eval_run_names()) or 'none'})"
        )
    answers = store.responses(run)
    redactor = environment_redactor()
    records = []
    for item in items:
        answer = answers.get(item.id)
        if answer is None:
            continue
        response = redactor.scrub(answer.response)
        records.append(
            {
                **item_record(item),
                "model_response": response,
                "correct": answer.correct,
                "response": response,
                "parsed_answer": answer.parsed_answer,
                "parse_method": answer.parse_method,
                "official_answer": answer.official_answer,
                "official_correct": answer.official_correct,
            }
        )
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_path(path) as tmp, tmp.open("w", encoding="utf-8") as out:
        json.dump(records, out, indent=2, ensure_ascii=False)
    return len(records)


def read_results(path: str | Path, reparse: bool = True) -> tuple[list[Outcome], list[str]]:
    """Outcomes from a ``results.json`` (ours or the public evaluator's), and warnings.

    Each response is parsed again with our rules (``reparse``); otherwise, and for a
    record without options, the record's own ``correct`` decides (the public scoring). Records whose task name is unknown are left out with a
    warning (never silently reclassified).

    Raises
    ------
    MedRCubeError
        The file cannot be read or is not a JSON list.
    """
    path = Path(path)
    try:
        records = json.loads(read_file_bytes(path).decode("utf-8"))
    except (OSError, ValueError, RecursionError) as exc:
        raise MedRCubeError(f"{path}: cannot read results: {exc}") from exc
    if not isinstance(records, list):
        raise MedRCubeError(f"{path}: expected a JSON list of records")
    outcomes, warnings = [], []
    for number, record in enumerate(records):
        if not isinstance(record, dict):
            warnings.append(f"{path} record {number}: not an object; left out")
            continue
        task = canonical_task(str(record.get("task", "")))
        if task is None:
            warnings.append(
                f"{path} record {number} (id {record.get('id')!r}): unknown task "
                f"{record.get('task')!r}; left out"
            )
            continue
        options = {L: str(record[f"option_{L}"]) for L in LETTERS if f"option_{L}" in record}
        answer = next((L for L, text in options.items() if text == record.get("gt_answer")), "")
        item = Item(
            id=str(record.get("id", number)),
            question=str(record.get("question", "")),
            options=options,
            answer=answer,
            task=task,
            raw_task=str(record.get("task")),
            modality=str(record.get("modality", "")),
            region=str(record.get("parts", "")),
            dataset=str(record.get("dataset", "")),
            image_path=Path(str(record.get("image_path", ""))),
            source_file=path,
        )
        response = record.get("response", record.get("model_response"))
        if reparse and options and isinstance(response, str):
            letter = parse_answer(cap_answer(response), options).letter
        else:
            letter = answer if record.get("correct") is True else None
        outcomes.append(Outcome(item, letter))
    return outcomes, warnings


def import_run(
    store: StudyStore,
    run: str,
    model: str,
    items: Sequence[Item],
    path: str | Path,
    *,
    text_only: bool = False,
    replace: bool = False,
) -> tuple[int, list[str]]:
    """Store the responses of a ``results.json`` as run ``run`` (engine ``import``),
    parsed with our rules against the benchmark's items; return (stored, problems).

    Records whose id is not in the benchmark are problems; an item already answered in
    the run is skipped (importing the same file twice adds nothing: the run's settings,
    the file's name among them, match and it resumes). Every response is scrubbed of the
    API keys in the environment (:func:`environment_redactor`) before it is stored; all
    of a file's responses are written in one transaction (``StudyStore.save_responses``).

    Parameters
    ----------
    text_only : bool
        The run is a text-only baseline (the paper's prior leakage, Appendix D.4): the
        file's model answered without the image.
    replace : bool
        A stored run of that name is deleted with its responses first (after the file
        was read, so an unreadable file deletes nothing).

    Raises
    ------
    MedRCubeError
        The file cannot be read, is not a JSON list, or none of its records is an item
        of the benchmark (nothing is stored, no run created); the run exists with other
        settings (another engine, model, file, text-only mode) and ``replace`` is False
        (a ``StoreError``).
    """
    from medrcube_desktop import __version__
    from medrcube_desktop.evaluation.parse import official_answer
    from medrcube_desktop.evaluation.prompt import prompt_sha256
    from medrcube_desktop.evaluation.runner import open_run
    from medrcube_desktop.store import utc_now
    from medrcube_desktop.store.evaluation import ResponseRecord, RunRecord

    path = Path(path)
    try:
        records = json.loads(read_file_bytes(path).decode("utf-8"))
    except (OSError, ValueError, RecursionError) as exc:
        raise MedRCubeError(f"{path}: cannot read results: {exc}") from exc
    if not isinstance(records, list):
        raise MedRCubeError(f"{path}: expected a JSON list of records")
    by_id = {item.id: item for item in items}
    if records and not any(
        isinstance(r, dict) and str(r.get("id")) in by_id for r in records
    ):  # a whole file of strangers: another benchmark, or not a results.json
        raise MedRCubeError(
            f"{path}: none of its {len(records)} records is an item of the benchmark "
            "(a results.json of another benchmark, or not one at all?)"
        )
    record = RunRecord(
        name=run, engine="import", model=model, params={"source": path.name},
        prompt_sha256=prompt_sha256(), app_version=__version__, created_at=utc_now(),
        text_only=text_only,
    )  # fmt: skip
    _make_room(store, record, path, replace)
    open_run(store, record)
    redactor = environment_redactor()
    problems, rows = [], []
    for number, record in enumerate(records):
        item_id = str(record.get("id")) if isinstance(record, dict) else None
        item = by_id.get(item_id or "")
        response = (
            record.get("response", record.get("model_response"))
            if isinstance(record, dict)
            else None
        )
        if item is None or not isinstance(response, str):
            problems.append(
                f"{path} record {number}: id {item_id!r} not in the benchmark or no response"
            )
            continue
        response = cap_answer(redactor.scrub(response))
        parsed = parse_answer(response, item.options)
        official = official_answer(response)
        rows.append(
            ResponseRecord(
                run=run, item_id=item.id, response=response, parsed_answer=parsed.letter,
                parse_method=parsed.method, correct=parsed.letter == item.answer,
                official_answer=official, official_correct=official == item.answer,
                created_at=utc_now(),
            )
        )  # fmt: skip
    return store.save_responses(rows), problems


def _make_room(store: StudyStore, record, path: Path, replace: bool) -> None:
    """Delete the stored run of ``record``'s name with ``replace``; else refuse one that
    this file cannot resume (:func:`~medrcube_desktop.evaluation.runner.resume_conflicts`)."""
    from medrcube_desktop.evaluation.runner import resume_conflicts

    stored = store.eval_run(record.name)
    if stored is None:
        return
    if replace:
        store.delete_run(record.name)
        return
    differ = resume_conflicts(stored, record)
    if differ:
        source = stored.params.get("source")
        raise StoreError(
            f"{path}: run {record.name!r} exists with other settings ({', '.join(differ)} "
            f"differ); stored: engine {stored.engine}, model {stored.model}"
            + (f", from {source}" if source else "")
            + "; --replace to import over it, or --run another name"
        )


def run_name_of(path: str | Path) -> str:
    """A run name for a results file: its stem, or its folder's name when the stem is
    ``results`` (``gpt-5.1/results.json`` → ``gpt-5.1``, ``lingshu-7b.json`` →
    ``lingshu-7b``)."""
    path = Path(path)
    return path.parent.resolve().name if path.stem == "results" else path.stem


def results_files(paths: Sequence[str | Path]) -> tuple[list[Path], list[str]]:
    """The results files ``paths`` name, and one problem per path that names none.

    A file is taken as it is; a folder gives its ``<name>/results.json`` files (one per
    model, as a folder of the public evaluator's outputs holds them) and the ``*.json``
    directly in it, sorted. A path counted twice is taken once.
    """
    from medrcube_desktop.core.files import describe_missing

    found: dict[Path, None] = {}
    problems = []
    for path in map(Path, paths):
        if path.is_dir():
            inside = sorted(path.glob("*/results.json")) + sorted(path.glob("*.json"))
            inside = [p for p in inside if p.is_file()]
            if not inside:
                problems.append(f"{path}: a folder without results.json files")
            found.update(dict.fromkeys(inside))
            continue
        missing = describe_missing(path, "results file")
        if missing:
            problems.append(missing)
        else:
            found[path] = None
    return list(found), problems


def import_results(
    store: StudyStore,
    files: Sequence[tuple[Path, str, str]],
    items: Sequence[Item],
    *,
    text_only: bool = False,
    replace: bool = False,
    progress=None,
    cancel=None,
) -> list[dict[str, object]]:
    """Import many results files, each as its own run: a bad file is reported and the
    others go on.

    Parameters
    ----------
    files : sequence of (path, run, model)
        Each file with the run name and model it is stored under (:func:`run_name_of`).
    text_only, replace : bool
        As :func:`import_run`, for every file.
    progress : callable or None
        Receives a :class:`~medrcube_desktop.core.progress.Progress` per file (unit
        "file", the file as label, counts ``stored`` and ``failed``).
    cancel : threading.Event or None
        Checked between files; the files not begun are left out of the result.

    Returns
    -------
    list of dict
        Per file begun: ``file``, ``run``, ``model``, ``stored`` (responses added),
        ``problems`` (bad records) and ``error`` (why the file was refused, or None).
        A run name given by an earlier file of the same call is refused for the later
        one (two files would otherwise mix in one run).
    """
    from medrcube_desktop.core.progress import Progress, report

    results: list[dict[str, object]] = []
    seen: dict[str, Path] = {}
    stored_total = failed = 0
    for done, (path, run, model) in enumerate(files):
        if cancel is not None and cancel.is_set():
            break
        report(progress, Progress(done, len(files), "file", path.name,
                                  {"stored": stored_total, "failed": failed}))  # fmt: skip
        row: dict[str, object] = {"file": str(path), "run": run, "model": model,
                                  "stored": 0, "problems": [], "error": None}  # fmt: skip
        if run in seen:
            row["error"] = f"{path}: run {run!r} is also the run of {seen[run]}; rename one"
        else:
            try:
                stored, problems = import_run(
                    store, run, model, items, path, text_only=text_only, replace=replace
                )
                row.update(stored=stored, problems=problems)
                seen[run] = path
            except MedRCubeError as exc:
                row["error"] = str(exc)
        stored_total += int(row["stored"])  # type: ignore[call-overload]
        failed += row["error"] is not None
        results.append(row)
    report(progress, Progress(len(results), len(files), "file", "",
                              {"stored": stored_total, "failed": failed}))  # fmt: skip
    return results
