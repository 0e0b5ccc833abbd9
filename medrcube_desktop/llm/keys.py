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
from urllib.parse import unquote, urlsplit, urlunsplit

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
    if any(c.isspace() for c in text.strip()):
        raise ValueError(f"not a URL: {text!r} (a space inside; one URL per option)")
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(
            f"not an http(s) URL with a host: {text!r} (for example http://localhost:8000/v1)"
        )
    if not _HOST_PORT.fullmatch(parts.netloc.rpartition("@")[2]):  # "[::1]x" has no port
        raise ValueError(f"not a URL: {text!r} (the host and port cannot be read)")
    return text.strip()


_HOST_PORT = re.compile(r"(\[[0-9A-Za-z:.%_-]+\]|[^:/\[\]@\s]+)(:[0-9]{1,5})?")
"""A URL's host (a name, an IPv4 address or a bracketed IPv6 one, RFC 3986 §3.2.2) and
an optional port: what the HTTP client accepts."""


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
    netloc = parts.netloc.rpartition("@")[2]  # host and port as written ([::1]:8000, :0)
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def without_secrets(text: str) -> str:
    """What may be written to disk of endpoints typed in a box (one or more URLs,
    separated by white space): each URL as :func:`safe_base_url` gives it (no user info,
    query or fragment, where passwords and keys hide), an empty ``text`` as it is.
    Remembered endpoints (the window's settings file) go through it: a password in a URL
    is never stored there."""
    return " ".join(safe_base_url(url) for url in text.split())


def url_secrets(base_url: str | None) -> list[str]:
    """Every form in which a secret of a URL is sent, and so may come back in an echo.

    The forms are: the user name, the password, and ``user:password``, each as written
    and percent-decoded (an echo may give ``p@ss`` for ``p%40ss``); the base64 of each
    ``user:password`` (with and without its ``=`` padding, standard and URL-safe
    alphabets), which is what HTTP Basic authentication sends (``Authorization: Basic
    ...``, RFC 7617: the HTTP client sends the user info of a URL so, decoded); and the
    query string, as written and decoded. The API key itself (and so ``Bearer <key>``)
    is the :class:`KeyRedactor`'s own secret.

    Parameters
    ----------
    base_url : str or None
        An endpoint's URL as the user gave it.

    Returns
    -------
    list of str
        The forms, longest first (so a longer form is replaced before a part of it),
        without repeats or empty strings.
    """
    import base64

    if not base_url:
        return []
    parts = urlsplit(base_url)
    user_info = parts.netloc.rpartition("@")[0] if "@" in parts.netloc else ""
    user, _, password = user_info.partition(":")
    written = [password, user, user_info, parts.query]
    decoded = [unquote(s) for s in written]
    pairs = [user_info, unquote(user) + ":" + unquote(password) if user_info else ""]
    encoded = []
    for pair in filter(None, dict.fromkeys(pairs)):
        data = pair.encode("utf-8")
        for text in (base64.b64encode(data), base64.urlsafe_b64encode(data)):
            encoded += [text.decode("ascii"), text.decode("ascii").rstrip("=")]
    found = dict.fromkeys(s for s in written + decoded + encoded if s)
    return sorted(found, key=len, reverse=True)


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


FRAGMENT_CHARS = 12
"""Shortest run of a secret's characters treated as the secret (an echo cut at either
end): 12 characters of a key drawn from ~62 symbols are not met by chance in text."""


def _fold(text: str) -> str:
    """``text`` case-folded character by character, its length kept (so positions in it
    are positions in ``text``): a character whose fold is longer (ß → ss, İ → i̇) is
    kept as it is; API keys are ASCII, so nothing of a key is lost."""
    if text.isascii():
        return text.lower()
    return "".join(f if len(f := c.casefold()) == 1 else c for c in text)


def _scrub_secret(text: str, secret: str) -> str:
    """``text`` with every run of ``secret``'s characters (:meth:`KeyRedactor.scrub`)
    replaced by ``[API key]``.

    Written here because no library scrubs a cut secret: each window of
    :data:`FRAGMENT_CHARS` characters of the secret that appears in the text is grown
    along the secret in both directions as far as the characters agree.
    """
    folded, key = _fold(text), _fold(secret)
    if len(key) < FRAGMENT_CHARS:
        return text.replace(secret, "[API key]")  # short: as written (words would match)
    spans: list[tuple[int, int]] = []
    for offset in range(len(key) - FRAGMENT_CHARS + 1):
        window = key[offset : offset + FRAGMENT_CHARS]
        start = folded.find(window)
        while start != -1:
            left, right, k_left, k_right = (
                start,
                start + FRAGMENT_CHARS,
                offset,
                offset + FRAGMENT_CHARS,
            )
            while left > 0 and k_left > 0 and folded[left - 1] == key[k_left - 1]:
                left, k_left = left - 1, k_left - 1
            while right < len(folded) and k_right < len(key) and folded[right] == key[k_right]:
                right, k_right = right + 1, k_right + 1
            spans.append((left, right))
            start = folded.find(window, right)
    if not spans:
        return text
    merged: list[list[int]] = []
    for left, right in sorted(spans):
        if merged and left <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], right)
        else:
            merged.append([left, right])
    out, at = [], 0
    for left, right in merged:
        out.append(text[at:left] + "[API key]")
        at = right
    return "".join(out) + text[at:]


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
        """``text`` with the key (and the other secrets) replaced, also when it comes back
        changed in case or cut: any run of at least :data:`FRAGMENT_CHARS` characters of a
        secret (compared case-insensitively) is replaced, however the run is cut at its
        ends. Shorter secrets (a password in a URL) are replaced whole, as written."""
        if not text:
            return text
        for secret in ([self.key] if self.key else []) + self.extra:
            text = _scrub_secret(text, secret)
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
