"""``changes.json``, ``release.json`` and ``CHANGELOG.md`` from the per-item plans."""

from __future__ import annotations

from medrcube_desktop.review.changelog import changelog_text, changes_document, release_document
from medrcube_desktop.review.release_plan import plan_item
from tests.conftest import item
from tests.review.release_fixture import accepted


def _documents(plans, total):
    changes = changes_document("3", plans, total)
    release = release_document("3", "/data/src", "2026-12-03T10:00:00+00:00", "1.0", changes)
    return changes, release


def test_no_change_counts_every_item_unchanged_and_says_so():
    changes, release = _documents([], 12)
    assert changes["counts"] == {
        "changed": 0, "retired": 0, "unchanged": 12, "needs_new_answer": 0,
        "per_rule": {}, "per_task": {}, "per_kind": {},
    }  # fmt: skip
    assert (release["items"], release["changed"], release["retired"]) == (12, 0, 0)
    text = changelog_text(release, changes)
    assert "No accepted correction: the release equals its source." in text
    assert "- Items in the release: 12 (0 changed, 12 unchanged); 0 retired" in text


def test_counts_per_rule_kind_and_task_and_a_reason_kept_on_one_line():
    a = item("a")
    b = item("b", task="View Identification")
    plans = [
        plan_item("a", "ds/test.json", 0, a, [
            accepted("a", "answer_key", {"answer": "A"}, rule="1.1"),
            accepted("a", "question_text", {"text": "Which `one`?"}, rule="1.1"),
        ]),
        plan_item("b", "ds/test.json", 1, b, [accepted("b", "retire", rule="2.3")]),
    ]  # fmt: skip
    plans[0].entries[1]["reason"] = "two\nlines | and a pipe"
    changes, release = _documents(plans, 5)
    assert changes["counts"] == {
        "changed": 1, "retired": 1, "unchanged": 3, "needs_new_answer": 1,
        "per_rule": {"1.1": 2, "2.3": 1},
        "per_task": {"Modality Recognition": 1, "View Recognition": 1},
        "per_kind": {"answer_key": 1, "question_text": 1, "retire": 1},
    }  # fmt: skip
    assert release["items"] == 4  # 5 records less the retired one
    text = changelog_text(release, changes)
    assert "  - rule 1.1: two lines | and a pipe\n" in text
    assert (
        '`question`: `"What is the imaging modality of this image?"` → `"Which \'one\'?"`' in text
    )
    assert "### b — retired" in text and "answer B → A" in text
