"""The review window's menus beyond scoring: dialogs, shortcuts, themes, and the saved
window layout. Two parts the window owns, each given what it uses at construction:
:class:`WindowTools` (``window.tools``: benchmark problems, study settings, theme, text
size) and :class:`Shortcuts` (``window.shortcuts``: the keys of the action table)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QSettings
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QApplication, QMainWindow, QMessageBox, QStatusBar, QWidget

from medrcube_desktop import settings
from medrcube_desktop.core.dataset import Benchmark
from medrcube_desktop.core.rubric import RULE_IDS
from medrcube_desktop.errors import StoreError
from medrcube_desktop.review.session import ReviewSessionState
from medrcube_desktop.ui.actions import ActionSpec, effective_keys
from medrcube_desktop.ui.dialogs import (
    ShortcutsDialog,
    StudySettingsDialog,
    problems_box,
    shortcuts_box,
)
from medrcube_desktop.ui.widgets.themes import FONT_SCALES, apply_theme

if TYPE_CHECKING:
    from medrcube_desktop.ui.review.panes import ItemPane
    from medrcube_desktop.ui.review.rubric_pane import RubricPane


def _window_settings() -> QSettings:
    """``<config dir>/window.ini``: the window layout, beside ``settings.json``."""
    return QSettings(str(settings.config_dir() / "window.ini"), QSettings.Format.IniFormat)


def save_window_state(window: QMainWindow) -> None:
    """Remember the window's geometry, docks and splitter (QSettings, per user)."""
    store = _window_settings()
    store.setValue("window/geometry", window.saveGeometry())
    store.setValue("window/state", window.saveState())
    store.setValue("window/splitter", window.splitter.saveState())


def restore_window_state(window: QMainWindow) -> bool:
    """Put back what :func:`save_window_state` stored; False when nothing was stored."""
    store = _window_settings()
    geometry = store.value("window/geometry")
    if geometry is None:
        return False
    window.restoreGeometry(geometry)
    window.restoreState(store.value("window/state") or b"")
    splitter = store.value("window/splitter")
    if splitter is not None:
        window.splitter.restoreState(splitter)
    return True


class WindowTools:
    """View › Benchmark problems, File › Study settings, View › Theme and text size."""

    def __init__(
        self,
        parent: QWidget,
        session: Callable[[], ReviewSessionState],
        set_session: Callable[[ReviewSessionState], None],
        benchmark: Benchmark,
        prefs: settings.Settings,
        item_pane: ItemPane,
        status: QStatusBar,
        checking_files: Callable[[], bool],
        preferences_changed: Callable[[], None],
        take_focus: Callable[[], None],
    ) -> None:
        """``session()`` is the window's session now, ``set_session(session)`` binds the
        window to another (the study's settings changed); ``checking_files()`` whether
        the background file checks still run; ``preferences_changed()`` after ``prefs``
        changed; ``take_focus()`` gives the keys back to the review after a dialog."""
        self.parent, self._session, self.set_session = parent, session, set_session
        self.benchmark, self.prefs, self.item_pane, self.status = (
            benchmark,
            prefs,
            item_pane,
            status,
        )
        self.checking_files, self.preferences_changed = checking_files, preferences_changed
        self.take_focus = take_focus

    @property
    def session(self) -> ReviewSessionState:
        """The window's session now."""
        return self._session()

    def show_problems(self) -> None:
        """View › Benchmark problems: every problem found so far; the restricted items
        (image not redistributed) apart."""
        restricted = [
            f"{item.source_file.relative_to(self.benchmark.root).as_posix()} item {item.id}: "
            f"{item.image_path.relative_to(self.benchmark.root).as_posix()}"
            for item in self.benchmark.restricted
        ]
        problems_box(
            self.parent,
            [str(p) for p in self.benchmark.problems],
            restricted,
            checking=self.checking_files(),
        ).exec()
        self.take_focus()

    def edit_study_settings(self) -> None:
        """File › Study settings: blinding, comment rules, repeats (stored in the study)."""
        session = self.session
        dialog = StudySettingsDialog(self.parent, session.study, session.store.judgment_models())
        if self._run_dialog(dialog):
            try:
                dialog.settings().save(session.store)
            except StoreError as exc:
                QMessageBox.critical(self.parent, "Study settings not saved", str(exc))
                return
            self.set_session(
                ReviewSessionState(
                    session.items,
                    session.store,
                    session.reviewer,
                    restricted=session.restricted,
                )  # fmt: skip
            )
        self.take_focus()

    def _run_dialog(self, dialog) -> bool:
        """Run a dialog; True when accepted (a seam for tests)."""
        return bool(dialog.exec())

    def set_theme(self, theme: str) -> None:
        """View › Theme: light, dark or high contrast (remembered)."""
        self.prefs.theme = theme
        apply_theme(QApplication.instance(), theme, self.prefs.font_scale)
        if self.session.current is not None:  # the ground truth in the new theme's colour
            self.item_pane.show_item(self.session.current)
        self.preferences_changed()

    def scale_font(self, step: int) -> None:
        """View › Larger / Smaller text: move one step along FONT_SCALES (remembered)."""
        scales = FONT_SCALES
        nearest = min(range(len(scales)), key=lambda i: abs(scales[i] - self.prefs.font_scale))
        self.prefs.font_scale = scales[max(0, min(len(scales) - 1, nearest + step))]
        apply_theme(QApplication.instance(), self.prefs.theme, self.prefs.font_scale)
        self.status.showMessage(f"Text size {self.prefs.font_scale:.0%}", 3000)
        self.preferences_changed()


class Shortcuts:
    """The keys of the window's action table: named in labels, listed, remapped."""

    def __init__(
        self,
        parent: QWidget,
        table: list[ActionSpec],
        qactions: dict[str, QAction],
        prefs: settings.Settings,
        session: Callable[[], ReviewSessionState],
        rubric_pane: RubricPane,
        preferences_changed: Callable[[], None],
        take_focus: Callable[[], None],
    ) -> None:
        """``table`` and ``qactions``: the window's action table and its installed
        actions (by id); the rest as for :class:`WindowTools`."""
        self.parent, self.table, self.qactions, self.prefs = parent, table, qactions, prefs
        self._session, self.rubric_pane = session, rubric_pane
        self.preferences_changed, self.take_focus = preferences_changed, take_focus

    def key_of(self, action_id: str) -> str:
        """The first key of an action as the user sees it ("Enter", "Ctrl+Z", "—")."""
        keys = self.qactions[action_id].shortcuts()
        text = keys[0].toString(QKeySequence.SequenceFormat.NativeText) if keys else "—"
        return "Enter" if text == "Return" else text  # the key's everyday name

    def show_keys(self) -> None:
        """Labels that name keys follow the (possibly remapped) action table."""
        self.rubric_pane.show_keys(
            {rule: self.key_of(f"rule.{rule}") for rule in RULE_IDS},
            self.key_of("review.pass_rest"),
            self.key_of("review.commit"),
            {rule: self.key_of(f"rule.{rule}.cannot_judge") for rule in RULE_IDS},
        )

    def show_shortcuts(self) -> None:
        """Help › Keyboard shortcuts, built from the action table (as remapped)."""
        shortcuts_box(self.parent, self.table, self.qactions).exec()
        self.take_focus()

    def edit_shortcuts(self) -> None:
        """Help › Customise shortcuts: remap keys; stored in the user's settings."""
        dialog = ShortcutsDialog(self.parent, self.table, self.prefs.shortcuts)
        if self._run_dialog(dialog):
            self.apply_shortcuts(dialog.overrides())
        self.take_focus()

    def _run_dialog(self, dialog) -> bool:
        """Run a dialog; True when accepted (a seam for tests)."""
        return bool(dialog.exec())

    def apply_shortcuts(self, overrides: dict[str, list[str]]) -> None:
        """Use remapped keys now and remember them (``settings.json`` ``shortcuts``)."""
        self.prefs.shortcuts = overrides
        for spec in self.table:
            keys = effective_keys(spec, overrides)
            self.qactions[spec.id].setShortcuts([QKeySequence(k) for k in keys])
        self.show_keys()
        draft = self._session().draft
        if draft is not None:
            self.rubric_pane.show_scores(draft.scores)
        self.preferences_changed()
