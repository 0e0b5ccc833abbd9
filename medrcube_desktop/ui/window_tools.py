"""The review window's menus beyond scoring: the panes, dialogs, shortcuts,
themes, and the saved window layout. A mixin of
:class:`~medrcube_desktop.ui.main_window.MainWindow`, kept apart so each module stays
small."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QSettings
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QApplication, QMainWindow, QMessageBox

from medrcube_desktop import settings
from medrcube_desktop.core.rubric import RULE_IDS
from medrcube_desktop.errors import StoreError
from medrcube_desktop.review.session import ReviewSessionState
from medrcube_desktop.ui.actions import effective_keys
from medrcube_desktop.ui.dialogs import (
    ShortcutsDialog,
    StudySettingsDialog,
    problems_box,
    shortcuts_box,
)
from medrcube_desktop.ui.widgets.themes import FONT_SCALES, apply_theme

if TYPE_CHECKING:  # the panes load when first opened (pydantic, statistics: start-up time)
    from medrcube_desktop.ui.agreement.adjudication_pane import AdjudicationPane
    from medrcube_desktop.ui.agreement.pane import AgreementPane
    from medrcube_desktop.ui.compare.pane import ComparePane
    from medrcube_desktop.ui.evaluate.pane import EvaluatePane
    from medrcube_desktop.ui.review.judge_dialog import JudgeDialog


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
    """Dialogs, panes, shortcuts and themes of the review window."""

    def _key_of(self, action_id: str) -> str:
        keys = self.qactions[action_id].shortcuts()
        text = keys[0].toString(QKeySequence.SequenceFormat.NativeText) if keys else "—"
        return "Enter" if text == "Return" else text  # the key's everyday name

    def _show_keys(self) -> None:
        """Labels that name keys follow the (possibly remapped) action table."""
        self.rubric_pane.show_keys(
            {rule: self._key_of(f"rule.{rule}") for rule in RULE_IDS},
            self._key_of("review.pass_rest"),
            self._key_of("review.commit"),
        )

    def show_problems(self) -> None:
        """View › Benchmark problems: every problem found so far; the restricted items
        (image not redistributed) apart."""
        restricted = [
            f"{item.source_file.relative_to(self.benchmark.root).as_posix()} item {item.id}: "
            f"{item.image_path.relative_to(self.benchmark.root).as_posix()}"
            for item in self.benchmark.restricted
        ]
        problems_box(
            self,
            [str(p) for p in self.benchmark.problems],
            restricted,
            checking=self.checking_files(),
        ).exec()
        self._take_focus()

    def show_shortcuts(self) -> None:
        """Help › Keyboard shortcuts, built from the action table (as remapped)."""
        shortcuts_box(self, self.actions_table, self.qactions).exec()
        self._take_focus()

    def edit_shortcuts(self) -> None:
        """Help › Customise shortcuts: remap keys; stored in the user's settings."""
        dialog = ShortcutsDialog(self, self.actions_table, self.prefs.shortcuts)
        if self._run_dialog(dialog):
            self.apply_shortcuts(dialog.overrides())
        self._take_focus()

    def apply_shortcuts(self, overrides: dict[str, list[str]]) -> None:
        """Use remapped keys now and remember them (``settings.json`` ``shortcuts``)."""
        self.prefs.shortcuts = overrides
        for spec in self.actions_table:
            keys = effective_keys(spec, overrides)
            self.qactions[spec.id].setShortcuts([QKeySequence(k) for k in keys])
        self._show_keys()
        if self.session.draft is not None:
            self.rubric_pane.show_scores(self.session.draft.scores)
        self.preferences_changed.emit()

    def edit_study_settings(self) -> None:
        """File › Study settings: blinding, comment rules, repeats (stored in the study)."""
        dialog = StudySettingsDialog(self, self.session.study, self.session.store.judgment_models())
        if self._run_dialog(dialog):
            try:
                dialog.settings().save(self.session.store)
            except StoreError as exc:
                QMessageBox.critical(self, "Study settings not saved", str(exc))
                return
            self.set_session(
                ReviewSessionState(
                    self.session.items,
                    self.session.store,
                    self.session.reviewer,
                    restricted=self.session.restricted,
                )  # fmt: skip
            )
        self._take_focus()

    def open_judge_dialog(self) -> JudgeDialog:
        """Review › Run LLM review: judge the listed items (or all) in the background."""
        if self.judge_dialog is None:
            from medrcube_desktop.ui.review.judge_dialog import JudgeDialog

            self.judge_dialog = JudgeDialog(
                self,
                self.session.store.path,
                list(self.session.visible),
                list(self.session.items) + list(self.session.restricted),  # text only
                self.session.llm_model or "gpt-5.1",
            )
            self.judge_dialog.judged.connect(self._judgments_arrived)
        else:
            self.judge_dialog.filtered = list(self.session.visible)
        self.judge_dialog.show()
        self.judge_dialog.raise_()
        return self.judge_dialog

    def open_agreement_pane(self) -> AgreementPane:
        """Review › Agreement study: the statistics, figures and the items behind them."""
        if self.agreement_pane is None:
            from medrcube_desktop.ui.agreement.pane import AgreementPane

            self.agreement_pane = AgreementPane(self, self)
            self.agreement_pane.open_item.connect(self.show_item)
            self.agreement_pane.study_saved.connect(self._studies_changed)
        self.agreement_pane.show()
        self.agreement_pane.raise_()
        return self.agreement_pane

    def open_adjudication_pane(self) -> AdjudicationPane:
        """Review › Adjudicate disagreements: the queue, the judgments side by side."""
        if self.adjudication_pane is None:
            from medrcube_desktop.ui.agreement.adjudication_pane import AdjudicationPane

            self.adjudication_pane = AdjudicationPane(self, self)
            self.adjudication_pane.open_item.connect(self.show_item)
        else:
            self.adjudication_pane.refresh()
        self.adjudication_pane.show()
        self.adjudication_pane.raise_()
        return self.adjudication_pane

    def open_evaluate_pane(self) -> EvaluatePane:
        """Review › Evaluate a model: run it on the benchmark and inspect its answers."""
        if self.evaluate_pane is None:
            from medrcube_desktop.ui.evaluate.pane import EvaluatePane

            self.evaluate_pane = EvaluatePane(self, self)
            self.evaluate_pane.open_item.connect(self.show_item)
        self.evaluate_pane.show()
        self.evaluate_pane.raise_()
        return self.evaluate_pane

    def open_compare_pane(self) -> ComparePane:
        """Review › Compare models: the leaderboard and the items × runs grid."""
        if self.compare_pane is None:
            from medrcube_desktop.ui.compare.pane import ComparePane

            self.compare_pane = ComparePane(self, self)
            self.compare_pane.open_item.connect(self.show_item)
        else:
            self.compare_pane.fill_runs()  # runs stored since it was opened
        self.compare_pane.show()
        self.compare_pane.raise_()
        return self.compare_pane

    def _studies_changed(self) -> None:
        self.list_pane.set_studies(self.session.choices("study"))

    def _judgments_arrived(self) -> None:
        """New LLM judgments are stored: read them (still hidden until each commit; the
        reveal pane follows through the session)."""
        try:
            self.session.reload_judgments()
        except StoreError as exc:
            self.statusBar().showMessage(f"Could not read the new judgments: {exc}", 8000)

    def _run_dialog(self, dialog) -> bool:
        """Run a dialog; True when accepted (a seam for tests)."""
        return bool(dialog.exec())

    def set_theme(self, theme: str) -> None:
        """View › Theme: light, dark or high contrast (remembered)."""
        self.prefs.theme = theme
        apply_theme(QApplication.instance(), theme, self.prefs.font_scale)
        if self.session.current is not None:  # the ground truth in the new theme's colour
            self.item_pane.show_item(self.session.current)
        self.preferences_changed.emit()

    def scale_font(self, step: int) -> None:
        """View › Larger / Smaller text: move one step along FONT_SCALES (remembered)."""
        scales = FONT_SCALES
        nearest = min(range(len(scales)), key=lambda i: abs(scales[i] - self.prefs.font_scale))
        self.prefs.font_scale = scales[max(0, min(len(scales) - 1, nearest + step))]
        apply_theme(QApplication.instance(), self.prefs.theme, self.prefs.font_scale)
        self.statusBar().showMessage(f"Text size {self.prefs.font_scale:.0%}", 3000)
        self.preferences_changed.emit()

    def _take_focus(self) -> None:
        """After a dialog: give the keys back to the review (1–7, Enter...)."""
        self.activateWindow()
        self.image_view.setFocus()
