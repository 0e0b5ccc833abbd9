"""A pane's field for a declared option (:class:`medrcube_desktop.core.options.Option`):
its range, default and help (with the command's flag) come from the row, as the
command's flag does, never typed again by the pane."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QDoubleSpinBox, QSpinBox

from medrcube_desktop.core.options import Option

INT_MAX = 2**31 - 1
"""Largest value a ``QSpinBox`` holds (a C int): an integer option whose range goes past
it (a seed's, up to 2**32 − 1) gets a :class:`WideIntBox` instead."""

EXACT_MAX = 2**53
"""Whole numbers a :class:`WideIntBox` (a double) holds exactly: up to this."""

FIELD_MAX = 1_000_000
"""Largest value of a whole-number field whose option has no maximum."""


class WideIntBox(QDoubleSpinBox):
    """A whole-number spin box for a range past a ``QSpinBox``'s C int (a seed's 0 to
    2**32 − 1): a ``QDoubleSpinBox`` with no decimals, exact up to :data:`EXACT_MAX`,
    whose :meth:`value`, :meth:`minimum` and :meth:`maximum` are ``int``.

    Chosen over a ``QLineEdit`` with a validator: ``QIntValidator`` is a C int as well,
    and a spin box keeps the arrows, the clamping to the range, the keyboard steps and
    the ``value()``/``setValue()`` the panes call on every number field."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setDecimals(0)
        self.setSingleStep(1)
        self.setGroupSeparatorShown(False)  # a seed is typed and copied as digits

    def value(self) -> int:  # type: ignore[override]
        """The whole number shown."""
        return int(round(super().value()))

    def minimum(self) -> int:  # type: ignore[override]
        """The lowest value, a whole number."""
        return int(super().minimum())

    def maximum(self) -> int:  # type: ignore[override]
        """The highest value, a whole number."""
        return int(super().maximum())


def option_range(option: Option) -> tuple[float, float]:
    """The (lowest, highest) value of ``option``'s field: the option's range, an open
    end cut to :data:`FIELD_MAX` (a whole number's range is the option's in full, up to
    :data:`EXACT_MAX`: :func:`option_box` gives a :class:`WideIntBox` past a C int)."""
    low = 0 if option.minimum is None else option.minimum
    high = FIELD_MAX if option.maximum is None else option.maximum
    if option.type is int:
        return max(int(low), -EXACT_MAX), min(int(high), EXACT_MAX)
    return float(low), float(high)


def option_box(option: Option) -> QSpinBox | QDoubleSpinBox:
    """A spin box for the ``int`` or ``float`` ``option``: its range
    (:func:`option_range`), its default, and its help and flag as the tooltip; the
    object name is ``option_<name>``. An ``int`` option whose range goes past a C int
    (:data:`INT_MAX`; every seed) gets a :class:`WideIntBox`, so the pane takes what the
    command's flag takes.

    Raises
    ------
    TypeError
        ``option`` is neither ``int`` nor ``float``.
    """
    low, high = option_range(option)
    if option.type is int and max(abs(low), abs(high)) > INT_MAX:
        box: QSpinBox | QDoubleSpinBox = WideIntBox()
    elif option.type is int:
        box = QSpinBox()
    elif option.type is float:
        box = QDoubleSpinBox()
    else:
        raise TypeError(f"option {option.name!r} is {option.type.__name__}: no spin box for it")
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
