"""What merge reports and which reviews it takes for the same one (issue 26: a merge must
never lose or duplicate a judgment, and must say what it did): the summary's JSON form,
the warnings for another protocol or a reviewer's file holding others' reviews, a review
differing in any one field from a stored one merged as a new review, and the first-
judgment rule read in commit time (time zones included), not in text order."""

import json

import pytest

from medrcube_desktop.core.rubric import CANNOT_JUDGE, RULE_IDS
from medrcube_desktop.store import Review, StudyStore
from medrcube_desktop.store.exchange import merge
from medrcube_desktop.store.merging import MERGED_TABLES, FileMerge, MergeSummary


def scores(*fails: str) -> dict[str, int | str]:
    return {rule: 0 if rule in fails else 1 for rule in RULE_IDS}


def at(hour: int, zone: str = "+00:00") -> str:
    return f"2024-05-01T{hour:02d}:00:00{zone}"


def review(reviewer="dr-a", item="i1", hour=10, **kw) -> Review:
    fields = {
        "scores": scores(),
        "comment": "fine",
        "started_at": at(hour),
        "committed_at": at(hour),
    }
    fields.update(kw)
    return Review(reviewer, item, fields.pop("scores"), fields.pop("comment"),
                  fields.pop("started_at"), fields.pop("committed_at"), **fields)  # fmt: skip


def test_the_summary_as_json_lists_every_file_and_totals_every_table(tmp_path):
    one = StudyStore(tmp_path / "one.db")
    one.save_review(review("dr-b", "i1"))
    one.save_review(review("dr-a", "i2"))
    one.save_review(review("dr-b", "i3"))
    one.set_state("study.settings", json.dumps({"blind": True}))
    one.close()
    two = StudyStore(tmp_path / "two.db")
    two.save_review(review("dr-c", "i4"))
    two.set_flag("dr-c", "i4", True, at(11))
    two.close()
    study = StudyStore(tmp_path / "study.db")
    study.set_state("study.settings", json.dumps({"blind": False}))
    summary = merge(study, [tmp_path / "one.db", tmp_path / "two.db"])
    zero = dict.fromkeys(MERGED_TABLES, 0)
    assert summary.to_dict() == {
        "files": [
            {
                "path": str(tmp_path / "one.db"),
                "added": {**zero, "reviews": 3},
                "renumbered_items": 3,
                "warnings": [
                    f"{tmp_path / 'one.db'}: collected under other study settings (blind); "
                    "each review keeps its blind flag"
                ],
                "conflicts": [],
                "refused": [],
                "reviews_by_reviewer": {"dr-a": 1, "dr-b": 2},
            },
            {
                "path": str(tmp_path / "two.db"),
                "added": {**zero, "reviews": 1, "flags": 1},
                "renumbered_items": 1,
                "warnings": [
                    f"{tmp_path / 'two.db'}: collected under other study settings (blind); "
                    "each review keeps its blind flag"
                ],  # the target's settings are {"blind": false}, two.db has none
                "conflicts": [],
                "refused": [],
                "reviews_by_reviewer": {"dr-c": 1},
            },
        ],
        "total": {**zero, "reviews": 4, "flags": 1},
    }
    assert list(summary.files[0].reviews_by_reviewer) == ["dr-a", "dr-b"]  # sorted
    assert summary.total("reviews") == 4 and summary.total("flags") == 1
    assert summary.total("no such table") == 0


def test_total_sums_the_files_and_counts_a_table_a_file_lacks_as_0(tmp_path):
    summary = MergeSummary(
        [
            FileMerge(tmp_path / "a", {"reviews": 2, "flags": 1}),
            FileMerge(tmp_path / "b", {"reviews": 5}),
        ]
    )
    assert summary.total("reviews") == 7
    assert summary.total("flags") == 1
    assert MergeSummary().total("reviews") == 0
    assert MergeSummary().to_dict() == {"files": [], "total": dict.fromkeys(MERGED_TABLES, 0)}


@pytest.mark.parametrize(
    ("theirs", "mine", "differing"),
    [
        (
            {"blind": True, "repeat_share": 0.1},
            {"blind": True, "repeat_share": 0.2},
            "repeat_share",
        ),
        ({"a": 1, "b": 2}, {"b": 3, "c": 4}, "a, b, c"),  # sorted, either side's keys
        ({"blind": True}, None, "blind"),
        ("not json {", {"blind": True}, "blind"),  # unreadable settings read as none
        ([1, 2], {"x": 1}, "x"),  # a JSON list is no settings
    ],
)
def test_other_study_settings_are_named_in_a_warning(tmp_path, theirs, mine, differing):
    other = StudyStore(tmp_path / "other.db")
    other.save_review(review())
    other.set_state("study.settings", theirs if isinstance(theirs, str) else json.dumps(theirs))
    other.close()
    study = StudyStore(tmp_path / "study.db")
    if mine is not None:
        study.set_state("study.settings", json.dumps(mine))
    assert merge(study, [tmp_path / "other.db"]).files[0].warnings == [
        f"{tmp_path / 'other.db'}: collected under other study settings ({differing}); each "
        "review keeps its blind flag"
    ]


@pytest.mark.parametrize("settings", [None, {"blind": True}, "[1]", "{"])
def test_the_same_settings_give_no_warning(tmp_path, settings):
    other = StudyStore(tmp_path / "other.db")
    other.save_review(review())
    study = StudyStore(tmp_path / "study.db")
    if settings is not None:
        text = settings if isinstance(settings, str) else json.dumps(settings)
        other.set_state("study.settings", text)
        study.set_state("study.settings", "{}" if isinstance(settings, str) else text)
    other.close()
    assert merge(study, [tmp_path / "other.db"]).files[0].warnings == []


def test_a_reviewers_file_holding_others_reviews_is_said_with_their_counts(tmp_path):
    path = tmp_path / "dr-a.db"
    other = StudyStore(path)
    other.save_assignment(["dr-a"], 0.2, 7, 3, [("dr-a", "i1", False)])
    other.save_review(review("dr-a", "i1"))
    other.save_review(review("dr-c", "i2"))
    other.save_review(review("dr-b", "i2"))
    other.save_review(review("dr-b", "i3"))
    other.close()
    study = StudyStore(tmp_path / "study.db")
    merged = merge(study, [path]).files[0]
    assert merged.added["reviews"] == 4  # merged as any other review
    assert merged.warnings == [
        f"{path}: the file of reviewer dr-a (its assignment names them only) holds reviews "
        "by dr-b (2), dr-c (1); they are merged: check how they got into it"
    ]


@pytest.mark.parametrize(
    ("reviewers", "authors"),
    [
        (None, ["dr-a", "dr-b"]),  # no assignment: a study file, anyone's reviews
        (["dr-a", "dr-b"], ["dr-a", "dr-b"]),  # the whole study's assignment
        (["dr-a"], ["dr-a"]),  # only the reviewer's own
    ],
)
def test_no_foreign_review_warning_where_the_file_is_not_one_reviewers(
    tmp_path, reviewers, authors
):
    path = tmp_path / "other.db"
    other = StudyStore(path)
    if reviewers is not None:
        other.save_assignment(reviewers, 0.2, 7, 2, [(r, "i1", False) for r in reviewers])
    for k, author in enumerate(authors):
        other.save_review(review(author, f"i{k}"))
    other.close()
    assert merge(StudyStore(tmp_path / "study.db"), [path]).files[0].warnings == []


@pytest.mark.parametrize(
    "change",
    [
        {"comment": "fine, but the plane is wrong"},
        {"scores": scores("2.1")},
        {"scores": {**scores(), "1.3": CANNOT_JUDGE}},  # an abstained rule
        {"tags": ("plane",)},
        {"repeat": True},
        {"committed_at": at(11)},
        {"item": "i2"},
        {"reviewer": "dr-z"},
    ],
)
def test_a_review_differing_from_a_stored_one_in_one_field_is_merged(tmp_path, change):
    study = StudyStore(tmp_path / "study.db")
    stored = study.save_review(review())
    other = StudyStore(tmp_path / "other.db")
    copy = other.save_review(review(**change))
    other.close()
    assert copy.uid != stored.uid
    merged = merge(study, [tmp_path / "other.db"]).files[0]
    assert merged.added["reviews"] == 1
    assert merged.refused == []
    rows = study.conn.execute("SELECT uid FROM reviews ORDER BY uid").fetchall()
    assert sorted(r[0] for r in rows) == sorted([stored.uid, copy.uid])


def test_the_same_review_under_another_uid_is_not_merged_even_with_another_start(tmp_path):
    study = StudyStore(tmp_path / "study.db")
    study.save_review(review(tags=("plane",), scores={**scores("1.1"), "1.3": CANNOT_JUDGE}))
    other = StudyStore(tmp_path / "other.db")
    # started_at, active time and app version are not what makes it the same review
    other.save_review(
        review(
            tags=("plane",),
            scores={**scores("1.1"), "1.3": CANNOT_JUDGE},
            started_at=at(9),
            active_seconds=12.5,
        )
    )
    other.close()
    assert merge(study, [tmp_path / "other.db"]).total("reviews") == 0
    assert study.conn.execute("SELECT COUNT(*) FROM reviews").fetchone()[0] == 1


def test_the_first_judgment_rule_compares_commit_times_not_their_text(tmp_path):
    study = StudyStore(tmp_path / "study.db")
    study.save_review(review(hour=9, comment="first"))  # 09:00 UTC
    study.save_review(review(hour=12, comment="second"))
    # 10:00 at +02:00 is 08:00 UTC: before the first judgment, though "10" > "09" as text
    early = StudyStore(tmp_path / "early.db")
    early.save_review(review(committed_at=at(10, "+02:00"), comment="east"))
    early.close()
    refused = merge(study, [tmp_path / "early.db"]).files[0]
    assert refused.added["reviews"] == 0
    assert refused.refused == [
        f"{tmp_path / 'early.db'}: review of item i1 by dr-a committed at {at(10, '+02:00')} "
        f"is before the reviewer's first judgment of the item ({at(9)}), which never "
        "changes; not stored"
    ]
    # at the first judgment's own time (another comment: another review), and between
    # the first and the second revision: kept, after the first
    later = StudyStore(tmp_path / "later.db")
    later.save_review(review(committed_at=at(9), comment="same time"))
    later.save_review(review(committed_at=at(13, "+02:00"), comment="11 UTC"))
    later.close()
    kept = merge(study, [tmp_path / "later.db"]).files[0]
    assert (kept.added["reviews"], kept.refused) == (2, [])
    history = [(r.revision, r.comment) for r in study.review_history("dr-a", "i1")]
    assert history[0] == (1, "first")
    assert {c for _, c in history} == {"first", "second", "same time", "11 UTC"}
    assert study.first_reviews("dr-a")["i1"].comment == "first"


def test_a_repeat_is_no_first_judgment_and_another_reviewer_or_item_is_free(tmp_path):
    study = StudyStore(tmp_path / "study.db")
    study.save_review(review(hour=8, comment="repeat", repeat=True))  # revision 1
    study.save_review(review(hour=12, comment="first"))  # the first judgment, revision 2
    other = StudyStore(tmp_path / "other.db")
    other.save_review(review(hour=10, comment="before the first"))  # refused
    other.save_review(review(hour=9, comment="after the repeat", item="i1", reviewer="dr-b"))
    other.save_review(review(hour=7, comment="other item", item="i2"))
    other.close()
    merged = merge(study, [tmp_path / "other.db"]).files[0]
    assert merged.added["reviews"] == 2
    assert merged.reviews_by_reviewer == {"dr-a": 1, "dr-b": 1}
    assert len(merged.refused) == 1 and f"({at(12)})" in merged.refused[0]


def test_a_review_without_a_commit_time_is_refused_against_an_unreadable_first_time(tmp_path):
    # time_key sorts a time it cannot read after every real time, by its text: the
    # missing time "" sorts before "2024-05-01T25:00:00" (no hour 25), so the review
    # cannot be shown to follow the first judgment and is refused
    study = StudyStore(tmp_path / "study.db")
    study.save_review(review(hour=9, comment="first", committed_at="2024-05-01T25:00:00"))
    other = StudyStore(tmp_path / "other.db")
    other.save_review(review(comment="no time", started_at="", committed_at=""))
    other.close()
    refused = merge(study, [tmp_path / "other.db"]).files[0]
    assert refused.added["reviews"] == 0
    assert refused.refused == [
        f"{tmp_path / 'other.db'}: review of item i1 by dr-a committed at  is before the "
        "reviewer's first judgment of the item (2024-05-01T25:00:00), which never changes; "
        "not stored"
    ]
