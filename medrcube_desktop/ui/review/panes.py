"""The side panes: item list with filters, the question with its options (the rubric is in
``rubric_pane``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import QItemSelectionModel, QModelIndex, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QListView,
    QVBoxLayout,
    QWidget,
)

from medrcube_desktop.core.items import Item, overlay_drawn_in
from medrcube_desktop.core.taxonomy import task_by_abbreviation
from medrcube_desktop.review.queues import (
    ALL,
    ORDER_BENCHMARK,
    ORDER_RANDOM,
    STATUS_CHOICES,
    ItemFilter,
)
from medrcube_desktop.ui.review.item_list_model import ITEM_ID_ROLE, ItemListModel
from medrcube_desktop.ui.widgets.text import esc
from medrcube_desktop.ui.widgets.themes import ground_truth_colour

__all__ = ["ITEM_ID_ROLE", "ItemListPane", "ItemPane", "SearchEdit"]


class SearchEdit(QLineEdit):
    """The search box: Enter hands the keys back to the review (``returnPressed``)
    instead of committing the current item (every single key typed here is the box's:
    ``ui/widgets/text_keys.py``)."""


FILTER_CHARACTERS = 14
"""A filter box is at least this many characters wide (its popup shows whole names)."""


def _narrow(combo: QComboBox) -> None:
    """Let ``combo`` be narrower than its longest entry (a task's full name), so the
    list pane fits a small window; its tooltip gives the chosen entry in full."""
    combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    combo.setMinimumContentsLength(FILTER_CHARACTERS)
    combo.currentTextChanged.connect(combo.setToolTip)
    combo.setToolTip(combo.currentText())


class ItemListPane(QWidget):
    """Queue filters (task, modality, region, dataset, status, search, order) above the
    list of items (a :class:`QListView` over an :class:`ItemListModel`).

    ``mark_of(item_id)`` gives each row's mark when it is painted.
    """

    filter_changed = Signal(object)  # ItemFilter
    item_chosen = Signal(str)  # item id

    def __init__(
        self,
        choices: dict[str, list[str]],
        mark_of: Callable[[str], str],
        parent=None,
        text_only: Callable[[str], bool] | None = None,
        restricted: int = 0,
    ) -> None:
        super().__init__(parent)
        form = QFormLayout()
        self.combos: dict[str, QComboBox] = {}
        for key, title in (
            ("task", "&Task"),
            ("modality", "&Modality"),
            ("region", "&Region"),
            ("dataset", "&Dataset"),
            ("original_task", "Ori&ginal task"),
        ):
            if key == "original_task" and not choices.get(key):
                continue  # the release's field; a benchmark without it has no such filter
            combo = QComboBox()
            combo.setObjectName(f"{key}Filter")
            combo.addItem("All", ALL)
            for value in choices.get(key, []):
                label = f"{value} — {task_by_abbreviation(value).name}" if key == "task" else value
                combo.addItem(label, value)
            combo.currentIndexChanged.connect(self._emit_filter)
            self.combos[key] = combo
            form.addRow(title, combo)
        status = QComboBox()
        status.setObjectName("queue")
        for value, title in STATUS_CHOICES:
            status.addItem(title, value)
        status.currentIndexChanged.connect(self._emit_filter)
        self.combos["status"] = status
        form.addRow("&Queue", status)
        study = QComboBox()
        study.setObjectName("studyFilter")
        self.combos["study"] = study
        self.set_studies(choices.get("study", []))
        study.currentIndexChanged.connect(self._emit_filter)
        form.addRow("S&tudy", study)
        order = QComboBox()
        order.addItem("Benchmark order", ORDER_BENCHMARK)
        order.addItem("Random order (fixed per reviewer)", ORDER_RANDOM)
        order.currentIndexChanged.connect(self._emit_filter)
        self.combos["order"] = order
        form.addRow("&Order", order)
        self.search = SearchEdit()
        self.search.setObjectName("search")
        self.search.setPlaceholderText("Search question and options (Ctrl+F)")
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(self._emit_filter)
        form.addRow("Searc&h", self.search)
        self.include_restricted = QCheckBox(
            f"Include restricted items (text only, {restricted:,})"
        )  # the release ships them without their image
        self.include_restricted.setObjectName("includeRestricted")
        self.include_restricted.setToolTip(
            "Items whose image the release may not redistribute: review their text; "
            "the image area says where to obtain the picture"
        )
        self.include_restricted.setVisible(restricted > 0)
        self.include_restricted.toggled.connect(self._emit_filter)
        form.addRow(self.include_restricted)
        for combo in self.combos.values():  # long names elide; the popup shows them whole
            _narrow(combo)
        self.model = ItemListModel(mark_of, self, text_only=text_only)
        self.list = QListView()
        self.list.setObjectName("itemList")
        self.list.setModel(self.model)
        self.list.setUniformItemSizes(True)  # 7,600 rows lay out at once
        self.list.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.selectionModel().currentChanged.connect(self._on_current)
        self._quiet = False  # True while the window moves the selection itself
        self.count_label = QLabel()
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.count_label)
        layout.addWidget(self.list, 1)

    def set_studies(self, names: list[str]) -> None:
        """Offer these agreement studies in the Study filter (keeping the choice)."""
        combo = self.combos["study"]
        chosen = combo.currentData()
        combo.blockSignals(True)
        combo.clear()
        combo.addItem("All items", ALL)
        for name in names:
            combo.addItem(name, name)
        combo.setCurrentIndex(max(0, combo.findData(chosen)))
        combo.blockSignals(False)

    def current_filter(self) -> ItemFilter:
        """The filter the combo boxes describe now."""
        values = {key: combo.currentData() for key, combo in self.combos.items()}
        return ItemFilter(
            **values,
            text=self.search.text(),
            include_restricted=self.include_restricted.isChecked(),
        )

    def _emit_filter(self) -> None:
        self.filter_changed.emit(self.current_filter())

    def set_items(
        self,
        items: Sequence[Item],
        current_id: str | None,
        left_out: int = 0,
        computing: bool = False,
    ) -> None:
        """List ``items`` without emitting ``item_chosen``; keep ``current_id`` selected.

        Marks (``"✓"`` committed, ``"✎"`` a draft, ``"⚑"`` added when flagged) come
        from ``mark_of`` as rows are painted. ``left_out``: items of the benchmark left
        out for a file problem (said on the count line). ``computing``: the queue waits
        for the image-necessity evidence (said on the count line).
        """
        self._quiet = True
        try:
            self.model.set_items(items)
            row = self.model.row_of(current_id) if current_id is not None else None
            if row is not None:
                self.list.setCurrentIndex(self.model.index(row, 0))
        finally:
            self._quiet = False
        text = f"{len(items):,} item{'' if len(items) == 1 else 's'} shown"
        if left_out:
            text += f" · {left_out:,} left out for file problems"
        if computing:
            text = "Computing the image-necessity evidence…"
        self.count_label.setText(text)
        self.count_label.setToolTip("✓ committed · ✎ draft saved, not committed · ⚑ flagged")

    def refresh_mark(self, item_id: str) -> None:
        """The mark of one item may have changed (see :meth:`set_items`)."""
        self.model.refresh(item_id)

    def count(self) -> int:
        """Number of items listed."""
        return self.model.rowCount()

    def row_text(self, row: int) -> str:
        """The text of one row, mark first."""
        return self.model.text(row)

    def select(self, item_id: str) -> None:
        """Highlight one item without emitting ``item_chosen``."""
        row = self.model.row_of(item_id)
        if row is None:
            return
        index = self.model.index(row, 0)
        self._quiet = True
        try:
            self.list.selectionModel().setCurrentIndex(
                index, QItemSelectionModel.SelectionFlag.ClearAndSelect
            )
        finally:
            self._quiet = False
        self.list.scrollTo(index)

    def _on_current(self, index: QModelIndex, _previous: QModelIndex) -> None:
        if not self._quiet and index.isValid():
            self.item_chosen.emit(index.data(ITEM_ID_ROLE))


class ItemPane(QWidget):
    """The question, options A–D with the ground truth marked, and the item's facts.

    Under the question, a line counts the item's proposed corrections
    (:meth:`show_proposals`); clicking it emits ``proposals_clicked``.
    """

    proposals_clicked = Signal()

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.proposals = QLabel()
        self.proposals.setObjectName("itemProposals")
        self.proposals.setTextFormat(Qt.TextFormat.RichText)  # the count only, escaped
        self.proposals.setWordWrap(True)
        self.proposals.linkActivated.connect(lambda _link: self.proposals_clicked.emit())
        self.proposals.setVisible(False)
        self.meta = QLabel()
        self.meta.setObjectName("itemMeta")
        self.meta.setWordWrap(True)
        self.source = QLabel()
        self.source.setObjectName("sourceFact")
        self.source.setWordWrap(True)
        self.source.setProperty("muted", True)
        self.source.setTextFormat(Qt.TextFormat.PlainText)
        self.drawn_note = QLabel()
        self.drawn_note.setObjectName("overlayDrawnIn")
        self.drawn_note.setWordWrap(True)
        self.drawn_note.setProperty("muted", True)
        self.drawn_note.setTextFormat(Qt.TextFormat.PlainText)
        self.question = QLabel()
        self.question.setObjectName("question")
        self.question.setTextFormat(Qt.TextFormat.PlainText)  # benchmark text: never markup
        self.question.setWordWrap(True)
        self.question.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.options = QLabel()
        self.options.setObjectName("options")
        self.options.setWordWrap(True)
        self.options.setTextFormat(Qt.TextFormat.RichText)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for widget in (
            self.meta, self.question, self.proposals, self.options, self.source, self.drawn_note,
        ):  # fmt: skip
            layout.addWidget(widget)

    def show_proposals(self, text: str) -> None:
        """The line under the question ("2 open proposals"), a link to the queue; ``""``
        hides it."""
        self.proposals.setText(
            f"<a href='proposals'>{esc(text)}</a> (Review › Proposals…)" if text else ""
        )
        self.proposals.setVisible(bool(text))

    def show_item(self, item: Item) -> None:
        """Show an item's facts, question, options (ground truth marked) and source."""
        self.meta.setText(
            f"<b>{esc(item.id)}</b> · {esc(item.task.name)} ({esc(item.task.abbreviation)}, "
            f"{item.task.level.value} level) · {esc(item.modality)} · {esc(item.region)} · {esc(item.dataset)}"
            + (f"<br>Original task: {esc(item.original_task)}" if item.original_task else "")
            + (" · image not redistributed (restricted)" if item.restricted else "")
        )
        self.question.setText(item.question)
        green = ground_truth_colour()  # 4.5:1 or more on the theme's background
        rows = []
        for letter, text in item.options.items():
            if letter == item.answer:
                rows.append(
                    f"<p><b style='color:{green}'>{esc(letter)}. {esc(text)}  ✔ ground truth</b></p>"
                )
            else:
                rows.append(f"<p>{esc(letter)}. {esc(text)}</p>")
        self.options.setText("".join(rows))
        fact = item.extra.get("source_fact")
        self.source.setText(f"Ground truth source: {fact}" if isinstance(fact, str) else "")
        self.source.setVisible(isinstance(fact, str))
        drawn = overlay_drawn_in(item)
        self.drawn_note.setText(
            "The question speaks of a marked region, and the item has no mask or box: "
            "the overlay is probably drawn into the picture, where the overlay controls "
            "(M, O, [ ]) do not apply."
            if drawn
            else ""
        )
        self.drawn_note.setVisible(drawn)

    def show_nothing(self, message: str) -> None:
        """No current item: show why instead."""
        self.meta.setText(esc(message))
        for label in (self.question, self.options, self.source, self.drawn_note):
            label.setText("")
        self.show_proposals("")
