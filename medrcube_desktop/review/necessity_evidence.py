"""The image-necessity evidence where rule 1.4 (VQA suitability: does the question need
the image?) is judged (issue 24 item 3): how many models answered an item right without
its image, from every run stored in the study's database
(:func:`~medrcube_desktop.evaluation.compare.necessity.item_necessity`, the computation
``compare`` shows). The reveal shows it after the reviewer's commit (the gate of
:mod:`~medrcube_desktop.review.blinding`); the "answerable without the image" queue and
the agreement study's rule 1.4 check read it. Qt-free.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from medrcube_desktop.core.items import Item
from medrcube_desktop.core.options import defaults
from medrcube_desktop.evaluation.compare_options import SETTINGS
from medrcube_desktop.evaluation.image_modes import ABLATIONS

if TYPE_CHECKING:
    from medrcube_desktop.store import StudyStore

ANSWERABLE_SHARE: float = defaults(SETTINGS)["answerable"]  # type: ignore[assignment]
"""The default share of ``--answerable-share`` (declared once in compare's options)."""

Evidence = dict[str, dict[str, object]]
"""Item id → :meth:`~medrcube_desktop.evaluation.compare.necessity.ItemNecessity.evidence`
row (only items some ablation run answered)."""


def store_evidence(
    store: StudyStore, items: Sequence[Item], threshold: float = ANSWERABLE_SHARE
) -> Evidence:
    """The evidence of every item of ``items`` over every run stored in ``store``;
    empty when no run is an ablation run (or none is stored).

    Raises
    ------
    StoreError
        The runs cannot be read.
    """
    from medrcube_desktop.evaluation.compare.matrix import run_matrix
    from medrcube_desktop.evaluation.compare.necessity import has_ablations, item_necessity

    runs = store.eval_run_names()
    if not runs or not items:
        return {}
    matrix = run_matrix(store, runs, items)
    if not has_ablations(matrix):
        return {}
    return item_necessity(matrix, threshold).evidence()


def answerable_items(evidence: Evidence) -> set[str]:
    """Ids of the items of ``evidence`` answerable without the image."""
    return {item_id for item_id, row in evidence.items() if row["answerable"]}


def evidence_text(row: dict[str, object]) -> str:
    """One sentence of an item's evidence, as the reveal shows it: "Without the image:
    right by 3 of 4 models (text-only 2/3, blank 1/1) — answerable without the image
    (rule 1.4); with it: 4 of 4"."""
    modes = ", ".join(
        f"{mode} {row[f'{mode}_right']}/{row[f'{mode}_models']}"
        for mode in ABLATIONS
        if row[f"{mode}_models"]
    )
    verdict = " — answerable without the image (rule 1.4)" if row["answerable"] else ""
    sighted = (
        f"; with it: {row['image_right']} of {row['image_models']}" if row["image_models"] else ""
    )
    return (
        f"Without the image: right by {row['ablated_right']} of {row['ablated_models']} "
        f"models ({modes}){verdict}{sighted}."
    )
