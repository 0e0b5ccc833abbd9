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
    """``text`` stripped, if it is one endpoint's base URL: ``http`` or ``https`` with a
    host (``http://localhost:8000/v1``).

    Checked before a run because the OpenAI SDK takes any string and fails later with a
    message about the key or the connection that does not name the URL's fault. Refused
    too: several URLs in one (joined by a space or a comma: the second one's password
    would be kept as part of the first one's path), and path parameters (``;key=...``),
    which nothing scrubs. A message never shows the URL's user info (``***@``).

    Raises
    ------
    ValueError
        Not one http(s) URL with a host, a port that is not a number in 0–65535, or
        path parameters.
    """
    shown = _masked(text.strip())
    try:
        parts = urlsplit(text.strip())
        parts.port  # noqa: B018 - raises ValueError for a port out of range or not a number
    except ValueError as exc:
        raise ValueError(f"not a URL: {shown!r} ({_masked(str(exc))})") from None
    if any(c.isspace() for c in text.strip()):
        raise ValueError(f"not a URL: {shown!r} (a space inside; one URL per option)")
    host = parts.netloc.rpartition("@")[2]
    if "," in host + parts.path or len(_SCHEME.findall(text)) > 1:
        raise ValueError(
            f"not one URL: {shown!r} (joined by ','; give each server's URL on its own, "
            "one URL per --base-url)"
        )
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(
            f"not an http(s) URL with a host: {shown!r} (for example http://localhost:8000/v1)"
        )
    if not _HOST_PORT.fullmatch(host):  # "[::1]x" has no port
        raise ValueError(f"not a URL: {shown!r} (the host and port cannot be read)")
    if ";" in parts.path:
        raise ValueError(
            f"path parameters (';...') in {shown!r}: not part of a base URL, and never "
            "scrubbed; give a key in an environment variable or the OS keyring"
        )
    return text.strip()


_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")
"""Where a URL starts: two in one text are two URLs."""

_USER_INFO = re.compile(r"(^|//)[^/?#@\s]*@")
"""A URL's user info (``//user:password@``, or at the start of a URL without scheme)."""


def _masked(text: str) -> str:
    """``text`` with every URL's user info shown as ``***@``, and its query, path
    parameters and fragment as ``?***`` (``;***``, ``#***``): what a message may quote."""
    return re.sub(r"([?;#])[^\s,]*", r"\1***", _USER_INFO.sub(r"\1***@", text))


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
    """The base URL without user info, query, path parameters (``;...``) or fragment
    (where keys sometimes hide), as stored with each judgment and run.

    The path is kept: it names the endpoint (``/v1``). A key put in the path itself
    cannot be told from the path and is kept; a key belongs in an environment variable
    or the OS keyring.
    """
    text = _USER_INFO.sub(r"\1", base_url or DEFAULT_BASE_URL)  # also where urlsplit misses it
    parts = urlsplit(text)
    netloc = parts.netloc.rpartition("@")[2]  # host and port as written ([::1]:8000, :0)
    path = "/".join(segment.partition(";")[0] for segment in parts.path.split("/"))
    return urlunsplit((parts.scheme, netloc, _USER_INFO.sub(r"\1", path), "", ""))


def without_secrets(text: str) -> str:
    """What may be written to disk of endpoints typed in a box (one or more URLs,
    separated by white space or commas): each URL as :func:`safe_base_url` gives it (no
    user info, query, path parameters or fragment, where passwords and keys hide),
    separated by a space; an empty ``text`` as it is. Remembered endpoints (the window's
    settings file) go through it: a password in a URL is never stored there, also when
    the text is not a valid list of URLs (``http://h/v1,http://u:p@h2/v1``)."""
    return " ".join(safe_base_url(url) for url in re.split(r"[\s,]+", text) if url)


MIN_SECRET_CHARS = 4
"""Shortest lone secret (a user name, a password, a query value) that is scrubbed on its
own: a shorter one would destroy ordinary text (``ab`` is in "about"). The Basic-auth
forms of ``user:password`` are scrubbed whatever their length."""


def secret_forms(secret: str) -> list[str]:
    """Every encoding in which ``secret`` is sent or may come back in an echo.

    The forms are: as written; percent-encoded (``quote(secret, safe="")``); inside a
    JSON string (``json.dumps(secret)[1:-1]``, with ``\\uXXXX`` escapes (lower and
    upper case hex) and without, and with ``/`` written ``\\/``); and base64 of its
    UTF-8 bytes (and Latin-1 bytes, where it has them: RFC 7617's older charset), standard
    and URL-safe alphabets, with and without ``=`` padding, and percent-encoded. When the
    secret may sit inside a longer base64 text (an API key used as a Basic-auth password),
    the part of its base64 that does not depend on its neighbours, at each of the three
    byte alignments, is a form too when it has at least :data:`FRAGMENT_CHARS` characters.
    Not forms: deliberate obfuscations (reversed, spaced, hex) that no client sends.

    Parameters
    ----------
    secret : str
        A key, a password or ``user:password``.

    Returns
    -------
    list of str
        The forms, without repeats or empty strings (``[]`` for an empty ``secret``).
    """
    import base64
    import json
    from urllib.parse import quote

    if not secret:
        return []
    forms = [secret, quote(secret, safe="")]
    for escaped in (json.dumps(secret)[1:-1], json.dumps(secret, ensure_ascii=False)[1:-1]):
        upper = re.sub(r"\\u([0-9a-f]{4})", lambda m: "\\u" + m[1].upper(), escaped)
        forms += [escaped, upper, escaped.replace("/", "\\/"), upper.replace("/", "\\/")]
    encodings = ["utf-8"] + (["latin-1"] if all(ord(c) < 256 for c in secret) else [])
    for data in dict.fromkeys(secret.encode(e) for e in encodings):
        for shift in range(3):
            padded = base64.b64encode(b"\0" * shift + data).decode("ascii")
            if shift == 0:
                core = [padded, padded.rstrip("=")]
            else:  # the first group mixes in what comes before, the last what comes after
                core = [padded[4 : 4 * ((shift + len(data)) // 3)]]
                core = [c for c in core if len(c) >= FRAGMENT_CHARS]
            for text in core:
                urlsafe = text.replace("+", "-").replace("/", "_")
                forms += [text, urlsafe, quote(text, safe=""), quote(urlsafe, safe="")]
    return list(dict.fromkeys(f for f in forms if f))


def key_forms(key: str) -> list[str]:
    """The forms of an API key (:func:`secret_forms`) that a scrubber replaces: none for
    a key shorter than :data:`MIN_SECRET_CHARS` or ``"not-needed"`` (a local server's).
    Every scrubber of keys (evaluate, judge, ``export-run``, ``import-run``) uses these."""
    key = key.strip()
    return secret_forms(key) if len(key) >= MIN_SECRET_CHARS and key != "not-needed" else []


def _url_parts(base_url: str) -> tuple[list[str], list[str]]:
    """``(pairs, lone)``: the ``user:password`` texts of a URL (as written, decoded as the
    HTTP client decodes them) and its lone secrets (user, password, query, each query
    value, path parameters; as written and decoded)."""
    from urllib.parse import parse_qsl

    parts = urlsplit(base_url)
    user_info = parts.netloc.rpartition("@")[0] if "@" in parts.netloc else ""
    user, _, password = user_info.partition(":")
    pairs = [user_info, unquote(user) + ":" + unquote(password)] if user_info else []
    if user_info:  # what the SDK's HTTP client itself sends, should it decode differently
        pairs += _client_pair(base_url)
    params = [p for segment in parts.path.split("/") for p in segment.split(";")[1:]]
    values = [v for pair in parse_qsl(parts.query, keep_blank_values=True) for v in pair[1:]]
    written = [password, user, parts.query, *params, *values]
    lone = written + [unquote(s) for s in written]
    return pairs, lone


def _client_pair(base_url: str) -> list[str]:
    """``["user:password"]`` as the OpenAI SDK's HTTP client (``httpx2`` or ``httpx``)
    decodes a URL's user info for Basic authentication; ``[]`` when neither is installed
    or it refuses the URL (the check refuses such URLs before a run)."""
    import importlib

    for name in ("httpx2", "httpx"):
        try:
            client = importlib.import_module(name)
        except ImportError:
            continue
        try:
            url = client.URL(base_url)
        except (ValueError, TypeError, client.InvalidURL):
            return []
        return [f"{url.username}:{url.password}"]
    return []


def url_secrets(base_url: str | None) -> list[str]:
    """Every form in which a secret of a URL is sent, and so may come back in an echo.

    The rule: the ``user:password`` of the URL (as written, and percent-decoded as the
    HTTP client decodes it before sending it as HTTP Basic authentication, RFC 7617:
    ``Authorization: Basic base64(user:password)``) is scrubbed in every form of
    :func:`secret_forms` whatever its length. A lone part (the user name, the password,
    the query string, each query value, path parameters), as written and decoded, is
    scrubbed in every form when it has at least :data:`MIN_SECRET_CHARS` characters; a
    shorter one is not (it would destroy ordinary text), and :func:`short_secrets` names
    it so that a run warns at its start that it may come back in an echo. The API key
    itself (and so ``Bearer <key>``) is the :class:`KeyRedactor`'s own secret.

    Parameters
    ----------
    base_url : str or None
        An endpoint's URL as the user gave it.

    Returns
    -------
    list of str
        The forms, without repeats or empty strings. Their order does not matter: a
        :class:`KeyRedactor` finds every form in the original text before replacing.
    """
    if not base_url:
        return []
    pairs, lone = _url_parts(base_url)
    secrets = pairs + [s for s in lone if len(s) >= MIN_SECRET_CHARS]
    return list(dict.fromkeys(f for s in dict.fromkeys(secrets) for f in secret_forms(s)))


def short_secrets(base_url: str | None) -> list[str]:
    """The secrets of a URL too short to be scrubbed on their own (:func:`url_secrets`):
    a password (or, with none, a user name) or query value of fewer than
    :data:`MIN_SECRET_CHARS` characters, named for a warning (``["the password"]``),
    never quoted."""
    if not base_url:
        return []
    parts = urlsplit(base_url)
    user_info = parts.netloc.rpartition("@")[0] if "@" in parts.netloc else ""
    user, colon, password = user_info.partition(":")
    from urllib.parse import parse_qsl

    named = [("the password", unquote(password)) if colon else ("the user name", unquote(user))]
    named += [(f"the query value of {k!r}", v) for k, v in parse_qsl(parts.query)]
    return [name for name, value in named if 0 < len(value) < MIN_SECRET_CHARS]


def warn_short_secrets(base_urls: list[str] | tuple[str, ...]) -> list[str]:
    """Log a warning for each URL with a secret too short to scrub (:func:`short_secrets`)
    and return the warnings: called once at the start of a run (evaluate, judge).

    Returns
    -------
    list of str
        The warnings, each naming the URL without its secrets.
    """
    notes = []
    for url in base_urls:
        short = short_secrets(url)
        if short:
            notes.append(
                f"{' and '.join(short)} in {safe_base_url(url)} has fewer than "
                f"{MIN_SECRET_CHARS} characters: it cannot be scrubbed on its own from "
                "what the endpoint echoes (the Basic-auth header is); use a longer one"
            )
            log.warning("%s", notes[-1])
    return notes


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


class _Finder:
    """Where any of some secrets is in a text: ``(start, end)`` spans, possibly
    overlapping.

    A secret shorter than :data:`FRAGMENT_CHARS` is found as written. A longer one is
    also found cut or in another case: each window of :data:`FRAGMENT_CHARS` characters
    of the secret that appears in the (folded) text is grown along the secret in both
    directions as far as the characters agree. The windows of every secret are in one
    table, so a text is read once whatever the number of forms. Written here because no
    library scrubs a cut secret.
    """

    def __init__(self, secrets: list[str]) -> None:
        self.short = [s for s in secrets if len(s) < FRAGMENT_CHARS]
        self.long = [_fold(s) for s in secrets if len(s) >= FRAGMENT_CHARS]
        self.windows: dict[str, list[tuple[int, int]]] = {}
        for index, key in enumerate(self.long):
            for offset in range(len(key) - FRAGMENT_CHARS + 1):
                window = key[offset : offset + FRAGMENT_CHARS]
                self.windows.setdefault(window, []).append((index, offset))

    def spans(self, text: str) -> list[tuple[int, int]]:
        found: list[tuple[int, int]] = []
        for secret in self.short:  # short: as written (words would match)
            start = text.find(secret)
            while start != -1:
                found.append((start, start + len(secret)))
                start = text.find(secret, start + 1)
        if not self.windows or len(text) < FRAGMENT_CHARS:
            return found
        folded = _fold(text)
        for start in range(len(folded) - FRAGMENT_CHARS + 1):
            for index, offset in self.windows.get(folded[start : start + FRAGMENT_CHARS], ()):
                key = self.long[index]
                left, right = start, start + FRAGMENT_CHARS
                k_left, k_right = offset, offset + FRAGMENT_CHARS
                while left > 0 and k_left > 0 and folded[left - 1] == key[k_left - 1]:
                    left, k_left = left - 1, k_left - 1
                while right < len(folded) and k_right < len(key) and folded[right] == key[k_right]:
                    right, k_right = right + 1, k_right + 1
                found.append((left, right))
        return found


def _redact(text: str, finder: _Finder) -> str:
    """``text`` with every span where any secret is found (:class:`_Finder`, all on the
    original text) replaced by one ``[API key]``, overlapping and touching spans merged
    first: a form that shares a prefix with another (``hunter2%23`` and ``hunter2#``)
    cannot hide the rest of the other by being replaced first."""
    spans = sorted(finder.spans(text))
    if not spans:
        return text
    merged: list[list[int]] = []
    for left, right in spans:
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

    Parameters
    ----------
    key : str
        The API key: scrubbed in every form of :func:`key_forms` (none when shorter than
        :data:`MIN_SECRET_CHARS` or ``"not-needed"``).
    extra : list of str, optional
        Other forms to scrub as given, whatever their length (:func:`url_secrets`, or
        :func:`key_forms` of other keys).
    """

    def __init__(self, key: str, extra: list[str] | None = None) -> None:
        super().__init__()
        self.key = key if len(key) >= MIN_SECRET_CHARS and key != "not-needed" else ""
        self.extra = [s for s in (extra or []) if s]  # e.g. secrets in a URL
        self.forms = list(dict.fromkeys(key_forms(self.key) + self.extra))
        self._finder = _Finder(self.forms)

    def scrub(self, text: str) -> str:
        """``text`` with the key (and the other secrets) replaced, also when it comes back
        changed in case or cut: any run of at least :data:`FRAGMENT_CHARS` characters of a
        form (compared case-insensitively) is replaced, however the run is cut at its
        ends. Shorter forms are replaced whole, as written. Every form is looked for in
        the original text and the overlapping finds are merged before anything is
        replaced."""
        if not text or not self.forms:
            return text
        return _redact(text, self._finder)

    def filter(self, record: logging.LogRecord) -> bool:  # noqa: A003 (logging API)
        if self.forms:
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
