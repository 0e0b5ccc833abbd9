"""The side panes: item list with filters, the question with its options (the rubric is in
``rubric_pane``)."""

from __future__ import annotations

from html import escape

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QVBoxLayout,
    QWidget,
)

from medrcube_desktop.core.items import Item
from medrcube_desktop.core.taxonomy import task_by_abbreviation
from medrcube_desktop.review.queues import (
    ALL,
    ORDER_BENCHMARK,
    ORDER_RANDOM,
    STATUS_CHOICES,
    ItemFilter,
)

ITEM_ID_ROLE = Qt.ItemDataRole.UserRole


class SearchEdit(QLineEdit):
    """The search box: Enter hands the keys back to the review (``returnPressed``)
    instead of committing the current item."""

    def event(self, event) -> bool:  # noqa: D401 (Qt override)
        if event.type() == QEvent.Type.ShortcutOverride and event.key() in (
            Qt.Key.Key_Return,
            Qt.Key.Key_Enter,
        ):
            event.accept()  # claim Enter before the window's "commit" shortcut
            return True
        return super().event(event)


class ItemListPane(QWidget):
    """Queue filters (task, modality, region, dataset, status, search, order) above the
    list of items."""

    filter_changed = Signal(object)  # ItemFilter
    item_chosen = Signal(str)  # item id

    def __init__(self, choices: dict[str, list[str]], parent=None) -> None:
        super().__init__(parent)
        form = QFormLayout()
        self.combos: dict[str, QComboBox] = {}
        for key, title in (
            ("task", "&Task"),
            ("modality", "&Modality"),
            ("region", "&Region"),
            ("dataset", "&Dataset"),
        ):
            combo = QComboBox()
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
        self.list = QListWidget()
        self.list.setObjectName("itemList")
        self.list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.currentItemChanged.connect(self._on_current)
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
        return ItemFilter(**values, text=self.search.text())

    def _emit_filter(self) -> None:
        self.filter_changed.emit(self.current_filter())

    def set_items(self, items: list[Item], states: dict[str, str], current_id: str | None) -> None:
        """Fill the list without emitting ``item_chosen``; keep ``current_id`` selected.

        ``states`` maps item ids to a mark: ``"✓"`` committed, ``"✎"`` a draft, with
        ``"⚑"`` added for a flagged item.
        """
        self.list.blockSignals(True)
        self.list.clear()
        for item in items:
            entry = QListWidgetItem(self._label(item, states.get(item.id, "")))
            entry.setData(ITEM_ID_ROLE, item.id)
            entry.setToolTip(item.question)
            self.list.addItem(entry)
            if item.id == current_id:
                self.list.setCurrentItem(entry)
        self.list.blockSignals(False)
        self.count_label.setText(f"{len(items)} items shown")
        self.count_label.setToolTip("✓ committed · ✎ draft saved, not committed · ⚑ flagged")

    def set_mark(self, item: Item, mark: str) -> None:
        """Show ``mark`` (see :meth:`set_items`) in front of one item."""
        for row in range(self.list.count()):
            entry = self.list.item(row)
            if entry.data(ITEM_ID_ROLE) == item.id:
                entry.setText(self._label(item, mark))

    def select(self, item_id: str) -> None:
        """Highlight one item without emitting ``item_chosen``."""
        for row in range(self.list.count()):
            if self.list.item(row).data(ITEM_ID_ROLE) == item_id:
                self.list.blockSignals(True)
                self.list.setCurrentRow(row)
                self.list.blockSignals(False)
                self.list.scrollToItem(self.list.item(row))
                return

    @staticmethod
    def _label(item: Item, mark: str) -> str:
        return f"{mark or '·'}  {item.id}  {item.task.name} · {item.modality}"

    def _on_current(self, entry: QListWidgetItem | None, _previous) -> None:
        if entry is not None:
            self.item_chosen.emit(entry.data(ITEM_ID_ROLE))


class ItemPane(QWidget):
    """The question, options A–D with the ground truth marked, and the item's facts."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.meta = QLabel()
        self.meta.setObjectName("itemMeta")
        self.meta.setWordWrap(True)
        self.source = QLabel()
        self.source.setObjectName("sourceFact")
        self.source.setWordWrap(True)
        self.source.setProperty("muted", True)
        self.question = QLabel()
        self.question.setObjectName("question")
        self.question.setWordWrap(True)
        self.question.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.options = QLabel()
        self.options.setObjectName("options")
        self.options.setWordWrap(True)
        self.options.setTextFormat(Qt.TextFormat.RichText)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for widget in (self.meta, self.question, self.options, self.source):
            layout.addWidget(widget)

    def show_item(self, item: Item) -> None:
        """Show an item's facts, question, options (ground truth marked) and source."""
        self.meta.setText(
            f"<b>{escape(item.id)}</b> · {escape(item.task.name)} ({item.task.abbreviation}, "
            f"{item.task.level.value} level) · {escape(item.modality)} · {escape(item.region)} · {escape(item.dataset)}"
        )
        self.question.setText(item.question)
        dark = QApplication.palette().window().color().lightness() < 128
        green = "#3fb950" if dark else "#1a7f37"  # readable on the theme's background
        rows = []
        for letter, text in item.options.items():
            if letter == item.answer:
                rows.append(
                    f"<p><b style='color:{green}'>{letter}. {escape(text)}  ✔ ground truth</b></p>"
                )
            else:
                rows.append(f"<p>{letter}. {escape(text)}</p>")
        self.options.setText("".join(rows))
        fact = item.extra.get("source_fact")
        self.source.setText(f"Ground truth source: {fact}" if isinstance(fact, str) else "")
        self.source.setVisible(isinstance(fact, str))

    def show_nothing(self, message: str) -> None:
        """No current item: show why instead."""
        self.meta.setText(message)
        for label in (self.question, self.options, self.source):
            label.setText("")
