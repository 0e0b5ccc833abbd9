"""Items found with a file problem after the session started leave the visible list and
the progress total (as ``validate`` counts them); the item on screen stays until the
reviewer moves on; committed reviews stay stored."""

from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.core.rubric import RULE_IDS
from medrcube_desktop.review.session import Aspect, ItemFilter, ReviewSessionState
from medrcube_desktop.store import StudyStore
from tests.conftest import dicom_file, item, write_benchmark


def four_items(tmp_path):
    root = write_benchmark(
        tmp_path / "b",
        {"ds1": [item("a"), item("gone", image="images/gone.dcm"), item("c"), item("d")]},
        {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")},
    )
    benchmark = load_benchmark(root, check_files=False)  # as the window loads it
    return benchmark, StudyStore(tmp_path / "s.db")


def commit_all_pass(session, item_id):
    session.select(item_id)
    session.pass_unscored()
    return session.commit()


def test_a_file_problem_leaves_the_list_and_the_total_once_the_reviewer_moves_on(tmp_path):
    benchmark, store = four_items(tmp_path)
    session = ReviewSessionState(benchmark.items, store, "dr-a")
    changes = []
    session.subscribe(changes.append)
    session.set_filter(ItemFilter())
    commit_all_pass(session, "gone")  # committed before the background check found it
    session.select("gone")
    assert session.progress() == (1, 4)
    problems = list(benchmark.check_files())
    assert [(p.item, p.field) for p in problems] == [("gone", "image_path")]
    changes.clear()
    session.files_failed(p.item for p in problems)
    assert any(c.aspect is Aspect.VISIBLE for c in changes)
    assert session.progress() == (0, 3)  # validate's loadable items
    assert [i.id for i in session.visible] == ["a", "gone", "c", "d"]  # on screen: stays
    assert session.left_out_for_files() == 1
    session.select("c")  # the reviewer moves on
    assert [i.id for i in session.visible] == ["a", "c", "d"]
    assert session.next_target() == ("d", False)
    session.set_filter(ItemFilter())
    assert [i.id for i in session.visible] == ["a", "c", "d"]
    assert "gone" in store.latest_reviews("dr-a")  # nothing committed is lost
    session.files_failed(["gone", "not-an-item"])  # again, or a record left out: nothing
    assert session.left_out_for_files() == 1
    again = ReviewSessionState(benchmark.items, store, "dr-b")
    again.files_failed(["gone"])
    again.set_filter(ItemFilter())
    assert [i.id for i in again.visible] == ["a", "c", "d"] and again.progress() == (0, 3)
    assert set(RULE_IDS) == set(store.latest_reviews("dr-a")["gone"].scores)
