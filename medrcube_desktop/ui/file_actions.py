"""File › Open benchmark, Open study database, Open Recent, Study info, Import and Export
reviews: a part the window owns (``window.files``), and its rows of the action table. Import and export are the CLI's own functions (:mod:`medrcube_desktop.store.
exchange`); opening builds a new window on the chosen files (as the start-up does) and
closes this one, so every pane starts on the new database (the window is built by the
``new_window`` callback it is given: this module never imports the window)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QApplication,
    QInputDialog,
    QLabel,
    QMainWindow,
    QMenu,
    QMenuBar,
    QMessageBox,
    QStatusBar,
)

from medrcube_desktop import settings
from medrcube_desktop.core.file_kinds import refuse_foreign
from medrcube_desktop.core.files import same_file
from medrcube_desktop.errors import MedRCubeError, StoreError
from medrcube_desktop.review.session import ReviewSessionState
from medrcube_desktop.store.exchange import WHICH, export_reviews, import_reviews
from medrcube_desktop.ui.actions import ActionSpec
from medrcube_desktop.ui.widgets.file_dialogs import (
    get_existing_directory,
    get_open_file_name,
    get_save_file_name,
)
from medrcube_desktop.ui.window_factory import load_for_review, open_store

if TYPE_CHECKING:
    from medrcube_desktop.core.dataset import Benchmark
    from medrcube_desktop.store import StudyStore

log = logging.getLogger(__name__)

_OPEN_WINDOWS: list = []  # windows opened from File › Open (kept alive while shown)


def file_actions(window) -> list[ActionSpec]:
    """The File menu's open, info, import and export actions."""
    return [
        ActionSpec("app.open_benchmark", "Open benchmark…", ("Ctrl+O",),
                   lambda: window.files.open_benchmark(), "File"),
        ActionSpec("app.open_database", "Open study database…", ("Ctrl+Shift+O",),
                   lambda: window.files.open_database(), "File"),
        ActionSpec("app.study_info", "Study info (where the reviews are saved)…", ("Ctrl+I",),
                   lambda: window.files.show_study_info(), "File"),
        ActionSpec("app.import_reviews", "Import reviews (CSV)…", (),
                   lambda: window.files.import_reviews_csv(), "File"),
        ActionSpec("app.export_reviews", "Export reviews (CSV)…", (),
                   lambda: window.files.export_reviews_csv(), "File"),
    ]  # fmt: skip


def with_file_actions(specs: list[ActionSpec], window) -> list[ActionSpec]:
    """``specs`` with :func:`file_actions` at the top of the File menu."""
    first_file = next((i for i, s in enumerate(specs) if s.menu == "File"), len(specs))
    return specs[:first_file] + file_actions(window) + specs[first_file:]


def _opener(files: FileActions, entry: settings.RecentStudy):
    """A slot without argument that opens ``entry`` (``triggered(bool)`` is not passed)."""

    def slot() -> None:
        files.open_recent(entry)

    return slot


class FileActions:
    """Open, study info, import and export for the review window."""

    def __init__(
        self,
        window: QMainWindow,
        session: Callable[[], ReviewSessionState],
        set_session: Callable[[ReviewSessionState], None],
        benchmark: Benchmark,
        prefs: settings.Settings,
        new_window: Callable[[Benchmark, StudyStore], QMainWindow],
        take_focus: Callable[[], None],
    ) -> None:
        """``window``: the review window these actions belong to (the dialogs' parent; a
        File › Open closes it once the new one is shown); ``session()`` its session now,
        ``set_session(session)`` binds it to another; ``new_window(benchmark, store)``
        builds a window like it (not shown); ``take_focus()`` gives the keys back to the
        review after a dialog."""
        self.window, self._session, self.set_session = window, session, set_session
        self.benchmark, self.prefs, self.new_window = benchmark, prefs, new_window
        self.take_focus = take_focus
        self.status: QStatusBar = window.statusBar()
        self.db_label = QLabel()
        self.db_label.setObjectName("databasePath")
        self.status.addPermanentWidget(self.db_label)
        self.recent_menu: QMenu | None = None
        self.opened_window: QMainWindow | None = None  # the last File › Open (tests)
        self.study_info_text = ""  # what Study info said last (tests)

    @property
    def session(self) -> ReviewSessionState:
        """The window's session now."""
        return self._session()

    def _run_dialog(self, dialog) -> bool:
        """Run a dialog; True when accepted (a seam for tests)."""
        return bool(dialog.exec())

    def show_database_path(self) -> None:
        """The status bar names the study database, always."""
        path = self.session.store.path
        self.db_label.setText(f"Database: {path.name if path else 'in memory'}")
        self.db_label.setToolTip(str(path) if path else "not saved to a file")

    def open_benchmark(self) -> None:
        """File › Open benchmark: a folder; its own study database (as at start-up)."""
        chosen = get_existing_directory(self.window, "Open a MedRCube benchmark folder")
        if not chosen:
            return
        try:
            benchmark = load_for_review(Path(chosen))
        except MedRCubeError as exc:
            QMessageBox.critical(self.window, "Benchmark not opened", str(exc))
            return
        self._open_in_new_window(benchmark, settings.default_db_path(benchmark.root))

    def open_database(self) -> None:
        """File › Open study database: another database file for this benchmark."""
        chosen, _ = get_open_file_name(
            self.window,
            "Open a study database",
            str(self.session.store.path.parent if self.session.store.path else ""),
            "Study databases (*.sqlite *.db);;All files (*)",
        )
        if chosen:
            self._open_in_new_window(self.benchmark, Path(chosen))

    def install_recent_menu(self, menu_bar: QMenuBar, before: QAction) -> QMenu:
        """File › Open Recent in ``menu_bar``'s File menu, above ``before`` (after the
        open actions): the last benchmarks opened, each with its database
        (``Settings.recent``), filled each time the menu opens."""
        file_menu = next(a.menu() for a in menu_bar.actions() if a.menu() and a.text() == "&File")
        self.recent_menu = QMenu("Open &Recent", self.window)
        self.recent_menu.setObjectName("openRecent")
        self.recent_menu.aboutToShow.connect(self.fill_recent_menu)
        file_menu.insertMenu(before, self.recent_menu)
        self.fill_recent_menu()
        return self.recent_menu

    def fill_recent_menu(self) -> None:
        """List ``Settings.recent``: "benchmark — database", "(missing)" after an entry
        whose folder or database is gone; "Clear the list" last."""
        menu = self.recent_menu
        menu.clear()
        for n, entry in enumerate(self.prefs.recent, start=1):
            title = entry.title().replace("&", "&&")
            missing = entry.missing()
            action = menu.addAction(f"&{n % 10} {title}" + (" (missing)" if missing else ""))
            action.setToolTip(missing or f"{entry.dataset}\n{entry.database()}")
            action.setStatusTip(missing or f"{entry.dataset} with {entry.database()}")
            action.triggered.connect(_opener(self, entry))
        if not self.prefs.recent:
            menu.addAction("No benchmark opened yet").setEnabled(False)
        else:
            menu.addSeparator()
            menu.addAction("Clear the list").triggered.connect(self.clear_recent)
        menu.menuAction().setToolTip("The last benchmarks opened, each with its database")

    def open_recent(self, entry: settings.RecentStudy) -> None:
        """File › Open Recent › an entry: its benchmark with its database, in a new
        window; an entry that is gone is said so and removed from the list."""
        missing = entry.missing()
        if missing is None:
            try:
                benchmark = load_for_review(Path(entry.dataset))
            except MedRCubeError as exc:
                QMessageBox.critical(self.window, "Benchmark not opened", str(exc))
                return
            self._open_in_new_window(benchmark, entry.database())
            return
        self.prefs.forget_study(entry)
        self.prefs.save()
        self.fill_recent_menu()
        text = f"Not opened: {missing}. It is removed from File › Open Recent."
        self.status.showMessage(text, 10000)
        QMessageBox.warning(self.window, "Benchmark not found", text)

    def clear_recent(self) -> None:
        """File › Open Recent › Clear the list."""
        self.prefs.recent = []
        self.prefs.save()
        self.fill_recent_menu()
        self.status.showMessage("File › Open Recent cleared.", 4000)

    def _open_in_new_window(self, benchmark, db_file: Path) -> None:
        try:
            store = open_store(db_file)
        except MedRCubeError as exc:
            QMessageBox.critical(self.window, "Study database not opened", str(exc))
            return
        self.prefs.remember_study(benchmark.root, store.path)  # Open Recent, the next start
        self.prefs.save()  # (was not saved: the next plain start opened the demo)
        window = self.new_window(benchmark, store)
        window.resize(self.window.size())
        QApplication.instance().aboutToQuit.connect(store.close)
        _OPEN_WINDOWS.append(window)
        window.show()
        log.info("opened %s with reviews in %s", benchmark.root, store.path)
        old_store = self.session.store
        self.window.close()  # keeps its position and drafts first
        if old_store is not store:
            old_store.close()
        if self.window in _OPEN_WINDOWS:
            _OPEN_WINDOWS.remove(self.window)
        self.opened_window = window  # (tests)

    def show_study_info(self) -> None:
        """File › Study info: the benchmark, the database file, the reviewer."""
        store = self.session.store
        try:
            reviewers = ", ".join(store.reviewers()) or "none yet"
        except StoreError as exc:
            reviewers = f"cannot be read ({exc})"
        text = (
            f"Benchmark: {self.benchmark.root} ({len(self.session.items)} items)\n"
            f"Study database: {store.path or 'in memory (not saved)'}\n"
            f"Reviewer: {self.session.reviewer}\nReviewers in this database: {reviewers}"
        )
        box = QMessageBox(QMessageBox.Icon.Information, "Study info", text, parent=self.window)
        self.study_info_text = text  # (tests)
        self._run_dialog(box)
        self.take_focus()

    def import_reviews_csv(self) -> None:
        """File › Import reviews: a CSV as this reviewer's, as ``import-reviews`` does."""
        chosen, _ = get_open_file_name(
            self.window, "Import reviews", "", "CSV files (*.csv);;All files (*)"
        )
        if not chosen:
            return
        reviewer = self.session.reviewer
        try:
            summary = import_reviews(self.session.store, reviewer, chosen)
        except StoreError as exc:
            QMessageBox.critical(self.window, "Reviews not imported", str(exc))
            return
        text = (
            f"{summary.imported} reviews imported as {reviewer}, {summary.skipped} skipped "
            f"as unchanged, {len(summary.problems)} problems in {chosen}"
        )
        self.set_session(
            ReviewSessionState(
                self.session.items,
                self.session.store,
                reviewer,
                restricted=self.session.restricted,
            )  # fmt: skip
        )
        box = QMessageBox(
            QMessageBox.Icon.Information, "Reviews imported", text, parent=self.window
        )
        if summary.problems:
            box.setIcon(QMessageBox.Icon.Warning)
            box.setDetailedText("\n".join(summary.problems))
        self.status.showMessage(text, 10000)
        self._run_dialog(box)

    def export_reviews_csv(self) -> None:
        """File › Export reviews: this reviewer's reviews as CSV (``export-reviews``)."""
        titles = {"latest": "the latest revision of each item",
                  "first": "the first judgment of each item",
                  "all": "every revision and repeat"}  # fmt: skip
        which, ok = QInputDialog.getItem(
            self.window, "Export reviews", "Write:", [titles[w] for w in WHICH], 0, False
        )
        if not ok:
            return
        chosen, _ = get_save_file_name(
            self.window,
            "Export reviews to",
            f"reviews-{self.session.reviewer}.csv",
            "CSV files (*.csv)",
        )
        if not chosen:
            return
        out, store = Path(chosen), self.session.store
        if same_file(out, store.path):
            QMessageBox.critical(
                self.window,
                "Not exported",
                f"{out} is the study database: write the CSV elsewhere.",
            )
            return
        choice = next(w for w in WHICH if titles[w] == which)
        try:
            refuse_foreign(out, "reviews CSV")  # the dialog asked; a database is still kept
            rows = export_reviews(store, self.session.reviewer, out, choice)
        except StoreError as exc:
            QMessageBox.critical(self.window, "Reviews not exported", str(exc))
            return
        self.status.showMessage(
            f"{rows} reviews by {self.session.reviewer} written to {out}", 10000
        )
