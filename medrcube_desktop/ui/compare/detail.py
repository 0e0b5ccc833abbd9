"""One item of the Compare models grid in detail: its image with the overlay, the
question and options (the right one marked), every run's raw answer and how it was read,
and the item's reviews.

The image renders on the one render pool (as the pairs view does, with the item's own
mask, box and slice); a stale result is dropped. Model output, benchmark text and
reviewers' comments are untrusted: every value goes through :func:`~.text.esc`. What of
reviews the dialog shows follows the study's blinding rule (the session's
``is_revealed``), so it never shows what the review window still hides.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSplitter,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from medrcube_desktop.core.dataset import text_only_message
from medrcube_desktop.core.items import Item
from medrcube_desktop.core.rubric import RULE_IDS
from medrcube_desktop.evaluation.compare.item_filters import NO_ANSWER, RIGHT, UNPARSED, WRONG
from medrcube_desktop.evaluation.compare.matrix import RunMatrix
from medrcube_desktop.imaging.render import RenderedImage
from medrcube_desktop.store import Review, StudyStore
from medrcube_desktop.store.evaluation import ResponseRecord
from medrcube_desktop.store.judgments import Judgment
from medrcube_desktop.ui.widgets.image_view import rgba_to_qimage
from medrcube_desktop.ui.widgets.render_task import RenderTask, render_pool
from medrcube_desktop.ui.widgets.screen import fit_to_screen
from medrcube_desktop.ui.widgets.text import esc, esc_lines
from medrcube_desktop.ui.widgets.themes import current_theme, ground_truth_colour

DETAIL_IMAGE_SIDE = 460
"""The item's picture is rendered at most this many pixels per side."""

MUTED_COLOURS: dict[str, str] = {"light": "#57606a", "dark": "#9da7b3", "high-contrast": "#d0d0d0"}
"""Secondary text (model name, parse method) per theme: 4.5:1 or more on the base colour."""

ANSWER_SHOWN_CHARS = 4000
"""A raw answer longer than this is cut in the dialog (the database keeps it whole)."""

OUTCOME_WORDS: dict[int, str] = {
    RIGHT: "✓ right",
    WRONG: "✗ wrong",
    UNPARSED: "? unparsed (wrong)",
    NO_ANSWER: "— no answer",
}


def item_html(item: Item) -> str:
    """The item's facts, question and options, the right one marked (escaped)."""
    green = ground_truth_colour()
    options = "".join(
        f"<p style='margin:2px'><b style='color:{green}'>{esc(letter)}. {esc(text)} "
        "✔ right answer</b></p>"
        if letter == item.answer
        else f"<p style='margin:2px'>{esc(letter)}. {esc(text)}</p>"
        for letter, text in item.options.items()
    )
    return (
        f"<h3>{esc(item.id)}</h3><p>{esc(item.task.name)} ({esc(item.task.abbreviation)}) · "
        f"{esc(item.modality)} · {esc(item.region)} · {esc(item.dataset)}</p>"
        f"<p><b>{esc_lines(item.question)}</b></p>{options}"
    )


def _raw(text: str) -> str:
    cut = text[:ANSWER_SHOWN_CHARS]
    more = len(text) - len(cut)
    return esc_lines(cut or "(empty answer)") + (
        f"<br><i>… {more} more characters</i>" if more else ""
    )


def answers_html(
    runs: Sequence[str],
    models: Sequence[str],
    states: Sequence[int],
    answers: Mapping[str, ResponseRecord],
) -> str:
    """A table of every run's outcome, reading and raw answer (escaped).

    ``states`` are the runs' :func:`~medrcube_desktop.evaluation.compare.item_filters.cell_states`
    codes for the item; ``answers`` the stored responses by run (a run without one
    shows "no answer").
    """
    muted = MUTED_COLOURS.get(current_theme(), MUTED_COLOURS["light"])
    rows = []
    for run, model, state in zip(runs, models, states, strict=True):
        answer = answers.get(run)
        if answer is None:
            read, raw = "—", "<i>no answer stored</i>"
        else:
            read = (
                f"{esc(answer.parsed_answer or 'nothing read')} "
                f"<span style='color:{muted}'>({esc(answer.parse_method)})</span>"
            )
            raw = _raw(answer.response)
        rows.append(
            f"<tr><td><b>{esc(run)}</b><br><span style='color:{muted}'>{esc(model)}</span></td>"
            f"<td>{OUTCOME_WORDS[int(state)]}</td><td>{read}</td><td>{raw}</td></tr>"
        )
    return (
        "<h4>Answers</h4><table border='1' cellspacing='0' cellpadding='4'>"
        "<tr><th>Run</th><th>Outcome</th><th>Read as (method)</th><th>Raw answer</th></tr>"
        + "".join(rows)
        + "</table>"
    )


def _verdict(scores: Mapping[str, int | None]) -> str:
    failed = [rule for rule in RULE_IDS if scores.get(rule) == 0]
    return f"fails {', '.join(failed)}" if failed else f"passes all {len(RULE_IDS)} rules"


def _scores_row(name: str, scores: Mapping[str, int | None], comment: str) -> str:
    cells = "".join(
        f"<td align='center'>{ {1: 'pass', 0: '<b>FAIL</b>'}.get(scores.get(r), '—') }</td>"
        for r in RULE_IDS
    )
    return (
        f"<tr><td><b>{esc(name)}</b></td>{cells}<td>{esc(_verdict(scores))}</td>"
        f"<td>{esc_lines(comment)}</td></tr>"
    )


def review_html(
    reviews: Mapping[str, Review], judgments: Mapping[str, Judgment], hidden: bool
) -> str:
    """The item's committed reviews (rubric scores, verdict, comment and tags, by
    reviewer) and LLM judgments (by model), escaped; ``hidden`` (a blind study whose
    viewer has not committed the item) shows that they are hidden and none of them."""
    if hidden:
        return (
            "<h4>Review</h4><p>Hidden: this is a blind study and you have not committed "
            "a review of this item (commit it in the review window first).</p>"
        )
    if not reviews and not judgments:
        return "<h4>Review</h4><p>No review or LLM judgment of this item yet.</p>"
    head = "".join(f"<th>{esc(rule)}</th>" for rule in RULE_IDS)
    rows = []
    for name, review in sorted(reviews.items()):
        tags = f" [{', '.join(review.tags)}]" if review.tags else ""
        rows.append(_scores_row(name, review.scores, review.comment + tags))
    for model, judgment in sorted(judgments.items()):
        if judgment.scores:
            rows.append(_scores_row(f"LLM: {model}", judgment.scores, ""))
    return (
        "<h4>Review</h4><table border='1' cellspacing='0' cellpadding='3'>"
        f"<tr><th>By</th>{head}<th>Verdict</th><th>Comment</th></tr>" + "".join(rows) + "</table>"
    )


class DetailSources:
    """Reads what the detail of one item shows: every run's answer, and its reviews and
    LLM judgments as far as the session's blinding rule lets this viewer see them.

    Parameters
    ----------
    store : StudyStore
    session : ReviewSessionState
        Its ``is_revealed(item_id)`` decides whether reviews are shown.
    """

    def __init__(self, store: StudyStore, session) -> None:
        self.store, self.session = store, session
        self._judgments: dict[str, dict[str, Judgment]] | None = None  # read once

    def judgments(self, item_id: str) -> dict[str, Judgment]:
        """The LLM judgment of ``item_id`` by every model that judged it."""
        if self._judgments is None:
            self._judgments = {
                model: self.store.judgments(model) for model in self.store.judgment_models()
            }
        return {model: got[item_id] for model, got in self._judgments.items() if item_id in got}

    def detail_html(self, matrix: RunMatrix, row: int, states: Sequence[int]) -> str:
        """The rich text of item ``row`` of ``matrix`` (:func:`item_html`,
        :func:`answers_html`, :func:`review_html`); raises StoreError."""
        item = matrix.items[row]
        answers = self.store.item_responses(item.id, list(matrix.runs))
        hidden = not self.session.is_revealed(item.id)
        reviews = {} if hidden else self.store.item_reviews(item.id)
        judgments = {} if hidden else self.judgments(item.id)
        return (
            item_html(item)
            + answers_html(matrix.runs, matrix.models, states, answers)
            + review_html(reviews, judgments, hidden)
        )


class CompareDetailDialog(QDialog):
    """The item behind a grid cell (non-modal, reused; Esc closes it).

    ``open_item(item_id)`` asks the review window to show the item.
    """

    open_item = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Item across models")
        self.item: Item | None = None
        self._generation = 0
        self.image = QLabel()
        self.image.setObjectName("compareImage")
        self.image.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.image.setMinimumSize(260, 260)
        self.image.setTextFormat(Qt.TextFormat.PlainText)  # an error's text as written
        self.image.setWordWrap(True)
        self.text = QTextBrowser()
        self.text.setObjectName("compareDetail")
        self.text.setOpenLinks(False)  # nothing in it is a link to follow
        self.review_button = QPushButton("Open in the &review window")
        self.review_button.setAutoDefault(False)
        self.review_button.clicked.connect(self._review)
        close = QPushButton("Close (Esc)")
        close.setAutoDefault(False)
        close.clicked.connect(self.close)
        split = QSplitter()
        split.addWidget(self.image)
        split.addWidget(self.text)
        split.setStretchFactor(1, 1)
        split.setSizes([DETAIL_IMAGE_SIDE, 640])
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.review_button)
        buttons.addWidget(close)
        layout = QVBoxLayout(self)
        layout.addWidget(split, 1)
        layout.addLayout(buttons)
        fit_to_screen(self, 1150, 760)

    def show_item(self, item: Item, html: str) -> None:
        """Show ``item`` (its picture rendered on the pool) and ``html`` (escaped by
        the caller: :func:`item_html`, :func:`answers_html`, :func:`review_html`)."""
        self.item = item
        self.setWindowTitle(f"Item across models: {item.id}")
        self.text.setHtml(html)
        self._generation += 1
        self.image.clear()
        self.image.setToolTip("")
        if item.restricted and not item.image_path.is_file():  # the release's way
            self.image.setText(text_only_message(item))
            return
        if not item.image_path.is_file():
            self.image.setText(f"Image not shown: no file at {item.image_path}")
            return
        self.image.setText("Rendering…")
        task = RenderTask(self._generation, item, None, max_side=DETAIL_IMAGE_SIDE)
        task.signals.done.connect(self._on_rendered)
        task.signals.failed.connect(self._on_failed)
        render_pool().start(task)

    def _on_rendered(self, generation: int, result: RenderedImage) -> None:
        if generation != self._generation:
            return  # another item is shown now
        self.image.setPixmap(QPixmap.fromImage(rgba_to_qimage(result.rgba)))
        if result.slice_count > 1:
            self.image.setToolTip(f"Slice {result.slice_index + 1} of {result.slice_count}")

    def _on_failed(self, generation: int, message: str) -> None:
        if generation == self._generation:
            self.image.setText(f"Image not shown: {message}")

    def _review(self) -> None:
        if self.item is not None:
            self.open_item.emit(self.item.id)
