"""An API key typed in a dialog goes to the OS keyring, never to the screen again; and
the endpoint a dialog used last is remembered.

The key is stored with the ``keyring`` API under :data:`~medrcube_desktop.llm.keys.
KEYRING_SERVICE` with the endpoint's host as user name, where
:func:`~medrcube_desktop.llm.keys.find_api_key` looks for it (after the environment
variables). The box is a password field, emptied once the key is stored; afterwards the
row only says where the key comes from ("key stored for api.openai.com").
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QSettings, Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget

from medrcube_desktop import settings
from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.llm.keys import (
    KEYRING_SERVICE,
    endpoint_host,
    endpoint_variable,
    find_api_key,
)
from medrcube_desktop.ui.widgets.text import esc

log = logging.getLogger(__name__)


def remembered(key: str) -> str:
    """A dialog's remembered value (``<config dir>/window.ini``), ``""`` when none."""
    value = _store().value(key)
    return value if isinstance(value, str) else ""


def remember(key: str, value: str) -> None:
    """Remember ``value`` under ``key`` (e.g. ``"judge/endpoint"``); never a key."""
    store = _store()
    store.setValue(key, value)
    store.sync()


def _store() -> QSettings:
    return QSettings(str(settings.config_dir() / "window.ini"), QSettings.Format.IniFormat)


class ApiKeyRow(QWidget):
    """Where the endpoint's key comes from, and a box to store one in the OS keyring.

    ``stored(host)`` after a key was stored. :meth:`set_endpoint` names the endpoint
    (``None``: OpenAI).
    """

    stored = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.base_url: str | None = None
        self.source = QLabel()
        self.source.setObjectName("keySource")
        self.source.setTextFormat(Qt.TextFormat.RichText)  # values in it are escaped
        self.source.setWordWrap(True)
        self.entry = QLineEdit()
        self.entry.setObjectName("apiKeyEntry")
        self.entry.setEchoMode(QLineEdit.EchoMode.Password)  # never shown
        self.entry.setPlaceholderText("paste a key to store it in the OS keyring")
        self.entry.returnPressed.connect(self.store_key)
        self.store_button = QPushButton("Store key")
        self.store_button.clicked.connect(self.store_key)
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.entry, 1)
        row.addWidget(self.store_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.source)
        layout.addLayout(row)
        self.set_endpoint(None)

    def set_endpoint(self, base_url: str | None) -> None:
        """Say where the key of ``base_url`` comes from now."""
        self.base_url = base_url or None
        self.refresh()

    def refresh(self, note: str = "") -> None:
        host = endpoint_host(self.base_url)
        try:
            _, source = find_api_key(self.base_url)
        except MedRCubeError:
            text = f"no key for {esc(host)} yet: paste one below (stored in the OS keyring)"
            self.source.setText(f"<span style='color:#b42318'>{text}</span>{note}")
            return
        if source == "none needed":
            self.source.setText("not needed for a server on this computer" + note)
        elif source == "keyring":
            self.source.setText(f"key stored for {esc(host)} (OS keyring; never shown){note}")
        else:
            self.source.setText(f"from {esc(source)} (never stored or shown){note}")

    def store_key(self) -> bool:
        """Store the typed key for the endpoint's host; the box is emptied either way."""
        key = self.entry.text().strip()
        self.entry.clear()
        if not key:
            return False
        host = endpoint_host(self.base_url)
        try:
            import keyring

            keyring.set_password(KEYRING_SERVICE, host, key)
        except Exception as exc:  # noqa: BLE001 - any backend failure: say so, keep nothing
            log.warning("could not store the key for %s in the OS keyring: %s", host, type(exc))
            self.refresh(
                f"<br><span style='color:#b42318'>The OS keyring could not store the key "
                f"({esc(type(exc).__name__)}): set the environment variable "
                f"{esc(endpoint_variable(self.base_url))} (or OPENAI_API_KEY) instead.</span>"
            )
            return False
        self.refresh()
        self.stored.emit(host)
        return True
