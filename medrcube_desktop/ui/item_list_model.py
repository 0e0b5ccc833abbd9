"""The item list as a Qt item model over the session's visible items.

The model holds no copy of the review state: each row's mark (✓ committed, ✎ draft, ⚑
flagged) is asked of ``mark_of(item_id)`` when the view paints it, and
:meth:`ItemListModel.refresh` tells the view that one row changed. Filling 7,600 rows is
one model reset, not 7,600 widget items.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import QAbstractListModel, QModelIndex, QPersistentModelIndex, Qt

from medrcube_desktop.core.items import Item
from medrcube_desktop.ui.text import esc

ITEM_ID_ROLE = Qt.ItemDataRole.UserRole
"""The item id of a row (``index.data(ITEM_ID_ROLE)``)."""

Index = QModelIndex | QPersistentModelIndex


def item_label(item: Item, mark: str) -> str:
    """The text of one row: ``"✓  ct-1  Modality Recognition · CT"`` (``·`` unmarked)."""
    return f"{mark or '·'}  {item.id}  {item.task.name} · {item.modality}"


class ItemListModel(QAbstractListModel):
    """Rows: the visible items, in order. Display: mark, id, task, modality; tooltip: the
    question; :data:`ITEM_ID_ROLE`: the id.

    Parameters
    ----------
    mark_of : callable
        ``mark_of(item_id) -> str``: the row's mark now (``""``, ``"✓"``, ``"✎"``, with
        ``"⚑"`` added for a flagged item).
    """

    def __init__(self, mark_of: Callable[[str], str], parent=None) -> None:
        super().__init__(parent)
        self.mark_of = mark_of
        self._items: list[Item] = []
        self._rows: dict[str, int] = {}

    def set_items(self, items: Sequence[Item]) -> None:
        """Show these items (one reset of the model)."""
        self.beginResetModel()
        self._items = list(items)
        self._rows = {item.id: row for row, item in enumerate(self._items)}
        self.endResetModel()

    def row_of(self, item_id: str) -> int | None:
        """The row of an item, or None when it is not listed."""
        return self._rows.get(item_id)

    def refresh(self, item_id: str) -> None:
        """The mark of one item may have changed: repaint its row."""
        row = self._rows.get(item_id)
        if row is not None:
            index = self.index(row, 0)
            self.dataChanged.emit(index, index, [Qt.ItemDataRole.DisplayRole])

    def text(self, row: int) -> str:
        """The display text of a row (tests, accessibility)."""
        return str(self.data(self.index(row, 0)))

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008, N802 (Qt API)
        """Number of listed items (a list has no children)."""
        return 0 if parent.isValid() else len(self._items)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        """Display text, tooltip (the question) or the item id of a row."""
        if not index.isValid() or not 0 <= index.row() < len(self._items):
            return None
        item = self._items[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return item_label(item, self.mark_of(item.id))
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"<p>{esc(item.question)}</p>"  # rich, so a "<b>" in it shows as written
        if role == ITEM_ID_ROLE:
            return item.id
        return None
