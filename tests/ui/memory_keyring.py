"""A keyring backend that keeps passwords in a dict, so no test touches the OS keyring."""

from __future__ import annotations

import contextlib

import keyring
from keyring.backend import KeyringBackend


class MemoryKeyring(KeyringBackend):
    """Passwords in ``self.passwords[(service, user)]``."""

    priority = 1  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.passwords: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.passwords.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.passwords[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        self.passwords.pop((service, username), None)


@contextlib.contextmanager
def using(backend: KeyringBackend):
    """Use ``backend`` as the keyring for the length of the block."""
    previous = keyring.get_keyring()
    keyring.set_keyring(backend)
    try:
        yield backend
    finally:
        keyring.set_keyring(previous)
