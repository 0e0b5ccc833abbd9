import csv
from dataclasses import replace
from datetime import UTC, datetime

import pytest

from medrcube_desktop.core.rubric import RULE_IDS
from medrcube_desktop.errors import StoreError
from medrcube_desktop.store import Review, StudyStore
from medrcube_desktop.store.drafts import StoredDraft
from medrcube_desktop.store.exchange import (
    CSV_COLUMNS,
    export_reviews,
    import_reviews,
    neutralise_cell,
    restore_cell,
)

HEADER = ",".join(CSV_COLUMNS)
T0 = "2024-05-01T10:00:00+00:00"


def scores(*fails: str) -> dict[str, int]:
    """All seven rules pass except those named."""
    return {rule: 0 if rule in fails else 1 for rule in RULE_IDS}


def review(item: str, comment: str = "", at: str = T0, *fails: str, **extra) -> Review:
    return Review("dr-a", item, scores(*fails), comment, at, at, **extra)


def rows(path) -> list[dict[str, str]]:
    with open(path, encoding="utf-8-sig", newline="") as f:
        return list(csv.DictReader(f))


def write(path, text: str, encoding: str = "utf-8"):
    path.write_bytes(text.encode(encoding))
    return path


def score_and_comment(path) -> list[tuple[str, ...]]:
    return [(r["item_id"], *(r[rule] for rule in RULE_IDS), r["comment"]) for r in rows(path)]


def test_header_is_the_documented_one():
    assert HEADER == (
        "item_id,1.1,1.2,1.3,1.4,2.1,2.2,2.3,comment,tags,revision,repeat,"
        "started_at,committed_at,active_seconds,blind,reviewer,image_shown"
    )


def test_export_writes_latest_revision_per_item_sorted_by_item(tmp_path):
    store = StudyStore(tmp_path / "s.db")
    store.save_review(review("i2", "only", T0, "1.4", tags=("subjective",), active_seconds=12.25))
    store.save_review(review("i1", "first", T0, "2.3"))
    store.save_review(
        replace(review("i1", "second", "2024-05-01T11:00:00+00:00"), image_shown=False)
    )
    assert export_reviews(store, "dr-a", tmp_path / "out.csv") == 2
    raw = (tmp_path / "out.csv").read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")  # UTF-8 byte-order mark, for Excel
    text = raw.decode("utf-8-sig")
    assert text.splitlines() == [
        HEADER,
        "i1,1,1,1,1,1,1,1,second,,2,0,2024-05-01T11:00:00+00:00,2024-05-01T11:00:00+00:00,0.0,"
        "1,dr-a,0",
        "i2,1,1,1,0,1,1,1,only,subjective,1,0,2024-05-01T10:00:00+00:00,"
        "2024-05-01T10:00:00+00:00,12.25,1,dr-a,",
    ]
    assert [p.name for p in tmp_path.iterdir() if p.suffix == ".tmp"] == []


def test_export_first_and_all_include_what_they_say(tmp_path):
    store = StudyStore(None)
    store.save_review(review("i1", "first", T0, "1.1"))
    store.save_review(review("i1", "second", "2024-05-01T11:00:00+00:00"))
    store.save_review(review("i1", "blind repeat", "2024-05-02T09:00:00+00:00", repeat=True))
    assert export_reviews(store, "dr-a", tmp_path / "first.csv", "first") == 1
    assert [(r["comment"], r["revision"], r["1.1"]) for r in rows(tmp_path / "first.csv")] == [
        ("first", "1", "0")
    ]
    assert export_reviews(store, "dr-a", tmp_path / "latest.csv") == 1
    assert rows(tmp_path / "latest.csv")[0]["comment"] == "second"
    assert export_reviews(store, "dr-a", tmp_path / "all.csv", "all") == 3
    assert [(r["comment"], r["revision"], r["repeat"]) for r in rows(tmp_path / "all.csv")] == [
        ("first", "1", "0"),
        ("second", "2", "0"),
        ("blind repeat", "3", "1"),
    ]
    assert export_reviews(store, "nobody", tmp_path / "none.csv") == 0
    assert (tmp_path / "none.csv").read_text("utf-8-sig") == HEADER + "\n"


def test_export_refuses_unknown_choice_and_unwritable_path(tmp_path):
    store = StudyStore(None)
    store.save_review(review("i1"))
    with pytest.raises(StoreError, match="unknown revisions choice 'newest'"):
        export_reviews(store, "dr-a", tmp_path / "x.csv", "newest")
    missing = tmp_path / "no-such-folder" / "x.csv"
    export_reviews(store, "dr-a", missing)  # a missing folder is made, as other exports do
    assert missing.read_text(encoding="utf-8-sig").startswith("item_id,")
    (tmp_path / "a-file").write_text("")
    under_a_file = tmp_path / "a-file" / "x.csv"
    with pytest.raises(
        FileExistsError
    ):  # the command says "a-file: is a file where a folder is needed"
        export_reviews(store, "dr-a", under_a_file)
    with pytest.raises(StoreError, match="is a folder"):
        export_reviews(store, "dr-a", tmp_path)


def test_round_trip_export_import_export_keeps_scores_and_comments(tmp_path):
    source = StudyStore(tmp_path / "a.db")
    source.save_review(review("ct-1", 'multi\nline, with "quotes" and ümlaut', T0, "1.1", "2.2"))
    source.save_review(review("ct-2", '=HYPERLINK("http://x","y")', T0, "1.3"))
    source.save_review(review("ct-2", "-1", "2024-05-01T12:00:00+00:00"))
    source.save_review(review("-ct-3", "\tindented", T0, tags=("grammar", "too long")))
    for which in ("latest", "all"):
        first, second = tmp_path / f"{which}-1.csv", tmp_path / f"{which}-2.csv"
        export_reviews(source, "dr-a", first, which)
        fresh = StudyStore(tmp_path / f"{which}.db")
        summary = import_reviews(fresh, "dr-a", first)
        assert (summary.imported, summary.skipped, summary.problems) == (
            3 if which == "latest" else 4,
            0,
            [],
        )
        export_reviews(fresh, "dr-a", second, which)
        assert score_and_comment(second) == score_and_comment(first)
    assert score_and_comment(tmp_path / "latest-2.csv") == [  # cells as the file holds them
        ("'-ct-3", "1", "1", "1", "1", "1", "1", "1", "'\tindented"),
        ("ct-1", "0", "1", "1", "1", "1", "0", "1", 'multi\nline, with "quotes" and ümlaut'),
        ("ct-2", "1", "1", "1", "1", "1", "1", "1", "'-1"),
    ]
    # every revision kept its times, tags and order: the files are the same byte for byte
    assert (tmp_path / "all-2.csv").read_bytes() == (tmp_path / "all-1.csv").read_bytes()
    assert StudyStore(tmp_path / "all.db").latest_reviews("dr-a")["-ct-3"].tags == (
        "grammar",
        "too long",
    )


@pytest.mark.parametrize(
    ("comment", "written"),
    [
        ('=HYPERLINK("http://evil","click")', '\'=HYPERLINK("http://evil","click")'),
        ("-1", "'-1"),
        ("+x", "'+x"),
        ("@SUM(A1:A2)", "'@SUM(A1:A2)"),
        ("\tcmd", "'\tcmd"),
        ("\rcmd", "'\rcmd"),
        ("'=already quoted", "''=already quoted"),
        ("'plain quote", "'plain quote"),
        ("a = b", "a = b"),
        ("", ""),
    ],
)
def test_formula_cells_are_neutralised_and_imported_back_unchanged(tmp_path, comment, written):
    assert neutralise_cell(comment) == written
    assert restore_cell(written) == comment
    store = StudyStore(None)
    store.save_review(review("i1", comment))
    export_reviews(store, "dr-a", tmp_path / "out.csv")
    assert rows(tmp_path / "out.csv")[0]["comment"] == written
    fresh = StudyStore(None)
    assert import_reviews(fresh, "dr-a", tmp_path / "out.csv").imported == 1
    assert fresh.latest_reviews("dr-a")["i1"].comment == comment


def test_bad_rows_are_reported_by_file_line_item_and_column_and_good_rows_imported(tmp_path):
    path = write(
        tmp_path / "in.csv",
        "item_id,1.1,1.2,1.3,1.4,2.1,2.2,2.3,comment,active_seconds\n"
        "good-1,1,1,1,1,1,1,1,fine,3.5\n"
        "bad-score,2,1,1,1,1,1,1,two,\n"
        ",1,1,1,1,1,1,1,no id,\n"
        '"good-2",0, 0 ,1,1,1,1,1,"multi\nline",\n'
        "bad-time,1,1,1,1,1,1,1,slow,ten\n"
        "bad-many,1,1,1,x,1,1,1,two problems,-4\n",
    )
    store = StudyStore(None)
    summary = import_reviews(store, "dr-a", path)
    assert summary.imported == 2 and summary.skipped == 0
    assert summary.problems == [
        f"{path} line 3 item bad-score column 1.1: score must be 0, 1 or 'cannot judge' (NA), got '2'",
        f"{path} line 4 item (no id) column item_id: no item id",
        f"{path} line 7 item bad-time column active_seconds: not a number >= 0: 'ten'",
        f"{path} line 8 item bad-many column 1.4: score must be 0, 1 or 'cannot judge' (NA), got 'x'",
        f"{path} line 8 item bad-many column active_seconds: not a number >= 0: '-4'",
    ]
    latest = store.latest_reviews("dr-a")
    assert sorted(latest) == ["good-1", "good-2"]
    assert latest["good-1"].active_seconds == 3.5
    assert latest["good-1"].source == "import"
    assert latest["good-2"].scores == scores("1.1", "1.2")
    assert latest["good-2"].comment == "multi\nline"


def test_bad_times_repeat_and_extra_fields_are_problems(tmp_path):
    path = write(
        tmp_path / "in.csv",
        "item_id,1.1,1.2,1.3,1.4,2.1,2.2,2.3,committed_at,repeat\n"
        "a,1,1,1,1,1,1,1,yesterday,0\n"
        "b,1,1,1,1,1,1,1,,yes\n"
        "c,1,1,1,1,1,1,1,,0,surplus\n",
    )
    summary = import_reviews(StudyStore(None), "dr-a", path)
    assert summary.imported == 0
    assert summary.problems == [
        f"{path} line 2 item a column committed_at: not an ISO 8601 time: 'yesterday'",
        f"{path} line 3 item b column repeat: must be 0 or 1, got 'yes'",
        f"{path} line 4 item c column (row): 11 fields, the header has 10",
    ]


def test_missing_required_columns_are_named_and_nothing_is_imported(tmp_path):
    path = write(tmp_path / "in.csv", "item_id,1.1,1.2,1.3,2.1,2.2,comment\ni1,1,1,1,1,1,x\n")
    store = StudyStore(None)
    with pytest.raises(StoreError) as info:
        import_reviews(store, "dr-a", path)
    assert str(info.value) == (
        f"{path}: missing column 1.4, 2.3 (required: item_id, 1.1, 1.2, 1.3, 1.4, 2.1, 2.2, 2.3)"
    )
    assert store.reviewers() == []


def test_empty_file_non_utf8_and_missing_file_are_clear_errors(tmp_path):
    empty = write(tmp_path / "empty.csv", "")
    with pytest.raises(StoreError, match=f"{empty}: the file is empty"):
        import_reviews(StudyStore(None), "dr-a", empty)
    latin = write(tmp_path / "latin.csv", HEADER + "\ni1,1,1,1,1,1,1,1,café\n", encoding="latin-1")
    with pytest.raises(StoreError, match=rf"{latin}: line 2: not UTF-8 text \(byte 0xe9\)"):
        import_reviews(StudyStore(None), "dr-a", latin)
    with pytest.raises(StoreError, match="cannot read the CSV file"):
        import_reviews(StudyStore(None), "dr-a", tmp_path / "nope.csv")
    with pytest.raises(StoreError, match="reviewer name is empty"):
        import_reviews(StudyStore(None), " ", empty)


def test_header_only_file_imports_nothing(tmp_path):
    summary = import_reviews(StudyStore(None), "dr-a", write(tmp_path / "h.csv", HEADER + "\n"))
    assert (summary.imported, summary.skipped, summary.problems) == (0, 0, [])


def test_byte_order_mark_and_semicolons_from_a_spreadsheet_are_read(tmp_path):
    path = write(
        tmp_path / "excel.csv",
        "item_id;1.1;1.2;1.3;1.4;2.1;2.2;2.3;comment;tags\r\n"
        'i1;1;0;1;1;1;1;1;ambiguous wording;"ambiguous; grammar"\r\n',
        encoding="utf-8-sig",
    )
    store = StudyStore(None)
    assert import_reviews(store, "dr-a", path).imported == 1
    got = store.latest_reviews("dr-a")["i1"]
    assert (got.scores, got.comment, got.tags) == (
        scores("1.2"),
        "ambiguous wording",
        ("ambiguous", "grammar"),
    )


def test_duplicate_items_become_revisions_in_file_order_unless_unchanged(tmp_path):
    path = write(
        tmp_path / "in.csv",
        "item_id,1.1,1.2,1.3,1.4,2.1,2.2,2.3,comment\n"
        "i1,0,1,1,1,1,1,1,first\n"
        "i1,0,1,1,1,1,1,1,first\n"
        "i1,1,1,1,1,1,1,1,second\n"
        "i2,1,1,1,1,1,1,1,\n",
    )
    store = StudyStore(tmp_path / "s.db")
    summary = import_reviews(store, "dr-a", path)
    assert (summary.imported, summary.skipped) == (3, 1)
    assert [
        (r.revision, r.comment, r.scores["1.1"]) for r in store.review_history("dr-a", "i1")
    ] == [
        (1, "first", 0),
        (2, "second", 1),
    ]
    # the second import of the same file adds nothing: the stored revisions of i1 already
    # end with "first, second", and i2 matches its latest review
    again = import_reviews(store, "dr-a", path)
    assert (again.imported, again.skipped) == (0, 4)
    assert [r.comment for r in store.review_history("dr-a", "i1")] == ["first", "second"]
    # a file that goes back to an earlier review adds it as a new revision
    back = write(
        tmp_path / "back.csv",
        "item_id,1.1,1.2,1.3,1.4,2.1,2.2,2.3,comment\ni1,0,1,1,1,1,1,1,first\n",
    )
    assert import_reviews(store, "dr-a", back).imported == 1
    assert [r.comment for r in store.review_history("dr-a", "i1")] == ["first", "second", "first"]


def test_importing_an_export_twice_adds_nothing(tmp_path):
    source = StudyStore(None)
    source.save_review(review("i1", "first", T0, "1.1"))
    source.save_review(review("i1", "second", "2024-05-01T11:00:00+00:00"))
    source.save_review(review("i1", "repeat", "2024-05-02T11:00:00+00:00", "2.1", repeat=True))
    export_reviews(source, "dr-a", tmp_path / "all.csv", "all")
    blank = StudyStore(tmp_path / "blank.db")
    assert import_reviews(blank, "dr-a", tmp_path / "all.csv").imported == 3
    count = blank.conn.execute("SELECT COUNT(*) FROM reviews").fetchone()[0]
    again = import_reviews(blank, "dr-a", tmp_path / "all.csv")
    assert (again.imported, again.skipped) == (0, 3)
    assert blank.conn.execute("SELECT COUNT(*) FROM reviews").fetchone()[0] == count == 3
    assert blank.repeat_reviews("dr-a")["i1"].comment == "repeat"


def test_row_identical_to_the_latest_app_review_is_skipped(tmp_path):
    store = StudyStore(None)
    store.save_review(review("i1", "same", T0, "1.2", tags=("grammar",)))
    path = write(
        tmp_path / "in.csv",
        "item_id,1.1,1.2,1.3,1.4,2.1,2.2,2.3,comment,tags\n"
        "i1,1,0,1,1,1,1,1,same,grammar\n"
        "i1,1,0,1,1,1,1,1,same,grammar;ambiguous\n",
    )
    summary = import_reviews(store, "dr-a", path)
    assert (summary.imported, summary.skipped) == (1, 1)
    history = store.review_history("dr-a", "i1")
    assert [(r.revision, r.source, r.tags) for r in history] == [
        (1, "app", ("grammar",)),
        (2, "import", ("grammar", "ambiguous")),
    ]


def test_times_default_to_now_and_are_stored_in_utc(tmp_path):
    path = write(
        tmp_path / "in.csv",
        "item_id,1.1,1.2,1.3,1.4,2.1,2.2,2.3,started_at,committed_at\n"
        "i1,1,1,1,1,1,1,1,,\n"
        "i2,1,1,1,1,1,1,1,,2024-05-01T12:30:00+02:00\n"
        "i3,1,1,1,1,1,1,1,2024-05-01 09:00:00,2024-05-01 09:05:00\n",
    )
    before = datetime.now(UTC).replace(microsecond=0)
    store = StudyStore(None)
    import_reviews(store, "dr-a", path)
    latest = store.latest_reviews("dr-a")
    assert datetime.fromisoformat(latest["i1"].committed_at) >= before
    assert latest["i1"].started_at == latest["i1"].committed_at
    assert (latest["i2"].started_at, latest["i2"].committed_at) == (
        "2024-05-01T10:30:00+00:00",
        "2024-05-01T10:30:00+00:00",
    )
    assert (latest["i3"].started_at, latest["i3"].committed_at) == (
        "2024-05-01T09:00:00+00:00",
        "2024-05-01T09:05:00+00:00",
    )


def test_import_keeps_the_reviewers_draft_and_other_reviewers(tmp_path):
    store = StudyStore(None)
    draft = StoredDraft("dr-a", "i1", dict.fromkeys(RULE_IDS), "half done", (), False, 4.0, T0, T0)
    store.save_draft(draft)
    store.save_review(Review("dr-b", "i1", scores(), "b's", T0, T0))
    path = write(tmp_path / "in.csv", "item_id,1.1,1.2,1.3,1.4,2.1,2.2,2.3\ni1,1,1,1,1,1,1,1\n")
    assert import_reviews(store, "dr-a", path).imported == 1
    assert store.drafts("dr-a")["i1"].comment == "half done"
    assert store.latest_reviews("dr-b")["i1"].comment == "b's"
    assert store.reviewers() == ["dr-a", "dr-b"]


@pytest.mark.parametrize(
    "bad",
    [
        "9999-12-31T23:59:59-05:00",  # past year 9999 in UTC
        "0001-01-01T00:00:00+05:00",  # before year 1 in UTC
        "99999-01-01T00:00:00",
        "2024-13-45T99:00:00",
        "garbage",
    ],
)
@pytest.mark.parametrize("column", ["committed_at", "started_at"])
def test_an_out_of_range_time_is_a_problem_of_its_row_only(tmp_path, bad, column):
    path = write(
        tmp_path / "in.csv",
        f"item_id,1.1,1.2,1.3,1.4,2.1,2.2,2.3,{column}\n"
        f"a,1,1,1,1,1,1,1,{bad}\n"
        f"b,1,1,1,1,1,1,1,{T0}\n",
    )
    store = StudyStore(None)
    summary = import_reviews(store, "dr-a", path)
    assert summary.imported == 1
    assert len(summary.problems) == 1
    assert summary.problems[0].startswith(f"{path} line 2 item a column {column}: ")
    assert bad in summary.problems[0]
    assert sorted(store.latest_reviews("dr-a")) == ["b"]


def test_cli_import_with_an_out_of_range_time_stores_the_rest_and_exits_1(tmp_path, capsys):
    from medrcube_desktop.cli import main

    path = write(
        tmp_path / "in.csv",
        "item_id,1.1,1.2,1.3,1.4,2.1,2.2,2.3,committed_at\n"
        "a,1,1,1,1,1,1,1,9999-12-31T23:59:59-05:00\n"
        f"b,1,1,1,1,1,1,1,{T0}\n",
    )
    db = tmp_path / "s.db"
    assert main(["import-reviews", "--db", str(db), "--reviewer", "dr-a", str(path)]) == 1
    assert f"{path} line 2 item a column committed_at" in capsys.readouterr().err
    assert sorted(StudyStore(db).latest_reviews("dr-a")) == ["b"]


def test_a_back_dated_import_never_replaces_the_first_judgment(tmp_path):
    """The reviewer's first judgment is locked: an imported row older than it is a
    problem (listed, not stored); a later one becomes the next revision."""
    store = StudyStore(None)
    store.save_review(review("i1", "mine", T0, "1.1"))  # committed in the app, blind
    first = store.first_reviews("dr-a")["i1"]
    path = write(
        tmp_path / "in.csv",
        "item_id,1.1,1.2,1.3,1.4,2.1,2.2,2.3,comment,committed_at,blind\n"
        "i1,1,1,1,1,1,1,1,back-dated,2020-01-01T00:00:00+00:00,1\n"
        "i1,1,1,1,1,1,1,1,a repeat before it,2020-01-02T00:00:00+00:00,1\n"
        "i1,1,1,0,1,1,1,1,later,2025-01-01T00:00:00+00:00,0\n",
    )
    summary = import_reviews(store, "dr-a", path)
    assert summary.imported == 1
    assert [p.split(": ")[0] for p in summary.problems] == [
        f"{path} line 2 item i1 column committed_at",
        f"{path} line 3 item i1 column committed_at",
    ]
    assert "first judgment" in summary.problems[0] and "never changes" in summary.problems[0]
    assert store.first_reviews("dr-a")["i1"] == first  # unchanged, still revision 1
    assert store.latest_reviews("dr-a")["i1"].comment == "later"
    assert store.latest_reviews("dr-a")["i1"].revision == 2


def test_a_back_dated_repeat_row_is_refused_too(tmp_path):
    store = StudyStore(None)
    store.save_review(review("i1", "mine", T0))
    path = write(
        tmp_path / "in.csv",
        "item_id,1.1,1.2,1.3,1.4,2.1,2.2,2.3,comment,committed_at,repeat\n"
        "i1,1,1,0,1,1,1,1,old repeat,2020-01-01T00:00:00+00:00,1\n",
    )
    summary = import_reviews(store, "dr-a", path)
    assert summary.imported == 0 and len(summary.problems) == 1
    assert store.first_reviews("dr-a")["i1"].comment == "mine"
    assert store.first_review_order("dr-a") == ["i1"]


def test_an_import_into_a_fresh_database_keeps_the_file_s_own_history(tmp_path):
    path = write(
        tmp_path / "in.csv",
        "item_id,1.1,1.2,1.3,1.4,2.1,2.2,2.3,comment,committed_at\n"
        "i1,1,1,1,1,1,1,1,second,2024-02-01T00:00:00+00:00\n"
        "i1,1,1,0,1,1,1,1,first,2024-01-01T00:00:00+00:00\n",
    )
    store = StudyStore(None)
    assert import_reviews(store, "dr-a", path).imported == 2
    assert store.first_reviews("dr-a")["i1"].comment == "first"


def test_a_review_started_after_it_was_committed_is_a_problem_of_its_row(tmp_path):
    path = write(
        tmp_path / "in.csv",
        "item_id,1.1,1.2,1.3,1.4,2.1,2.2,2.3,started_at,committed_at\n"
        "a,1,1,1,1,1,1,1,2026-01-02T10:00:00+00:00,2026-01-02T09:00:00+00:00\n"
        "b,1,1,1,1,1,1,1,2026-01-02T09:00:00+00:00,2026-01-02T10:00:00+00:00\n",
    )
    store = StudyStore(None)
    summary = import_reviews(store, "dr-a", path)
    assert summary.problems == [
        f"{path} line 2 item a column started_at: 2026-01-02T10:00:00+00:00 is after "
        "committed_at 2026-01-02T09:00:00+00:00"
    ]
    assert sorted(store.latest_reviews("dr-a")) == ["b"]
