"""A file dialog listing the study's folder never opens the study (issue: after
'Export report…' the window's -wal was deleted by the next CLI writer).

Qt's dialog read the first bytes of every file it listed (their type, their icon),
``study.db`` and its ``-wal``/``-shm`` included; closing those descriptors released
the window's SQLite locks (sqlite.org/howtocorrupt.html §2.2)."""

import re
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QFileSystemModel

from medrcube_desktop.core.rubric import RULE_IDS
from medrcube_desktop.store import Review, StudyStore
from medrcube_desktop.ui.widgets.file_dialogs import SafeFileDialog
from medrcube_desktop.ui.widgets.folder_dialog import FolderDialog

T0, T1 = "2026-03-01T10:00:00+00:00", "2026-03-01T11:00:00+00:00"
PASS = dict.fromkeys(RULE_IDS, 1)
UI = Path(__file__).resolve().parents[3] / "medrcube_desktop" / "ui"


def other_process_writes(db: Path) -> None:
    code = (
        "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "
        "c.execute('CREATE TABLE IF NOT EXISTS other_writer (x)'); c.commit(); c.close()"
    )
    subprocess.run([sys.executable, "-c", code, str(db)], check=True, timeout=60)


def list_everything(qtbot, dialog: QFileDialog, folder: Path) -> list[str]:
    """Show ``dialog`` on ``folder`` and ask its model for every row's icon and type
    (what the list view paints); return the names listed."""
    dialog.setDirectory(str(folder))
    dialog.show()
    model = dialog.findChild(QFileSystemModel)
    root = model.index(str(folder))
    qtbot.waitUntil(lambda: model.rowCount(root) >= 4, timeout=10000)
    names = []
    for row in range(model.rowCount(root)):
        index = model.index(row, 0, root)
        model.data(index, Qt.ItemDataRole.DecorationRole)
        model.data(model.index(row, 2, root), Qt.ItemDataRole.DisplayRole)  # "Type"
        names.append(model.fileName(index))
    qtbot.wait(200)
    return names


@pytest.mark.parametrize("make", [FolderDialog, SafeFileDialog], ids=["folder", "file"])
def test_listing_the_study_folder_keeps_the_open_study_s_wal(qtbot, tmp_path, make):
    db = tmp_path / "study.db"
    store = StudyStore(db)
    store.save_review(Review("dr-a", "i1", PASS, "first", T0, T0))
    (tmp_path / "notes").write_bytes(b"no extension: Qt would sniff it")
    dialog = make(None, "Export report", str(tmp_path))
    qtbot.addWidget(dialog)
    listed = list_everything(qtbot, dialog, tmp_path)
    assert {"study.db", "study.db-wal", "study.db-shm"} <= set(listed)
    model = dialog.findChild(QFileSystemModel)
    shown_type = model.data(model.index(str(db)).siblingAtColumn(2))
    dialog.reject()
    other_process_writes(db)
    assert Path(f"{db}-wal").exists() and Path(f"{db}-shm").exists()
    assert shown_type == "DB File"  # from the name (Qt read the file: "SQLite3 database")
    store.save_review(Review("dr-a", "i2", PASS, "after the dialog", T1, T1))
    code = (
        "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "
        "print(c.execute(\"SELECT count(*) FROM reviews WHERE reviewer='dr-a'\").fetchone()[0])"
    )
    seen = subprocess.run([sys.executable, "-c", code, str(db)], capture_output=True, text=True)
    assert seen.stdout.strip() == "2"  # the commit is in the -wal other processes read
    store.close()


def test_no_ui_module_makes_a_file_dialog_but_file_dialogs():
    """Every dialog is a SafeFileDialog (or a subclass): ``QFileDialog``'s static
    functions and a plain ``QFileDialog(...)`` read the files they list."""
    pattern = re.compile(r"QFileDialog\.get\w+\(|QFileDialog\(|class \w+\(QFileDialog\)")
    offenders = [
        f"{path.relative_to(UI)}:{n}"
        for path in sorted(UI.rglob("*.py"))
        if path.name != "file_dialogs.py"
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line)
    ]
    assert offenders == []


def test_export_report_from_the_button_keeps_the_window_s_wal(qtbot, tmp_path, monkeypatch):
    """The trial's steps: the study in the current folder, Compare, Export report…, a
    new folder typed in the dialog, Enter; then a CLI writer, then a commit."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from tests.ui.compare import test_pane as compare

    monkeypatch.chdir(tmp_path)  # the dialog opens on the folder holding the study
    db = tmp_path / "study.db"
    compare.store_runs(db)
    bench = compare.write_benchmark(
        tmp_path / "bench",
        {"ds1": [compare.item(i) for i in compare.ANSWERS]},
        {"ds1/images/ct.dcm": compare.dicom_file("CT_small.dcm")},
    )
    window, pane = compare.open_compared(qtbot, bench, db)
    chosen = []

    def type_a_new_folder():
        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, FolderDialog) or not dialog.isVisible():
            QTimer.singleShot(50, type_a_new_folder)
            return
        qtbot.wait(500)  # listed and painted: every icon and type asked for
        dialog.selectFile(str(tmp_path / "report"))
        chosen.append(dialog)
        dialog.accept()

    QTimer.singleShot(0, type_a_new_folder)
    with qtbot.waitSignal(pane.figures.exported, timeout=60000) as written:
        pane.figures.export_button.click()
    assert chosen and len(written.args[0]) >= 14
    other_process_writes(db)
    assert Path(f"{db}-wal").exists() and Path(f"{db}-shm").exists()
    pane.store.save_review(Review("dr-tester", "c1", PASS, "after the export", T1, T1))
    code = (
        "import sqlite3, sys; c = sqlite3.connect(f'file:{sys.argv[1]}?mode=ro', uri=True); "
        "print(c.execute(\"SELECT count(*) FROM reviews WHERE reviewer='dr-tester'\")"
        ".fetchone()[0])"
    )
    seen = subprocess.run([sys.executable, "-c", code, str(db)], capture_output=True, text=True)
    assert seen.stdout.strip() == "1"
    window.close()
