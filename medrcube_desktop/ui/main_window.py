"""The review window: item list | image | question, options and rubric."""

from __future__ import annotations

import logging
from datetime import datetime

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QProgressBar,
    QScrollArea,
    QSlider,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from medrcube_desktop.core.dataset import Benchmark
from medrcube_desktop.core.rubric import RULE_IDS, load_rubric
from medrcube_desktop.errors import StoreError
from medrcube_desktop.review.session import ItemFilter, ReviewIncomplete, ReviewSessionState
from medrcube_desktop.ui.actions import install_actions, review_actions
from medrcube_desktop.ui.dialogs import problems_box, shortcuts_box, unsaved_changes_box
from medrcube_desktop.ui.image_controls import ImageControls
from medrcube_desktop.ui.image_view import ImageView
from medrcube_desktop.ui.panes import ItemListPane, ItemPane, RubricPane

log = logging.getLogger(__name__)


def local_time(iso: str) -> str:
    """An ISO 8601 UTC timestamp as local time, e.g. ``2026-11-29 15:10``."""
    try:
        return datetime.fromisoformat(iso).astimezone().strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return iso


class MainWindow(ImageControls, QMainWindow):
    """Review window bound to a :class:`ReviewSessionState`.

    Emits ``first_item_shown`` once the first item's image is on screen (or once it is
    clear that there is no item to show). ``reviewer_changed(name)`` when the reviewer
    switches through File › Change reviewer.
    """

    first_item_shown = Signal()
    reviewer_changed = Signal(str)
    convention_changed = Signal(bool)  # True: neurological

    def __init__(
        self,
        session: ReviewSessionState,
        benchmark: Benchmark,
        parent=None,
        neurological: bool = False,
    ) -> None:
        super().__init__(parent)
        self.neurological = neurological
        self.session = session
        self.benchmark = benchmark
        self.rubric = load_rubric()
        self._generation = 0
        self._shown_first = False
        self._fit_next = True
        self.show_overlay = True  # key M hides the mask and box to see the tissue under them
        # Display choices that persist from item to item (None: the file's or default window)
        self.display_window: tuple[float, float] | None = None
        self.invert = False
        self._shown_window: tuple[float, float] | None = None
        self._position_timer = QTimer(self)
        self._position_timer.setSingleShot(True)
        self._position_timer.setInterval(400)  # ms; rapid browsing writes once
        self._position_timer.timeout.connect(self._remember_position)
        self.setMinimumSize(1024, 700)
        self._build_widgets()
        self.actions_table = review_actions(self)
        self.qactions = install_actions(self, self.actions_table)
        self._start_session()

    # -- construction ---------------------------------------------------------
    def _build_widgets(self) -> None:
        s = self.session
        self.list_pane = ItemListPane(
            {k: s.choices(k) for k in ("task", "modality", "region", "dataset")}
        )
        self.list_pane.filter_changed.connect(self._apply_filter)
        self.list_pane.item_chosen.connect(self.show_item)
        self.image_view = ImageView()
        self.image_view.window_dragged.connect(self._drag_window)
        self.slice_slider = QSlider(Qt.Orientation.Horizontal)
        self.slice_slider.setObjectName("sliceSlider")
        self.slice_slider.valueChanged.connect(self._slice_changed)
        self.slice_slider.setFocusPolicy(Qt.FocusPolicy.NoFocus)
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
        self.rubric_pane.comment_edited.connect(self._comment_edited)
        self.rubric_pane.commit_requested.connect(self.commit)
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.addWidget(self.item_pane)
        right_layout.addWidget(self.rubric_pane)
        right_layout.addStretch(1)
        scroll = QScrollArea()  # the rules keep their natural height on small screens
        scroll.setWidget(right)
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        self.right_scroll = scroll
        side = QWidget()  # comment, commit button and messages always in view below
        side.setMinimumWidth(460)
        side_layout = QVBoxLayout(side)
        side_layout.setContentsMargins(0, 0, 0, 0)
        side_layout.addWidget(scroll, 1)
        side_layout.addWidget(self.rubric_pane.footer)
        splitter = QSplitter()
        splitter.addWidget(self.list_pane)
        splitter.addWidget(centre)
        splitter.addWidget(side)
        splitter.setSizes([280, 560, 520])
        splitter.setStretchFactor(1, 1)
        self.setCentralWidget(splitter)
        self.progress_label = QLabel()
        self.progress_label.setObjectName("progressLabel")
        self.progress_bar = QProgressBar()
        self.progress_bar.setMaximumWidth(200)
        self.progress_bar.setTextVisible(False)  # the label beside it says "n of N"
        self.statusBar().addPermanentWidget(self.progress_label)
        self.statusBar().addPermanentWidget(self.progress_bar)
        if self.benchmark.problems:
            problems = QLabel(
                f"{len(self.benchmark.problems)} benchmark problems (View › Problems)"
            )
            problems.setStyleSheet("color: #b42318")
            self.statusBar().addWidget(problems)

    def _start_session(self) -> None:
        """Show the session's list and open the item the reviewer resumes on."""
        self.setWindowTitle(f"MedRCube Desktop — {self.benchmark.name} — {self.session.reviewer}")
        self.session.set_filter(self.list_pane.current_filter())
        self._refresh_list()
        self._update_progress()
        first = self.session.resume_item_id()
        if first is not None:
            self.show_item(first)
        else:
            self._show_no_item(
                "This benchmark has no loadable items."
                if not self.session.items
                else "No item matches the filters."
            )

    # -- behaviour --------------------------------------------------------------
    def show_item(self, item_id: str) -> None:
        """Make ``item_id`` current: question, options, draft (kept) or saved scores, image."""
        previous = self.session.current.id if self.session.current else None
        item = self.session.select(item_id)
        self._position_timer.start()  # store the resume position once the reviewer settles
        self.list_pane.select(item_id)
        self.item_pane.show_item(item)
        self.rubric_pane.show_scores(self.session.draft.scores)
        self.rubric_pane.show_comment(self.session.draft.comment)
        self._show_saved_status()
        if item_id != previous:
            self._fit_next = True  # a new item opens fitted to the window
            self.right_scroll.verticalScrollBar().setValue(0)
            self.image_view.clear()
            self.slice_slider.blockSignals(True)
            self.slice_slider.setRange(0, 0)
            self.slice_slider.blockSignals(False)
            self._render(None)

    def _remember_position(self) -> None:
        """Store where the reviewer is, to resume there next time (best effort)."""
        try:
            self.session.remember_position()
        except StoreError as exc:  # not fatal: only the resume position is not stored
            log.warning("%s", exc)
            self.statusBar().showMessage(f"Could not store the current position: {exc}", 8000)

    def _show_saved_status(self) -> None:
        saved = self.session.saved.get(self.session.current.id)
        if self.session.has_unsaved_changes(self.session.current.id):
            text = "Unsaved changes (kept while the app runs; Enter commits)."
        elif saved:
            text = f"Saved: revision {saved.revision}, committed {local_time(saved.committed_at)}."
        else:
            text = "Not reviewed yet."
        self.rubric_pane.show_status(text)

    def _show_no_item(self, message: str) -> None:
        self.session.clear_current()
        self._generation += 1  # drop any render still in flight
        self.item_pane.show_nothing(message)
        self.rubric_pane.show_scores({rule: None for rule in RULE_IDS})
        self.rubric_pane.show_comment("")
        self.rubric_pane.show_status("")
        self.image_view.clear()
        self.slice_slider.setVisible(False)
        self.slice_label.setText("")
        self.image_message.setText(message)
        QTimer.singleShot(0, self._announce_first)  # after the caller connected to the signal

    def toggle_rule(self, rule_id: str) -> None:
        """Key 1–7: score one rule of the current item (unscored → fail → pass → fail)."""
        if self.session.current is None:
            return
        self.session.toggle(rule_id)
        self._draft_changed()

    def pass_unscored(self) -> None:
        """Key P: pass every rule of the current item that is not scored yet."""
        if self.session.current is not None and self.session.pass_unscored():
            self._draft_changed()

    def _comment_edited(self, text: str) -> None:
        if self.session.current is not None:
            self.session.set_comment(text)
            self._draft_changed(scores=False)

    def _draft_changed(self, scores: bool = True) -> None:
        if scores:
            self.rubric_pane.show_scores(self.session.draft.scores)
        self.list_pane.set_mark(self.session.current, self._mark(self.session.current.id))
        self._show_saved_status()

    def _mark(self, item_id: str) -> str:
        if self.session.has_unsaved_changes(item_id):
            return "✎"
        return "✓" if item_id in self.session.saved else ""

    def commit(self) -> None:
        """Save the current draft at once, then move to the next item in the list."""
        if self.session.current is None:
            self.statusBar().showMessage("No item to commit.", 4000)
            return
        if self.session.is_saved_unchanged(self.session.current.id):
            # nothing new to save: Enter only moves on (no duplicate revision)
            self.statusBar().showMessage(
                f"{self.session.current.id} unchanged, not saved again.", 4000
            )
            self._go_next(None)
            return
        try:
            review = self.session.commit()
        except ReviewIncomplete as exc:
            self.rubric_pane.show_status(str(exc), problem=True)
            if exc.needs_comment:
                self.rubric_pane.comment.setFocus()
            return
        except StoreError as exc:
            log.exception("commit failed")
            QMessageBox.critical(
                self, "Review not saved", f"{exc}\n\nYour scores are still on screen."
            )
            return
        self.list_pane.set_mark(self.session.current, "✓")
        self._update_progress()
        self.statusBar().showMessage(f"Saved {review.item_id} (revision {review.revision}).", 4000)
        self._go_next(review.revision)

    def step_item(self, step: int) -> None:  # Ctrl+Down / Backspace
        """Move through the visible list without committing (the draft is kept)."""
        ids = [item.id for item in self.session.visible]
        if not ids:
            return
        current = self.session.current.id if self.session.current else None
        position = ids.index(current) + step if current in ids else 0
        self.show_item(ids[max(0, min(position, len(ids) - 1))])

    def _go_next(self, revision: int | None) -> None:
        next_id = self.session.next_item_id()
        if next_id is None:
            self.rubric_pane.show_status(
                "End of the list."
                if revision is None
                else f"Saved: revision {revision}. End of the list."
            )
        else:
            self.show_item(next_id)
        self.image_view.setFocus()  # keys 1–7 score the next item, not the comment box

    def _apply_filter(self, item_filter: ItemFilter) -> None:
        visible = self.session.set_filter(item_filter)
        current = self.session.current.id if self.session.current else None
        self._refresh_list()
        if not visible:
            self._show_no_item("No item matches the filters.")
        elif current not in {i.id for i in visible}:
            self.show_item(visible[0].id)

    def _refresh_list(self) -> None:
        current = self.session.current.id if self.session.current else None
        states = {item.id: self._mark(item.id) for item in self.session.visible}
        self.list_pane.set_items(self.session.visible, states, current)

    def _update_progress(self) -> None:
        done, total = self.session.progress()
        self.progress_label.setText(f"{done} of {total} reviewed")
        self.progress_bar.setRange(0, max(total, 1))
        self.progress_bar.setValue(done)

    def set_session(self, session: ReviewSessionState) -> None:
        """Bind the window to another session (another reviewer on the same study)."""
        self.session = session
        self.rubric_pane.comment_edited.disconnect()
        self.rubric_pane.comment_edited.connect(self._comment_edited)
        self._start_session()

    def ask_reviewer(self) -> None:
        """File › Change reviewer: reviews from now on carry the new name."""
        if any(self.session.has_unsaved_changes(i) for i in self.session.drafts):
            answer = QMessageBox.question(
                self,
                "Unsaved changes",
                "Some items have unsaved changes. Switch reviewer and drop them?",
            )
            if answer != QMessageBox.StandardButton.Yes:
                return
        name, ok = QInputDialog.getText(
            self, "Reviewer", "Reviewer name:", text=self.session.reviewer
        )
        if ok and name.strip() and name.strip() != self.session.reviewer:
            session = ReviewSessionState(self.session.items, self.session.store, name.strip())
            self.set_session(session)
            self.reviewer_changed.emit(name.strip())

    def closeEvent(self, event) -> None:  # noqa: N802 (Qt override)
        """Ask before losing uncommitted edits (Cancel is the default button)."""
        unsaved = [i for i in self.session.drafts if self.session.has_unsaved_changes(i)]
        ask = unsaved and self.isVisible() and not self.property("unattended")
        if (
            ask
            and self._ask(unsaved_changes_box(self, unsaved)) != QMessageBox.StandardButton.Discard
        ):
            event.ignore()
            return
        event.accept()

    def _ask(self, box: QMessageBox) -> QMessageBox.StandardButton:
        """Run a question box (a seam for tests)."""
        return QMessageBox.StandardButton(box.exec())

    def show_problems(self) -> None:
        """View › Benchmark problems: every problem the loader found."""
        problems_box(self, [str(p) for p in self.benchmark.problems]).exec()
        self._take_focus()

    def show_shortcuts(self) -> None:
        """Help › Keyboard shortcuts, built from the action table."""
        shortcuts_box(self, self.actions_table).exec()
        self._take_focus()

    def _take_focus(self) -> None:
        """After a dialog: give the keys back to the review (1–7, Enter...)."""
        self.activateWindow()
        self.image_view.setFocus()
