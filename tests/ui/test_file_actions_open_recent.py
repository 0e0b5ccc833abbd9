"""A plain start reopens the last benchmark with its database and says so; File › Open
Recent lists the last ten, and says so of one that is gone (issue 21, part 8)."""

import os
import shutil
import subprocess
import sys

from PySide6.QtWidgets import QLineEdit, QMessageBox

from medrcube_desktop import settings
from medrcube_desktop.cli import main
from medrcube_desktop.settings import RecentStudy, Settings
from medrcube_desktop.ui import file_actions
from medrcube_desktop.ui.widgets.folder_dialog import FolderDialog
from tests.ui.review.test_review_binding_window import open_window


def start_plainly(*options: str) -> subprocess.CompletedProcess:
    """``medrcube-desktop`` with neither --demo nor --dataset, as a user starts it (its
    own process: the settings folders are this test's, through the environment)."""
    return subprocess.run(
        [sys.executable, "-m", "medrcube_desktop", "--quit-after-ms", "300", *options],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
    )


def test_file_open_then_a_plain_start_reopens_that_benchmark_and_database(
    qtbot, ct_benchmark, tmp_path
):
    """The issue: File › Open, quit, start again: the demo opened, not the benchmark."""
    window, _ = open_window(qtbot, ct_benchmark, tmp_path / "first.db")
    second = tmp_path / "second"
    shutil.copytree(ct_benchmark, second)
    other_db = tmp_path / "other.sqlite"
    window.files._open_in_new_window(file_actions.load_for_review(second), other_db)  # File › Open
    qtbot.addWidget(window.files.opened_window)
    window.files.opened_window.close()  # quit
    file_actions._OPEN_WINDOWS.clear()
    assert Settings.load().recent[0] == RecentStudy(str(second.resolve()), str(other_db))

    started = start_plainly("--reviewer", "dr-a")  # start again
    assert started.returncode == 0, started.stderr
    assert f"reviews are saved in {other_db}" in started.stderr
    said = (  # what the status bar shows (the same sentence is logged)
        "Reopened the last benchmark: second (File › Open Recent lists the others)."
    )
    assert f"INFO medrcube_desktop.ui.app: {said}\n" in started.stderr
    assert not settings.demo_benchmark_dir().exists()  # the demo was never built


def test_a_plain_start_passes_over_a_removed_benchmark_and_says_so(ct_benchmark, tmp_path):
    gone = tmp_path / "gone"
    shutil.copytree(ct_benchmark, gone)
    prefs = Settings()
    prefs.remember_study(ct_benchmark, tmp_path / "kept.db")
    prefs.remember_study(gone, tmp_path / "gone.db")
    prefs.save()
    (tmp_path / "kept.db").write_bytes(b"")  # an empty file is a new study database
    (tmp_path / "gone.db").write_bytes(b"")
    shutil.rmtree(gone)
    started = start_plainly("--reviewer", "dr-a")
    assert started.returncode == 0, started.stderr
    assert f"reviews are saved in {(tmp_path / 'kept.db').resolve()}" in started.stderr
    assert (
        "INFO medrcube_desktop.ui.app: Reopened the last benchmark still there, bench: "
        f"the benchmark folder {gone.resolve()} is missing (moved or removed).\n"
    ) in started.stderr


def test_nothing_to_reopen_unattended_names_what_is_gone(tmp_path, capsys, monkeypatch):
    from medrcube_desktop.ui import app as app_module

    monkeypatch.setattr(sys, "excepthook", sys.excepthook)  # the app sets its own
    monkeypatch.setattr(app_module, "_UNATTENDED", False)
    gone = tmp_path / "gone"
    gone.mkdir()
    prefs = Settings()
    prefs.remember_study(gone, None)
    prefs.save()
    gone.rmdir()
    assert main(["--quit-after-ms", "200"]) == 2  # refused before any window
    err = capsys.readouterr().err
    assert f"the benchmark folder {gone.resolve()} is missing (moved or removed)" in err
    assert "no benchmark given: use --demo or --dataset DIR" in err


def test_open_recent_lists_each_study_and_removes_a_missing_one_with_a_message(
    qtbot, ct_benchmark, tmp_path, monkeypatch
):
    gone = tmp_path / "gone"
    gone.mkdir()
    window, _ = open_window(qtbot, ct_benchmark, tmp_path / "s.db")
    window.prefs.remember_study(gone, tmp_path / "g.db")
    window.prefs.remember_study(ct_benchmark, tmp_path / "s.db")
    gone.rmdir()
    window.files.fill_recent_menu()  # (done as the menu opens)
    file_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&File")
    assert window.files.recent_menu.menuAction() in file_menu.actions()
    texts = [a.text() for a in window.files.recent_menu.actions() if not a.isSeparator()]
    assert texts == ["&1 bench — s.db", "&2 gone — g.db (missing)", "Clear the list"]
    shown = []
    monkeypatch.setattr(QMessageBox, "warning", lambda parent, title, text: shown.append(text))
    window.files.recent_menu.actions()[1].trigger()  # the missing one: said, not a crash
    assert shown == [
        f"Not opened: the benchmark folder {gone.resolve()} is missing (moved or removed). "
        "It is removed from File › Open Recent."
    ]
    assert [e.dataset for e in Settings.load().recent] == [str(ct_benchmark.resolve())]
    assert [a.text() for a in window.files.recent_menu.actions()][0] == "&1 bench — s.db"
    window.files.recent_menu.actions()[0].trigger()  # the one that is there opens
    opened = window.files.opened_window
    qtbot.addWidget(opened)
    assert opened.session.store.path == (tmp_path / "s.db").resolve()
    file_actions._OPEN_WINDOWS.clear()


def _type_folder(qtbot, dialog, name):
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.findChild(QLineEdit, "fileNameEdit").setText(name)
    dialog.accept()


def test_an_export_folder_may_be_a_new_name_and_is_created(qtbot, tmp_path):
    dialog = FolderDialog(None, "Export the agreement study to", str(tmp_path))
    _type_folder(qtbot, dialog, "agreement-2024/run 1")
    assert dialog.result() == FolderDialog.DialogCode.Accepted
    assert dialog.chosen() == tmp_path / "agreement-2024" / "run 1"
    assert (tmp_path / "agreement-2024" / "run 1").is_dir() and dialog.created == dialog.chosen()
    existing = FolderDialog(None, "Export", str(tmp_path))
    _type_folder(qtbot, existing, "agreement-2024")
    assert existing.result() == FolderDialog.DialogCode.Accepted and existing.created is None


def test_a_folder_that_cannot_be_created_is_said_and_the_dialog_stays(qtbot, tmp_path, monkeypatch):
    (tmp_path / "report.html").write_text("x")
    shown = []
    monkeypatch.setattr(QMessageBox, "critical", lambda parent, title, text: shown.append(text))
    dialog = FolderDialog(None, "Export the comparison report to", str(tmp_path))
    _type_folder(qtbot, dialog, "report.html/out")
    assert dialog.isVisible() and dialog.result() == 0
    assert shown == [
        f"Could not create the folder {tmp_path / 'report.html' / 'out'}: Not a directory."
    ]
