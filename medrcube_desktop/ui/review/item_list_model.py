"""The item list as a Qt item model over the session's visible items.

The model holds no copy of the review state: each row's mark (✓ committed, ✎ draft, ⚑
flagged) is asked of ``mark_of(item_id)`` when the view paints it, and
:meth:`ItemListModel.refresh` tells the view that one row changed. Filling 7,600 rows is
one model reset, not 7,600 widget items.

The model is a :class:`QStringListModel` of empty strings whose :meth:`data` answers
from the items: its row count is then C++, and the list view, which asks it twice for
every row when it lays the list out (``QListView`` checks each row for hiding through
``index()``), lays 100,000 rows out in milliseconds instead of 0.3 s of calls into
Python. Only :meth:`data` and :meth:`flags` are Python, asked for the rows on screen.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from operator import attrgetter

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QStringListModel, Qt

from medrcube_desktop.core.items import Item
from medrcube_desktop.ui.widgets.text import esc

ITEM_ID_ROLE = Qt.ItemDataRole.UserRole
"""The item id of a row (``index.data(ITEM_ID_ROLE)``)."""

Index = QModelIndex | QPersistentModelIndex
_ROW_FLAGS = (
    Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemNeverHasChildren
)
_item_id = attrgetter("id")


def item_label(item: Item, mark: str, text_only: bool = False) -> str:
    """The text of one row: ``"✓  ct-1  Modality Recognition · CT"`` (``·`` unmarked),
    with ``" · text only"`` for an item whose image is not shipped."""
    label = f"{mark or '·'}  {item.id}  {item.task.name} · {item.modality}"
    return f"{label} · text only" if text_only else label


class ItemListModel(QStringListModel):
    """Rows: the visible items, in order. Display: mark, id, task, modality; tooltip: the
    question; :data:`ITEM_ID_ROLE`: the id.

    Parameters
    ----------
    mark_of : callable
        ``mark_of(item_id) -> str``: the row's mark now (``""``, ``"✓"``, ``"✎"``, with
        ``"⚑"`` added for a flagged item).
    """

    def __init__(
        self,
        mark_of: Callable[[str], str],
        parent=None,
        text_only: Callable[[str], bool] | None = None,
    ) -> None:
        super().__init__(parent)
        self.mark_of = mark_of
        self.text_only = text_only or (lambda _item_id: False)
        self._items: list[Item] = []
        self._rows: dict[str, int] = {}

    def set_items(self, items: Sequence[Item]) -> None:
        """Show these items (one reset of the model)."""
        self._items = list(items)
        self._rows = dict(zip(map(_item_id, self._items), range(len(self._items)), strict=True))
        self.setStringList([""] * len(self._items))  # the reset; the rows' texts are data()

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

    def flags(self, index: Index) -> Qt.ItemFlag:
        """Selectable rows, not editable (a string list's rows would be)."""
        return _ROW_FLAGS if index.isValid() else Qt.ItemFlag.NoItemFlags

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        """Display text, tooltip (the question) or the item id of a row."""
        if not index.isValid() or not 0 <= index.row() < len(self._items):
            return None
        item = self._items[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return item_label(item, self.mark_of(item.id), self.text_only(item.id))
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"<p>{esc(item.question)}</p>"  # rich, so a "<b>" in it shows as written
        if role == ITEM_ID_ROLE:
            return item.id
        return None
