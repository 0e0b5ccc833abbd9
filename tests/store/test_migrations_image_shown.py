"""Whether the image was shown at the commit (migration 0006): written by the session's
commit from what the window told it, exported in the CSV, kept by import and merge, and
counted by the agreement study."""

import sqlite3

from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.review.agreement import run_study
from medrcube_desktop.review.session import ReviewSessionState
from medrcube_desktop.store import Review, StudyStore
from medrcube_desktop.store.exchange import export_reviews, import_reviews
from medrcube_desktop.store.merging import merge
from tests.conftest import dicom_file, item, write_benchmark
from tests.store.test_adjudications import v4_database


def commit(session, item_id):
    session.select(item_id)
    session.pass_unscored()
    return session.commit().review


def reviewed(tmp_path, name="dr-a"):
    """Three items: shown with the image, not shown (it failed to load), and restricted
    (text only); and one reviewed by a session that no window told anything (unknown)."""
    root = write_benchmark(
        tmp_path / "b",
        {"ds1": [item("shown"), item("failed"), item("nowin"),
                 item("text", image="images/r.png", restricted=True)]},
        {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")},
    )  # fmt: skip
    benchmark = load_benchmark(root)
    store = StudyStore(tmp_path / f"{name}.db")
    session = ReviewSessionState(benchmark.items, store, name, restricted=benchmark.restricted)
    session.image_displayed("shown", False)  # the window opens the item...
    session.image_displayed("shown", True)  # ...and its render comes
    session.image_displayed("failed", False)  # a render that never came
    for item_id in ("shown", "failed", "text", "nowin"):
        commit(session, item_id)
    return store


def test_the_commit_records_what_the_window_showed_and_it_travels(tmp_path):
    store = reviewed(tmp_path)
    expected = {"shown": True, "failed": False, "text": False, "nowin": None}
    assert {i: r.image_shown for i, r in store.latest_reviews("dr-a").items()} == expected
    raw = sqlite3.connect(tmp_path / "dr-a.db").execute(
        "SELECT item_id, image_shown FROM reviews ORDER BY item_id"
    )
    assert dict(raw.fetchall()) == {"failed": 0, "nowin": None, "shown": 1, "text": 0}
    assert export_reviews(store, "dr-a", tmp_path / "a.csv") == 4
    lines = (tmp_path / "a.csv").read_text(encoding="utf-8-sig").splitlines()
    assert lines[0].endswith(",reviewer,image_shown")
    assert sorted(line.rsplit(",", 1)[1] for line in lines[1:]) == ["", "0", "0", "1"]
    other = StudyStore(tmp_path / "imported.db")
    import_reviews(other, "dr-b", tmp_path / "a.csv")
    assert {i: r.image_shown for i, r in other.latest_reviews("dr-b").items()} == expected
    target = StudyStore(tmp_path / "target.db")
    store.close()
    merge(target, [tmp_path / "dr-a.db"])
    assert {i: r.image_shown for i, r in target.latest_reviews("dr-a").items()} == expected


def test_rows_before_v6_are_unknown(tmp_path, monkeypatch):
    path = tmp_path / "old.db"
    v4_database(path, monkeypatch)
    store = StudyStore(path)
    assert {r.image_shown for r in store.latest_reviews("dr-a").values()} == {None}


def test_agreement_counts_the_text_only_reviews_and_can_leave_them_out(tmp_path):
    store = reviewed(tmp_path)
    at = "2026-01-01T00:00:00+00:00"
    for item_id, first in store.latest_reviews("dr-a").items():
        store.save_review(Review("dr-b", item_id, dict(first.scores), "", at, at, image_shown=True))
    run = run_study(store, "dr-a", reviewer2="dr-b", bootstrap=0)
    assert len(run.result.items) == 4
    assert run.meta["image"] == {
        "dr-a": {"text_only": 2, "unknown": 1},
        "dr-b": {"text_only": 0, "unknown": 0},
    }
    only = run_study(store, "dr-a", reviewer2="dr-b", bootstrap=0, image_shown_only=True)
    assert sorted(only.result.items) == ["nowin", "shown"]
    assert only.meta["image"]["dr-a"] == {"text_only": 0, "unknown": 1}


def test_the_option_is_refused_where_it_is_not_applied(tmp_path, capsys):
    from medrcube_desktop.cli import main

    reviewed(tmp_path).close()
    args = ["agreement", "--db", str(tmp_path / "dr-a.db"), "--reviewer", "dr-a"]
    assert main([*args, "--reviewer", "dr-b", "--image-shown-only"]) == 2
    assert "--image-shown-only compares one --reviewer" in capsys.readouterr().err
