"""Review › Propose correction…: one proposal for the item on screen (issue 23, item 1).

The reviewer picks the kind (the answer key, an option's text, the question text, the
bounding box, the mask, or retiring the item), the rubric rule it answers (1.1–2.3) and
a reason (required); each kind's page shows the current value beside the proposed one.
The box and mask are edited on the image (:mod:`.box_editor`, :mod:`.mask_editor`),
whose slice is read off the GUI thread. Submitting hands the proposal to ``save`` (the
window's: it stores it at once, off the GUI thread); the dialog closes once it is stored
and stays open, every field kept, with the error when it is not.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

from PySide6.QtCore import QObject, QRunnable, Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGridLayout,
    QLabel,
    QPlainTextEdit,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from medrcube_desktop.core.items import Item
from medrcube_desktop.core.rubric import load_rubric
from medrcube_desktop.imaging.brush import labels_npy
from medrcube_desktop.imaging.edit_slice import EditSlice
from medrcube_desktop.review.corrections import (
    ANSWER_KEY,
    BBOX,
    KINDS,
    MASK,
    OPTION_TEXT,
    QUESTION_TEXT,
    RETIRE,
    Proposal,
)
from medrcube_desktop.ui.corrections.box_editor import BoxEditor
from medrcube_desktop.ui.corrections.mask_editor import MaskEditor
from medrcube_desktop.ui.widgets.render_task import render_pool
from medrcube_desktop.ui.widgets.screen import fit_to_screen
from medrcube_desktop.ui.widgets.text import esc
from medrcube_desktop.ui.widgets.themes import error_colour

KIND_TITLES: dict[str, str] = {
    ANSWER_KEY: "Answer key: another option is correct",
    OPTION_TEXT: "Option text",
    QUESTION_TEXT: "Question text",
    BBOX: "Bounding box (drag its corners)",
    MASK: "Mask (paint this slice)",
    RETIRE: "Retire the item (leave it out of the release)",
}
"""What the kind box says for each of :data:`~medrcube_desktop.review.corrections.KINDS`."""

TEXT_BOX_HEIGHT = 110
"""Height of the current and proposed option text boxes (px; the question's: twice)."""

Saver = Callable[[Proposal, Callable[[Proposal], None], Callable[[str], None]], None]
"""``save(proposal, done, failed)``: store it (off the GUI thread), then call
``done(stored)`` or ``failed(message)`` on the GUI thread."""


class ProposalInputError(ValueError):
    """What the dialog's fields lack, naming the item and the field."""


class SliceSignals(QObject):
    """``done(EditSlice)`` or ``failed(message)``."""

    done = Signal(object)
    failed = Signal(str)


class SliceTask(QRunnable):
    """Reads the editors' slice off the GUI thread (``load()``); touches no widget."""

    def __init__(self, load: Callable[[], EditSlice]) -> None:
        super().__init__()
        self.load = load
        self.signals = SliceSignals()

    def run(self) -> None:
        try:
            edit = self.load()
        except Exception as exc:  # noqa: BLE001 - shown in the dialog, naming the file
            with contextlib.suppress(RuntimeError):  # the dialog closed meanwhile
                self.signals.failed.emit(str(exc))
            return
        with contextlib.suppress(RuntimeError):
            self.signals.done.emit(edit)


class ProposeDialog(QDialog):
    """The proposal form for ``item`` by ``author``.

    ``load_slice()`` reads the slice the review window shows (for the box and mask
    pages; run on the render pool); ``save`` stores a proposal (see :data:`Saver`).
    ``submitted(proposal)`` once it is stored (the dialog then closes).
    """

    submitted = Signal(object)

    def __init__(
        self,
        parent: QWidget | None,
        item: Item,
        author: str,
        load_slice: Callable[[], EditSlice],
        save: Saver,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Propose a correction — {item.id}")
        self.item, self.author = item, author
        self._load_slice, self._save = load_slice, save
        self.edit: EditSlice | None = None
        self._loading: SliceTask | None = None
        self.saving = False
        heading = QLabel(
            f"<b>{esc(item.id)}</b> · {esc(item.task.name)} · {esc(item.modality)} · "
            f"{esc(item.dataset)}<br>{esc(item.question)}"
        )
        heading.setWordWrap(True)
        self.kind = QComboBox()
        self.kind.setObjectName("proposalKind")
        for kind in KINDS:
            self.kind.addItem(KIND_TITLES[kind], kind)
        self.rule = QComboBox()
        self.rule.setObjectName("proposalRule")
        self.rule.addItem("— choose the rule it answers —", "")
        for rule in load_rubric().rules:
            self.rule.addItem(rule.label, rule.id)
        self.pages = QStackedWidget()
        self._build_pages()
        self.kind.currentIndexChanged.connect(self._kind_changed)
        self.reason = QPlainTextEdit()
        self.reason.setObjectName("proposalReason")
        self.reason.setPlaceholderText("Why (required): what is wrong, and the evidence.")
        self.reason.setFixedHeight(64)
        self.message = QLabel()
        self.message.setObjectName("proposalMessage")
        self.message.setWordWrap(True)
        self.message.setTextFormat(Qt.TextFormat.RichText)  # values escaped
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.submit_button = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.submit_button.setText("&Submit proposal")
        self.buttons.accepted.connect(self.submit)
        self.buttons.rejected.connect(self.reject)
        form = QFormLayout()
        form.addRow("&Kind", self.kind)
        form.addRow("&Rule", self.rule)
        layout = QVBoxLayout(self)
        layout.addWidget(heading)
        layout.addLayout(form)
        layout.addWidget(self.pages, 1)
        layout.addWidget(QLabel("Reason"))
        layout.addWidget(self.reason)
        layout.addWidget(self.message)
        layout.addWidget(self.buttons)
        fit_to_screen(self, 900, 720)

    # -- the pages ------------------------------------------------------------
    def _build_pages(self) -> None:
        item = self.item
        self.answer = QComboBox()
        self.answer.setObjectName("proposedAnswer")
        for letter, text in item.options.items():
            if letter != item.answer:
                self.answer.addItem(f"{letter}. {text}", letter)
        current = f"{item.answer}. {item.options.get(item.answer, '')}"
        self.letter = QComboBox()
        self.letter.setObjectName("optionLetter")
        for letter, text in item.options.items():
            mark = "  (the answer)" if letter == item.answer else ""
            self.letter.addItem(f"{letter}. {text}{mark}", letter)
        self.option_now = _read_only(item.options[self.letter.currentData()])
        self.option_text = QPlainTextEdit(item.options[self.letter.currentData()])
        self.option_text.setObjectName("proposedOption")
        for box in (self.option_now, self.option_text):
            box.setMaximumHeight(TEXT_BOX_HEIGHT)
        self.letter.currentIndexChanged.connect(self._letter_changed)
        self.question_text = QPlainTextEdit(item.question)
        self.question_text.setObjectName("proposedQuestion")
        self.question_now = _read_only(item.question)
        for box in (self.question_now, self.question_text):
            box.setMaximumHeight(2 * TEXT_BOX_HEIGHT)
        self.box_editor = BoxEditor()
        self.mask_editor = MaskEditor()
        self.image_message = QLabel()
        self.image_message.setWordWrap(True)
        self.image_message.setObjectName("editorMessage")
        pages = {
            ANSWER_KEY: _beside(
                ("Current answer", QLabel(current)), ("Proposed answer", self.answer)
            ),
            OPTION_TEXT: _beside(
                ("Option", self.letter),
                ("Current text", self.option_now),
                ("Proposed text", self.option_text),
            ),  # fmt: skip
            QUESTION_TEXT: _beside(
                ("Current question", self.question_now),
                ("Proposed question", self.question_text),
            ),
            BBOX: self.box_editor,
            MASK: self.mask_editor,
            RETIRE: _beside(
                (
                    "Retire",
                    QLabel(
                        "The item is left out of the release (its record, image and mask); "
                        "stored runs are rescored without it. Say why below."
                    ),
                )
            ),
        }
        self.page_of: dict[str, QWidget] = {}
        for kind in KINDS:
            self.page_of[kind] = pages[kind]
            self.pages.addWidget(pages[kind])
        self.waiting = QLabel("Reading the image…")
        self.waiting.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.pages.addWidget(self.waiting)

    def _letter_changed(self) -> None:
        text = self.item.options[self.letter.currentData()]
        self.option_now.setPlainText(text)
        self.option_text.setPlainText(text)

    def set_kind(self, kind: str) -> None:
        """Show ``kind``'s page (one of :data:`KINDS`)."""
        self.kind.setCurrentIndex(KINDS.index(kind))
        self._kind_changed()

    def _kind_changed(self) -> None:
        kind = self.kind.currentData()
        if kind in (BBOX, MASK) and self.edit is None:
            self.pages.setCurrentWidget(self.waiting)
            self._start_loading()
            return
        self.pages.setCurrentWidget(self.page_of[kind])
        if kind == MASK and self.edit is not None and self.edit.mask_editable:
            self._say(self.edit.mask_editable, error=True)

    def _start_loading(self) -> None:
        if self._loading is not None:
            return
        task = SliceTask(self._load_slice)
        task.signals.done.connect(self._slice_loaded)
        task.signals.failed.connect(self._slice_failed)
        self._loading = task
        render_pool().start(task, 1)

    def _slice_loaded(self, edit: EditSlice) -> None:
        self.edit = edit
        self.box_editor.set_slice(edit)
        self.mask_editor.set_slice(edit)
        self._kind_changed()

    def _slice_failed(self, message: str) -> None:
        self._loading = None  # choosing the kind again tries again
        self.waiting.setText(f"Cannot read the image of item {self.item.id}: {message}")
        self.waiting.setWordWrap(True)

    # -- the proposal -----------------------------------------------------------
    def change(self) -> tuple[dict, bytes | None]:
        """The chosen kind's ``change`` and, for a mask, the labels' ``.npy`` bytes.

        Raises
        ------
        ProposalInputError
            What is missing or unchanged, naming the item and the field.
        """
        kind, item = self.kind.currentData(), self.item
        where = f"item {item.id}"
        if kind == ANSWER_KEY:
            if self.answer.count() == 0:
                raise ProposalInputError(f"{where} field gt_answer: the item has no other option")
            return {"answer": self.answer.currentData()}, None
        if kind == OPTION_TEXT:
            letter, text = self.letter.currentData(), self.option_text.toPlainText().strip()
            if not text or text == item.options[letter].strip():
                raise ProposalInputError(
                    f"{where} field option_{letter}: write the proposed text (it is unchanged)"
                )
            return {"letter": letter, "text": text}, None
        if kind == QUESTION_TEXT:
            text = self.question_text.toPlainText().strip()
            if not text or text == item.question.strip():
                raise ProposalInputError(
                    f"{where} field question: write the proposed question (it is unchanged)"
                )
            return {"text": text}, None
        if kind in (BBOX, MASK) and self.edit is None:
            raise ProposalInputError(f"{where}: the image is not read yet")
        if kind == BBOX:
            box = self.box_editor.value()
            now = self.box_editor.view.edit.box
            if box is None or (now is not None and tuple(self.box_editor.view.box) == now):
                raise ProposalInputError(
                    f"{where} field bbox: drag a corner (the box is unchanged)"
                )
            return {"bbox": box}, None
        if kind == MASK:
            if self.edit.mask_editable:
                raise ProposalInputError(self.edit.mask_editable)
            if not self.mask_editor.changed_labels():
                raise ProposalInputError(
                    f"{where} field mask_path: paint or erase (the mask is unchanged)"
                )
            return self.edit.mask_change(), labels_npy(self.mask_editor.view.stored())
        return {}, None

    def proposal(self) -> Proposal:
        """The proposal the fields describe (the store fills uid, dates, the record).

        Raises
        ------
        ProposalInputError
            No rule, no reason, or the kind's change is missing (see :meth:`change`).
        """
        where = f"item {self.item.id}"
        rule = self.rule.currentData()
        if not rule:
            raise ProposalInputError(f"{where} field rule: choose the rule the proposal answers")
        reason = self.reason.toPlainText().strip()
        if not reason:
            raise ProposalInputError(f"{where} field reason: a reason is required")
        change, labels = self.change()
        return Proposal(
            item_id=self.item.id,
            kind=self.kind.currentData(),
            rule=rule,
            reason=reason,
            author=self.author,
            change=change,
            mask_labels=labels,
        )

    def submit(self) -> None:
        """Hand the proposal to ``save``; the dialog closes once it is stored."""
        if self.saving:
            return
        try:
            proposal = self.proposal()
        except ProposalInputError as exc:
            self._say(str(exc), error=True)
            return
        self.saving = True
        self.submit_button.setEnabled(False)
        self._say("Saving…")
        self._save(proposal, self._saved, self._failed)

    def _saved(self, stored: Proposal) -> None:
        self.saving = False
        self.submitted.emit(stored)
        self.accept()

    def _failed(self, message: str) -> None:
        self.saving = False
        self.submit_button.setEnabled(True)
        self._say(f"Not saved: {message}", error=True)

    def _say(self, text: str, error: bool = False) -> None:
        colour = f" style='color:{error_colour()}'" if error else ""
        self.message.setText(f"<span{colour}>{esc(text)}</span>")

    def reject(self) -> None:
        """Cancel (Esc): nothing is stored. Not while a save is under way."""
        if not self.saving:
            super().reject()


def _read_only(text: str) -> QPlainTextEdit:
    box = QPlainTextEdit(text)
    box.setReadOnly(True)
    return box


def _beside(*rows: tuple[str, QWidget]) -> QWidget:
    """A page of labelled rows (current beside proposed)."""
    page = QWidget()
    grid = QGridLayout(page)
    for row, (title, widget) in enumerate(rows):
        label = QLabel(title)
        label.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        grid.addWidget(label, row, 0)
        grid.addWidget(widget, row, 1)
        if isinstance(widget, QLabel):
            widget.setWordWrap(True)
            widget.setTextFormat(Qt.TextFormat.PlainText)
    grid.setColumnStretch(1, 1)
    grid.setRowStretch(len(rows), 1)
    return page
