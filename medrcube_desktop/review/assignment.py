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

Work already done is kept (issue 21): an item a reviewer has committed stays on their
list (counted in their load from the start; as an overlap item it goes to them and one
other), and a reviewer not named keeps a list of their committed items.

Deterministic for a seed: the same items, reviewers, overlap, seed and committed reviews
give the same assignment on every machine. 100 items, two reviewers, 0.2 → 20 items to both, 40 only
to the first, 40 only to the second.
"""

from __future__ import annotations

import math
import random
from bisect import bisect_left, insort
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.store import StudyStore
from medrcube_desktop.store.adjudications import AssignmentRecord


@dataclass(frozen=True)
class Split:
    """Who reviews which items: ``items`` reviewer → item ids (in the order given),
    ``overlap`` the item ids given to two reviewers (or more: items several of them had
    already committed)."""

    items: dict[str, list[str]]
    overlap: frozenset[str]


class _Loads:
    """Each reviewer's load (items so far), grouped by load with the reviewers of a load
    in naming order, so the lightest reviewers are found without scanning all k."""

    def __init__(self, loads: list[int]) -> None:
        self.load = loads
        self.by_load: dict[int, list[int]] = {}
        for index, load in enumerate(loads):
            self.by_load.setdefault(load, []).append(index)  # indices ascending
        self.low = min(loads)

    def add(self, index: int) -> None:
        """One more item for reviewer ``index``."""
        load = self.load[index]
        group = self.by_load[load]
        del group[bisect_left(group, index)]
        insort(self.by_load.setdefault(load + 1, []), index)
        self.load[index] = load + 1
        while not self.by_load.get(self.low):
            self.low += 1

    def lightest(self, skip: int = -1) -> list[int]:
        """The reviewers of the lowest load (``skip`` left out), in naming order."""
        load = self.low
        while True:
            group = [i for i in self.by_load.get(load, ()) if i != skip]
            if group:
                return group
            load += 1

    def next_above(self, load: int) -> list[int]:
        """The reviewers of the lowest load above ``load``, in naming order."""
        load += 1
        while not self.by_load.get(load):
            load += 1
        return self.by_load[load]


def _least_used(candidates, used: dict[tuple[int, int], int]) -> tuple[int, int]:
    """The first pair of ``candidates`` (pairs in the k (k − 1) / 2 naming order) used
    least: the first unused one ends the search."""
    best, best_used = None, None
    for pair in candidates:
        count = used.get(pair, 0)
        if count == 0:
            return pair
        if best_used is None or count < best_used:
            best, best_used = pair, count
    assert best is not None
    return best


def _pairs_among(group: list[int]):
    """Pairs of ``group`` (indices ascending) in naming order."""
    for n, a in enumerate(group):
        for b in group[n + 1 :]:
            yield (a, b)


def _pair_for(
    loads: _Loads, used: dict[tuple[int, int], int], owner: int | None
) -> tuple[int, int]:
    """The pair of the rule (lightest load, then the least-used pair, then naming order);
    with ``owner``, the pair that includes that reviewer."""
    if owner is not None:
        partners = loads.lightest(skip=owner)
        return _least_used(((min(owner, b), max(owner, b)) for b in partners), used)
    group = loads.by_load[loads.low]
    if len(group) >= 2:  # the two lightest share a load: a pair among that load
        return _least_used(_pairs_among(group), used)
    (single,) = group  # one lightest: paired with one of the next load
    return _least_used(
        ((min(single, b), max(single, b)) for b in loads.next_above(loads.low)), used
    )


def split_items(
    item_ids: Sequence[str],
    reviewers: Sequence[str],
    overlap: float,
    seed: int,
    committed: Mapping[str, Iterable[str]] | None = None,
) -> Split:
    """The assignment of ``item_ids`` among ``reviewers`` (rule in the module docstring).

    Parameters
    ----------
    item_ids : sequence of str
    reviewers : sequence of str
    overlap : float
        Share of the items reviewed by two, in [0, 1].
    seed : int
    committed : mapping of str to iterable of str, optional
        Items each reviewer has already committed: they stay on that reviewer's list
        (counted in their load from the start); an overlap item committed by one of them
        goes to that reviewer and one other. Without it the split is the plain rule.

    Raises
    ------
    MedRCubeError
        Fewer than two reviewers, a name given twice or empty, an overlap outside
        [0, 1], or no item.

    Notes
    -----
    Time about (n + k) log k plus, per overlap item, the pairs already used among the
    lightest reviewers: 3,000 reviewers and 7,600 items take well under a second.
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
    index = {name: k for k, name in enumerate(names)}
    chosen: list[set[str]] = [set() for _ in names]
    owners: dict[str, list[int]] = {}
    wanted = set(ids)
    for name, done in (committed or {}).items():
        if name.strip() in index:
            k = index[name.strip()]
            for item_id in set(done) & wanted:
                chosen[k].add(item_id)
                owners.setdefault(item_id, []).append(k)
    loads = _Loads([len(c) for c in chosen])
    used: dict[tuple[int, int], int] = {}
    shared = set()
    for position, item_id in enumerate(ids):
        mine = owners.get(item_id, [])
        if position < n_overlap:
            if len(mine) >= 2:
                shared.add(item_id)
                continue
            pair = _pair_for(loads, used, mine[0] if mine else None)
            used[pair] = used.get(pair, 0) + 1
            for k in pair:
                if item_id not in chosen[k]:
                    chosen[k].add(item_id)
                    loads.add(k)
            shared.add(item_id)
        elif mine:
            if len(mine) >= 2:
                shared.add(item_id)
        else:
            k = loads.by_load[loads.low][0]
            chosen[k].add(item_id)
            loads.add(k)
    order = {item_id: k for k, item_id in enumerate(dict.fromkeys(item_ids))}
    return Split(
        {name: sorted(chosen[k], key=order.__getitem__) for name, k in index.items()},
        frozenset(shared),
    )


@dataclass(frozen=True)
class ReviewerChange:
    """What a new assignment changes for one reviewer.

    Attributes
    ----------
    before, after : int
        Items on their list before (0 when the previous assignment did not name them)
        and after.
    added, removed : tuple of str
        Item ids new on their list, and gone from it.
    committed : int
        Items of the new list they have already committed: kept on their list whatever
        the split (a committed item is never taken away).
    named : bool
        False for a reviewer who was not named but keeps their committed items.
    """

    before: int
    after: int
    added: tuple[str, ...]
    removed: tuple[str, ...]
    committed: int
    named: bool = True


@dataclass(frozen=True)
class Plan:
    """An assignment to store (:func:`plan`) and what it changes."""

    reviewers: list[str]
    rows: list[tuple[str, str, bool]]
    changes: dict[str, ReviewerChange]
    had_assignment: bool


def plan(
    store: StudyStore,
    item_ids: Sequence[str],
    reviewers: Sequence[str],
    overlap: float,
    seed: int,
    new_reviewers: Sequence[str] = (),
) -> Plan:
    """The assignment :func:`assign` would store, and what it changes per reviewer.

    Every reviewer keeps the items of ``item_ids`` they have committed (their first
    judgments): a named one has them in their split (:func:`split_items`), one not named
    keeps a list of just those. ``new_reviewers`` are named too, and may be unknown.

    Raises
    ------
    MedRCubeError
        Bad input (:func:`split_items`), or a named reviewer that is neither in the
        stored assignment nor has a review, not listed in ``new_reviewers`` (a mistyped
        name would silently replace a colleague's list).
    StoreError
        The database cannot be read.
    """
    names = [n.strip() for n in [*reviewers, *new_reviewers]]
    previous = store.assignment()
    authors = store.reviewers()
    known = set(authors) | set(previous.items if previous else ())
    fresh = {n.strip() for n in new_reviewers}
    unknown = [n for n in names if n not in known and n not in fresh]
    if unknown and known:
        raise MedRCubeError(
            f"unknown reviewer {', '.join(map(repr, unknown))} (known: "
            f"{', '.join(sorted(known))}): check the spelling, or give a new reviewer "
            "with --new-reviewer NAME"
        )
    wanted = set(item_ids)
    committed = {name: ids & wanted for name, ids in store.committed_items().items()}
    split = split_items(item_ids, names, overlap, seed, committed)
    lists = dict(split.items)
    kept = [a for a in authors if a not in lists and committed[a]]
    order = {item_id: k for k, item_id in enumerate(dict.fromkeys(item_ids))}
    for author in kept:  # not named: keeps what they committed, nothing more
        lists[author] = sorted(committed[author], key=order.__getitem__)
    holders: dict[str, int] = {}
    for ids in lists.values():
        for item_id in ids:
            holders[item_id] = holders.get(item_id, 0) + 1
    rows = [(name, i, holders[i] > 1) for name, ids in lists.items() for i in ids]
    before = {name: set(ids) for name, ids in (previous.items if previous else {}).items()}
    changes = {}
    for name in sorted(set(lists) | set(before), key=lambda n: (n not in lists, n)):
        old, new = before.get(name, set()), lists.get(name, [])
        changes[name] = ReviewerChange(
            len(old), len(new),
            tuple(i for i in new if i not in old),
            tuple(sorted(old - set(new), key=lambda i: order.get(i, len(order)))),
            len(committed.get(name, set()) & set(new)),
            named=name in split.items,
        )  # fmt: skip
    return Plan([*names, *kept], rows, changes, previous is not None)


def assign(
    store: StudyStore,
    item_ids: Sequence[str],
    reviewers: Sequence[str],
    overlap: float,
    seed: int,
    new_reviewers: Sequence[str] = (),
) -> AssignmentRecord:
    """Store the assignment of :func:`plan` in place of any previous one (one
    transaction); reviews already committed are not touched, and each stays on its
    author's list.

    Raises MedRCubeError for bad input (an unknown reviewer included), StoreError when
    the write fails.
    """
    chosen = plan(store, item_ids, reviewers, overlap, seed, new_reviewers)
    return save(store, chosen, overlap, seed, len(set(item_ids)))


def save(
    store: StudyStore, chosen: Plan, overlap: float, seed: int, n_items: int
) -> AssignmentRecord:
    """Store a :class:`Plan` (one transaction, rows in one batch)."""
    return store.save_assignment(chosen.reviewers, float(overlap), seed, n_items, chosen.rows)


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
