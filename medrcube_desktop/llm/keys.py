"""API keys: found in the environment or the OS keyring, and kept out of everything else.

DESIGN.md: "API keys: read from the environment (OPENAI_API_KEY or a per-endpoint
variable) or the OS keyring; never written to the database, logs, exports or
screenshots." The key lives only in memory, in the openai client; :class:`KeyRedactor`
scrubs it from every log record and error text as a second line of defence.
"""

from __future__ import annotations

import logging
import os
import re
from urllib.parse import urlsplit, urlunsplit

from medrcube_desktop.errors import JudgeError

KEYRING_SERVICE = "medrcube-desktop"
"""Keyring service name; the user name is the endpoint's host (e.g. ``api.openai.com``)."""

DEFAULT_BASE_URL = "https://api.openai.com/v1"
LOCAL_HOSTS = {"localhost", "127.0.0.1", "::1", "0.0.0.0"}
log = logging.getLogger(__name__)


def check_base_url(text: str) -> str:
    """``text`` stripped, if it is an endpoint's base URL: ``http`` or ``https`` with a
    host (``http://localhost:8000/v1``).

    Checked before a run because the OpenAI SDK takes any string and fails later with a
    message about the key or the connection that does not name the URL's fault.

    Raises
    ------
    ValueError
        Not an http(s) URL with a host, or a port that is not a number in 0–65535.
    """
    try:
        parts = urlsplit(text.strip())
        parts.port  # noqa: B018 - raises ValueError for a port out of range or not a number
    except ValueError as exc:
        raise ValueError(f"not a URL: {text!r} ({exc})") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(
            f"not an http(s) URL with a host: {text!r} (for example http://localhost:8000/v1)"
        )
    return text.strip()


def endpoint_host(base_url: str | None) -> str:
    """Host name of an endpoint URL (``api.openai.com`` when ``base_url`` is None)."""
    return (urlsplit(base_url or DEFAULT_BASE_URL).hostname or "").lower()


def endpoint_variable(base_url: str | None) -> str:
    """The per-endpoint environment variable: ``MEDRCUBE_API_KEY_`` + the host in upper
    case with every other character as ``_`` (``my-azure.openai.azure.com`` →
    ``MEDRCUBE_API_KEY_MY_AZURE_OPENAI_AZURE_COM``)."""
    return "MEDRCUBE_API_KEY_" + re.sub(r"[^A-Z0-9]", "_", endpoint_host(base_url).upper())


def safe_base_url(base_url: str | None) -> str:
    """The base URL without user info, query or fragment (where keys sometimes hide), as
    stored with each judgment."""
    parts = urlsplit(base_url or DEFAULT_BASE_URL)
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def url_secrets(base_url: str | None) -> list[str]:
    """Parts of a URL that may hold a secret: user info and the query string."""
    if not base_url:
        return []
    parts = urlsplit(base_url)
    return [s for s in (parts.password or "", parts.username or "", parts.query) if s]


def find_api_key(base_url: str | None, variable: str | None = None) -> tuple[str, str]:
    """The API key for an endpoint and where it came from (never the key in messages).

    Looks, in order, at ``variable`` (when given), the per-endpoint variable
    (:func:`endpoint_variable`), ``OPENAI_API_KEY``, then the OS keyring (service
    :data:`KEYRING_SERVICE`, user = host). A local server (localhost) needs no key.

    Returns
    -------
    (key, source) : tuple of str
        ``source`` names the variable or ``"keyring"`` or ``"none needed"``.

    Raises
    ------
    JudgeError
        No key found for a remote endpoint.
    """
    names = [n for n in (variable, endpoint_variable(base_url), "OPENAI_API_KEY") if n]
    for name in names:
        value = os.environ.get(name, "").strip()
        if value:
            return value, name
    host = endpoint_host(base_url)
    try:
        import keyring

        stored = keyring.get_password(KEYRING_SERVICE, host)
    except Exception as exc:  # noqa: BLE001 - any backend failure means "no keyring key"
        log.debug("OS keyring not available (%s): %s", type(exc).__name__, exc)
        stored = None
    if stored:
        return stored.strip(), "keyring"
    if host in LOCAL_HOSTS:
        return "not-needed", "none needed"
    raise JudgeError(
        f"no API key for {host}: set {' or '.join(names)}, or store one with "
        f"`keyring set {KEYRING_SERVICE} {host}`"
    )


class KeyRedactor(logging.Filter):
    """A logging filter that replaces the key in every record with ``[API key]``.

    Installed on the root logger's handlers for the length of a run; also usable on any
    text with :meth:`scrub`.
    """

    def __init__(self, key: str, extra: list[str] | None = None) -> None:
        super().__init__()
        self.key = key if len(key) >= 4 and key != "not-needed" else ""
        self.extra = [s for s in (extra or []) if len(s) >= 4]  # e.g. secrets in a URL

    def scrub(self, text: str) -> str:
        """``text`` with the key (and the other secrets) replaced."""
        if not text:
            return text
        for secret in ([self.key] if self.key else []) + self.extra:
            text = text.replace(secret, "[API key]")
        return text

    def filter(self, record: logging.LogRecord) -> bool:  # noqa: A003 (logging API)
        if self.key or self.extra:
            message = record.getMessage()
            if self.scrub(message) != message:
                record.msg, record.args = self.scrub(message), None
            if record.exc_info:  # a traceback could quote the key too
                record.exc_text = self.scrub(logging.Formatter().formatException(record.exc_info))
                record.exc_info = None
        return True

    def __enter__(self) -> KeyRedactor:
        for handler in logging.getLogger().handlers:
            handler.addFilter(self)
        return self

    def __exit__(self, *exc) -> None:
        for handler in logging.getLogger().handlers:
            handler.removeFilter(self)
