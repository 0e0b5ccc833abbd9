"""OpenAI Batch API files: a request file to upload, and the import of its output file.

Format: one JSON object per line, as documented in the OpenAI Batch API guide
(platform.openai.com/docs/guides/batch): requests
``{"custom_id", "method": "POST", "url": "/v1/chat/completions", "body"}``; output lines
``{"custom_id", "response": {"status_code", "body"}, "error"}``. A batch costs half the
standard price and completes within 24 hours.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from medrcube_desktop.core.files import atomic_write
from medrcube_desktop.core.items import Item
from medrcube_desktop.errors import JudgeError
from medrcube_desktop.llm.exchange import text_lines
from medrcube_desktop.llm.judge import JudgeConfig, items_to_judge
from medrcube_desktop.llm.keys import safe_base_url
from medrcube_desktop.llm.parse import UnusableAnswer, parse_judgment
from medrcube_desktop.llm.prompt import load_prompt, response_format
from medrcube_desktop.store import StudyStore, utc_now
from medrcube_desktop.store.judgments import STATUS_FAILED, STATUS_OK, Judgment

BATCH_URL = "/v1/chat/completions"


def export_batch_requests(
    items: Sequence[Item], store: StudyStore, config: JudgeConfig, path: str | Path
) -> int:
    """Write a Batch API request file for the items not judged yet; return its lines.

    ``custom_id`` is the item's benchmark id. The file holds no key. Written atomically.

    Raises
    ------
    JudgeError
        Two items share an id (the output could not be matched back).
    OSError
        The file cannot be written.
    """
    prompt = load_prompt()
    todo, _ = items_to_judge(items, store, config.model, prompt)
    ids = [item.id for item in todo]
    if len(set(ids)) != len(ids):
        raise JudgeError("item ids are not unique: batch output could not be matched back")
    lines = []
    for item in todo:
        body: dict[str, object] = {"model": config.model, "messages": prompt.messages(item)}
        if config.structured != "off":
            body["response_format"] = response_format()
        if config.temperature is not None:
            body["temperature"] = config.temperature
        line = {"custom_id": item.id, "method": "POST", "url": BATCH_URL, "body": body}
        lines.append(json.dumps(line, ensure_ascii=False))
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, "".join(f"{line}\n" for line in lines), newline="\n")
    return len(lines)


@dataclass
class BatchImport:
    """What importing an output file stored: counts and problems (line-numbered)."""

    judged: int = 0
    failed: int = 0
    skipped: int = 0
    problems: list[str] = field(default_factory=list)


def import_batch_output(
    store: StudyStore, model: str, path: str | Path, base_url: str | None = None
) -> BatchImport:
    """Store the judgments of a Batch API output file.

    Each line's answer is parsed like a live answer: a valid judgment is stored as
    ``ok``, anything else as ``failed`` with its raw text. Items already judged by
    ``model`` under the current prompt are skipped (importing twice adds nothing).

    Raises
    ------
    JudgeError
        The file cannot be read (a line that is not UTF-8 is listed in ``problems``).
    """
    path = Path(path)
    prompt = load_prompt()
    done = store.judged_item_ids(model, prompt.sha256)
    result = BatchImport()
    for number, line, problem in text_lines(path):  # a line that is not UTF-8 costs itself
        if problem:
            result.problems.append(f"{path} line {number}: {problem}")
            continue
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            item_id = str(record["custom_id"])
        except (ValueError, KeyError, TypeError, RecursionError) as exc:
            result.problems.append(f"{path} line {number}: not a batch output line: {exc!r}")
            continue
        if item_id in done:
            result.skipped += 1
            continue
        try:
            judgment = _judgment_from_output(record, item_id, model, prompt.sha256, base_url)
        except (AttributeError, TypeError, ValueError) as exc:
            result.problems.append(
                f"{path} line {number} item {item_id}: not a batch output line: {exc!r}"
            )
            continue
        uid = "batch:" + hashlib.sha256(f"{model}\0{line}".encode()).hexdigest()[:32]
        if store.has_judgment_uid(uid):  # this very line was imported before
            result.skipped += 1
            continue
        judgment = dataclasses.replace(judgment, uid=uid)
        store.save_judgment(judgment)
        if judgment.status == STATUS_OK:
            done.add(item_id)
            result.judged += 1
        else:
            result.failed += 1
            result.problems.append(f"{path} line {number} item {item_id}: {judgment.error}")
    return result


def _judgment_from_output(record, item_id, model, prompt_sha256, base_url) -> Judgment:
    response = record.get("response") or {}
    body = response.get("body") or {}
    usage = body.get("usage") or {}
    raw, error, scores = "", "", None
    if record.get("error") or response.get("status_code") != 200:
        error = f"batch request failed: {json.dumps(record.get('error') or body)[:300]}"
    else:
        try:
            message = body["choices"][0]["message"]
            raw = message.get("content") or message.get("refusal") or ""
            if message.get("refusal"):
                error = f"the model refused: {message['refusal']}"
            else:
                scores = parse_judgment(message.get("content"))
        except (KeyError, IndexError, TypeError) as exc:
            error = f"no answer in the output line: {exc!r}"
        except UnusableAnswer as exc:
            error = f"unusable answer: {exc}"
    return Judgment(
        item_id=item_id,
        model=model,
        scores=scores,
        status=STATUS_OK if scores is not None else STATUS_FAILED,
        created_at=utc_now(),
        base_url=safe_base_url(base_url),
        prompt_sha256=prompt_sha256,
        raw_text=raw,
        error=error,
        prompt_tokens=usage.get("prompt_tokens"),
        completion_tokens=usage.get("completion_tokens"),
        source="batch",
    )
