"""Which items to look at when comparing models item by item (issue 14, item 4).

Every function reads a :class:`~.matrix.RunMatrix` and returns a boolean mask over its
items, shape ``(n_items,)``, dtype bool, in benchmark order, so the pane (or a script)
combines them with ``&`` and ``|``. An unanswered cell (NaN in ``matrix.correct``) is
never counted as right or wrong; an unparsed answer is wrong, as the paper counts it
(and :func:`unparsed_by_any` finds it).

Text-only runs (no image sent) are baselines of a model, not models: the counts of
:func:`item_summary` and the filters "All right", "All wrong", "Models disagree", "Same
wrong answer" and "Only some families right" use the image runs only; "Right in a
text-only run" is the one that reads the text-only runs, and "Unparsed by any run" reads every run.

This is where a benchmark builder finds the broken items: an item every model gets wrong
may have a wrong ground truth; one every model gets right without its image leaks its
answer through the question (paper Appendix D.4).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from medrcube_desktop.core.items import Item
from medrcube_desktop.evaluation.compare.matrix import RunMatrix

__all__ = [
    "FILTERS",
    "ItemSummary",
    "NO_ANSWER",
    "RIGHT",
    "UNPARSED",
    "WRONG",
    "all_right",
    "all_wrong",
    "cell_states",
    "filter_mask",
    "item_summary",
    "letter_cells",
    "matches_text",
    "models_disagree",
    "only_some_families_right",
    "outcome_table",
    "right_without_image",
    "same_wrong_answer",
    "search_texts",
    "text_image_pairs",
    "unparsed_by_any",
]


@dataclass(frozen=True)
class ItemSummary:
    """Per-item counts over the image runs of a matrix (text-only runs left out).

    Attributes
    ----------
    n_right, n_wrong, n_answered, n_unparsed : ndarray of shape (n_items,), int64
        Image runs that got the item right, wrong (unparsed included), answered it at
        all, and answered it with no choice read. ``n_right + n_wrong == n_answered``.
    """

    n_right: np.ndarray
    n_wrong: np.ndarray
    n_answered: np.ndarray
    n_unparsed: np.ndarray

    def text(self, row: int) -> str:
        """``"3/5"``: right over answered, as the grid's summary column shows it."""
        return f"{int(self.n_right[row])}/{int(self.n_answered[row])}"


def _image_columns(matrix: RunMatrix) -> np.ndarray:
    """(n_runs,) bool: the run saw the image (is not text only)."""
    return ~np.asarray(matrix.text_only, dtype=bool)


def item_summary(matrix: RunMatrix) -> ItemSummary:
    """The :class:`ItemSummary` of every item over the image runs (vectorised)."""
    image = _image_columns(matrix)
    correct, answered = matrix.correct[:, image], matrix.answered[:, image]
    right = (correct == 1.0).sum(axis=1).astype(np.int64)
    n_answered = answered.sum(axis=1).astype(np.int64)
    unparsed = (matrix.unparsed[:, image] & answered).sum(axis=1).astype(np.int64)
    return ItemSummary(right, n_answered - right, n_answered, unparsed)


def all_wrong(matrix: RunMatrix) -> np.ndarray:
    """(n_items,) bool: at least one image run answered the item and every image run
    that answered got it wrong (unparsed counts as wrong)."""
    summary = item_summary(matrix)
    return (summary.n_answered > 0) & (summary.n_right == 0)


def all_right(matrix: RunMatrix) -> np.ndarray:
    """(n_items,) bool: at least one image run answered the item and every image run
    that answered got it right."""
    summary = item_summary(matrix)
    return (summary.n_answered > 0) & (summary.n_wrong == 0)


def models_disagree(matrix: RunMatrix) -> np.ndarray:
    """(n_items,) bool: at least one image run got the item right and at least one
    image run got it wrong."""
    summary = item_summary(matrix)
    return (summary.n_right > 0) & (summary.n_wrong > 0)


def unparsed_by_any(matrix: RunMatrix) -> np.ndarray:
    """(n_items,) bool: at least one run answered the item with no choice read."""
    return (matrix.unparsed & matrix.answered).any(axis=1)


MIN_SERIES_RUNS = 2
"""A series counts in :func:`only_some_families_right` on an item only when at least
this many of its image runs answered it: with one run, a "family" is just that model."""


def _series_outcomes(
    matrix: RunMatrix, min_runs: int = MIN_SERIES_RUNS
) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Series names and two (n_items, n_series) bool matrices: the series is right /
    wrong on the item (at least ``min_runs`` of its image runs answered it, and every
    one of them right / wrong)."""
    families = matrix.families()
    series = sorted({f.series for f, text in zip(families, matrix.text_only, strict=True)
                     if not text})  # fmt: skip
    n_items = len(matrix.items)
    right = np.zeros((n_items, len(series)), dtype=bool)
    wrong = np.zeros((n_items, len(series)), dtype=bool)
    for s, name in enumerate(series):
        columns = [c for c, (f, text) in enumerate(zip(families, matrix.text_only, strict=True))
                   if f.series == name and not text]  # fmt: skip
        block = matrix.correct[:, columns]
        answered = ~np.isnan(block)
        enough = answered.sum(axis=1) >= max(1, min_runs)
        right[:, s] = enough & ((block == 1.0) | ~answered).all(axis=1)
        wrong[:, s] = enough & ((block == 0.0) | ~answered).all(axis=1)
    return series, right, wrong


def only_some_families_right(matrix: RunMatrix) -> np.ndarray:
    """(n_items,) bool: one model family gets the item right as a whole and another
    gets it wrong as a whole.

    Precisely: image runs are grouped by ``matrix.families()[run].series`` (InternVL,
    Lingshu, …; :func:`~.families.model_family`); text-only runs are left out (they
    measure what the question alone gives away, not the family). On an item, a series
    counts only when at least :data:`MIN_SERIES_RUNS` (2) of its runs answered it; such
    a series is *right* when every one of its answering runs got it right, *wrong* when
    every one got it wrong, neither when they split. The item matches when at least one
    counted series is right and another counted series is wrong.

    Why two runs: with one run per series, "a family right, another wrong" is any
    disagreement between two models (a user saw 240 of 260 items match), which
    :func:`models_disagree` already lists. Requiring two answering runs asks the
    question this filter is for: does the item split the families (training data,
    architecture) rather than single models? With no series of two runs nothing matches.
    """
    _, right, wrong = _series_outcomes(matrix)
    return np.asarray(right.any(axis=1) & wrong.any(axis=1), dtype=bool)


def same_wrong_answer(matrix: RunMatrix) -> np.ndarray:
    """(n_items,) bool: image runs agree on one wrong letter: the signature of a wrong
    answer key (or of an option that reads as the right one).

    Precisely: at least 2 image runs answered the item (an unparsed answer counts as
    answering, with no letter), and one wrong letter (not ``item.answer``) was chosen by
    at least 2 of them and by at least half of them. Text-only runs are left out. A
    matrix without letters (``matrix.answers`` is None, built by hand) matches nothing.
    """
    n_items = len(matrix.items)
    if matrix.answers is None or not n_items:
        return np.zeros(n_items, dtype=bool)
    image = _image_columns(matrix)
    answers = matrix.answers[:, image]
    answered = matrix.answered[:, image]
    n_answered = answered.sum(axis=1)
    truth = np.array([item.answer for item in matrix.items], dtype=object)[:, None]
    has_letter = np.vectorize(lambda a: a is not None, otypes=[bool])(answers)
    wrong = answered & has_letter & (answers != truth)
    letters = sorted({a for a in answers[wrong].tolist()})
    best = np.zeros(n_items, dtype=np.int64)
    for letter in letters:
        best = np.maximum(best, (wrong & (answers == letter)).sum(axis=1))
    return (n_answered >= 2) & (best >= 2) & (2 * best >= n_answered)


def text_image_pairs(matrix: RunMatrix) -> list[tuple[int, int | None]]:
    """Each text-only run's column with the column of the image run of the same model
    (the first such run in the matrix), or ``None`` when the matrix has none; in column
    order of the text-only runs."""
    pairs: list[tuple[int, int | None]] = []
    for t, (model, text) in enumerate(zip(matrix.models, matrix.text_only, strict=True)):
        if not text:
            continue
        image = next(
            (c for c, (m, tx) in enumerate(zip(matrix.models, matrix.text_only, strict=True))
             if m == model and not tx),
            None,
        )  # fmt: skip
        pairs.append((t, image))
    return pairs


def right_without_image(matrix: RunMatrix, paired_only: bool = False) -> np.ndarray:
    """(n_items,) bool: some text-only run (no image sent) got the item right: the
    question and options alone give the answer away (prior leakage, Appendix D.4).

    The union over text-only runs of
    :func:`~.leaderboard.right_without_image` for each run and its image twin
    (:func:`text_image_pairs`). With ``paired_only`` only text-only runs that have an
    image run of the same model in the matrix count. No text-only run: all False.
    """
    hits = np.zeros(len(matrix.items), dtype=bool)
    for text, image in text_image_pairs(matrix):
        if paired_only and image is None:
            continue
        hits |= matrix.correct[:, text] == 1.0
    return hits


FILTERS: dict[str, tuple[str, Callable[[RunMatrix], np.ndarray] | None]] = {
    "all": ("All items", None),
    "all_wrong": ("All wrong (every image run wrong)", all_wrong),
    "all_right": ("All right (every image run right)", all_right),
    "disagree": ("Models disagree (some image runs right, some wrong)", models_disagree),
    "same_wrong": ("Same wrong answer (half the image runs or more)", same_wrong_answer),
    "families": ("Only some families right", only_some_families_right),
    "no_image": ("Right in a text-only run", right_without_image),
    "unparsed": ("Unparsed by any run", unparsed_by_any),
}
"""Filter key → (title shown in the pane, mask function; ``None`` keeps every item)."""

FILTER_TIPS: dict[str, str] = {
    "all": "Every item of the benchmark",
    "all_wrong": "At least one image run answered and every image run that answered got "
    "it wrong (unparsed counts wrong): a wrong ground truth? Text-only runs are "
    "baselines and do not count",
    "all_right": "At least one image run answered and every image run that answered got "
    "it right. Text-only runs do not count",
    "disagree": "At least one image run right and one wrong. Text-only runs do not count",
    "same_wrong": "At least 2 image runs answered, and one wrong letter was chosen by 2 "
    "or more of them and by at least half: the signature of a wrong answer key",
    "families": "A series (InternVL, Qwen, …) with 2 or more image runs answering is "
    "right on every one of them, and another such series wrong on every one; series "
    "with one run on the item do not count (that is Models disagree)",
    "no_image": "At least one text-only run (no image sent) got it right, a lucky guess "
    "included (prior leakage, Appendix D.4); the Image necessity tab's \u201canswerable "
    "without the image\u201d takes most models",
    "unparsed": "Some run (text-only ones too) answered with no choice read",
}
"""Filter key → the tooltip of its entry in the pane's Show list."""


def filter_mask(matrix: RunMatrix, key: str) -> np.ndarray:
    """(n_items,) bool: the mask of the filter ``key`` of :data:`FILTERS`.

    Raises
    ------
    ValueError
        ``key`` is not a filter (the known ones are listed).
    """
    if key not in FILTERS:
        raise ValueError(f"no item filter {key!r} (filters: {', '.join(FILTERS)})")
    function = FILTERS[key][1]
    return np.ones(len(matrix.items), dtype=bool) if function is None else function(matrix)


def search_texts(items: Sequence[Item]) -> list[str]:
    """Each item's searchable text, case-folded: id, question, options, task (name and
    abbreviation), modality, region and dataset (built once, searched per keystroke)."""
    return [
        " ".join(
            (
                item.id,
                item.question,
                *item.options.values(),
                item.task.name,
                item.task.abbreviation,
                item.modality,
                item.region,
                item.dataset,
            )
        ).casefold()  # fmt: skip
        for item in items
    ]


def matches_text(texts: Sequence[str], query: str) -> np.ndarray:
    """(n_items,) bool: the items whose :func:`search_texts` entry contains every word of
    ``query`` (case-insensitive); an empty ``query`` matches every item."""
    words = query.casefold().split()
    if not words:
        return np.ones(len(texts), dtype=bool)
    return np.fromiter(
        (all(word in text for word in words) for text in texts), dtype=bool, count=len(texts)
    )


NO_ANSWER, RIGHT, WRONG, UNPARSED = 0, 1, 2, 3
"""Codes of :func:`cell_states`."""

STATE_WORDS: dict[int, str] = {NO_ANSWER: "", RIGHT: "right", WRONG: "wrong", UNPARSED: "unparsed"}
"""How :func:`outcome_table` writes each code (no answer: an empty cell)."""


def cell_states(matrix: RunMatrix) -> np.ndarray:
    """(n_items, n_runs) int8: :data:`NO_ANSWER` (0), :data:`RIGHT` (1), :data:`WRONG`
    (2, an answer read as another choice) or :data:`UNPARSED` (3, no choice read: wrong
    by the paper's count) per item and run."""
    states = np.full(matrix.correct.shape, NO_ANSWER, dtype=np.int8)
    states[matrix.correct == 1.0] = RIGHT
    states[matrix.correct == 0.0] = WRONG
    states[matrix.answered & matrix.unparsed] = UNPARSED
    return states


def letter_cells(matrix: RunMatrix) -> np.ndarray | None:
    """(n_items, n_runs) object: what each run chose: its letter, ``"?"`` unparsed,
    ``""`` no answer; None when the matrix holds no letters (built by hand)."""
    if matrix.answers is None:
        return None
    cells = np.full(matrix.correct.shape, "", dtype=object)
    answered = matrix.answered
    cells[answered] = [("?" if a is None else str(a)) for a in matrix.answers[answered]]
    return cells


def outcome_table(
    matrix: RunMatrix, rows: Sequence[int] | np.ndarray | None = None
) -> tuple[list[str], list[list[object]]]:
    """The items × runs grid as a table for :func:`~medrcube_desktop.core.csvfile.write_csv`.

    Parameters
    ----------
    rows : sequence of int, optional
        Item indices (rows of ``matrix``) in the order to write; default every item.

    Returns
    -------
    header : list of str
        ``id, task, modality, region, dataset, right, answered`` (over the image runs,
        :func:`item_summary`), then per run its name and, when the matrix holds letters,
        ``"<run> letter"`` beside it.
    table : list of list
        Per item: its id and labels (str), the counts (int), then per run ``"right"``,
        ``"wrong"``, ``"unparsed"`` or ``""`` (no answer), each followed by the letter
        the run chose (``"?"`` unparsed, ``""`` no answer; :func:`letter_cells`).
    """
    order = range(len(matrix.items)) if rows is None else [int(r) for r in rows]
    summary = item_summary(matrix)
    states = cell_states(matrix)
    letters = letter_cells(matrix)
    runs: list[str] = []
    for run in matrix.runs:
        runs += [run, f"{run} letter"] if letters is not None else [run]
    header = ["id", "task", "modality", "region", "dataset", "right", "answered", *runs]
    table: list[list[object]] = []
    for r in order:
        item = matrix.items[r]
        cells: list[object] = []
        for c, code in enumerate(states[r].tolist()):
            cells.append(STATE_WORDS[int(code)])
            if letters is not None:
                cells.append(letters[r, c])
        table.append(
            [item.id, item.task.abbreviation, item.modality, item.region, item.dataset,
             int(summary.n_right[r]), int(summary.n_answered[r]), *cells]
        )  # fmt: skip
    return header, table
