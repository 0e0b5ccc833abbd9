"""Splitting a study's items among reviewers with a chosen overlap (issue 15 item 4).

:func:`split_items` is the pure rule; :func:`assign` stores its result (table
``assignments``, v5). The rule, for ``n`` items, reviewers ``R`` (k ≥ 2) and an overlap
fraction ``f``:

1. the items are shuffled with ``random.Random(seed)`` (the item ids sorted first, so
   the order they come in does not matter);
2. the first ``round(f · n)`` of them are the overlap: each goes to the pair of
   reviewers with the lightest load so far, then the pair used least, then the first
   of the k (k − 1) / 2 pairs in naming order (so pairs share about as many items, and
   with more reviewers than overlap items nobody is in every pair);
3. every other item goes to one reviewer: the one with the fewest items so far (ties in
   the order the reviewers were named), so the loads differ by at most one or two.

Deterministic for a seed: the same items, reviewers, overlap and seed give the same
assignment on every machine. 100 items, two reviewers, 0.2 → 20 items to both, 40 only
to the first, 40 only to the second.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.store import StudyStore
from medrcube_desktop.store.adjudications import AssignmentRecord


@dataclass(frozen=True)
class Split:
    """Who reviews which items: ``items`` reviewer → item ids (in the order given),
    ``overlap`` the item ids given to two reviewers."""

    items: dict[str, list[str]]
    overlap: frozenset[str]


def split_items(
    item_ids: Sequence[str], reviewers: Sequence[str], overlap: float, seed: int
) -> Split:
    """The assignment of ``item_ids`` among ``reviewers`` (rule in the module docstring).

    Raises
    ------
    MedRCubeError
        Fewer than two reviewers, a name given twice or empty, an overlap outside
        [0, 1], or no item.
    """
    names = [name.strip() for name in reviewers]
    if len(names) < 2 or len(set(names)) != len(names) or not all(names):
        raise MedRCubeError("assign items to two or more distinct, named reviewers")
    if not (isinstance(overlap, int | float) and math.isfinite(overlap) and 0 <= overlap <= 1):
        raise MedRCubeError(f"the overlap is a fraction between 0 and 1, got {overlap!r}")
    ids = sorted(dict.fromkeys(item_ids))
    if not ids:
        raise MedRCubeError("no item to assign")
    random.Random(seed).shuffle(ids)
    n_overlap = round(overlap * len(ids))
    chosen: dict[str, set[str]] = {name: set() for name in names}
    pairs = list(combinations(names, 2))
    used = dict.fromkeys(pairs, 0)
    for item_id in ids[:n_overlap]:
        # the pair with the lightest load, then the one used least, then list order: with
        # more reviewers than overlap items nobody is in every pair
        pair = min(
            pairs,
            key=lambda p: (len(chosen[p[0]]) + len(chosen[p[1]]),
                           max(len(chosen[p[0]]), len(chosen[p[1]])), used[p]),
        )  # fmt: skip
        used[pair] += 1
        for name in pair:
            chosen[name].add(item_id)
    for item_id in ids[n_overlap:]:
        name = min(names, key=lambda r: (len(chosen[r]), names.index(r)))
        chosen[name].add(item_id)
    order = {item_id: k for k, item_id in enumerate(dict.fromkeys(item_ids))}
    return Split(
        {name: sorted(chosen[name], key=order.__getitem__) for name in names},
        frozenset(ids[:n_overlap]),
    )


def assign(
    store: StudyStore, item_ids: Sequence[str], reviewers: Sequence[str], overlap: float, seed: int
) -> AssignmentRecord:
    """Split ``item_ids`` (:func:`split_items`) and store it in place of any previous
    assignment; reviews already committed are not touched.

    Raises MedRCubeError for bad input, StoreError when the write fails.
    """
    split = split_items(item_ids, reviewers, overlap, seed)
    rows = [
        (name, item_id, item_id in split.overlap)
        for name, ids in split.items.items()
        for item_id in ids
    ]
    names = list(split.items)
    return store.save_assignment(names, float(overlap), seed, len(set(item_ids)), rows)


def counts(record: AssignmentRecord) -> dict[str, object]:
    """``{"reviewers": {name: n}, "only": {name: n}, "overlap": n, "items": n}``."""
    return {
        "reviewers": {name: len(ids) for name, ids in record.items.items()},
        "only": {
            name: sum(1 for i in ids if i not in record.overlap_items)
            for name, ids in record.items.items()
        },
        "overlap": len(record.overlap_items),
        "items": record.n_items,
        "seed": record.seed,
        "overlap_fraction": record.overlap,
    }
