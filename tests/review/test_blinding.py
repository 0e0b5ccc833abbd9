"""The blinding rule's whole truth table (issue 26 item 3: the guard that keeps others'
judgments hidden, tried with every input it exists for)."""

import itertools

import pytest

from medrcube_desktop.review.blinding import counted_items, may_reveal, visible_items


@pytest.mark.parametrize(
    "blind, committed, repeat_open", list(itertools.product([False, True], repeat=3))
)
def test_others_judgments_show_only_when_not_blind_or_committed_and_no_repeat_is_open(
    blind, committed, repeat_open
):
    expected = (not repeat_open) and (not blind or committed)  # the rule, by its words
    assert may_reveal(blind, committed, repeat_open) is expected
    if not repeat_open:
        assert may_reveal(blind, committed) is expected  # the default: no repeat open


def test_a_blind_viewer_counts_and_sees_only_their_committed_items_in_order():
    assert counted_items(True, ["b", "a", "b"]) == {"a", "b"}
    assert counted_items(True, []) == set()
    assert counted_items(False, []) is None  # every item
    assert visible_items(True, {"c", "a"}, ["a", "b", "c", "d"]) == ["a", "c"]
    assert visible_items(True, set(), ["a"]) == []
    assert visible_items(False, set(), iter(["d", "a", "c"])) == ["d", "a", "c"]
