"""A pane's field for a declared option (:class:`medrcube_desktop.core.options.Option`):
its range, default and help (with the command's flag) come from the row, as the
command's flag does, never typed again by the pane."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QDoubleSpinBox, QSpinBox

from medrcube_desktop.core.options import Option

INT_MAX = 2**31 - 1
"""Largest value a ``QSpinBox`` holds (a C int): a wider range (a seed's, up to 2**32 − 1)
is cut to it."""

FIELD_MAX = 1_000_000
"""Largest value of a whole-number field whose option has no maximum."""


def option_range(option: Option) -> tuple[float, float]:
    """The (lowest, highest) value of ``option``'s field: the option's range, an open end
    and the spin box's own limit cut to :data:`FIELD_MAX` and :data:`INT_MAX`."""
    low = 0 if option.minimum is None else option.minimum
    high = FIELD_MAX if option.maximum is None else option.maximum
    if option.type is int:
        return max(int(low), -INT_MAX), min(int(high), INT_MAX)
    return float(low), float(high)


def option_box(option: Option) -> QSpinBox | QDoubleSpinBox:
    """A spin box for the ``int`` or ``float`` ``option``: its range
    (:func:`option_range`), its default, and its help and flag as the tooltip; the
    object name is ``option_<name>``.

    Raises
    ------
    TypeError
        ``option`` is neither ``int`` nor ``float``.
    """
    if option.type is int:
        box: QSpinBox | QDoubleSpinBox = QSpinBox()
    elif option.type is float:
        box = QDoubleSpinBox()
    else:
        raise TypeError(f"option {option.name!r} is {option.type.__name__}: no spin box for it")
    low, high = option_range(option)
    box.setRange(low, high)  # type: ignore[arg-type]
    box.setValue(option.default)  # type: ignore[arg-type]
    box.setObjectName(f"option_{option.name}")
    flag = f" (the command's {option.flag})" if option.flag else ""
    box.setToolTip(option.help_text() + flag)
    return box


def option_choice(option: Option, words: dict[str, str] | None = None) -> QComboBox:
    """A combo box of ``option``'s choices (each choice its item's data; ``words``: a
    choice's tooltip), on its default, with its help and flag as the tooltip; the object
    name is ``option_<name>``.

    Raises
    ------
    TypeError
        ``option`` has no choices.
    """
    if not option.choices:
        raise TypeError(f"option {option.name!r} has no choices: no combo box for it")
    box = QComboBox()
    for n, choice in enumerate(option.choices):
        box.addItem(choice, choice)
        if words and choice in words:
            box.setItemData(n, words[choice], Qt.ItemDataRole.ToolTipRole)
    box.setCurrentIndex(max(0, box.findData(option.default)))
    box.setObjectName(f"option_{option.name}")
    flag = f" (the command's {option.flag})" if option.flag else ""
    box.setToolTip(option.help_text() + flag)
    return box
