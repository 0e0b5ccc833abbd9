"""Keys typed where text is written go to the text, never to a shortcut.

One application-wide event filter (installed by :func:`~medrcube_desktop.ui.actions.
install_actions`, so it covers every action of the table) claims each key typed without
Ctrl, Alt or Meta while the focus is in a widget that takes typed text (a line edit, a
text or plain-text edit, a spin box, an editable combo box, or any widget that accepts
input-method text). Qt then gives the key to that widget as a key press instead of
running the window's shortcut: typing "poor terminology" in the comment box or the
search box writes it and never scores (1-7, P), toggles (M, O, I) or measures (D).

Escape and the function keys (F1…) stay shortcuts everywhere: Esc leaves the comment
box, F1 shows the keys.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QLineEdit,
    QPlainTextEdit,
    QTextEdit,
    QWidget,
)

__all__ = ["TextKeysGuard", "guard_text_fields", "is_single_key", "takes_text"]

_TYPING_MODIFIERS = Qt.KeyboardModifier.ShiftModifier | Qt.KeyboardModifier.KeypadModifier
_KEYS_OF_THE_WINDOW = {Qt.Key.Key_Escape, *(getattr(Qt.Key, f"Key_F{n}") for n in range(1, 36))}


def takes_text(widget: QWidget | None) -> bool:
    """Whether ``widget`` (the focus widget) writes the keys typed into it.

    True for an editable ``QLineEdit``, ``QTextEdit`` or ``QPlainTextEdit``, a
    ``QAbstractSpinBox`` that is not read-only, an editable ``QComboBox``, and any other
    widget with ``Qt.WA_InputMethodEnabled`` (Qt sets it on every widget that accepts
    typed text, and clears it on read-only ones). False for None, buttons, lists, the
    image view and non-editable combo boxes (their keys stay shortcuts).
    """
    if widget is None:
        return False
    if isinstance(widget, (QLineEdit, QAbstractSpinBox)):
        return not widget.isReadOnly()
    if isinstance(widget, (QTextEdit, QPlainTextEdit)):
        return not widget.isReadOnly()
    if isinstance(widget, QComboBox):
        return widget.isEditable()
    return widget.testAttribute(Qt.WidgetAttribute.WA_InputMethodEnabled)


def is_single_key(event: QKeyEvent) -> bool:
    """Whether ``event`` is a key typed without Ctrl, Alt or Meta (Shift and the keypad
    are part of typing), other than Escape and F1…F35."""
    modifiers = event.modifiers() & ~_TYPING_MODIFIERS
    return modifiers == Qt.KeyboardModifier.NoModifier and event.key() not in _KEYS_OF_THE_WINDOW


class TextKeysGuard(QObject):
    """The application's event filter that keeps single keys in text fields.

    It accepts the ``ShortcutOverride`` event of every single key (:func:`is_single_key`)
    typed while :func:`takes_text` holds for the focus widget; Qt then delivers the key
    to that widget and runs no shortcut. Every other event passes untouched.
    """

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 (Qt override)
        """Claim a single key for the text field that has the focus."""
        if (
            event.type() == QEvent.Type.ShortcutOverride
            and is_single_key(event)
            and takes_text(QApplication.focusWidget())
        ):
            event.accept()
            return True
        return False


def guard_text_fields() -> TextKeysGuard:
    """Install the one :class:`TextKeysGuard` on the running ``QApplication`` (once; a
    second call returns the installed one).

    Raises
    ------
    RuntimeError
        No ``QApplication`` exists yet.
    """
    app = QApplication.instance()
    if app is None:
        raise RuntimeError("guard_text_fields needs a QApplication")
    guard = app.findChild(TextKeysGuard, "textKeysGuard")
    if guard is None:
        guard = TextKeysGuard(app)
        guard.setObjectName("textKeysGuard")
        app.installEventFilter(guard)
    return guard
