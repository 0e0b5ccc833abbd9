from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.review.session import ItemFilter, ReviewSessionState
from medrcube_desktop.store import ReviewStore


def test_filter_toggle_commit_and_resume(ct_benchmark, tmp_path):
    items = load_benchmark(ct_benchmark).items
    store = ReviewStore(tmp_path / "s.db")
    session = ReviewSessionState(items, store, "dr-a")
    assert [i.id for i in session.set_filter(ItemFilter(task="VR"))] == ["ct-2"]
    session.set_filter(ItemFilter())
    assert session.resume_item_id() == "ct-1"
    session.select("ct-1")
    assert session.toggle("1.4") == 0
    session.set_comment("  answerable without the image  ")
    review = session.commit()
    assert review.scores["1.4"] == 0 and review.comment == "answerable without the image"
    assert session.progress() == (1, 2)
    assert session.next_item_id() == "ct-2"
    assert [i.id for i in session.set_filter(ItemFilter(status="unreviewed"))] == ["ct-2"]
    assert [i.id for i in session.set_filter(ItemFilter(status="reviewed"))] == ["ct-1"]

    again = ReviewSessionState(items, ReviewStore(tmp_path / "s.db"), "dr-a")
    assert again.resume_item_id() == "ct-1"  # the item the reviewer was on
    again.select("ct-1")
    assert again.draft.scores["1.4"] == 0 and again.draft.comment == "answerable without the image"
    other = ReviewSessionState(items, ReviewStore(tmp_path / "s.db"), "dr-b")
    assert other.progress() == (0, 2)
