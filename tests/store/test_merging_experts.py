"""``merge`` of the several-experts tables: adjudications (by uid, revisions in order,
a history decided apart said) and the assignment (copied, or a conflict said)."""

import json

from medrcube_desktop.cli import main
from medrcube_desktop.review.assignment import assign
from medrcube_desktop.store import StudyStore
from medrcube_desktop.store.adjudications import Adjudication
from medrcube_desktop.store.exchange import merge
from tests.review.experts_fixture import ITEMS, fill


def at(hour: int) -> str:
    return f"2026-02-01T{hour:02d}:00:00+00:00"


def adjudicate(store, who, value, reason, hour, item="i2", target="1.1"):
    (stored,) = store.save_adjudications(
        [Adjudication(item, target, value, reason, who, [{"rater": "dr-a"}], created_at=at(hour))]
    )
    return stored


def history(store, item="i2"):
    return [(a.target, a.revision, a.adjudicator, a.value, a.reason, a.created_at)
            for a in store.adjudication_history(item)]  # fmt: skip


def test_adjudications_are_copied_once_with_their_revisions_in_order(tmp_path):
    laptop = fill(StudyStore(tmp_path / "laptop.db"), experts=("dr-a", "dr-b"))
    first = adjudicate(laptop, "dr-c", 0, "the lesion is not in the named lobe", 9)
    adjudicate(laptop, "dr-c", 1, "on review of the coronal view it is", 10)
    adjudicate(laptop, "dr-c", 0, "distractors overlap", 11, target="verdict")
    laptop.close()
    study = StudyStore(tmp_path / "study.db")
    summary = merge(study, [tmp_path / "laptop.db"])
    assert summary.total("adjudications") == 3 and summary.files[0].conflicts == []
    assert history(study) == [
        ("1.1", 1, "dr-c", 0, "the lesion is not in the named lobe", at(9)),
        ("1.1", 2, "dr-c", 1, "on review of the coronal view it is", at(10)),
        ("verdict", 1, "dr-c", 0, "distractors overlap", at(11)),
    ]
    kept = study.adjudication_history("i2")[0]
    assert (kept.uid, kept.resolves) == (first.uid, [{"rater": "dr-a"}])
    assert study.adjudications()["i2"]["1.1"].value == 1  # the latest wins, as it did there
    again = merge(study, [tmp_path / "laptop.db", tmp_path / "laptop.db"])
    assert again.total("adjudications") == 0 and again.total("reviews") == 0
    assert len(history(study)) == 3


def test_a_later_revision_of_a_shared_history_follows_it(tmp_path):
    laptop = fill(StudyStore(tmp_path / "laptop.db"), experts=("dr-a", "dr-b"))
    adjudicate(laptop, "dr-c", 0, "first look", 9)
    study = StudyStore(tmp_path / "study.db")
    merge(study, [tmp_path / "laptop.db"])
    adjudicate(laptop, "dr-c", 1, "second look", 10)  # on the laptop, after the merge
    laptop.close()
    summary = merge(study, [tmp_path / "laptop.db"])
    assert summary.total("adjudications") == 1 and summary.files[0].conflicts == []
    assert [(r, v, why) for _, r, _, v, why, _ in history(study)] == [
        (1, 0, "first look"),
        (2, 1, "second look"),
    ]


def test_an_item_adjudicated_apart_in_both_files_is_a_conflict_said(tmp_path, capsys):
    laptop = fill(StudyStore(tmp_path / "laptop.db"), experts=("dr-a", "dr-b"))
    adjudicate(laptop, "dr-c", 0, "fails on the laptop", 9)
    adjudicate(laptop, "dr-c", 0, "still fails", 10)
    laptop.close()
    study_path = tmp_path / "study.db"
    study = fill(StudyStore(study_path), experts=("dr-a", "dr-b"))
    adjudicate(study, "dr-d", 1, "passes at the hospital", 12)
    study.close()
    args = ["merge", str(study_path), str(tmp_path / "laptop.db"), "--json"]
    assert main(args) == 0
    out, err = capsys.readouterr()
    # (both files hold first judgments of the same items: the laptop's, if committed a
    # second earlier, are refused and listed too)
    conflicts = json.loads(out)["files"][0]["conflicts"]
    (conflict,) = [line for line in conflicts if "was adjudicated" in line]
    assert conflict == (
        f"{tmp_path / 'laptop.db'}: item i2 rule 1.1 was adjudicated in both databases apart "
        "(1 revision(s) only in the study, 2 only in this file): this file's became "
        f"revisions 2–3, so the latest is now dr-c's value 0 ({at(10)}); record a new "
        "revision if another should stand"
    )
    assert f"medrcube-desktop: warning: conflict: {conflict}" in err
    study = StudyStore(study_path)
    assert [(r, who, v) for _, r, who, v, _, _ in history(study)] == [
        (1, "dr-d", 1),
        (2, "dr-c", 0),
        (3, "dr-c", 0),
    ]  # nothing of the study's own history changed
    assert main(args) == 0
    again = json.loads(capsys.readouterr().out)["files"][0]
    assert again["added"]["adjudications"] == 0
    assert [line for line in again["conflicts"] if "was adjudicated" in line] == []


def test_the_assignment_is_copied_once_and_a_different_one_is_a_conflict(tmp_path):
    laptop = StudyStore(tmp_path / "laptop.db")
    stored = assign(laptop, ITEMS, ["dr-a", "dr-b"], 0.5, 7)
    laptop.close()
    study = StudyStore(tmp_path / "study.db")
    summary = merge(study, [tmp_path / "laptop.db"])
    assert summary.total("assignments") == 18  # 12 items, 6 of them to both
    copied = study.assignment()
    assert (copied.reviewers, copied.overlap, copied.seed) == (("dr-a", "dr-b"), 0.5, 7)
    assert copied.items == stored.items and copied.overlap_items == stored.overlap_items
    assert merge(study, [tmp_path / "laptop.db"]).files[0].conflicts == []
    other = StudyStore(tmp_path / "other.db")
    assign(other, ITEMS, ["dr-a", "dr-c"], 0.25, 1)
    other.close()
    summary = merge(study, [tmp_path / "other.db"])
    (conflict,) = summary.files[0].conflicts
    assert conflict.startswith(
        f"{tmp_path / 'other.db'}: its assignment (reviewers dr-a, dr-c, overlap 0.25, seed 1, "
        "12 items, 15 rows, made "
    )
    assert (
        "differs from the study's (reviewers dr-a, dr-b, overlap 0.5, seed 7, 12 items, 18 rows"
        in conflict
    )
    assert conflict.endswith("the study's is kept; run `assign` again to choose one")
    assert study.assignment() == copied and summary.total("assignments") == 0
