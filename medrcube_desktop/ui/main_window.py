"""The review window: item list | image | question, options and rubric."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import Qt, QThreadPool, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QMessageBox,
    QProgressBar,
    QSlider,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from medrcube_desktop.core.dataset import Benchmark
from medrcube_desktop.errors import StoreError
from medrcube_desktop.imaging.render import RenderedImage
from medrcube_desktop.review.rubric import RULE_IDS, load_rubric
from medrcube_desktop.review.session import ItemFilter, ReviewSessionState
from medrcube_desktop.ui.image_view import ImageView, RenderTask
from medrcube_desktop.ui.panes import ItemListPane, ItemPane, RubricPane

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ActionSpec:
    """One user action: id, menu title, default shortcuts, handler (STYLE.md rule 11)."""

    id: str
    title: str
    shortcuts: tuple[str, ...]
    handler: Callable[[], None]
    menu: str = "Review"


class MainWindow(QMainWindow):
    """Review window bound to a :class:`ReviewSessionState`.

    Emits ``first_item_shown`` once the first item's image is on screen.
    """

    first_item_shown = Signal()

    def __init__(self, session: ReviewSessionState, benchmark: Benchmark, parent=None) -> None:
        super().__init__(parent)
        self.session = session
        self.benchmark = benchmark
        self.rubric = load_rubric()
        self._generation = 0
        self._shown_first = False
        self.setWindowTitle(f"MedRCube Desktop — {benchmark.name} — {session.reviewer}")
        self.setMinimumSize(1024, 700)
        self._build_widgets()
        self.actions_table = self._action_specs()
        self._install_actions()
        self.list_pane.set_items(session.visible, set(session.saved), None)
        self._update_progress()
        first = session.resume_item_id()
        if first is not None:
            self.show_item(first)
        else:
            self.statusBar().showMessage("This benchmark has no loadable items.")

    # -- construction ---------------------------------------------------------
    def _build_widgets(self) -> None:
        s = self.session
        self.list_pane = ItemListPane(
            {k: s.choices(k) for k in ("task", "modality", "region", "dataset")}
        )
        self.list_pane.filter_changed.connect(self._apply_filter)
        self.list_pane.item_chosen.connect(self.show_item)
        self.image_view = ImageView()
        self.slice_slider = QSlider(Qt.Orientation.Horizontal)
        self.slice_slider.setObjectName("sliceSlider")
        self.slice_slider.valueChanged.connect(self._slice_changed)
        self.slice_label = QLabel()
        self.image_message = QLabel()
        self.image_message.setObjectName("imageMessage")
        self.image_message.setWordWrap(True)
        centre = QWidget()
        centre_layout = QVBoxLayout(centre)
        centre_layout.addWidget(self.image_view, 1)
        slice_row = QHBoxLayout()
        slice_row.addWidget(self.slice_label)
        slice_row.addWidget(self.slice_slider, 1)
        centre_layout.addLayout(slice_row)
        centre_layout.addWidget(self.image_message)
        self.item_pane = ItemPane()
        self.rubric_pane = RubricPane(self.rubric)
        self.rubric_pane.toggled.connect(self.toggle_rule)
        self.rubric_pane.comment_edited.connect(self.session.set_comment)
        self.rubric_pane.commit_requested.connect(self.commit)
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.addWidget(self.item_pane)
        right_layout.addWidget(self.rubric_pane)
        right_layout.addStretch(1)
        splitter = QSplitter()
        splitter.addWidget(self.list_pane)
        splitter.addWidget(centre)
        splitter.addWidget(right)
        splitter.setSizes([260, 620, 400])
        splitter.setStretchFactor(1, 1)
        self.setCentralWidget(splitter)
        self.progress_label = QLabel()
        self.progress_label.setObjectName("progressLabel")
        self.progress_bar = QProgressBar()
        self.progress_bar.setMaximumWidth(200)
        self.statusBar().addPermanentWidget(self.progress_label)
        self.statusBar().addPermanentWidget(self.progress_bar)
        if self.benchmark.problems:
            problems = QLabel(
                f"{len(self.benchmark.problems)} benchmark problems (View › Problems)"
            )
            problems.setStyleSheet("color: #b42318")
            self.statusBar().addWidget(problems)

    def _action_specs(self) -> list[ActionSpec]:
        specs = [
            ActionSpec(
                f"rule.{rule}", f"Toggle rule {rule}", (str(n),), lambda r=rule: self.toggle_rule(r)
            )
            for n, rule in enumerate(RULE_IDS, start=1)
        ]
        specs += [
            ActionSpec(
                "review.commit", "Commit and next", ("Return", "Enter", "Ctrl+Return"), self.commit
            ),
            ActionSpec(
                "review.leave_comment",
                "Leave the comment box",
                ("Escape",),
                self.image_view.setFocus,
            ),
            ActionSpec(
                "view.zoom_in", "Zoom in", ("+", "="), lambda: self.image_view.zoom(1.25), "View"
            ),
            ActionSpec(
                "view.zoom_out", "Zoom out", ("-",), lambda: self.image_view.zoom(0.8), "View"
            ),
            ActionSpec("view.fit", "Fit image", ("0",), self.image_view.fit, "View"),
            ActionSpec(
                "view.next_slice", "Next slice", ("PgDown",), lambda: self._step_slice(1), "View"
            ),
            ActionSpec(
                "view.previous_slice",
                "Previous slice",
                ("PgUp",),
                lambda: self._step_slice(-1),
                "View",
            ),
            ActionSpec("view.problems", "Problems…", (), self.show_problems, "View"),
            ActionSpec(
                "help.shortcuts", "Keyboard shortcuts", ("?", "F1"), self.show_shortcuts, "Help"
            ),
            ActionSpec("app.quit", "Quit", ("Ctrl+Q",), self.close, "File"),
        ]
        return specs

    def _install_actions(self) -> None:
        menus = {name: self.menuBar().addMenu(name) for name in ("File", "Review", "View", "Help")}
        self.qactions: dict[str, QAction] = {}
        for spec in self.actions_table:
            menu = menus.get(spec.menu) or menus.setdefault(
                spec.menu, self.menuBar().addMenu(spec.menu)
            )
            action = QAction(spec.title, self)
            action.setShortcuts([QKeySequence(k) for k in spec.shortcuts])
            action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
            action.triggered.connect(lambda _checked=False, run=spec.handler: run())
            menu.addAction(action)
            self.qactions[spec.id] = action

    # -- behaviour --------------------------------------------------------------
    def show_item(self, item_id: str) -> None:
        """Make ``item_id`` current: question, options, saved or fresh draft, image."""
        item = self.session.select(item_id)
        self.list_pane.select(item_id)
        self.item_pane.show_item(item)
        self.rubric_pane.show_scores(self.session.draft.scores)
        self.rubric_pane.show_comment(self.session.draft.comment)
        saved = self.session.saved.get(item_id)
        self.rubric_pane.saved_label.setText(
            f"Saved: revision {saved.revision}, committed {saved.committed_at}"
            if saved
            else "Not reviewed yet."
        )
        self.slice_slider.blockSignals(True)
        self.slice_slider.setRange(0, 0)
        self.slice_slider.blockSignals(False)
        self._render(None)

    def _render(self, slice_index: int | None) -> None:
        self._generation += 1
        task = RenderTask(self._generation, self.session.current, slice_index)
        task.signals.done.connect(self._on_rendered)
        task.signals.failed.connect(self._on_render_failed)
        self.image_message.setText("Rendering…")
        QThreadPool.globalInstance().start(task)

    def _on_rendered(self, generation: int, result: RenderedImage) -> None:
        if generation != self._generation:
            return  # a newer request superseded this one
        self.image_view.set_image(result.rgba)
        self.slice_slider.blockSignals(True)
        self.slice_slider.setRange(0, max(0, result.slice_count - 1))
        self.slice_slider.setValue(result.slice_index)
        self.slice_slider.blockSignals(False)
        self.slice_slider.setVisible(result.slice_count > 1)
        self.slice_label.setText(
            f"Slice {result.slice_index + 1} of {result.slice_count}"
            if result.slice_count > 1
            else ""
        )
        window = f"Window C {result.window[0]:g} / W {result.window[1]:g}" if result.window else ""
        self.image_message.setText("  ·  ".join([window, *result.notes]).strip(" ·"))
        self._announce_first()

    def _on_render_failed(self, generation: int, message: str) -> None:
        if generation != self._generation:
            return
        self.image_view.clear()
        self.image_message.setText(
            f"<span style='color:#b42318'>Cannot show the image: {message}</span>"
        )
        self._announce_first()

    def _announce_first(self) -> None:
        if not self._shown_first:
            self._shown_first = True
            self.first_item_shown.emit()

    def _slice_changed(self, value: int) -> None:
        if self.session.current is not None:
            self._render(value)

    def _step_slice(self, step: int) -> None:
        if self.slice_slider.isVisible():
            self.slice_slider.setValue(self.slice_slider.value() + step)

    def toggle_rule(self, rule_id: str) -> None:
        if self.session.draft is None:
            return
        self.session.toggle(rule_id)
        self.rubric_pane.show_scores(self.session.draft.scores)

    def commit(self) -> None:
        """Save the current draft at once, then move to the next item in the list."""
        if self.session.current is None:
            return
        try:
            review = self.session.commit()
        except StoreError as exc:
            log.exception("commit failed")
            QMessageBox.critical(
                self, "Review not saved", f"{exc}\n\nYour scores are still on screen."
            )
            return
        self.list_pane.mark_reviewed(review.item_id, self.session.current)
        self._update_progress()
        self.statusBar().showMessage(f"Saved {review.item_id} (revision {review.revision}).", 4000)
        next_id = self.session.next_item_id()
        if next_id is None:
            self.rubric_pane.saved_label.setText(
                f"Saved: revision {review.revision}. End of the list."
            )
        else:
            self.show_item(next_id)

    def _apply_filter(self, item_filter: ItemFilter) -> None:
        visible = self.session.set_filter(item_filter)
        current = self.session.current.id if self.session.current else None
        self.list_pane.set_items(visible, set(self.session.saved), current)
        if visible and current not in {i.id for i in visible}:
            self.show_item(visible[0].id)

    def _update_progress(self) -> None:
        done, total = self.session.progress()
        self.progress_label.setText(f"{done} of {total} reviewed")
        self.progress_bar.setRange(0, max(total, 1))
        self.progress_bar.setValue(done)

    def show_problems(self) -> None:
        text = "\n".join(str(p) for p in self.benchmark.problems) or "No problems found."
        box = QMessageBox(
            QMessageBox.Icon.Information,
            "Benchmark problems",
            f"{len(self.benchmark.problems)} problems",
            parent=self,
        )
        box.setDetailedText(text)
        box.exec()

    def show_shortcuts(self) -> None:
        lines = [f"{', '.join(s.shortcuts) or '—':<24} {s.title}" for s in self.actions_table]
        box = QMessageBox(self)
        box.setWindowTitle("Keyboard shortcuts")
        box.setText("<pre>" + "\n".join(lines) + "</pre>")
        box.exec()
