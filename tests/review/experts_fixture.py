"""A study with three experts and an LLM, scores chosen so every figure can be checked by
hand (shared by the several-experts tests)."""

from __future__ import annotations

from medrcube_desktop.core.rubric import RULE_IDS
from medrcube_desktop.store import Review, StudyStore, utc_now
from medrcube_desktop.store.judgments import Judgment

ITEMS = [f"i{k}" for k in range(12)]

FILLED_AT = utc_now()
"""When every review :func:`fill` writes was started and committed (one time for all)."""

# rule → items failed by each rater (every other rule passes)
FAILS = {
    "dr-a": {"1.1": {"i0", "i1", "i2"}, "2.3": {"i5", "i6"}},
    "dr-b": {"1.1": {"i0", "i1", "i3"}, "2.3": {"i5"}},
    "dr-c": {"1.1": {"i0", "i4"}, "2.3": {"i5", "i6", "i7"}},
    "LLM": {"1.1": {"i0", "i1", "i2", "i3"}, "2.3": {"i8"}},
}


def scores_of(rater: str, item_id: str) -> dict[str, int]:
    fails = FAILS[rater]
    return {rule: 0 if item_id in fails.get(rule, set()) else 1 for rule in RULE_IDS}


def fill(store: StudyStore, items=ITEMS, experts=("dr-a", "dr-b", "dr-c"), model="gpt-5.1"):
    """Every expert reviews ``items``; the LLM judges them all.

    Every review is stamped :data:`FILLED_AT`, so two databases filled one after the
    other hold the same reviews, whichever second each write fell in (a clock second
    ticking between them made ``merge`` refuse the first file's reviews as back-dated,
    and the merge tests failed now and then)."""
    for name in experts:
        for item_id in items:
            store.save_review(
                Review(
                    name,
                    item_id,
                    scores_of(name, item_id),
                    f"{name} on {item_id}",
                    FILLED_AT,
                    FILLED_AT,
                )  # fmt: skip
            )
    for item_id in items:
        store.save_judgment(Judgment(item_id, model, scores_of("LLM", item_id)))
    return store
