"""The image-necessity evidence where rule 1.4 (VQA suitability: does the question need
the image?) is judged (issue 24 item 3): how many models answered an item right without
its image, from every run stored in the study's database. The evaluation layer computes
it (:func:`medrcube_desktop.evaluation.compare.necessity.store_evidence`, the
computation ``compare`` shows) and the layer above hands it down: the window gives the
session a source (:meth:`~medrcube_desktop.review.reveal.RevealMixin.set_evidence_source`),
the ``agreement`` command and pane pass it to
:func:`~medrcube_desktop.review.agreement.run.run_study`. The reveal shows it after the
reviewer's commit (the gate of :mod:`~medrcube_desktop.review.blinding`); the
"answerable without the image" queue lists the answerable items. Qt-free.
"""

from __future__ import annotations

from collections.abc import Mapping

Evidence = dict[str, dict[str, object]]
"""Item id → :meth:`~medrcube_desktop.evaluation.compare.necessity.ItemNecessity.evidence`
row: ``"answerable"``, ``"ablated_right"``, ``"ablated_models"`` and
``"<mode>_right"``/``"<mode>_models"`` per image mode, the sighted one first (only
items some ablation run answered)."""

_POOLED = ("image", "ablated")


def answerable_items(evidence: Mapping[str, Mapping[str, object]]) -> set[str]:
    """Ids of the items of ``evidence`` answerable without the image."""
    return {item_id for item_id, row in evidence.items() if row["answerable"]}


def evidence_text(row: Mapping[str, object]) -> str:
    """One sentence of an item's evidence, as the reveal shows it: "Without the image:
    right by 3 of 4 models (text-only 2/3, blank 1/1) — answerable without the image
    (rule 1.4); with it: 4 of 4." (the ablation modes in the row's order, those no
    model ran left out)."""
    modes = [k[: -len("_models")] for k in row if k.endswith("_models")]
    shown = ", ".join(
        f"{mode} {row[f'{mode}_right']}/{row[f'{mode}_models']}"
        for mode in modes
        if mode not in _POOLED and row[f"{mode}_models"]
    )
    verdict = " — answerable without the image (rule 1.4)" if row["answerable"] else ""
    sighted = (
        f"; with it: {row['image_right']} of {row['image_models']}" if row["image_models"] else ""
    )
    return (
        f"Without the image: right by {row['ablated_right']} of {row['ablated_models']} "
        f"models ({shown}){verdict}{sighted}."
    )
