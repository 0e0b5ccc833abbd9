"""``import-judgments`` / ``export-judgments``: judgments as JSON Lines.

One object per line: ``{"id": ITEM_ID, "1.1": 0|1, …, "2.3": 0|1}`` (issue 5). Export
holds successful judgments only (the latest per item); failures are listed by ``judge``.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from medrcube_desktop.core.files import atomic_write, read_file_bytes
from medrcube_desktop.core.rubric import CANNOT_JUDGE, RULE_IDS
from medrcube_desktop.errors import JudgeError
from medrcube_desktop.llm.parse import JudgmentModel, format_errors
from medrcube_desktop.store import StudyStore, utc_now
from medrcube_desktop.store.judgments import Judgment


def export_judgments(store: StudyStore, model: str, path: str | Path) -> int:
    """Write ``model``'s latest successful judgment of each item; return lines written
    (sorted by item id; atomic write).

    Raises
    ------
    JudgeError
        ``model`` has no successful judgment: nothing is written (an empty file over an
        earlier export would lose it).
    StoreError, OSError
        The database cannot be read or the file cannot be written.
    """
    judged = store.judgments(model)
    if not judged:
        models = ", ".join(store.judgment_models()) or "none"
        raise JudgeError(
            f"no successful judgments by {model!r} (models: {models}); nothing written to {path}"
        )
    lines = []
    for item_id in sorted(judged):
        scores = judged[item_id].scores or {}
        lines.append(json.dumps({"id": item_id, **{r: scores[r] for r in RULE_IDS}}))
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, "".join(f"{line}\n" for line in lines), newline="\n")
    return len(lines)


def text_lines(path: Path) -> list[tuple[int, str, str]]:
    """The lines of a UTF-8 text file as ``(number, text, problem)``, numbered from 1.

    A line that is not UTF-8 has ``text`` empty and ``problem`` saying which byte, so one
    bad line costs only itself (the file's other lines are still read). Lines end at
    ``\n`` (a ``\r`` before it is dropped); a byte-order mark on the first line is
    dropped.

    Raises
    ------
    JudgeError
        The file cannot be read.
    """
    try:
        data = read_file_bytes(path)
    except OSError as exc:
        raise JudgeError(f"{path}: cannot read judgments: {exc.strerror or exc}") from exc
    found = []
    for number, raw in enumerate(data.split(b"\n"), start=1):
        raw = raw.removesuffix(b"\r")
        if number == 1:
            raw = raw.removeprefix(b"\xef\xbb\xbf")
        try:
            found.append((number, raw.decode("utf-8"), ""))
        except UnicodeDecodeError as exc:
            found.append((number, "", f"not UTF-8 text (byte 0x{raw[exc.start]:02x})"))
    if found and not found[-1][1] and not found[-1][2]:
        found.pop()  # the end of the last line
    return found


@dataclass
class JudgmentImport:
    """Lines stored, lines skipped (same scores already stored), problems by line."""

    imported: int = 0
    skipped: int = 0
    problems: list[str] = field(default_factory=list)


def import_judgments(store: StudyStore, model: str, path: str | Path) -> JudgmentImport:
    """Store each line's judgment as ``model``'s (``source = "import"``).

    A line whose scores equal the model's stored judgment of the item is skipped, so
    importing a file twice adds nothing. A bad line is reported with its number and the
    rest is imported.

    A line that is not UTF-8 text is a problem of that line only.

    Raises
    ------
    JudgeError
        The file cannot be read.
    """
    path = Path(path)
    stored = store.judgments(model)
    result = JudgmentImport()
    for number, line, undecodable in text_lines(path):
        if undecodable:
            result.problems.append(f"{path} line {number}: {undecodable}")
            continue
        if not line.strip():
            continue
        item_id = None
        try:
            record = json.loads(line)
            if not isinstance(record, dict):
                raise ValueError("expected a JSON object")
            item_id = record.pop("id")
            if not isinstance(item_id, str) or not item_id.strip():
                raise ValueError(f"id must be non-empty text, got {item_id!r}")
            item_id = item_id.strip()  # as import-reviews and the benchmark loader do
            scores = JudgmentModel.model_validate(record).scores()
        except ValidationError as exc:
            where = f"{path} line {number}" + (f" item {item_id}" if item_id else "")
            abstains = [
                rule
                for rule in RULE_IDS
                if isinstance(record.get(rule), str)
                and record[rule].strip().lower() in (CANNOT_JUDGE, "na", "n/a")
            ]
            hint = (
                f" (an LLM judgment is 0 or 1 on every rule: {', '.join(abstains)} says "
                '"cannot judge", which only an expert does: import-reviews)'
                if abstains
                else ""
            )
            result.problems.append(f"{where}: not a judgment: {format_errors(exc)}{hint}")
            continue
        except KeyError:
            result.problems.append(f'{path} line {number}: no "id"')
            continue
        except (ValueError, RecursionError) as exc:
            result.problems.append(f"{path} line {number}: {exc}")
            continue
        # the same line of the same file imported again is recognised by its uid
        uid = (
            "import:"
            + hashlib.sha256(f"{model}\0{number}\0{line.strip()}".encode()).hexdigest()[:32]
        )
        previous = stored.get(item_id)
        if store.has_judgment_uid(uid) or (previous is not None and previous.scores == scores):
            result.skipped += 1
            continue
        stored[item_id] = store.save_judgment(
            Judgment(item_id, model, scores, created_at=utc_now(), source="import", uid=uid)
        )
        result.imported += 1
    return result
