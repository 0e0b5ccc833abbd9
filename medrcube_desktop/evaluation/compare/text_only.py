"""An image run against the text-only run of the same model: the paper's prior-leakage
baseline (Table 4, Appendix D.4; issue 14: "Text-only runs of the same model show beside
the image runs with the drop, per voxel, and the items answered right without the image
are listable").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from medrcube_desktop.evaluation.compare.matrix import RunMatrix
from medrcube_desktop.evaluation.image_modes import IMAGE

if TYPE_CHECKING:
    import pandas as pd


def text_only_drop(matrix: RunMatrix, image_run: str, text_run: str) -> pd.DataFrame:
    """Accuracy with the image, without it and the drop, overall and per voxel (paper
    Table 4, Appendix D.4: the text-only run of the same model gets no image).

    Only items both runs answered count, so the two accuracies are over the same items.

    Returns
    -------
    DataFrame
        Index ``"Overall"`` then each voxel (``task|modality|region``, sorted); columns
        ``n`` (int), ``with_image``, ``without_image`` and ``drop`` = with − without
        (float64, 0–1; the paper prints the overall drop in parentheses).
    """
    import pandas as pd

    i, t = matrix.column(image_run), matrix.column(text_run)
    both = matrix.answered[:, i] & matrix.answered[:, t]
    frame = pd.DataFrame(
        {
            "voxel": matrix.labels("voxel")[both],
            "with_image": matrix.correct[both, i],
            "without_image": matrix.correct[both, t],
        }
    )
    per_voxel = frame.groupby("voxel", sort=True).agg(
        n=("with_image", "size"),
        with_image=("with_image", "mean"),
        without_image=("without_image", "mean"),
    )
    overall = pd.DataFrame(
        {
            "n": [len(frame)],
            "with_image": [frame["with_image"].mean()],
            "without_image": [frame["without_image"].mean()],
        },
        index=["Overall"],
    )
    table = pd.concat([overall, per_voxel])
    table.index.name = "voxel"
    table["n"] = table["n"].astype(np.int64)
    table["drop"] = table["with_image"] - table["without_image"]
    return table


def right_without_image(matrix: RunMatrix, image_run: str, text_run: str) -> list[str]:
    """Ids of the items the text-only run answered right (prior leakage: the question
    and options alone give the answer away), in benchmark order.

    ``image_run`` only checks the pairing of names; every item ``text_run`` got right is
    listed, whatever the image run answered.
    """
    matrix.column(image_run)
    t = matrix.column(text_run)
    right = matrix.correct[:, t] == 1.0
    return [item.id for item, hit in zip(matrix.items, right, strict=True) if hit]


def text_only_pairs(matrix: RunMatrix) -> list[tuple[str, str]]:
    """(image run, text-only run) of each model that has both (paper Table 4).

    Runs are matched by ``RunMatrix.models`` exactly. A text-only run whose model no
    image run has is matched by its model's (else its run's) name less a text-only
    ending (:func:`~medrcube_desktop.evaluation.results_import.baseline_model`:
    ``Lingshu-7B-text`` → ``Lingshu-7B``), which is how a baseline imported before its
    image run is named. Each text-only run is paired with every image run of its model:
    several text-only runs of one model (two prompts, two seeds) give a pair each with
    the image run, and a model with several image runs pairs each text-only run with
    each of them, since which one is "the" baseline is the user's choice, not ours.
    Only runs in image mode are image runs (a blank, swapped or noise run is an
    ablation too, issue 24). Pairs come in the matrix's order of image runs, then of text-only runs; a model
    with only one kind of run gives none.
    """
    from medrcube_desktop.evaluation.results_import import baseline_model

    image = [
        c
        for c, (text, mode) in enumerate(zip(matrix.text_only, matrix.image_modes, strict=True))
        if not text and mode == IMAGE
    ]  # a blank run is no image run
    names = {matrix.runs[c]: matrix.models[c] for c in image}
    names.update({matrix.models[c]: matrix.models[c] for c in image})
    target = {}  # text-only column -> the model it is the baseline of
    for t, (model, text) in enumerate(zip(matrix.models, matrix.text_only, strict=True)):
        if not text:
            continue
        if model in names.values():
            target[t] = model
        else:
            found = baseline_model(model, names) or baseline_model(matrix.runs[t], names)
            if found is not None:
                target[t] = found
    return [
        (matrix.runs[i], matrix.runs[t])
        for i in image
        for t in sorted(target)
        if target[t] == matrix.models[i]
    ]


LEAKAGE_FIELDS: tuple[str, ...] = (
    "image_run", "text_run", "item", "task", "modality", "region", "image_answer",
    "image_correct",
)  # fmt: skip
"""The columns of :func:`leakage_items` (and of compare's ``leakage.csv``)."""


def leakage_items(matrix: RunMatrix, image_run: str, text_run: str) -> list[dict[str, object]]:
    """The items the text-only run answered right (prior leakage, paper Appendix D.4),
    with what the image run did on each, in benchmark order.

    Returns
    -------
    list of dict
        :data:`LEAKAGE_FIELDS`: the two run names, the item's id, task (abbreviation),
        modality and region, the image run's parsed letter (``image_answer``; None when
        unparsed, unanswered, or the matrix holds no letters) and whether it was right
        (``image_correct``: True, False, or None when the image run did not answer).

    Raises
    ------
    ValueError
        A run is not in the matrix.
    """
    i, t = matrix.column(image_run), matrix.column(text_run)
    rows = np.flatnonzero(matrix.correct[:, t] == 1.0)
    out = []
    for n in rows.tolist():
        item, value = matrix.items[n], matrix.correct[n, i]
        out.append(
            {
                "image_run": image_run,
                "text_run": text_run,
                "item": item.id,
                "task": item.task.abbreviation,
                "modality": item.modality,
                "region": item.region,
                "image_answer": None if matrix.answers is None else matrix.answers[n, i],
                "image_correct": None if np.isnan(value) else bool(value == 1.0),
            }
        )
    return out
