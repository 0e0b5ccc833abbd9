"""The public MedRCube evaluator's ``results.json``: a flat list of the benchmark's item
records, each with ``model_response`` and ``correct`` (and its own ``image_path``
resolved). We export runs in that layout, adding ``response``, ``parsed_answer``,
``parse_method`` and ``official_correct``, and read such files back, re-parsing every
response with our parser (the file's own ``correct`` used the public rule). Many files
at once (which files, run names, text-only baselines) are :mod:`.results_import`'s.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

from medrcube_desktop.core.files import atomic_path, read_file_bytes
from medrcube_desktop.core.items import Item
from medrcube_desktop.core.taxonomy import canonical_task
from medrcube_desktop.core.utf8 import HALF_CHARACTER, storable
from medrcube_desktop.errors import MedRCubeError, StoreError
from medrcube_desktop.evaluation.metrics import Outcome
from medrcube_desktop.evaluation.parse import cap_answer, parse_answer
from medrcube_desktop.evaluation.results_ablation import (  # noqa: F401 (their former home)
    ImageRunNotStored,
    ablation_fields,
    check_image_run,
    file_image_mode,
    image_disagrees,
)
from medrcube_desktop.evaluation.results_ablation import json_values as _json_values  # noqa: F401
from medrcube_desktop.llm.keys import KeyRedactor, key_forms
from medrcube_desktop.store import StudyStore

LETTERS = ("A", "B", "C", "D")
SQLITE_MAGIC = b"SQLite format 3\x00"


def environment_redactor(environ: Mapping[str, str] | None = None) -> KeyRedactor:
    """A scrubber of every API key this process's environment holds (``OPENAI_API_KEY``
    and each ``MEDRCUBE_API_KEY_<HOST>``): what ``export-run`` and ``import-run`` apply to
    every answer they write, so a key that an endpoint echoed into a database stored
    before answers were scrubbed, or into another tool's file, is not passed on. The OS
    keyring is not asked (an export should never prompt to unlock it). Each key in every
    form evaluate scrubs (:func:`~medrcube_desktop.llm.keys.key_forms`: base64 too).
    ``environ``: another process's environment (:func:`environment_keys` of it), in
    place of this one's."""
    keys = sorted(
        (value.strip() for name, value in environment_keys(environ).items()
         if name == "OPENAI_API_KEY" or name.startswith("MEDRCUBE_API_KEY_")),
        key=len, reverse=True,
    )  # fmt: skip
    keys = [k for k in keys if k]
    return KeyRedactor(keys[0] if keys else "", [f for k in keys[1:] for f in key_forms(k)])


def environment_keys(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The variables of ``environ`` (default: this process's) that
    :func:`environment_redactor` scrubs: ``OPENAI_API_KEY`` and each
    ``MEDRCUBE_API_KEY_<HOST>``, name → value."""
    return {
        name: value
        for name, value in (os.environ if environ is None else environ).items()
        if name == "OPENAI_API_KEY" or name.startswith("MEDRCUBE_API_KEY_")
    }


def item_record(item: Item, root: str | Path | None = None) -> dict[str, object]:
    """An item as the public ``test.json`` writes it.

    ``image_path`` is relative to the benchmark ``root`` when given
    (``"ds1/images/ct.dcm"``), else to the folder of the item's ``test.json``, with ``/``
    between parts: never this machine's absolute path (it names the user's folders and
    means nothing on another machine).
    """
    record: dict[str, object] = {"id": item.id, "question": item.question}
    for letter, text in item.options.items():
        record[f"option_{letter}"] = text
    record.update(
        {
            "gt_answer": item.answer_text,
            "image_path": _relative(item.image_path, root or Path(item.source_file).parent),
            "task": item.raw_task,
            "modality": item.modality,
            "parts": item.region,
            "dataset": item.dataset,
        }
    )
    return record


def _relative(path: str | Path, base: str | Path) -> str:
    """``path`` relative to ``base`` (neither resolved: a link inside the benchmark
    keeps its benchmark name), ``/``-separated."""
    try:
        return Path(os.path.relpath(path, base)).as_posix()
    except ValueError:  # another drive (Windows): the file name alone
        return Path(path).name


def export_run(
    store: StudyStore,
    run: str,
    items: Sequence[Item],
    path: str | Path,
    root: str | Path | None = None,
) -> int:
    """Write ``run``'s answers as ``results.json``; return the records written.

    Image paths are relative to the benchmark ``root`` (:func:`item_record`).

    Every answer is scrubbed of the API keys in the environment
    (:func:`environment_redactor`) on the way out.

    Raises
    ------
    MedRCubeError
        No such run, or it has no answer to any of ``items`` (nothing is written: an
        empty file over an earlier export would lose it).
    OSError
        The file cannot be written.
    """
    if store.eval_run(run) is None:
        raise MedRCubeError(
            f"no run named {run!r} (runs: {', '.join(store.eval_run_names()) or 'none'})"
        )
    answers = store.responses(run)
    redactor = environment_redactor()
    mode = ablation_fields(store.eval_run(run))
    records = []
    for item in items:
        answer = answers.get(item.id)
        if answer is None:
            continue
        response = redactor.scrub(answer.response)
        records.append(
            {
                **item_record(item, root),
                "model_response": response,
                "correct": answer.correct,
                "response": response,
                "parsed_answer": answer.parsed_answer,
                "parse_method": answer.parse_method,
                "official_answer": answer.official_answer,
                "official_correct": answer.official_correct,
                **(dict(mode, image=answer.image) if mode else {}),
            }
        )
    if not records:
        raise MedRCubeError(
            f"run {run!r} has no answer to any of the {len(items)} items loaded"
            f" ({len(answers)} answers stored); nothing written to {path}"
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
    _, records = read_records(path)
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
        response = record_response(record)
        if reparse and options and isinstance(response, str):
            letter = parse_answer(cap_answer(response), options).letter
        else:
            letter = answer if record.get("correct") is True else None
        outcomes.append(Outcome(item, letter))
    return outcomes, warnings


def read_records(path: Path) -> tuple[bytes, list]:
    """The bytes of a ``results.json`` and its list of records.

    Raises
    ------
    MedRCubeError
        The file cannot be read, is an SQLite database (the study database given in
        its place), is not UTF-8 JSON, or is not a JSON list; the message names
        ``path`` as given.
    """
    try:
        data = read_file_bytes(path)
    except OSError as exc:
        raise MedRCubeError(f"{path}: cannot read results: {exc.strerror or exc}") from exc
    if data.startswith(SQLITE_MAGIC):
        raise MedRCubeError(f"{path}: is an SQLite database, not a results.json")
    if not data.strip():
        raise MedRCubeError(f"{path}: an empty file ({len(data)} bytes), not a results.json")
    if b"\x00" in data[:4096] and not data.startswith((b"\xff\xfe", b"\xfe\xff")):
        # UTF-16 without its byte-order mark: every ASCII character followed (LE) or
        # preceded (BE) by a zero byte, which UTF-8 decodes as a NUL
        raise MedRCubeError(
            f"{path}: cannot read results: NUL bytes, as UTF-16 text without a byte-order "
            "mark has: save it as UTF-8"
        )
    try:
        records = json.loads(data.decode("utf-8-sig"))  # a BOM (Windows editors) is harmless
    except UnicodeDecodeError as exc:
        utf16 = " (UTF-16: save it as UTF-8)" if data.startswith((b"\xff\xfe", b"\xfe\xff")) else ""
        raise MedRCubeError(
            f"{path}: cannot read results: not UTF-8 text (byte {exc.start}){utf16}, so not a "
            "results.json"
        ) from exc
    except json.JSONDecodeError as exc:
        raise MedRCubeError(
            f"{path}: cannot read results: not valid JSON at line {exc.lineno}, column "
            f"{exc.colno} ({_json_problem(exc.msg)})"
        ) from exc
    except (ValueError, RecursionError) as exc:
        raise MedRCubeError(f"{path}: cannot read results: {exc}") from exc
    if not isinstance(records, list):
        raise MedRCubeError(f"{path}: expected a JSON list of records")
    return data, records


def _json_problem(message: str) -> str:
    """Python's words for a JSON syntax error (``json.JSONDecodeError.msg``) as a reader
    of the file would put them."""
    words = {
        "Expecting value": "a value was expected",
        "Extra data": "more text after the JSON list",
        "Unterminated string starting at": "a string is not closed",
        "Expecting ',' delimiter": "a comma was expected",
        "Expecting ':' delimiter": "a colon was expected",
        "Expecting property name enclosed in double quotes": "a name in double quotes was expected",
        "Invalid control character at": "a control character inside a string",
    }
    return words.get(message, message[:1].lower() + message[1:])


def records_digest(records: list) -> str:
    """SHA-256 of ``records`` in a canonical form (keys sorted, no spaces, UTF-8): a
    pretty-printed or re-indented copy of a results file has the digest of the
    original, whatever its bytes."""
    canonical = json.dumps(records, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()


def record_response(record: dict) -> str | None:
    """A record's answer: the first non-empty (not only spaces) text of ``response``
    (ours: what :func:`export_run` writes, the answer as stored) then ``model_response``
    (the public evaluator's, which ``export_run`` writes too, the same text); else the
    first of them that is text at all (an empty answer); None when neither is text. So a
    ``"response": null`` or ``""`` does not hide a real ``model_response``."""
    ours, public = record.get("response"), record.get("model_response")
    if not isinstance(ours, str):  # the public evaluator's record: its answer or None
        return public if isinstance(public, str) else None
    if ours.strip() or not isinstance(public, str) or not public.strip():
        return ours
    return public


def source_params(path: Path, data: bytes, records: list | None = None) -> dict[str, object]:
    """An import's ``params``: the file's absolute resolved path (``source``, where it
    was read: a moved copy still resumes the run), its size in bytes and SHA-256 (what
    decide whether another file may resume it), and with ``records`` their
    :func:`records_digest` (``records_sha256``: what tells a re-formatted copy of a
    stored file)."""
    params: dict[str, object] = {
        "source": str(path.resolve()),
        "source_bytes": len(data),
        "source_sha256": hashlib.sha256(data).hexdigest(),
    }
    if records is not None:
        params["records_sha256"] = records_digest(records)
    return params


class Imported(NamedTuple):
    """What :func:`import_run` did: responses ``stored``, bad records (``problems``),
    the file's answers that the run ``already`` held (a re-import adds nothing), and
    ``warnings``: one per other run imported from a file of the same bytes (SHA-256),
    naming it (a hard link or copy of one model's results stored twice)."""

    stored: int
    problems: list[str]
    already: int = 0
    warnings: tuple[str, ...] = ()


def import_run(
    store: StudyStore,
    run: str,
    model: str,
    items: Sequence[Item],
    path: str | Path,
    *,
    text_only: bool = False,
    replace: bool = False,
    model_from_link: bool = False,
    answers=None,
) -> Imported:
    """Store the responses of a ``results.json`` as run ``run`` (engine ``import``),
    parsed with our rules against the benchmark's items.

    The run records the file (:func:`source_params`); the same file again (or a moved
    copy of it: same size and SHA-256) resumes the run and adds only what is missing,
    another file (or the same path edited) is refused. Each record's answer is
    :func:`record_response`. A record that is not an object, has no id, names an item
    not in the benchmark or has no answer is a problem (counted from 1: ``record #1``).
    An id given by several records is a problem of each repeat naming both positions:
    with the same answer it is stored once; with different answers none of them is
    stored (which one the model gave cannot be told, and a comparison must not take one
    at random). Every response is scrubbed of the API keys in the environment
    (:func:`environment_redactor`) before it is stored. A file whose bytes are those of
    another stored run is stored with a warning naming that run. The checks on the stored runs
    and every write (the run, its responses, a replaced run's deletion) are one write
    transaction (``BEGIN IMMEDIATE``), so two imports into one name cannot both pass the
    checks: the second sees the first's run and resumes it or is refused.

    Parameters
    ----------
    text_only : bool
        The run is a text-only baseline (the paper's prior leakage, Appendix D.4): the
        file's model answered without the image.
    replace : bool
        A stored run of that name is deleted with its responses first (after the file
        was read and found to hold answers, so a bad or empty file deletes nothing).
    model_from_link : bool
        ``model`` was not given: an ablation file linked (its ``image_run``) to a stored
        image run takes that run's model (an exported folder imports as it was).
    answers : future or None
        What :func:`read_answers` gives for this file, its run name and mode, read
        ahead (on another core: :func:`~.results_import.import_results`); its
        ``result()`` is asked after the names were checked, and raises what
        ``read_answers`` raised; None (or a ``result()`` of None): the file is read
        here.

    Raises
    ------
    MedRCubeError
        The run name is blank, or it or the model name holds a character that is not
        shown as itself (:func:`~medrcube_desktop.core.names.check_name`); the file cannot be read (:func:`read_records`); it holds
        no answer to an item of the benchmark (empty, none of its records an item, or
        none of them usable): nothing is deleted, stored or created, ``replace`` or not;
        the run exists from another file or with other settings (another engine, model,
        text-only mode) and ``replace`` is False (a ``StoreError``).
    """
    from medrcube_desktop import __version__
    from medrcube_desktop.core.names import check_name
    from medrcube_desktop.evaluation.prompt import prompt_sha256
    from medrcube_desktop.store import evaluation, utc_now
    from medrcube_desktop.store.evaluation import RunRecord

    path = Path(path)
    if not run.strip():
        raise MedRCubeError(f"{path}: an empty run name; give one with --run NAME")
    try:  # a file's stem may hold what no name may (an escape sequence)
        run, model = check_name(run, "run name"), check_name(model, "model name")
    except ValueError as exc:
        raise MedRCubeError(f"{path}: {exc} (--run NAME, --model NAME)") from None
    found = answers.result() if answers is not None else None  # None: not read ahead
    rows, problems, mode, params = found or read_answers(path, items, run, text_only)
    if mode["image_mode"] in ("blank", "swapped", "noise"):
        params["image"] = {"mode": mode["image_mode"], "seed": mode["image_seed"]}
    record = RunRecord(
        name=run, engine="import", model=model, params=params,
        prompt_sha256=prompt_sha256(), app_version=__version__, created_at=utc_now(),
        text_only=mode["image_mode"] == "text-only", image_mode=str(mode["image_mode"]),
        image_run=str(mode["image_run"]),
    )  # fmt: skip
    with store.transaction(f"import {path} as run {run}") as db:  # check and write: one
        record = check_image_run(db, record, path, model_from_link)  # checked where stored
        stored = _make_room(db, record, path, replace)  # transaction (two imports race)
        if stored is None:
            evaluation.insert_run(db, record)
        added = evaluation.insert_responses(db, rows)
        # said once, when the repeating run is made (a re-import resumes it silently)
        twins = _twin_warnings(db, record, path) if stored is None else []
    return Imported(added, problems, len(rows) - added, tuple(twins))


class FileAnswers(NamedTuple):
    """What :func:`read_answers` reads out of one file, nothing stored: the response
    ``rows`` (``ResponseRecord``), the bad records (``problems``), the records' image
    ``mode`` (:func:`file_image_mode`) and the run's source ``params``
    (:func:`source_params`)."""

    rows: list
    problems: list[str]
    mode: dict[str, object]
    params: dict[str, object]


def read_answers(
    path: Path, items: Sequence[Item], run: str, text_only: bool = False, redactor=None
) -> FileAnswers:
    """Everything :func:`import_run` takes from the file at ``path`` for run ``run`` (a
    checked name) before it opens a transaction: its records read, matched to
    ``items``, re-parsed and scrubbed (``redactor``, default
    :func:`environment_redactor`), their image mode and the file's fingerprint.

    Raises
    ------
    MedRCubeError
        As :func:`import_run`: the file cannot be read, holds no usable answer to an
        item of the benchmark, or its records' image modes disagree.
    """
    data, records = read_records(path)
    rows, problems = _file_answers(records, items, path, run, redactor)
    if not rows:
        raise MedRCubeError(_no_answer(path, records, items, problems))
    mode = file_image_mode(path, records, text_only, run)
    return FileAnswers(rows, problems, mode, source_params(path, data, records))


def _no_answer(path: Path, records: list, items: Sequence[Item], problems: list[str]) -> str:
    """Why a file with no usable answer is refused."""
    if not records:
        return f"{path}: empty: no record (nothing imported)"
    ids = {item.id for item in items}
    if not any(isinstance(r, dict) and str(r.get("id")) in ids for r in records):
        return (
            f"{path}: none of its {len(records)} records is an item of this benchmark (a "
            "results.json of another benchmark, or not one at all?); nothing imported"
        )
    return (
        f"{path}: none of its {len(records)} records gives a usable answer to an item of "
        f"this benchmark ({problems[0]}); nothing imported"
    )


def _file_answers(records: list, items: Sequence[Item], path: Path, run: str, redactor=None):
    """The responses a file's records give (parsed, scrubbed) and its bad records, as
    :func:`import_run` says; nothing is stored."""
    from medrcube_desktop.evaluation.parse import official_answer
    from medrcube_desktop.store import utc_now
    from medrcube_desktop.store.evaluation import ResponseRecord

    by_id = {item.id: item for item in items}
    problems = _Problems(path)
    answers: dict[str, list[tuple[int, str | None]]] = {}
    images: dict[str, dict] = {}  # how each picture was sent (an ablation run's export)
    for number, record in enumerate(records, 1):  # a record's place named only in a problem
        if not isinstance(record, dict):
            problems.add("not an object", f"{path} record #{number}: not an object")
            continue
        raw_id = record.get("id")
        if raw_id is None or not str(raw_id).strip():
            problems.add("without an id", f"{path} record #{number} has no id")
            continue
        item_id = str(raw_id)
        if item_id not in by_id:
            problems.add(
                "with an id not in this benchmark",
                f"{path} record #{number}: id {item_id!r} not in this benchmark",
            )
            continue
        response = record_response(record)
        response, halves = storable(response) if response is not None else (None, 0)
        if halves:
            problems.add(  # a str can hold it, UTF-8 (the database's text) cannot
                "with half a character in its answer",
                f"{path} record #{number} (id {item_id!r}): model_response {HALF_CHARACTER}",
            )
        sent = record.get("image")
        disagrees = image_disagrees(sent, record.get("image_mode"), item_id)
        if disagrees:
            problems.add(  # a hand-edited export: the picture said sent is not the run's
                "with an image that disagrees with its run",
                f"{path} record #{number} (id {item_id!r}): {disagrees}; the answer is "
                "stored without it",
            )
        elif isinstance(sent, dict) and item_id not in images:
            images[item_id] = sent
        elif sent is not None and record.get("image_mode") in ("blank", "swapped", "noise"):
            problems.add(  # an ablation export's record of the picture sent, hand-edited
                "with an image that is not an object",
                f"{path} record #{number} (id {item_id!r}): image {json.dumps(sent)[:60]} is not an object "
                "(how the picture was sent, as export-run writes it); the answer is stored "
                "without it",
            )
        if response is None:
            problems.add(
                "without an answer",
                f"{path} record #{number} (id {item_id!r}): no model_response (nor response)",
            )
        answers.setdefault(item_id, []).append((number, response))
    redactor = redactor or environment_redactor()
    stored_at = utc_now()  # one time for the file: its rows are stored in one transaction
    rows = []
    for item_id, given in answers.items():
        first = given[0][0]
        same = len(given) == 1 or len({text for _, text in given}) == 1
        for number, _ in given[1:]:
            problems.add(
                "repeating an id",
                f"{path} record #{number}: id {item_id!r} also at record #{first}"
                + (" with the same answer; stored once" if same else
                   f" with another answer; none of its {len(given)} answers is stored"),
            )  # fmt: skip
        response = given[0][1]
        if not same or response is None:
            continue
        item = by_id[item_id]
        response = cap_answer(redactor.scrub(response))
        parsed = parse_answer(response, item.options)
        official = official_answer(response)
        rows.append(
            ResponseRecord(
                run=run, item_id=item.id, response=response, parsed_answer=parsed.letter,
                parse_method=parsed.method, correct=parsed.letter == item.answer,
                official_answer=official, official_correct=official == item.answer,
                created_at=stored_at, image=images.get(item_id, {}),
            )
        )  # fmt: skip
    return rows, problems.lines()


MAX_LISTED = 10
"""Problems of one kind listed one by one per file; past that, a count says the rest (a
file of a million foreign ids would otherwise flood the terminal)."""


class _Problems:
    """A file's bad records, by kind: each kind's first :data:`MAX_LISTED` lines, then
    one line counting them all (``FILE: 1,000,000 records with an id not in this
    benchmark (the first 10 listed above)``)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lines: list[str] = []
        self._counts: dict[str, int] = {}

    def add(self, kind: str, line: str) -> None:
        count = self._counts[kind] = self._counts.get(kind, 0) + 1
        if count <= MAX_LISTED:
            self._lines.append(line)

    def lines(self) -> list[str]:
        """The listed lines in the order met, then a count per kind past the limit."""
        summary = [
            f"{self.path}: {count:,} records {kind} (the first {MAX_LISTED} listed above)"
            for kind, count in self._counts.items()
            if count > MAX_LISTED
        ]
        return self._lines + summary


def _make_room(db, record, path: Path, replace: bool):
    """Inside the import's write transaction: the stored run of ``record``'s name that
    this file resumes (None when there is none, or it was deleted with ``replace``);
    refuse one that this file cannot resume, another file (by size and SHA-256) or other
    settings (:func:`~medrcube_desktop.evaluation.runner.resume_conflicts`)."""
    from medrcube_desktop.evaluation.runner import resume_conflicts
    from medrcube_desktop.store import evaluation

    stored = evaluation.eval_run(db, record.name)
    if stored is None:
        return None
    if replace:
        evaluation.delete_run(db, record.name)
        return None
    differ = resume_conflicts(stored, record)
    if not differ:
        return stored
    source_keys = {"source_bytes", "source_sha256"}
    if source_keys & set(differ):
        differ = ["source file", *(d for d in differ if d not in source_keys)]
    old, new = stored.params, record.params
    recorded = (
        f"{old['source_bytes']} bytes, SHA-256 {str(old['source_sha256'])[:12]}…"
        if old.get("source_sha256")
        else "recorded by name only, before files were fingerprinted"
    )
    raise StoreError(
        f"{path}: run {record.name!r} exists with other settings ({', '.join(differ)} "
        f"differ); stored: engine {stored.engine}, model {stored.model}"
        + (", text-only" if stored.text_only else "")
        + (f", from {old.get('source', '?')} ({recorded})" if stored.engine == "import" else "")
        + f"; this file: {new['source']} ({new['source_bytes']} bytes, SHA-256 "
        f"{str(new['source_sha256'])[:12]}…); --replace to import over it, or --run "
        "another name"
    )


def _twin_warnings(db, record, path: Path) -> list[str]:
    """A warning per other stored run whose source had the same bytes (SHA-256) or the
    same records (:func:`records_digest`, a pretty-printed copy) as this file: a hard
    link or a copy of one model's results becomes a second "model" in every comparison,
    and the user is told which run it repeats."""
    from medrcube_desktop.store import evaluation

    digest = str(record.params["source_sha256"])
    return [
        f"{path}: the same content ("
        + ("bytes" if twin.params.get("source_sha256") == digest else "records")
        + f", SHA-256 {digest[:12]}…) as run {twin.name!r} (model "
        f"{twin.model}, from {twin.params.get('source', '?')}); run {record.name!r} repeats "
        "its answers and compare counts them twice: if this is not another model's file, "
        f"import the right one with --replace --run {record.name}"
        for twin in evaluation.runs_with_source(
            db, digest, str(record.params.get("records_sha256") or "")
        )
        if twin.name != record.name
    ]
