"""The window's open of a study database: a read-only one is said in one clear message
(the window writes), naming what can still read it."""

import os

import pytest

from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.store import StudyStore
from medrcube_desktop.ui import window_factory
from medrcube_desktop.ui.window_factory import open_store


@pytest.fixture
def archived(tmp_path):
    db = tmp_path / "archive" / "study.db"
    StudyStore(db).close()
    return db


def test_a_read_only_file_is_said_before_the_window_opens(archived, monkeypatch):
    real = os.access
    monkeypatch.setattr(window_factory.os, "access", lambda p, m: p != archived and real(p, m))
    with pytest.raises(MedRCubeError, match="read-only; reviews could not be saved") as error:
        open_store(archived)
    assert "export-reviews" in str(error.value)  # what still reads it


def test_a_read_only_folder_is_said_too(archived, monkeypatch):
    real = os.access
    folder = archived.parent
    monkeypatch.setattr(window_factory.os, "access", lambda p, m: p != folder and real(p, m))
    with pytest.raises(MedRCubeError, match="its folder .* is read-only"):
        open_store(archived)
    store = StudyStore(archived)  # a writer holding the file: its -wal and -shm exist
    try:
        open_store(archived).close()
    finally:
        store.close()


def test_a_writable_file_opens(archived):
    open_store(archived).close()
