"""The unparsed rate of a run (issue 26, ``python -m tests.mutation.run --modules
evaluation.metrics``): the share of answers no rule could read, None without answers."""

from medrcube_desktop.evaluation.metrics import Outcome, summarize
from tests.evaluation.test_metrics_credibility import outcomes  # noqa: F401 (fixture)


def test_the_unparsed_rate_is_the_share_of_unread_answers(outcomes):  # noqa: F811
    four = [outcomes[0], outcomes[1], Outcome(outcomes[2].item, None), outcomes[3]]
    summary = summarize(four)
    assert (summary["n"], summary["unparsed"]) == (4, 1)
    assert summary["unparsed_rate"] == 0.25  # 1 of 4: an unread answer counts as wrong
    assert summary["correct"] == 1  # m1 right, v1 wrong, d1 unread, a1 wrong


def test_no_answers_have_no_unparsed_rate():
    summary = summarize([])
    assert summary["n"] == 0 and summary["unparsed"] == 0
    assert summary["unparsed_rate"] is None and summary["accuracy"] is None
