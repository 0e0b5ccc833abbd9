"""Agreement studies: a named, seeded, optionally stratified random sample of items.

The sample is a function of the benchmark's item ids, the seed and the stratification
only, so anyone can draw it again; it is stored (``studies``, ``study_items``) so that
later changes to the benchmark do not change a study. Extending a study to N items keeps
every item it has and adds the next ones of the same seeded order.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np

from medrcube_desktop.core.items import Item
from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.review.agreement_options import STUDY
from medrcube_desktop.store import StudyStore, utc_now
from medrcube_desktop.store.studies import StudyRecord

STRATA = ("", "task", "modality", "region")
"""Stratification choices: none, or by task (Table 6 abbreviation), modality, region."""


def _stratum(item: Item, stratify: str) -> str:
    if stratify == "task":
        return item.task.abbreviation
    return getattr(item, stratify) if stratify else ""


def _rng(seed: int, stratum: str) -> np.random.Generator:
    """A generator per (seed, stratum); the stratum enters through SHA-256, so the
    draw does not depend on Python's salted ``hash``."""
    digest = int.from_bytes(hashlib.sha256(stratum.encode()).digest()[:8], "big")
    return np.random.default_rng([seed, digest])


def allocate(sizes: dict[str, int], n: int) -> dict[str, int]:
    """Proportional allocation of ``n`` over strata of the given sizes, by the largest
    remainder (Hamilton's method); ties go to the larger stratum, then the name.

    Raises ``ValueError`` when ``n`` exceeds the total size.
    """
    total = sum(sizes.values())
    if n > total:
        raise ValueError(f"cannot sample {n} items from {total}")
    if total == 0:
        return {}
    quotas = {s: n * size / total for s, size in sizes.items()}
    counts = {s: int(q) for s, q in quotas.items()}
    left = n - sum(counts.values())
    order = sorted(sizes, key=lambda s: (-(quotas[s] - counts[s]), -sizes[s], s))
    for stratum in order[:left]:
        counts[stratum] += 1
    return counts


def draw_sample(items: Sequence[Item], n: int, seed: int, stratify: str = "") -> list[str]:
    """Item ids of a seeded random sample of ``n`` items, in sampling order.

    Unstratified: the first ``n`` of a permutation of the sorted ids (so a larger ``n``
    extends a smaller one). Stratified: each stratum gets its proportional share
    (:func:`allocate`) from its own seeded permutation, strata interleaved by name.

    Raises
    ------
    MedRCubeError
        ``n`` is not between 1 and the number of items, or ``stratify`` is unknown.
    """
    if not 0 <= seed < 2**32:
        raise MedRCubeError(f"the seed must be between 0 and {2**32 - 1}, got {seed}")
    if stratify not in STRATA:
        raise MedRCubeError(f"stratify must be one of task, modality, region; got {stratify!r}")
    ids = sorted({item.id for item in items})
    if not 1 <= n <= len(ids):
        raise MedRCubeError(f"a study needs between 1 and {len(ids)} items, got {n}")
    if not stratify:
        order = _rng(seed, "").permutation(len(ids))
        return [ids[k] for k in order[:n]]
    groups: dict[str, list[str]] = {}
    for item in sorted(items, key=lambda i: i.id):
        groups.setdefault(_stratum(item, stratify), [])
        if item.id not in groups[_stratum(item, stratify)]:
            groups[_stratum(item, stratify)].append(item.id)
    counts = allocate({s: len(g) for s, g in groups.items()}, n)
    picked: list[str] = []
    for stratum in sorted(groups):
        order = _rng(seed, stratum).permutation(len(groups[stratum]))
        picked += [groups[stratum][k] for k in order[: counts[stratum]]]
    return picked


def create_or_extend_study(
    store: StudyStore,
    name: str,
    items: Sequence[Item],
    n: int,
    seed: int,
    stratify: str = STUDY["stratify"].default,  # type: ignore[assignment]
) -> StudyRecord:
    """Store a study of ``n`` items, or extend an existing one to ``n`` items.

    Raises
    ------
    MedRCubeError
        Bad ``n`` or ``stratify``; the name exists with another seed or stratification;
        or the study would shrink.
    StoreError
        The database write failed.
    """
    if not name.strip():
        raise MedRCubeError("a study needs a name")
    existing = store.study(name)
    if existing is not None and n < len(existing.item_ids):
        raise MedRCubeError(
            f"study {name!r} already has {len(existing.item_ids)} items; a study only grows"
        )
    sample = draw_sample(items, n, seed, stratify)
    if existing is not None:  # keep every item it has; add the first new ones in order
        have = set(existing.item_ids)
        sample = list(existing.item_ids) + [i for i in sample if i not in have]
        if len(sample) < n:  # strata shifted: top up from the unstratified order
            extra = draw_sample(items, len(items), seed)
            sample += [i for i in extra if i not in set(sample)][: n - len(sample)]
        sample = sample[:n]
    return store.save_study(name, seed, stratify, sample, utc_now())
