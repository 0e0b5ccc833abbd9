"""Rule 1.4's evidence in the review (issue 24 item 3): the reveal shows how many models
answered an item right without its image only after the reviewer's commit, and the
"answerable without the image" queue lists exactly the hand-counted items. The session
gets its evidence from a source, as the window gives it (``store_evidence``)."""

import pytest

from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.evaluation.compare.necessity import store_evidence
from medrcube_desktop.review.necessity_evidence import answerable_items, evidence_text
from medrcube_desktop.review.queues import STATUS_ANSWERABLE, ItemFilter
from medrcube_desktop.review.session import ReviewSessionState
from medrcube_desktop.review.study import StudySettings
from medrcube_desktop.store import StudyStore, utc_now
from medrcube_desktop.store.evaluation import ResponseRecord, RunRecord
from tests.conftest import dicom_file, item, write_benchmark
from tests.review.test_session_flow import QUESTIONS

# run, model, mode, letters per item q0..q5 (B is right: gt_answer "CT")
RUNS = (
    ("m1", "M1", "image", "BBBBBB"),
    ("m1-text", "M1", "text-only", "BABBAA"),
    ("m2-blank", "M2", "blank", "BAABAA"),
    ("m3-noise", "M3", "noise", "BAAB-A"),  # "-": no answer to q4
)
# right without the image, per item: q0 3/3, q1 0/3, q2 1/3, q3 3/3, q4 0/2, q5 0/3
ANSWERABLE = ["q0", "q3"]


@pytest.fixture
def items(tmp_path):
    records = [item(f"q{n}", question=q, dataset="ds1") for n, q in enumerate(QUESTIONS)]
    root = write_benchmark(
        tmp_path / "bench", {"ds1": records}, {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")}
    )
    return load_benchmark(root).items


def _store_runs(store, runs=RUNS):
    for name, model, mode, letters in runs:
        run = RunRecord(name, "import", model, {}, "", "test", utc_now(),
                        text_only=mode == "text-only", image_mode=mode)  # fmt: skip
        responses = [
            ResponseRecord(name, f"q{n}", letter, letter, "test", letter == "B", letter,
                           letter == "B", utc_now())
            for n, letter in enumerate(letters) if letter != "-"
        ]  # fmt: skip
        store.replace_run(run, responses)


@pytest.fixture
def store(tmp_path):
    store = StudyStore(tmp_path / "study.db")
    _store_runs(store)
    yield store
    store.close()


def test_the_evidence_counts_models_right_without_the_image(items, store):
    evidence = store_evidence(store, items)
    assert sorted(answerable_items(evidence)) == ANSWERABLE
    assert [evidence[f"q{n}"]["ablated_right"] for n in range(6)] == [3, 0, 1, 3, 0, 0]
    assert [evidence[f"q{n}"]["ablated_models"] for n in range(6)] == [3, 3, 3, 3, 2, 3]
    row = evidence["q0"]
    assert row["image_right"] == 1 and row["text-only_right"] == 1 and row["blank_models"] == 1
    text = evidence_text(row)
    assert "right by 3 of 3 models" in text and "answerable without the image" in text
    assert "text-only 1/1" in text and "swapped" not in text
    assert "answerable" not in evidence_text(evidence["q2"]).replace("models (", "")


def test_no_ablation_run_no_evidence(items, tmp_path):
    plain = StudyStore(tmp_path / "plain.db")
    _store_runs(plain, RUNS[:1])
    assert store_evidence(plain, items) == {}
    plain.close()


def _session(items, store, reviewer, **kwargs):
    session = ReviewSessionState(items, store, reviewer, **kwargs)
    session.set_evidence_source(lambda: store_evidence(store, items))
    return session


def _commit(session, item_id):
    session.select(item_id)
    session.pass_unscored()
    session.commit()


def test_the_reveal_hides_the_evidence_until_the_commit(items, store):
    session = _session(items, store, "dr-a")  # blind by default
    assert session.study.blind
    session.select("q0")
    assert session.reveal("q0") is None  # nothing shown before the commit
    _commit(session, "q0")
    shown = session.reveal("q0")
    assert shown is not None and shown.evidence["answerable"] is True
    assert shown.evidence["ablated_right"] == 3


def test_the_queue_lists_the_answerable_items_the_reviewer_may_be_told_of(items, store):
    assert ReviewSessionState(items, store, "dr-a").necessity_evidence() == {}  # no source
    session = _session(items, store, "dr-a")
    queue = ItemFilter(status=STATUS_ANSWERABLE)
    assert session.set_filter(queue) == []  # blind: none committed yet
    for item_id in ("q0", "q1"):
        _commit(session, item_id)
    assert [i.id for i in session.set_filter(queue)] == ["q0"]
    open_study = StudySettings.load(store)
    open_study.blind = False
    curation = _session(items, store, "dr-b", study=open_study)
    assert [i.id for i in curation.set_filter(queue)] == ANSWERABLE


def test_the_runs_are_read_once_and_only_when_the_evidence_is_needed(items, store):
    calls = []
    session = ReviewSessionState(items, store, "dr-a")
    session.set_evidence_source(lambda: calls.append(1) or store_evidence(store, items))
    session.set_filter(ItemFilter())  # another queue: nothing read
    session.select("q1")
    assert session.reveal("q1") is None and calls == []  # hidden: nothing read either
    session.set_filter(ItemFilter(status=STATUS_ANSWERABLE))
    _commit(session, "q1")
    assert session.reveal("q1").evidence["answerable"] is False
    assert calls == [1]


def test_evidence_computed_elsewhere_is_shown_when_it_arrives_and_kept_until_runs_change(
    items, store
):
    """With a start (the window's worker), the session never computes the evidence
    itself: the reveal says it is pending, the result arrives by generation, one from
    before the runs changed is dropped, and it is kept until :meth:`reload_evidence`."""
    started: list[int] = []
    session = ReviewSessionState(items, store, "dr-a")
    session.set_evidence_source(None, started.append)
    _commit(session, "q0")
    shown = session.reveal("q0")
    assert (shown.evidence, shown.evidence_pending, started) == (None, True, [started[0]])
    session.reveal("q0")
    assert len(started) == 1  # asked once while pending
    evidence = store_evidence(store, items)
    session.reload_evidence()  # the runs changed while it computed
    session.reveal("q0")
    assert len(started) == 2 and started[1] != started[0]
    session.evidence_arrived(started[0], {"q0": {}})  # for the older runs: dropped
    assert session.evidence_pending
    session.evidence_arrived(started[1], evidence)
    shown = session.reveal("q0")
    assert (shown.evidence, shown.evidence_pending) == (evidence["q0"], False)
    assert [i.id for i in session.set_filter(ItemFilter(status=STATUS_ANSWERABLE))] == ["q0"]
    assert len(started) == 2  # kept
    session.reload_evidence()
    session.evidence_arrived(started[1] + 1, {}, "database is locked")
    assert session.reveal("q0").evidence_error == "database is locked"
