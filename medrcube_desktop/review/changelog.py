"""A release's ``changes.json``, ``CHANGELOG.md`` and ``release.json`` (issue 23, item 3).

``changes.json`` is what ``rescore`` reads (its keys are the shared contract of issue
23); ``CHANGELOG.md`` says the same for people. Both list, per changed or retired item,
each accepted correction: what it changed from what to what, its rule and reason, who
proposed and who accepted it, and when. Counts: items changed, retired, unchanged and
needing a new answer; corrections per rule and per kind; changed or retired items per
task. Pure: the documents are built here, written by :mod:`.release`.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from typing import Any

from medrcube_desktop.review.release_plan import ItemPlan

__all__ = [
    "CHANGES_FORMAT",
    "RELEASE_FORMAT",
    "changelog_text",
    "changes_document",
    "release_document",
]

RELEASE_FORMAT = "medrcube-release"
CHANGES_FORMAT = "medrcube-release-changes"
FORMAT_VERSION = 1


def changes_document(version: str, plans: Sequence[ItemPlan], total_items: int) -> dict[str, Any]:
    """``changes.json``: the items (in file order) and the counts.

    Parameters
    ----------
    version : str
        The release's ``--version``.
    plans : sequence of ItemPlan
        Every changed or retired item, in the order of the source files.
    total_items : int
        Records in the source (every ``test.json`` together).

    Returns
    -------
    dict
        ``{"format", "format_version", "version", "items": [...], "counts": {...}}``
        (issue 23's shape; ``per_rule`` and ``per_kind`` count corrections,
        ``per_task`` counts items).
    """
    items = [
        {
            "item_id": plan.item_id,
            "file": plan.file,
            "task": plan.task,
            "dataset": plan.record.get("dataset"),
            "status": "retired" if plan.retired else "changed",
            "needs_new_answer": plan.needs_new_answer,
            "answer_before": plan.answer_before,
            "answer_after": plan.answer_after,
            "changes": plan.entries,
        }
        for plan in plans
    ]
    retired = sum(plan.retired for plan in plans)
    counts = {
        "changed": len(plans) - retired,
        "retired": retired,
        "unchanged": total_items - len(plans),
        "needs_new_answer": sum(plan.needs_new_answer for plan in plans),
        "per_rule": _sorted(Counter(e["rule"] for p in plans for e in p.entries)),
        "per_task": _sorted(Counter(plan.task for plan in plans)),
        "per_kind": _sorted(Counter(e["kind"] for p in plans for e in p.entries)),
    }
    return {
        "format": CHANGES_FORMAT,
        "format_version": FORMAT_VERSION,
        "version": version,
        "items": items,
        "counts": counts,
    }


def _sorted(counter: Counter) -> dict[str, int]:
    return {str(key): counter[key] for key in sorted(counter, key=str)}


def release_document(
    version: str, source: str, created_at: str, app_version: str, changes: dict[str, Any]
) -> dict[str, Any]:
    """``release.json``: what the folder is, made from what, when, by which app."""
    counts = changes["counts"]
    return {
        "format": RELEASE_FORMAT,
        "format_version": FORMAT_VERSION,
        "version": version,
        "source": source,
        "created_at": created_at,
        "app_version": app_version,
        "items": counts["changed"] + counts["unchanged"],
        "retired": counts["retired"],
        "changed": counts["changed"],
    }


def _value(value: Any) -> str:
    """A value in the changelog: JSON (text quoted), one line, ``|`` and backticks kept
    out of the way of Markdown."""
    text = "(none)" if value is None else json.dumps(value, ensure_ascii=False)
    return "`" + text.replace("`", "'") + "`"


def _line(text: Any) -> str:
    return " ".join(str(text or "").split()) or "(none)"


def _table(title: str, header: str, counts: dict[str, int]) -> list[str]:
    lines = [f"### {title}", "", f"| {header} | Count |", "|---|---:|"]
    lines += [f"| {_line(key).replace('|', '/')} | {n} |" for key, n in counts.items()]
    return [*lines, ""]


def changelog_text(release: dict[str, Any], changes: dict[str, Any]) -> str:
    """``CHANGELOG.md``: the version, the source, the date, the counts, then per item
    each change (from → to), its rule and reason, proposer, acceptor and dates."""
    counts = changes["counts"]
    lines = [
        f"# MedRCube release {release['version']}",
        "",
        f"- Source: {release['source']}",
        f"- Created: {release['created_at']} (MedRCube Desktop {release['app_version']})",
        f"- Items in the release: {release['items']} ({counts['changed']} changed, "
        f"{counts['unchanged']} unchanged); {counts['retired']} retired; "
        f"{counts['needs_new_answer']} need a new answer from each model",
        "",
        "## Counts",
        "",
        *_table("Corrections per rule", "Rule", counts["per_rule"]),
        *_table("Changed or retired items per task", "Task", counts["per_task"]),
        *_table("Corrections per kind", "Kind", counts["per_kind"]),
        "## Items",
        "",
    ]
    if not changes["items"]:
        lines += ["No accepted correction: the release equals its source.", ""]
    for item in changes["items"]:
        answer = ""
        if item["answer_before"] != item["answer_after"] and item["status"] == "changed":
            answer = f"; answer {item['answer_before']} → {item['answer_after']}"
        lines += [
            f"### {_line(item['item_id'])} — {item['status']}",
            "",
            f"{item['file']}, {_line(item['task'])}, {_line(item['dataset'])}{answer}"
            + ("; needs a new answer" if item["needs_new_answer"] else ""),
            "",
        ]
        for change in item["changes"]:
            what = (
                "retired (left out of the release)"
                if change["field"] is None
                else f"`{change['field']}`: {_value(change['from'])} → {_value(change['to'])}"
            )
            lines += [
                f"- **{change['kind']}** {what}",
                f"  - rule {change['rule']}: {_line(change['reason'])}",
                f"  - proposed by {_line(change['proposer'])} on {_line(change['proposed_at'])} "
                f"(proposal {_line(change['proposal_uid'])})",
                f"  - accepted by {_line(change['acceptor'])} on {_line(change['accepted_at'])}: "
                f"{_line(change['acceptance_reason'])}",
            ]
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"
