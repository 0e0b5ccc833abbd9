"""Loaded into every pytest run of a mutation run (``-p tests.mutation.pytest_plugin``).

tests/conftest.py arms an exit watchdog when pytest ends (``faulthandler`` exits the
interpreter after EXIT_LIMIT_S): right for one test run, but mutmut runs pytest several
times in one long-lived process, which the watchdog would end mid-run. This disarms it
after the conftest's hook has armed it."""

from __future__ import annotations

import faulthandler

import pytest


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    """Disarm tests/conftest.py's exit watchdog (mutmut's process goes on)."""
    faulthandler.cancel_dump_traceback_later()
