"""How merge reads the other file and which rows it takes (issue 26): a killed writer's
-wal read from a private copy, a damaged file refused by name, a read retried with locks
only when the file changed under an immutable read, a copy lacking a table or column
refused before anything is merged, no file left in the working folder, and the notes of
a refused review left out while the others are kept, revisions of one time in their
order."""

import shutil
import sqlite3
from pathlib import Path

import pytest

from medrcube_desktop.core.rubric import RULE_IDS
from medrcube_desktop.errors import StoreError
from medrcube_desktop.store import Review, StudyStore, merging, read_only
from medrcube_desktop.store.exchange import merge
from tests.store.test_read_only import damaged_copies, folder_state

ROOT = Path(__file__).resolve().parents[2]


def scores() -> dict[str, int]:
    return dict.fromkeys(RULE_IDS, 1)


def at(hour: int) -> str:
    return f"2024-05-01T{hour:02d}:00:00+00:00"


def review(item="i1", hour=10, comment="fine", **kw) -> Review:
    return Review("dr-a", item, scores(), comment, at(hour), at(hour), **kw)


def test_a_killed_writers_wal_is_merged_from_a_private_copy(tmp_path):
    live = tmp_path / "live" / "b.db"
    live.parent.mkdir()
    writer = StudyStore(live)
    writer.save_review(review(comment="in the wal only"))
    archive = tmp_path / "archive"
    archive.mkdir()
    shutil.copy(live, archive / "b.db")  # -wal, no -shm: as a killed writer leaves it
    shutil.copy(live.with_name("b.db-wal"), archive / "b.db-wal")
    writer.close()
    other = archive / "b.db"
    assert read_only.read_mode(other) == read_only.PRIVATE_COPY
    before = folder_state(archive)
    study = StudyStore(tmp_path / "study.db")
    assert merge(study, [other]).total("reviews") == 1
    assert study.latest_reviews("dr-a")["i1"].comment == "in the wal only"
    assert folder_state(archive) == before


def test_a_damaged_file_is_refused_by_name_and_nothing_is_merged(tmp_path):
    cut, scrambled = damaged_copies(tmp_path)
    study = StudyStore(tmp_path / "study.db")
    for broken, sqlite_said in (
        (cut, ""),  # seen cut short before SQLite reads it
        (scrambled, "; SQLite: database disk image is malformed"),
    ):
        with pytest.raises(StoreError) as caught:
            merge(study, [broken])
        assert str(caught.value) == (
            f"{broken}: cannot read as a review database: {read_only.DAMAGED}{sqlite_said}"
        )
    assert study.conn.execute("SELECT COUNT(*) FROM reviews").fetchone()[0] == 0


def _failing_first(monkeypatch, message: str):
    """_copy_with_backup raising ``message`` on its first call, then the real one; the
    URIs it was called with."""
    real, uris = merging._copy_with_backup, []

    def copy(uri, target):
        uris.append(uri)
        if len(uris) == 1:
            raise sqlite3.DatabaseError(message)
        return real(uri, target)

    monkeypatch.setattr(merging, "_copy_with_backup", copy)
    return uris


def _closed_db(path):
    store = StudyStore(path)
    store.save_review(review())
    store.close()
    assert read_only.read_mode(path) == read_only.IMMUTABLE
    return path


def test_a_file_changed_under_an_immutable_read_is_read_again_with_locks(tmp_path, monkeypatch):
    other = _closed_db(tmp_path / "b.db")
    uris = _failing_first(monkeypatch, "database disk image is malformed")
    seen = []
    monkeypatch.setattr(
        merging, "changed_since", lambda p, before: seen.append((p, before)) or True
    )
    study = StudyStore(tmp_path / "study.db")
    assert merge(study, [other]).total("reviews") == 1
    assert [u.split("?")[1] for u in uris] == ["immutable=1", "mode=ro"]
    assert seen == [(other, read_only.fingerprint(other))]


@pytest.mark.parametrize(
    ("message", "changed"),
    [
        ("database disk image is malformed", False),  # the bytes are the file's: damaged
        ("disk I/O error", True),  # not a torn read: no second try
    ],
)
def test_no_second_read_unless_malformed_and_changed(tmp_path, monkeypatch, message, changed):
    other = _closed_db(tmp_path / "b.db")
    uris = _failing_first(monkeypatch, message)
    monkeypatch.setattr(merging, "changed_since", lambda p, before: changed)
    with pytest.raises(StoreError) as caught:
        merge(StudyStore(tmp_path / "study.db"), [other])
    assert len(uris) == 1
    why = read_only.explain(sqlite3.DatabaseError(message))
    assert str(caught.value) == f"{other}: cannot read as a review database: {why}"


def test_a_file_a_writer_holds_is_read_once_with_locks(tmp_path, monkeypatch):
    other = tmp_path / "b.db"
    writer = StudyStore(other)
    writer.save_review(review())
    assert read_only.read_mode(other) == read_only.LOCKED
    uris = _failing_first(monkeypatch, "database disk image is malformed")
    monkeypatch.setattr(merging, "changed_since", lambda p, before: True)
    with pytest.raises(StoreError, match="cannot read as a review database"):
        merge(StudyStore(tmp_path / "study.db"), [other])
    assert [u.split("?")[1] for u in uris] == ["mode=ro"]  # the last mode: not retried
    writer.close()


def test_a_truncated_file_under_a_writers_locks_is_left_to_sqlite(tmp_path, monkeypatch):
    # truncated() is asked only of a file read immutable
    other = _closed_db(tmp_path / "b.db")
    asked = []
    monkeypatch.setattr(merging, "truncated", lambda p: asked.append(p) or False)
    merge(StudyStore(tmp_path / "study.db"), [other])
    assert asked == [other]
    writer = StudyStore(other)
    asked.clear()
    merge(StudyStore(tmp_path / "study2.db"), [other])
    assert asked == []
    writer.close()


def _without(path, sql: str):
    store = StudyStore(path)
    store.save_review(review())
    store.close()
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA foreign_keys = OFF")
    conn.executescript(sql)
    conn.commit()
    conn.close()
    return path


def test_a_copy_lacking_a_table_or_a_column_is_refused_and_nothing_made_here(tmp_path, monkeypatch):
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)  # the schema compared with is built in memory, not in a file here
    study = StudyStore(tmp_path / "study.db")
    no_tables = _without(tmp_path / "t.db", "DROP TABLE flags; DROP TABLE app_state;")
    with pytest.raises(StoreError) as caught:
        merge(study, [no_tables])
    assert str(caught.value) == (
        f"{no_tables}: not a whole review database (no table app_state, flags); nothing was merged"
    )
    no_columns = _without(
        tmp_path / "c.db",
        "ALTER TABLE app_state DROP COLUMN value; ALTER TABLE flags DROP COLUMN changed_at;",
    )
    with pytest.raises(StoreError) as caught:
        merge(study, [no_columns])
    assert str(caught.value) == (
        f"{no_columns}: not a whole review database (no column app_state.value, "
        "flags.changed_at); nothing was merged"
    )
    assert study.conn.execute("SELECT COUNT(*) FROM reviews").fetchone()[0] == 0
    assert list(work.iterdir()) == []


def test_the_notes_of_a_refused_review_are_left_out_and_the_rest_kept(tmp_path):
    study = StudyStore(tmp_path / "study.db")
    study.save_review(review(hour=12, comment="first"))
    other = StudyStore(tmp_path / "b.db")
    early = other.save_review(review(hour=9, comment="before the first"))  # refused
    kept = other.save_review(review(item="i2", hour=9, comment="other item"))
    other.add_disagreement_note(early.uid, "qwen", ["1.1"], "on the refused one", at(13))
    other.add_disagreement_note(kept.uid, "qwen", ["1.2"], "on the kept one", at(13))
    other.close()
    merged = merge(study, [tmp_path / "b.db"]).files[0]
    assert (merged.added["reviews"], merged.added["disagreement_notes"]) == (1, 1)
    assert len(merged.refused) == 1
    assert study.disagreement_notes("dr-a") == {"i2": "on the kept one"}


def test_revisions_committed_at_one_time_keep_their_order_not_their_uids(tmp_path):
    other = StudyStore(tmp_path / "b.db")
    other.save_review(review(hour=10, comment="one", uid="z-first"))
    other.save_review(review(hour=10, comment="two", uid="m-second"))
    other.save_review(review(hour=10, comment="three", uid="a-third"))
    other.close()
    study = StudyStore(tmp_path / "study.db")
    study.save_review(review(item="i9", hour=8))
    merged = merge(study, [tmp_path / "b.db"]).files[0]
    assert merged.renumbered_items == 1
    history = [(r.revision, r.uid) for r in study.review_history("dr-a", "i1")]
    assert history == [(1, "z-first"), (2, "m-second"), (3, "a-third")]


def test_the_flag_changes_counted_over_every_row(tmp_path):
    study = StudyStore(tmp_path / "study.db")
    for item in ("x", "y", "z"):
        study.set_flag("dr-a", item, False, at(8))
    other = StudyStore(tmp_path / "b.db")
    for item in ("x", "y", "z"):
        other.set_flag("dr-a", item, True, at(9))
    other.set_flag("dr-a", "w", True, at(9))  # new: added, not changed
    other.close()
    merged = merge(study, [tmp_path / "b.db"]).files[0]
    assert merged.added["flags"] == 4
    assert study.flags("dr-a") == {"w", "x", "y", "z"}


def test_a_copy_that_cannot_be_opened_is_said_of_the_file_named(tmp_path, monkeypatch):
    other = _closed_db(tmp_path / "b.db")
    study = StudyStore(tmp_path / "study.db")
    real = merging.StudyStore

    def opening(path, *args, **kw):
        if path != study.path and path.name.startswith("other-"):
            raise StoreError(f"cannot migrate {path}: migration 0009 failed")
        return real(path, *args, **kw)

    monkeypatch.setattr(merging, "StudyStore", opening)
    with pytest.raises(StoreError) as caught:
        merge(study, [other])
    assert str(caught.value) == f"cannot migrate {other}: migration 0009 failed"


def test_each_kind_of_conflict_names_the_file_it_came_from(tmp_path):
    from medrcube_desktop.core.corrections import RETIRE, Decision, Proposal
    from medrcube_desktop.review.assignment import assign
    from medrcube_desktop.store.adjudications import Adjudication
    from tests.review.experts_fixture import ITEMS

    def adjudicate(store, who, value, hour):
        store.save_adjudications(
            [
                Adjudication(
                    "i2",
                    "1.1",
                    value,
                    "why",
                    who,
                    [{"rater": "dr-a"}],
                    created_at=f"2026-02-01T{hour:02d}:00:00+00:00",
                )
            ]  # fmt: skip
        )

    path = tmp_path / "laptop.db"
    laptop = StudyStore(path)
    assign(laptop, ITEMS, ["dr-a", "dr-c"], 0.25, 1)
    proposal = laptop.save_proposal(Proposal("i1", RETIRE, "1.4", "r", "dr-b"))
    laptop.close()
    study = StudyStore(tmp_path / "study.db")
    merge(study, [path])  # the proposal, shared; then each side decides it apart
    study.save_decision(Decision(proposal.uid, "rejected", "no", "dr-d"))
    assign(study, ITEMS, ["dr-a", "dr-c"], 0.5, 7)
    adjudicate(study, "dr-d", 1, 12)
    laptop = StudyStore(path)
    laptop.save_decision(Decision(proposal.uid, "accepted", "yes", "dr-e"))
    adjudicate(laptop, "dr-c", 0, 9)  # the same rule adjudicated in each file apart
    laptop.close()
    conflicts = merge(study, [path]).files[0].conflicts
    assert len(conflicts) == 3
    assert [c.split(": ", 1)[0] for c in conflicts] == [str(path)] * 3
    assert "item i2 rule 1.1 was adjudicated in both databases apart" in conflicts[0]
    assert "its assignment (reviewers dr-a, dr-c" in conflicts[1]
    assert f"proposal {proposal.uid} was decided in both databases apart" in conflicts[2]


def test_a_files_revision_order_survives_a_second_merge_when_its_rows_are_out_of_order(
    tmp_path,
):
    # s.db: first at 9, "a" at 12; t.db's "b", also at 12 but its revision 1 there, is
    # merged in before "a" (revision 2, "a" 3): s.db now stores "a" before "b"
    s = StudyStore(tmp_path / "s.db")
    s.save_review(review(hour=9, comment="first", uid="first"))
    s.save_review(review(hour=12, comment="a", uid="a"))
    t = StudyStore(tmp_path / "t.db")
    t.save_review(review(hour=12, comment="b", uid="b"))
    t.close()
    merge(s, [tmp_path / "t.db"])
    assert [(r.revision, r.uid) for r in s.review_history("dr-a", "i1")] == [
        (1, "first"), (2, "b"), (3, "a")]  # fmt: skip
    s.close()
    u = StudyStore(tmp_path / "u.db")
    merge(u, [tmp_path / "s.db"])  # its rows come in stored order: first, a, b
    assert [(r.revision, r.uid) for r in u.review_history("dr-a", "i1")] == [
        (1, "first"), (2, "b"), (3, "a")]  # fmt: skip


def test_a_rule_judged_unjudgeable_is_another_review_than_the_rule_failed(tmp_path):
    from medrcube_desktop.core.rubric import CANNOT_JUDGE

    study = StudyStore(tmp_path / "study.db")
    study.save_review(Review("dr-a", "i1", {**scores(), "1.3": 0}, "c", at(10), at(10)))
    other = StudyStore(tmp_path / "b.db")  # the same score columns (an abstained rule's is 0)
    other.save_review(Review("dr-a", "i1", {**scores(), "1.3": CANNOT_JUDGE}, "c", at(10), at(10)))
    other.close()
    assert merge(study, [tmp_path / "b.db"]).total("reviews") == 1
    assert len(study.review_history("dr-a", "i1")) == 2


@pytest.mark.parametrize(
    "error, said",
    [
        (PermissionError(13, "Permission denied"), "Permission denied"),  # its strerror
        (OSError("the disk went away"), "the disk went away"),  # no strerror: the error
    ],
)
def test_a_file_that_cannot_be_statted_is_said_with_the_reason(tmp_path, monkeypatch, error, said):
    other = _closed_db(tmp_path / "b.db")
    study = StudyStore(tmp_path / "study.db")

    def failing(path):
        raise error

    monkeypatch.setattr(merging, "fingerprint", failing)
    with pytest.raises(StoreError) as caught:
        merge(study, [other])
    assert str(caught.value) == f"{other}: cannot read: {said}"
    assert study.conn.execute("SELECT COUNT(*) FROM reviews").fetchone()[0] == 0


def test_a_file_of_a_newer_schema_is_refused_with_both_versions_and_the_remedy(tmp_path):
    # the newest migration shipped, counted from the files (0001_… to 00NN_…)
    shipped = sorted(
        int(p.name[:4]) for p in (ROOT / "review_db" / "migrations").glob("[0-9]*.sql")
    )
    newer = tmp_path / "newer.db"
    StudyStore(newer).conn.execute(
        "INSERT INTO schema_migrations VALUES (99, '0099_future.sql', 'x')"
    )
    study = StudyStore(tmp_path / "study.db")
    with pytest.raises(StoreError) as caught:
        merge(study, [newer])
    assert str(caught.value) == (
        f"{newer}: database schema v99 is newer than this app (v{shipped[-1]}); update the app"
    )
