"""check_queue_inputs' refusals word for word (issue 26, survivors of ``--modules
review.adjudication``): every unknown reviewer named, the known ones or "none", the
models that judged or "none"."""

import pytest

from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.review.adjudication import check_queue_inputs
from medrcube_desktop.store import StudyStore
from tests.review.experts_fixture import ITEMS, fill


def _refusal(store, reviewers, model):
    with pytest.raises(MedRCubeError) as caught:
        check_queue_inputs(store, reviewers, model, ITEMS, "bench")
    return str(caught.value)


def test_unknown_reviewers_are_each_named_with_the_known_ones():
    store = fill(StudyStore(None), experts=("dr-a", "dr-b"))
    assert _refusal(store, ["dr-x", "dr-a", "dr-y"], None) == (
        "unknown reviewer 'dr-x', 'dr-y' (known: dr-a, dr-b)"
    )


def test_no_review_stored():
    assert _refusal(StudyStore(None), ["dr-x"], None) == (
        "unknown reviewer 'dr-x' (known: none: no review is stored)"
    )


def test_an_unknown_model_names_the_models_that_judged():
    store = fill(StudyStore(None), experts=("dr-a",))
    fill(store, items=["i0"], experts=(), model="other")
    assert _refusal(store, ["dr-a"], "zzz") == (
        "no judgments by model 'zzz' (judged by: gpt-5.1, other)"
    )


def test_an_unknown_model_where_none_judged():
    assert (
        _refusal(StudyStore(None), None, "zzz") == "no judgments by model 'zzz' (judged by: none)"
    )
