"""The one place where the terminal's output is written: a reader that leaves (``… | head``)
stops the job, it does not hang it.

:func:`guarded` puts :class:`GuardedStream` in front of ``sys.stdout`` and
``sys.stderr`` for the length of a command, so every write meant for the terminal (the
CLI's messages, ``print``, the tqdm bar, the logging handler) goes through
:meth:`GuardedStream.write`. When a write fails because the reader of the pipe has
closed it (``EPIPE``, Python's ``BrokenPipeError``), the stream is marked closed, its
file descriptor is pointed at the null device (Python documentation, "Note on SIGPIPE",
https://docs.python.org/3/library/signal.html#note-on-sigpipe, so the flush at exit
raises nothing either), later writes to it are dropped, and every job that
:func:`watch` registered is cancelled, as Ctrl+C would: it stops at its next check,
what it stored stays stored, and the command exits 1 (:func:`any_closed`).

Why not let the error propagate: it is raised in whichever thread writes (a job's worker
thread drawing the bar, an engine's reader thread logging), where it kills that thread
and leaves locks held (tqdm's ``refresh`` takes its write lock without ``try``): the
main thread then waited on the lock for ever.

A stream that is missing when the command starts (``2>&-``: Python then sets
``sys.stderr`` to ``None``) is replaced by a guard over the null device, its descriptor
pointed there too (so a file opened later cannot take that number, and a child writes
nowhere): every writer works (tqdm built with ``file=None`` raised in its constructor and
its destructor then waited on tqdm's lock for ever). What was written to a stdout closed
at start is lost: the command says so on stderr and exits 1 (:func:`lost_at_start`).
"""

from __future__ import annotations

import contextlib
import errno
import os
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any, TextIO

__all__ = ["GuardedStream", "any_closed", "guarded", "lost_at_start", "watch"]

_lock = threading.Lock()
_watchers: list[Callable[[str], None]] = []
_streams: list[GuardedStream] = []


def _reader_gone(exc: BaseException) -> bool:
    """True for the error of a write whose pipe's reader has left."""
    return isinstance(exc, BrokenPipeError) or (
        isinstance(exc, OSError) and exc.errno in (errno.EPIPE, errno.ECONNRESET)
    )


class GuardedStream:
    """A text stream in front of ``stream`` (``sys.stdout`` or ``sys.stderr``) that
    turns a write to a pipe nobody reads any more into "output closed".

    Parameters
    ----------
    stream : text stream
        The stream written to while it works.
    name : str
        ``"stdout"`` or ``"stderr"``, for the line that says the reader has gone.

    Attributes
    ----------
    closed_by_reader : bool
        The reader has left: writes are dropped from then on.
    closed_at_start : bool
        The stream was missing or closed when the command started: ``stream`` is the
        null device.
    written : bool
        Something (not empty) was written to it.
    """

    def __init__(self, stream: TextIO, name: str, *, closed_at_start: bool = False) -> None:
        self._stream = stream
        self.name = name
        self.closed_by_reader = False
        self.closed_at_start = closed_at_start
        self.written = False

    def write(self, text: str) -> int:
        """Write ``text``; returns ``len(text)`` (also when it was dropped).

        Raises
        ------
        OSError
            Any failure but the reader's leaving (a full disk behind a redirect).
        """
        if text:
            self.written = True
        if not self.closed_by_reader:
            try:
                self._stream.write(text)
                if self.name == "stderr":  # a message is worth nothing left in a buffer
                    self._stream.flush()
            except OSError as exc:
                if not _reader_gone(exc):
                    raise
                self._reader_left()
        return len(text)

    def flush(self) -> None:
        """Flush the stream (nothing once its reader has left).

        Raises
        ------
        OSError
            Any failure but the reader's leaving.
        """
        if self.closed_by_reader:
            return
        try:
            self._stream.flush()
        except OSError as exc:
            if not _reader_gone(exc):
                raise
            self._reader_left()

    def __getattr__(self, name: str) -> Any:  # fileno, isatty, encoding, buffer, …
        return getattr(self._stream, name)

    def _reader_left(self) -> None:
        with _lock:
            if self.closed_by_reader:
                return
            self.closed_by_reader = True
            watchers = list(_watchers)
        _to_devnull(self._stream)
        for cancel in watchers:
            cancel(self.name)


def _to_devnull(stream: TextIO) -> None:
    """Point ``stream``'s file descriptor at the null device, so that what is still in
    its buffer (flushed at exit) and what a child process writes to it go nowhere."""
    try:
        fd = stream.fileno()
    except (OSError, ValueError, AttributeError):  # a test's capture: no descriptor
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, fd)
    finally:
        os.close(devnull)


def _is_closed(stream: TextIO | None) -> bool:
    """True when ``stream`` (``sys.stdout`` or ``sys.stderr``) cannot be written: ``None`` (the descriptor was closed when Python started) or
    closed."""
    if stream is None:
        return True
    try:
        return bool(stream.closed)
    except (AttributeError, ValueError):
        return False


def _stand_in(name: str, fd: int) -> GuardedStream:
    """A guard over the null device for the standard stream ``name`` (descriptor ``fd``)
    that was closed at start; ``fd`` is pointed at the null device when it is not open."""
    try:
        os.fstat(fd)
    except OSError:  # closed: take the number, so that no file opened later gets it
        devnull = os.open(os.devnull, os.O_WRONLY)
        if devnull != fd:
            os.dup2(devnull, fd)
            os.close(devnull)
    return GuardedStream(
        open(os.devnull, "w", encoding="utf-8"),
        name,
        closed_at_start=True,  # noqa: SIM115
    )


@contextlib.contextmanager
def guarded() -> Iterator[None]:
    """Guard ``sys.stdout`` and ``sys.stderr`` (see the module docstring) while the
    block runs; on the way out the streams are flushed (a reader that left during the
    last writes is noticed here, not in the flush at exit) and given back.

    A stream that is ``None`` or closed at the start is replaced, for the block, by a
    guard over the null device (:func:`lost_at_start` tells whether anything written
    to it was lost)."""
    saved = sys.stdout, sys.stderr
    made = [
        _stand_in(name, fd) if _is_closed(stream) else GuardedStream(stream, name)
        for stream, name, fd in zip(saved, ("stdout", "stderr"), (1, 2), strict=True)
        if not isinstance(stream, GuardedStream)
    ]
    by_name = {g.name: g for g in made}
    sys.stdout = by_name.get("stdout", sys.stdout)  # type: ignore[assignment]
    sys.stderr = by_name.get("stderr", sys.stderr)  # type: ignore[assignment]
    with _lock:
        _streams.extend(made)
    try:
        yield
    finally:
        try:
            for stream in made:
                stream.flush()
        finally:
            sys.stdout, sys.stderr = saved
            with _lock:
                for stream in made:
                    _streams.remove(stream)
            for stream in made:
                if stream.closed_at_start:
                    stream._stream.close()


def any_closed() -> bool:
    """True when the reader of a guarded stream left during the current command (its
    exit status is then at least 1: its output did not all arrive)."""
    with _lock:
        return any(stream.closed_by_reader for stream in _streams)


def lost_at_start() -> list[str]:
    """The names (``"stdout"``, ``"stderr"``) of the guarded streams that were closed
    when the current command started and were written to: that output was lost."""
    with _lock:
        return [s.name for s in _streams if s.closed_at_start and s.written]


@contextlib.contextmanager
def watch(cancel: threading.Event, say: str) -> Iterator[None]:
    """Set ``cancel`` when the reader of a guarded stream leaves while the block runs
    (at once when one already has), and say so on stderr, when stderr is still read,
    as ``"stdout's reader has gone: " + say``.

    Parameters
    ----------
    cancel : threading.Event
        The running job's cancel flag.
    say : str
        What the cancel means for the user (the command's resume hint).
    """

    def on_close(name: str) -> None:
        first = not cancel.is_set()
        cancel.set()
        if first:
            print(f"{name}'s reader has gone: {say}", file=sys.stderr)

    with _lock:
        _watchers.append(on_close)
        gone = [stream.name for stream in _streams if stream.closed_by_reader]
    if gone:
        on_close(gone[0])
    try:
        yield
    finally:
        with _lock:
            _watchers.remove(on_close)
