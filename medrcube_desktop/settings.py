"""Where the app keeps its files, its limits, and the small typed settings it remembers.

The one home of every setting that is not a command-line option: each folder and limit
has its default here and its ``MEDRCUBE_*`` override, listed in :data:`ENVIRONMENT`
(README lists the same; a test checks that every ``MEDRCUBE_*`` name in the code is in
it). Folders come from platformdirs. No Qt here; the UI keeps window geometry in
QSettings. Defaults of a run's parameters live beside what they configure
(``evaluation/engines/base.py``, ``llm/judge.py: JudgeConfig``) and the CLI and panes
read them from there.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from medrcube_desktop.core.files import atomic_write, read_file_bytes
from medrcube_desktop.core.names import check_name

APP_NAME = "medrcube-desktop"
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class EnvironmentVariable:
    """One ``MEDRCUBE_*`` override: its name, what it sets and what applies without it."""

    name: str
    meaning: str
    default: str


ENVIRONMENT: tuple[EnvironmentVariable, ...] = (
    EnvironmentVariable("MEDRCUBE_DATA_DIR", "data folder: demo benchmark, study databases",
                        "platformdirs user data folder"),
    EnvironmentVariable("MEDRCUBE_CONFIG_DIR", "settings folder (settings.json)",
                        "platformdirs user config folder"),
    EnvironmentVariable("MEDRCUBE_IMAGE_CACHE", "folder of images prepared for models",
                        "<user cache folder>/model-images"),
    EnvironmentVariable("MEDRCUBE_LOG_DIR", "folder of the engine children's logs (50 kept)",
                        "platformdirs user log folder"),
    EnvironmentVariable("MEDRCUBE_MAX_PIXELS", "largest slice decoded, in pixels",
                        f"{100_000_000:_}"),
    EnvironmentVariable("MEDRCUBE_API_KEY_<HOST>", "API key for one endpoint host",
                        "OPENAI_API_KEY, then the OS keyring"),
    EnvironmentVariable("MEDRCUBE_PARENT_PID", "internal: set by the app for its engine "
                        "children (they stop when it dies)", "not set"),
    EnvironmentVariable("MEDRCUBE_SELF_TEST_KEY", "internal: the test key the self-test's "
                        "jobs send to its local stub endpoint (never the user's)", "not set"),
)  # fmt: skip
"""Every ``MEDRCUBE_*`` environment variable the app reads."""


def _folder(variable: str, default: Callable[[], Path]) -> Path:
    """``variable``'s folder (``~`` expanded) when set and not blank, else ``default()``."""
    override = os.environ.get(variable, "").strip()
    return Path(override).expanduser() if override else default()


def data_dir() -> Path:
    """Per-user data folder (demo benchmark, study databases); created on demand."""
    import platformdirs

    return _folder("MEDRCUBE_DATA_DIR", lambda: platformdirs.user_data_path(APP_NAME))


def config_dir() -> Path:
    """Per-user configuration folder (``settings.json``)."""
    import platformdirs

    return _folder("MEDRCUBE_CONFIG_DIR", lambda: platformdirs.user_config_path(APP_NAME))


def image_cache_dir() -> Path:
    """Images prepared for a model, kept for the next run (``evaluation/images.py``)."""
    import platformdirs

    return _folder(
        "MEDRCUBE_IMAGE_CACHE", lambda: platformdirs.user_cache_path(APP_NAME) / "model-images"
    )


def log_dir() -> Path:
    """The engine children's whole logs (``evaluation/engines/child.py``)."""
    import platformdirs

    return _folder("MEDRCUBE_LOG_DIR", lambda: platformdirs.user_log_path(APP_NAME))


DEFAULT_MAX_PIXELS = 100_000_000
"""Largest slice the app decodes (pixels): bigger files are refused as possible
decompression bombs (a few kilobytes that would decode to gigabytes), before anything
is decoded. Override with MEDRCUBE_MAX_PIXELS.

The limit protects against such files, not against memory use: a slice within it is
decoded and shown at about 25 bytes per pixel, and about 90 with a mask drawn over it
(float64 pixels and colour channels while blending), so a 100-million-pixel slice with a
mask needs about 9 GB. On a machine with less memory, lower the limit."""


def max_image_pixels() -> int:
    """Pixel limit for one decoded slice (``MEDRCUBE_MAX_PIXELS``, else the default).

    A NIfTI volume may hold up to 50 such slices' worth of voxels.
    """
    raw = os.environ.get("MEDRCUBE_MAX_PIXELS", "")
    try:
        value = int(raw)
    except ValueError:
        if raw:
            log.warning(
                "MEDRCUBE_MAX_PIXELS=%r is not a whole number; using %d", raw, DEFAULT_MAX_PIXELS
            )
        return DEFAULT_MAX_PIXELS
    return value if value > 0 else DEFAULT_MAX_PIXELS


def demo_benchmark_dir() -> Path:
    """Where ``--demo`` builds the demo benchmark once."""
    return data_dir() / "demo-benchmark"


def default_db_path(benchmark_root: Path) -> Path:
    """Default study database for a benchmark: one file per benchmark root.

    ``<data dir>/studies/<root name>-<first 8 hex of SHA-1 of the resolved root>.sqlite``.
    """
    resolved = str(Path(benchmark_root).resolve())
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", Path(resolved).name) or "benchmark"
    digest = hashlib.sha1(resolved.encode("utf-8")).hexdigest()[:8]
    return data_dir() / "studies" / f"{slug}-{digest}.sqlite"


THEME_IDS = ("light", "dark", "high-contrast")


def _shortcuts(raw: object, path: Path, ignored: list[str]) -> dict[str, list[str]]:
    """Validated ``shortcuts`` mapping: action id → list of key texts (bad entries logged
    and named in ``ignored``)."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        log.warning("%s: ignoring shortcuts: expected an object", path)
        ignored.append("shortcuts")
        return {}
    found: dict[str, list[str]] = {}
    for action, keys in raw.items():
        if isinstance(keys, list) and all(isinstance(k, str) for k in keys):
            found[str(action)] = list(keys)
        else:
            log.warning("%s: ignoring shortcuts of %r: expected a list of key texts", path, action)
            ignored.append(f"shortcuts of {action!r}")
    return found


RECENT_LIMIT = 10
"""How many benchmarks File › Open Recent lists."""


@dataclass(frozen=True)
class RecentStudy:
    """One entry of File › Open Recent: a benchmark folder and its study database.

    Attributes
    ----------
    dataset : str
        Absolute path of the benchmark root folder.
    db : str or None
        Absolute path of the study database it was opened with; None for an entry from
        an older ``settings.json`` (only ``last_dataset``): the benchmark's default
        database (:func:`default_db_path`).
    """

    dataset: str
    db: str | None = None

    def database(self) -> Path:
        """The study database to open: ``db``, else the benchmark's default one."""
        return Path(self.db) if self.db else default_db_path(Path(self.dataset))

    def missing(self) -> str | None:
        """Why this entry cannot be opened any more, as one sentence naming the path
        ("the benchmark folder /x is missing (moved or removed)"), or None."""
        if not Path(self.dataset).is_dir():
            return f"the benchmark folder {self.dataset} is missing (moved or removed)"
        if self.db and not Path(self.db).is_file():
            return f"the study database {self.db} is missing (moved or removed)"
        return None

    def title(self) -> str:
        """Menu text: the benchmark's folder name and the database's file name."""
        return f"{Path(self.dataset).name} — {self.database().name}"


def _recent(raw: object, path: Path, ignored: list[str]) -> tuple[list[RecentStudy], list[str]]:
    """Validated ``recent`` list (bad entries logged and named in ``ignored``), and why
    each entry before the last kept one was dropped (:meth:`RecentStudy.missing`).

    Entries that are gone are dropped before the list is cut to :data:`RECENT_LIMIT`,
    so ten thousand stale entries ahead of one that still opens leave that one first
    (the list is cut again when saved, :meth:`Settings.remember_study`). Entries after
    the tenth that still opens are not looked at."""
    if raw is None:
        return [], []
    found: list[RecentStudy] = []
    gone: list[str] = []
    bad = not isinstance(raw, list)
    for entry in raw if isinstance(raw, list) else []:
        dataset = entry.get("dataset") if isinstance(entry, dict) else None
        db = entry.get("db") if isinstance(entry, dict) else None
        if isinstance(dataset, str) and dataset.strip() and (db is None or isinstance(db, str)):
            if len(found) == RECENT_LIMIT:
                continue  # (checked for its type, so a bad entry is still said)
            entry = RecentStudy(dataset, db or None)
            why = entry.missing()
            if why is None:
                found.append(entry)
            elif not found:  # gone ahead of the first that opens: a plain start says it
                gone.append(why)
        else:
            bad = True
    if bad:
        log.warning("%s: ignoring entries of recent: expected a list of {dataset, db}", path)
        ignored.append("recent")
    return found, gone


GONE_LISTED = 3
"""How many gone entries a plain start names one by one; more are summarised."""


def gone_summary(reasons: list[str]) -> list[str]:
    """Why the newer entries of File › Open Recent were passed over, short: each reason
    (:meth:`RecentStudy.missing`) when there are at most :data:`GONE_LISTED`, else one
    line, "10000 more recent benchmarks are gone (moved or removed); the newest: …"."""
    if len(reasons) <= GONE_LISTED:
        return list(reasons)
    return [
        f"{len(reasons)} more recent benchmarks are gone (moved or removed); the newest: "
        f"{reasons[0]}"
    ]


@dataclass
class Settings:
    """What the app remembers between runs.

    Attributes
    ----------
    reviewer : str or None
        Reviewer name, asked once and reused; read back through
        :func:`~medrcube_desktop.core.names.check_name` (a name it refuses is dropped with a
        warning, so the reviewer is asked again), normalised (NFC, stripped).
    last_dataset : str or None
        Benchmark root opened last.
    neurological : bool
        Show axial/coronal slices with the patient's right on screen right.
    include_restricted : bool
        List the items whose image the release does not ship (text only) in the review
        window's item list.
    theme : str
        ``"light"``, ``"dark"`` or ``"high-contrast"``.
    font_scale : float
        Multiplier of the default font size (0.5–3).
    shortcuts : dict[str, list[str]]
        Remapped keys by action id (``QKeySequence`` text, e.g. ``"Ctrl+Shift+F"``);
        actions not listed keep their default keys.
    recent : list of RecentStudy
        The benchmarks opened last with their databases, newest first, at most
        :data:`RECENT_LIMIT` (File › Open Recent; a plain start reopens the first).
    """

    reviewer: str | None = None
    last_dataset: str | None = None
    neurological: bool = False
    include_restricted: bool = False
    theme: str = "light"
    font_scale: float = 1.0
    shortcuts: dict[str, list[str]] = field(default_factory=dict)
    recent: list[RecentStudy] = field(default_factory=list)
    recent_gone: list[str] = field(default_factory=list, compare=False, repr=False)
    """Why the entries dropped when the file was read were dropped (never saved)."""

    @classmethod
    def path(cls) -> Path:
        """Where the settings file lives: ``<config dir>/settings.json``."""
        return config_dir() / "settings.json"

    @classmethod
    def load(cls) -> Settings:
        """Read ``settings.json``; a missing file gives defaults, a broken one is logged
        (and kept aside by :meth:`save` before anything is written over it)."""
        return cls._read(cls.path())[0]

    @classmethod
    def _read(cls, path: Path) -> tuple[Settings, str | None]:
        """The settings in ``path``, and why the file could not be read whole (None when
        it could, or when there is no file): unreadable, or a value that was ignored."""
        if not path.exists():
            return cls(), None
        try:
            raw = json.loads(read_file_bytes(path).decode("utf-8"))  # never a pipe's read
        except (OSError, ValueError, RecursionError) as exc:
            log.warning("%s: ignoring unreadable settings file: %s", path, exc)
            return cls(), f"unreadable: {exc}"
        if not isinstance(raw, dict):
            log.warning("%s: ignoring settings file: expected a JSON object", path)
            return cls(), "not a JSON object"
        texts: dict[str, str | None] = {}
        ignored: list[str] = []
        for key in ("reviewer", "last_dataset"):
            value = raw.get(key)
            if value is not None and not (isinstance(value, str) and value.strip()):
                log.warning("%s: ignoring %s: expected text, found %r", path, key, value)
                ignored.append(key)
                continue
            if key == "reviewer" and value is not None:
                try:  # a name enters here as from the dialog: checked, stored NFC, stripped
                    value = check_name(value, "reviewer name")
                except ValueError as exc:
                    log.warning("%s: ignoring reviewer (it is asked again): %s", path, exc)
                    ignored.append(key)
                    continue
            texts[key] = value
        theme = raw.get("theme", "light")
        if theme not in THEME_IDS:
            log.warning("%s: ignoring unknown theme %r", path, theme)
            ignored.append("theme")
            theme = "light"
        scale = raw.get("font_scale", 1.0)
        if isinstance(scale, bool) or not isinstance(scale, int | float) or not 0.5 <= scale <= 3:
            log.warning("%s: ignoring font_scale %r (expected 0.5 to 3)", path, scale)
            ignored.append("font_scale")
            scale = 1.0
        shortcuts = _shortcuts(raw.get("shortcuts"), path, ignored)
        recent, gone = _recent(raw.get("recent"), path, ignored)  # (in the order ignored)
        loaded = cls(
            reviewer=texts.get("reviewer"),
            last_dataset=texts.get("last_dataset"),
            neurological=raw.get("neurological") is True,
            include_restricted=raw.get("include_restricted") is True,
            theme=theme,
            font_scale=float(scale),
            shortcuts=shortcuts,
            recent=recent,
            recent_gone=gone,
        )
        return loaded, f"read without {', '.join(ignored)}" if ignored else None

    def remember_study(self, dataset: Path, db: Path | None) -> RecentStudy:
        """Put ``dataset`` opened with ``db`` first in :attr:`recent` (resolved paths; an
        older entry of the same pair is dropped, the eleventh falls off) and make it
        ``last_dataset``; not saved yet (:meth:`save`). Returns the entry."""
        entry = RecentStudy(
            str(Path(dataset).expanduser().resolve()),
            str(Path(db).expanduser().resolve()) if db is not None else None,
        )
        self.recent = [entry, *(e for e in self.recent if e != entry)][:RECENT_LIMIT]
        self.last_dataset = entry.dataset
        return entry

    def forget_study(self, entry: RecentStudy) -> None:
        """Take ``entry`` out of :attr:`recent` (not saved yet)."""
        self.recent = [e for e in self.recent if e != entry]

    def last_study(self) -> tuple[RecentStudy | None, list[str]]:
        """What a plain start reopens: the newest entry of :attr:`recent` that can still
        be opened (else ``last_dataset`` of an older settings file, with its default
        database), and why each newer entry was passed over (:meth:`RecentStudy.missing`).
        ``(None, reasons)`` when nothing can be reopened."""
        usable, passed_over = self.reopen_candidates()
        return (usable[0] if usable else None), passed_over

    def reopen_candidates(self) -> tuple[list[RecentStudy], list[str]]:
        """Every entry a plain start may reopen, newest first (the first is
        :meth:`last_study`'s; the window falls through to the next when one's database
        cannot be opened for writing), and why the newer ones were passed over, the
        entries dropped when the file was read included, summarised
        (:func:`gone_summary`)."""
        reasons = list(self.recent_gone)
        usable: list[RecentStudy] = []
        candidates = self.recent or ([RecentStudy(self.last_dataset)] if self.last_dataset else [])
        for entry in candidates:
            why = entry.missing()
            if why is None:
                usable.append(entry)
            elif not usable:
                reasons.append(why)
        return usable, gone_summary(reasons)

    def save(self) -> bool:
        """Write ``settings.json`` atomically (temp file, then replace).

        A file there that cannot be read (a syntax error made by hand, say), or one with
        a value that was ignored (a shortcut that is not a list of key texts), is first
        kept as ``settings.json.broken-<UTC time>`` beside it, and a warning names that
        copy, so custom shortcuts typed into it are never lost to the defaults.

        Returns False, with a logged warning, when it cannot be written: settings are a
        convenience and never stop the app.
        """
        path = self.path()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            keep_broken_settings(path)
            data = asdict(self)
            del data["recent_gone"]  # what this run was told, not a setting
            atomic_write(path, json.dumps(data, indent=2))
        except OSError as exc:
            log.warning("%s: cannot save settings: %s", path, exc)
            return False
        return True


def keep_broken_settings(path: Path) -> Path | None:
    """Copy an unreadable settings file aside before it is written over; return the copy.

    The copy is ``<name>.broken-<UTC time, YYYYMMDDTHHMMSSZ>`` beside ``path`` (``-2``,
    ``-3``… when that name is taken); a warning on the log says where it is. Returns None
    when ``path`` is missing or readable.

    Raises
    ------
    OSError
        The copy cannot be made (then nothing may be written over ``path``).
    """
    _, why = Settings._read(path)
    if why is None:
        return None
    import shutil
    from datetime import UTC, datetime

    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    backup, n = path.with_name(f"{path.name}.broken-{stamp}"), 1
    while backup.exists():
        n += 1
        backup = path.with_name(f"{path.name}.broken-{stamp}-{n}")
    shutil.copy2(path, backup)
    log.warning("%s was %s; kept it as %s before saving new settings", path, why, backup)
    return backup
