"""A short list of items behind a count ("unparsed 6", "2 failed"): double-click opens one
in the review window."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QLabel, QListWidget, QListWidgetItem, QVBoxLayout, QWidget


class LinkedItemsView(QWidget):
    """A title and the items behind a count; hidden until :meth:`show_items`.

    ``open_item(item_id)`` on a double-click.
    """

    open_item = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = QLabel()
        self.title.setObjectName("linkedItemsTitle")
        self.title.setTextFormat(Qt.TextFormat.PlainText)  # item ids and errors as written
        self.title.setWordWrap(True)
        self.list = QListWidget()
        self.list.setObjectName("linkedItems")
        self.list.setToolTip("Double-click to open the item in the review window")
        self.list.itemDoubleClicked.connect(self._open)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.title)
        layout.addWidget(self.list, 1)
        self.setVisible(False)

    def show_items(self, title: str, rows: list[tuple[str, str]]) -> None:
        """Show ``rows`` of (item id, what to say about it) under ``title``."""
        self.title.setText(f"{title}: {len(rows)} item{'' if len(rows) == 1 else 's'}. "
                           "Double-click opens one in the review window.")  # fmt: skip
        self.list.clear()
        for item_id, detail in rows:
            entry = QListWidgetItem(f"{item_id}: {detail}" if detail else item_id)
            entry.setData(Qt.ItemDataRole.UserRole, item_id)
            self.list.addItem(entry)
        self.setVisible(True)

    def item_ids(self) -> list[str]:
        """The ids listed (tests, accessibility)."""
        return [
            self.list.item(row).data(Qt.ItemDataRole.UserRole) for row in range(self.list.count())
        ]

    def _open(self, entry: QListWidgetItem) -> None:
        self.open_item.emit(entry.data(Qt.ItemDataRole.UserRole))
