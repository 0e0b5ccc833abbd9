"""filter_items keeps exactly the items matches() passes, restriction by restriction."""

import itertools

import pytest

from medrcube_desktop.core.items import Item
from medrcube_desktop.core.taxonomy import canonical_task
from medrcube_desktop.review.queues import ItemFilter, QueueFacts, filter_items, matches


def make(n: int) -> Item:
    task = canonical_task(["Modality Recognition", "Organ Recognition"][n % 2])
    return Item(
        id=f"it-{n}", question=f"question {n} about the liver" if n % 3 else "a lung",
        options={"A": "CT", "B": "MRI"}, answer="A", task=task, raw_task=task.name,
        modality=["CT", "MR"][n % 2], region=["Chest", "Head", "Abdomen"][n % 3],
        dataset=f"ds{n % 4}", image_path=None, source_file=None,  # type: ignore[arg-type]
        original_task="seg" if n % 5 else None,
    )  # fmt: skip


ITEMS = [make(n) for n in range(60)]
FACTS = QueueFacts(reviewed={"it-1", "it-4", "it-9"}, flagged={"it-4"}, study_items=None)
CHOICES = {
    "task": ["", "MR", ITEMS[1].task.abbreviation],
    "modality": ["", "MR"],
    "region": ["", "Head"],
    "dataset": ["", "ds1"],
    "original_task": ["", "seg"],
    "text": ["", "LIVER question"],
    "status": ["", "reviewed", "unreviewed", "flagged"],
}


@pytest.mark.parametrize(
    "combo", list(itertools.product(*CHOICES.values()))[::7], ids=lambda c: "|".join(c)
)
def test_filter_items_equals_matches(combo):
    f = ItemFilter(**dict(zip(CHOICES, combo, strict=True)))
    assert filter_items(ITEMS, f, FACTS) == [i for i in ITEMS if matches(i, f, FACTS)]


def test_study_restriction_and_unknown_status():
    facts = QueueFacts(study_items={"it-2", "it-3"})
    assert [i.id for i in filter_items(ITEMS, ItemFilter(), facts)] == ["it-2", "it-3"]
    with pytest.raises(ValueError):
        filter_items(ITEMS, ItemFilter(modality="nothing", status="bogus"), FACTS)


@pytest.mark.parametrize("status", ["", "reviewed", "unreviewed"])
def test_an_assignment_restricts_as_matches_does(status):
    """A reviewer named in an assignment sees only their items (issue 15 item 4) on the
    fast path too."""
    facts = QueueFacts(reviewed={"it-1", "it-4"}, assigned={"it-1", "it-2", "it-7"})
    f = ItemFilter(status=status)
    expected = [i for i in ITEMS if matches(i, f, facts)]
    assert filter_items(ITEMS, f, facts) == expected
    assert {i.id for i in expected} <= {"it-1", "it-2", "it-7"}
