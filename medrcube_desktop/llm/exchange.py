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

from medrcube_desktop.core.files import atomic_write
from medrcube_desktop.core.rubric import RULE_IDS
from medrcube_desktop.errors import JudgeError
from medrcube_desktop.llm.parse import JudgmentModel, format_errors
from medrcube_desktop.store import StudyStore, utc_now
from medrcube_desktop.store.judgments import Judgment


def export_judgments(store: StudyStore, model: str, path: str | Path) -> int:
    """Write ``model``'s latest successful judgment of each item; return lines written
    (sorted by item id; atomic write; raises StoreError or OSError)."""
    judged = store.judgments(model)
    lines = []
    for item_id in sorted(judged):
        scores = judged[item_id].scores or {}
        lines.append(json.dumps({"id": item_id, **{r: scores[r] for r in RULE_IDS}}))
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, "".join(f"{line}\n" for line in lines), newline="\n")
    return len(lines)


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

    Raises
    ------
    JudgeError
        The file cannot be read or is not UTF-8.
    """
    path = Path(path)
    try:
        lines = path.read_text("utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise JudgeError(f"{path}: cannot read judgments: {exc}") from exc
    stored = store.judgments(model)
    result = JudgmentImport()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
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
            result.problems.append(f"{path} line {number}: not a judgment: {format_errors(exc)}")
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
