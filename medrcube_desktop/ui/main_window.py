"""The review window: item list | image | question, options and rubric."""

from __future__ import annotations

import logging

from PySide6.QtCore import QEvent, QSize, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QApplication,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QMainWindow,
    QProgressBar,
    QScrollArea,
    QSlider,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from medrcube_desktop import settings
from medrcube_desktop.core.dataset import Benchmark
from medrcube_desktop.core.rubric import load_review_tags, load_rubric
from medrcube_desktop.errors import StoreError
from medrcube_desktop.imaging.edit_slice import load_edit_slice
from medrcube_desktop.review.queues import STATUS_ANSWERABLE
from medrcube_desktop.review.session import ItemFilter, ReviewSessionState
from medrcube_desktop.store import StudyStore
from medrcube_desktop.ui.actions import (
    install_actions,
    refresh_enabled,
    review_actions,
    usable_overrides,
)
from medrcube_desktop.ui.corrections.controls import CorrectionsControls
from medrcube_desktop.ui.file_actions import FileActions, with_file_actions
from medrcube_desktop.ui.file_checks import FileCheckThread
from medrcube_desktop.ui.pane_opener import PaneOpener, review_panes
from medrcube_desktop.ui.review.image_controls import ImageControls
from medrcube_desktop.ui.review.panes import ItemListPane, ItemPane
from medrcube_desktop.ui.review.reveal_pane import RevealPane
from medrcube_desktop.ui.review.review_binding import ReviewBinding
from medrcube_desktop.ui.review.review_controls import ReviewControls
from medrcube_desktop.ui.review.rubric_pane import RubricPane
from medrcube_desktop.ui.widgets.image_view import ImageView
from medrcube_desktop.ui.widgets.screen import available_geometry, fitted_minimum
from medrcube_desktop.ui.widgets.themes import error_colour
from medrcube_desktop.ui.window_factory import build_window
from medrcube_desktop.ui.window_tools import Shortcuts, WindowTools, save_window_state

BLIND_ANSWERABLE_NONE = (
    "No item matches the filters. In a blind study the queue “Answerable without the "
    "image” lists only the items you have committed: an item answerable without its "
    "image is listed once you have committed your own scores of it."
)
"""What the window shows when that queue is empty in a blind study, where items are
hidden from it until committed (an empty queue does not mean none is answerable)."""

log = logging.getLogger(__name__)

SIDE_MINIMUM_WIDTH = 400
"""The question-and-rubric column's smallest width (px): with the item list's and the
image's it fits the window's 1024 px minimum side by side."""

_ACTIVITY_EVENTS = (
    QEvent.Type.KeyPress,
    QEvent.Type.MouseButtonPress,
    QEvent.Type.Wheel,
)


__all__ = ["MINIMUM_SIZE", "MainWindow"]

MINIMUM_SIZE = QSize(1024, 700)
"""The window's smallest size where the screen allows it (logical pixels); on a smaller
screen it shrinks to the screen's free area (``ui/screen.fitted_minimum``): what no
longer fits beside each other then scrolls."""


class MainWindow(QMainWindow):
    """Review window bound to a :class:`ReviewSessionState`.

    The panes render the session through :class:`ReviewBinding` (the session tells it
    what changed); key and click handlers only call the session. The window owns its
    parts, each given what it uses at construction: ``image``
    (:class:`~medrcube_desktop.ui.review.image_controls.ImageControls`: rendering and
    display choices), ``scoring`` (:class:`~medrcube_desktop.ui.review.review_controls.
    ReviewControls`: keys 1–7, Enter, the note), ``files`` (:class:`~medrcube_desktop.ui.
    file_actions.FileActions`: the File menu), ``tools`` (:class:`~medrcube_desktop.ui.
    window_tools.WindowTools`: problems, study settings, theme), ``shortcuts``
    (:class:`~medrcube_desktop.ui.window_tools.Shortcuts`) and ``panes``
    (:class:`~medrcube_desktop.ui.pane_opener.PaneOpener`: one way to open a pane).

    Emits ``first_item_shown`` once the first item's image is on screen (or once it is
    clear that there is no item to show). ``reviewer_changed(name)`` when the reviewer
    switches through File › Change reviewer; ``preferences_changed`` when the theme, font
    scale or shortcuts change (``self.prefs`` holds them).
    """

    first_item_shown = Signal()
    reviewer_changed = Signal(str)
    convention_changed = Signal(bool)  # True: neurological
    preferences_changed = Signal()

    def __init__(
        self,
        session: ReviewSessionState,
        benchmark: Benchmark,
        parent=None,
        neurological: bool = False,
        prefs: settings.Settings | None = None,
    ) -> None:
        super().__init__(parent)
        self.prefs = prefs if prefs is not None else settings.Settings()
        self.fired_actions: list[str] = []  # action ids in trigger order (tests, debugging)
        self.session = session
        self.benchmark = benchmark
        self.rubric = load_rubric()
        self._shown_first = False
        self._position_timer = QTimer(self)
        self._position_timer.setSingleShot(True)
        self._position_timer.setInterval(400)  # ms; rapid browsing writes once
        self._position_timer.timeout.connect(self._remember_position)
        self.setMinimumSize(fitted_minimum(MINIMUM_SIZE, available_geometry(self)))
        self._follows_screen = False  # screenChanged connected (showEvent)
        self._build_widgets()
        self.binding = ReviewBinding(
            list_pane=self.list_pane,
            item_pane=self.item_pane,
            rubric_pane=self.rubric_pane,
            reveal_pane=self.reveal_pane,
            progress_label=self.progress_label,
            progress_bar=self.progress_bar,
            refresh_actions=self._refresh_actions,
            evidence_arrived=self._evidence_arrived,
        )
        self.binding.bind(session)
        self._build_parts(neurological)
        self.actions_table = with_file_actions(review_actions(self), self)
        overrides, self.shortcut_problems = usable_overrides(
            self.actions_table, self.prefs.shortcuts
        )
        for problem in self.shortcut_problems:
            log.warning("settings.json shortcuts: %s", problem)
        self.qactions = install_actions(self, self.actions_table, overrides, self._action_fired)
        self.shortcuts = Shortcuts(
            parent=self,
            table=self.actions_table,
            qactions=self.qactions,
            prefs=self.prefs,
            session=self._session_now,
            rubric_pane=self.rubric_pane,
            preferences_changed=self.preferences_changed.emit,
            take_focus=self._take_focus,
        )
        self.files.install_recent_menu(self.menuBar(), self.qactions["app.study_info"])
        if self.shortcut_problems:
            self.statusBar().showMessage(
                "Remapped keys ignored (see the log): " + "; ".join(self.shortcut_problems[:2]),
                20000,
            )
        self.shortcuts.show_keys()
        self._start_session()
        QApplication.instance().installEventFilter(self)  # input = activity (active time)

    def showEvent(self, event) -> None:  # noqa: N802 (Qt override)
        """Once shown, follow the screen: moved to a smaller one, the minimum shrinks."""
        super().showEvent(event)
        handle = self.windowHandle()
        if handle is not None and not self._follows_screen:
            handle.screenChanged.connect(self._screen_changed)
            self._follows_screen = True

    def _screen_changed(self, screen) -> None:
        if screen is not None:
            self.setMinimumSize(fitted_minimum(MINIMUM_SIZE, screen.availableGeometry()))

    def _action_fired(self, action_id: str) -> None:
        self.fired_actions.append(action_id)
        del self.fired_actions[:-50]

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 (Qt override)
        """Count keys, clicks and wheel turns in this window as reviewer activity."""
        kind = event.type()
        if kind in _ACTIVITY_EVENTS and isinstance(watched, QWidget) and watched.window() is self:
            self.session.activity()
        elif kind == QEvent.Type.WindowDeactivate and watched is self:
            self.session.pause()
        return False

    def _refresh_actions(self) -> None:
        refresh_enabled(self.actions_table, self.qactions)

    def _build_parts(self, neurological: bool) -> None:
        """The parts the window owns, each given what it uses."""
        session, status = self._session_now, self.statusBar()
        self.image = ImageControls(
            session=session,
            view=self.image_view,
            slider=self.slice_slider,
            slice_label=self.slice_label,
            message=self.image_message,
            status=status,
            key_of=lambda action_id: self.shortcuts.key_of(action_id),  # built after
            on_shown=self._announce_first,
            convention_changed=self.convention_changed.emit,
            neurological=neurological,
        )
        self.scoring = ReviewControls(
            session=session,
            rubric_pane=self.rubric_pane,
            reveal_pane=self.reveal_pane,
            image_view=self.image_view,
            right_scroll=self.right_scroll,
            status=status,
            show_item=self.show_item,
            parent=self,
        )
        self.files = FileActions(
            window=self,
            session=session,
            set_session=self.set_session,
            benchmark=self.benchmark,
            prefs=self.prefs,
            new_window=self._new_window,
            take_focus=self._take_focus,
        )
        self.tools = WindowTools(
            parent=self,
            session=session,
            set_session=self.set_session,
            benchmark=self.benchmark,
            prefs=self.prefs,
            item_pane=self.item_pane,
            status=status,
            checking_files=self.checking_files,
            preferences_changed=self.preferences_changed.emit,
            take_focus=self._take_focus,
        )
        self.panes = PaneOpener(
            review_panes(
                parent=self,
                session=session,
                benchmark_root=self.benchmark.root,
                show_item=self.show_item,
                studies_changed=self._studies_changed,
                judgments_arrived=self._judgments_arrived,
                proposals_decided=self._proposals_changed,
            )
        )
        self.corrections = CorrectionsControls(
            parent=self,
            session=session,
            status=status,
            load_slice=self._edit_slice,
            show_line=self.item_pane.show_proposals,
            proposals_changed=self._proposals_changed,
        )
        self.item_pane.proposals_clicked.connect(self.open_proposals_pane)

    def _session_now(self) -> ReviewSessionState:
        """The session the window is bound to now (File › Change reviewer binds another):
        what the parts are given, so they never hold an earlier one."""
        return self.session

    def _new_window(self, benchmark: Benchmark, store: StudyStore) -> MainWindow:
        """A window like this one on ``benchmark`` and ``store`` (File › Open)."""
        return build_window(type(self), benchmark, store, self.session.reviewer, self.prefs)

    def open_judge_dialog(self):
        """Review › Run LLM review: judge the listed items (or all) in the background."""
        return self.panes.open("judge")

    def open_agreement_pane(self):
        """Review › Agreement study: the statistics, figures and the items behind them."""
        return self.panes.open("agreement")

    def open_adjudication_pane(self):
        """Review › Adjudicate disagreements: the queue, the judgments side by side."""
        return self.panes.open("adjudication")

    def open_evaluate_pane(self):
        """Review › Evaluate a model: run it on the benchmark and inspect its answers."""
        return self.panes.open("evaluate")

    def open_compare_pane(self):
        """Review › Compare models: the leaderboard and the items × runs grid."""
        return self.panes.open("compare")

    def open_proposals_pane(self):
        """Review › Proposals: the queue of proposed corrections (the current item's
        first, when it has one listed)."""
        pane = self.panes.open("proposals")
        if pane is not None and self.session.current is not None:
            pane.select_item(self.session.current.id)
        return pane

    def _edit_slice(self, item):
        """The function that reads ``item``'s slice for the box and mask editors, as the
        window shows it now (slice, window, negative, convention: read here, on the GUI
        thread; the function runs on the render pool)."""
        image = self.image
        slice_index = self.slice_slider.value() if self.slice_slider.isVisible() else None
        window, invert, neurological = image.display_window, image.invert, image.neurological

        def load():
            return load_edit_slice(item, slice_index, window, invert, neurological)

        return load

    def _proposals_changed(self, item_id: str) -> None:
        """A proposal or a decision was stored: the queue (when open) and the line under
        the question follow."""
        pane = self.panes.get("proposals")
        if pane is not None:
            pane.refresh()
        current = self.session.current
        if current is not None and current.id == item_id:
            self.corrections.refresh_line()

    def _studies_changed(self) -> None:
        self.list_pane.set_studies(self.session.choices("study"))

    def _judgments_arrived(self) -> None:
        """New LLM judgments are stored: read them (still hidden until each commit; the
        reveal pane follows through the session)."""
        try:
            self.session.reload_judgments()
        except StoreError as exc:
            self.statusBar().showMessage(f"Could not read the new judgments: {exc}", 8000)

    def _take_focus(self) -> None:
        """After a dialog: give the keys back to the review (1–7, Enter...)."""
        self.activateWindow()
        self.image_view.setFocus()

    def _announce_first(self) -> None:
        if not self._shown_first:
            self._shown_first = True
            self.first_item_shown.emit()

    # -- construction ---------------------------------------------------------
    def _build_widgets(self) -> None:
        s = self.session
        self.list_pane = ItemListPane(
            {
                k: s.choices(k)
                for k in ("task", "modality", "region", "dataset", "original_task", "study")
            },
            lambda item_id: self.binding.mark(item_id),
            text_only=s.text_only,
            restricted=len(s.restricted),
        )
        self.list_pane.filter_changed.connect(self._apply_filter)
        self.list_pane.item_chosen.connect(self.show_item)
        self.image_view = ImageView()
        self.image_view.typed.connect(self._say_not_a_key)
        self.list_pane.search.returnPressed.connect(self.image_view.setFocus)
        self.slice_slider = QSlider(Qt.Orientation.Horizontal)
        self.slice_slider.setObjectName("sliceSlider")
        self.slice_slider.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.slice_label = QLabel()
        self.image_message = QLabel()
        self.image_message.setObjectName("imageMessage")
        self.image_message.setTextFormat(Qt.TextFormat.RichText)  # values in it are escaped
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
        self.rubric_pane = RubricPane(self.rubric, load_review_tags())
        self.reveal_pane = RevealPane()  # both answer the scoring part (_build_parts)
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.addWidget(self.item_pane)
        right_layout.addWidget(self.rubric_pane)
        right_layout.addWidget(self.reveal_pane)
        right_layout.addStretch(1)
        scroll = QScrollArea()  # the rules keep their natural height on small screens
        scroll.setWidget(right)
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        self.right_scroll = scroll
        side = QWidget()  # comment, commit button and messages always in view below
        side.setMinimumWidth(SIDE_MINIMUM_WIDTH)
        side_layout = QVBoxLayout(side)
        side_layout.setContentsMargins(0, 0, 0, 0)
        side_layout.addWidget(scroll, 1)
        side_layout.addWidget(self.reveal_pane.note)  # in view when a reason is asked for
        side_layout.addWidget(self.rubric_pane.footer)
        splitter = QSplitter()
        splitter.setObjectName("mainSplitter")
        self.splitter = splitter
        splitter.addWidget(self.list_pane)
        splitter.addWidget(centre)
        splitter.addWidget(side)
        splitter.setSizes([280, 560, 520])
        splitter.setStretchFactor(1, 1)
        # Below the panes' own minimum (a screen narrower than about 1000 px, large text)
        # the panes scroll as one instead of being cut at the window's edge.
        central = QScrollArea()
        central.setObjectName("centralScroll")
        central.setWidget(splitter)
        central.setWidgetResizable(True)
        central.setFrameShape(QScrollArea.Shape.NoFrame)
        central.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.central_scroll = central
        self.setCentralWidget(central)
        self.progress_label = QLabel()
        self.progress_label.setObjectName("progressLabel")
        self.progress_bar = QProgressBar()
        self.progress_bar.setMaximumWidth(200)
        self.progress_bar.setTextVisible(False)  # the label beside it says "n of N"
        self.statusBar().addPermanentWidget(self.progress_label)
        self.statusBar().addPermanentWidget(self.progress_bar)
        self.problems_label = QLabel()
        self.problems_label.setObjectName("benchmarkProblems")
        self.problems_label.setWordWrap(True)  # two lines rather than cut in a small window
        self.statusBar().addWidget(self.problems_label, 1)
        self.file_checks: FileCheckThread | None = None
        self._files_error = ""
        self._show_problem_count()
        if not self.benchmark.files_checked:  # after the first item is on screen
            self.first_item_shown.connect(self._start_file_checks)

    def _start_file_checks(self) -> None:
        """Check every item's files on a worker thread; problems are listed as found."""
        if self.file_checks is not None:
            return
        self.file_checks = FileCheckThread(self.benchmark, self)
        self.file_checks.found.connect(self._files_found)
        self.file_checks.checked.connect(self._files_checked)
        self.file_checks.start()
        self._show_problem_count()

    def checking_files(self) -> bool:
        """Whether the background file checks are still running."""
        return self.file_checks is not None and self.file_checks.isRunning()

    def _files_found(self, problems: list) -> None:
        self.benchmark.problems.extend(problems)
        self.session.files_failed(p.item for p in problems if p.item is not None)
        self._show_problem_count()

    def _files_checked(self, error: str) -> None:
        self._files_error = error
        if error:
            self.statusBar().showMessage(f"Checking the image files stopped: {error}", 20000)
        self._show_problem_count(done=True)

    def _show_problem_count(self, done: bool = False) -> None:
        """The status bar: problems (so far), items without their image, checking."""
        n, restricted = len(self.benchmark.problems), len(self.benchmark.restricted)
        checking = not done and self.file_checks is not None
        parts = []
        if n:
            parts.append(f"{n} benchmark problem{'' if n == 1 else 's'}"
                         f"{' so far' if checking else ''}")  # fmt: skip
        if restricted:
            parts.append(f"{restricted} item without its image (not redistributed)"
                         if restricted == 1 else
                         f"{restricted} items without their image (not redistributed)")  # fmt: skip
        if checking:
            parts.append("checking image files…")
        self.problems_label.setText(
            " · ".join(parts) + (" (View › Benchmark problems…)" if parts else "")
        )
        self.problems_label.setStyleSheet(f"color: {error_colour()}" if n else "")
        self.problems_label.setVisible(bool(parts))

    def _start_session(self) -> None:
        """Show the session's list and open the item the reviewer resumes on."""
        self.setWindowTitle(f"MedRCube Desktop — {self.benchmark.name} — {self.session.reviewer}")
        self.session.set_filter(self.list_pane.current_filter())  # the list follows
        self.binding.render_progress()
        self.files.show_database_path()
        first = self.session.resume_item_id()
        if first is not None:
            self.show_item(first)
            self.image_view.setFocus()  # keys score from the start (not the Task filter)
        else:
            if self.session.items or self.list_pane.current_filter().include_restricted:
                message = "No item matches the filters."
            elif self.session.restricted:  # only text-only items: say how to review them
                n = len(self.session.restricted)
                message = (
                    f"Every item of this benchmark ({n}) ships without its image (restricted): "
                    "tick “Include restricted items (text only)” to review their text."
                )
            else:
                message = "This benchmark has no loadable items."
            self._show_no_item(message)

    # -- behaviour --------------------------------------------------------------
    def show_item(self, item_id: str, repeat: bool = False) -> None:
        """Make ``item_id`` current: question, options, draft (kept) or saved scores, image.

        ``repeat``: show a committed item again for an intra-rater repeat (blind to the
        first scores).
        """
        previous_item = self.session.current
        previous = previous_item.id if previous_item else None
        note_had_focus = self.reveal_pane.note.hasFocus()
        self.session.select(item_id, repeat=repeat)  # the panes follow (ReviewBinding)
        self._position_timer.start()  # store the resume position once the reviewer settles
        if note_had_focus:  # the note box is hidden now: keys go back to the review
            self.image_view.setFocus()
        self.corrections.refresh_line()
        if item_id != previous and self.session.current is not None:
            reset = self.image.open_item_display(previous_item, self.session.current)
            if reset:
                self.statusBar().showMessage(reset, 6000)
        if item_id != previous:
            self.session.image_displayed(item_id, False)  # until the render is on screen
            self.right_scroll.verticalScrollBar().setValue(0)
            self.image.start_item()  # fitted to the window; then its neighbours ahead

    def _remember_position(self) -> None:
        """Store where the reviewer is, to resume there next time (best effort)."""
        try:
            self.session.remember_position()
        except StoreError as exc:  # not fatal: only the resume position is not stored
            log.warning("%s", exc)
            self.statusBar().showMessage(f"Could not store the current position: {exc}", 8000)

    def _show_no_item(self, message: str) -> None:
        self.session.clear_current()  # the rubric and reveal empty (ReviewBinding)
        self.item_pane.show_nothing(message)
        self.image.show_nothing(message)  # any render still in flight is dropped
        QTimer.singleShot(0, self._announce_first)  # after the caller connected to the signal

    def step_item(self, step: int) -> None:  # Ctrl+Down / Backspace
        """Move through the visible list without committing (the draft is kept)."""
        ids = [item.id for item in self.session.visible]
        if not ids:
            return
        current = self.session.current.id if self.session.current else None
        position = ids.index(current) + step if current in ids else 0
        self.show_item(ids[max(0, min(position, len(ids) - 1))])

    def _say_not_a_key(self, text: str) -> None:
        """A letter no shortcut uses was typed on the image: nothing happens (it is not
        written into the comment); the status bar says where text goes."""
        self.statusBar().showMessage(
            f"“{text}” is not a key of the review: click the comment box to write.", 4000
        )

    def focus_search(self) -> None:
        """Ctrl+F: type in the search box (Esc or Enter returns to the review)."""
        self.list_pane.search.setFocus()
        self.list_pane.search.selectAll()

    def _apply_filter(self, item_filter: ItemFilter) -> None:
        current = self.session.current.id if self.session.current else None
        visible = self.session.set_filter(item_filter)  # the list follows
        if (
            not visible
            and self.session.evidence_pending
            and item_filter.status == STATUS_ANSWERABLE
        ):
            self._show_no_item("Computing the image-necessity evidence…")  # then listed
        elif not visible and item_filter.status == STATUS_ANSWERABLE and self.session.study.blind:
            self._show_no_item(BLIND_ANSWERABLE_NONE)  # hidden until committed: say so
        elif not visible:
            self._show_no_item("No item matches the filters.")
        elif current not in {i.id for i in visible}:
            self.show_item(visible[0].id)

    def _evidence_arrived(self) -> None:
        """The image-necessity evidence arrived from its worker: the "answerable without
        the image" queue, when chosen, lists its items (the reveal follows by itself)."""
        if self.session.filter.status == STATUS_ANSWERABLE:
            self._apply_filter(self.session.filter)
        current = self.session.current
        if current is not None and self.session.reveal(current.id) is not None:
            self.scoring.bring_reveal_into_view()  # its line grew: still in view

    def set_session(self, session: ReviewSessionState) -> None:
        """Bind the window to another session (another reviewer on the same study)."""
        self.session = session
        self.binding.bind(session)
        self.panes.session_changed()  # the adjudicator is the new reviewer
        self.rubric_pane.comment_edited.disconnect()
        self.rubric_pane.comment_edited.connect(self.scoring.comment_edited)
        self._start_session()

    def ask_reviewer(self) -> None:
        """File › Change reviewer: reviews from now on carry the new name (each
        reviewer's drafts stay saved under their own name)."""
        name, ok = QInputDialog.getText(
            self, "Reviewer", "Reviewer name:", text=self.session.reviewer
        )
        if ok and name.strip():
            from PySide6.QtWidgets import QMessageBox

            from medrcube_desktop.core.names import check_name

            try:
                name = check_name(name, "reviewer name")
            except ValueError as exc:
                QMessageBox.warning(self, "Reviewer", str(exc))
                return
        if ok and name.strip() and name.strip() != self.session.reviewer:
            session = ReviewSessionState(
                self.session.items, self.session.store, name.strip(),
                restricted=self.session.restricted,
            )  # fmt: skip
            session.files_failed(self.session.file_problems)  # found already: still out
            self.set_session(session)
            self.reviewer_changed.emit(name.strip())

    def closeEvent(self, event) -> None:  # noqa: N802 (Qt override)
        """Keep the position, the window layout and every draft (drafts are already saved:
        nothing to ask)."""
        self._position_timer.stop()
        self.image.stop()  # queued prefetches are skipped, not rendered at exit
        self.binding.stop()  # an evidence computation still running: waited for
        if self.file_checks is not None:
            self.file_checks.stop()
        self._remember_position()
        self.session.pause()
        save_window_state(self)
        self.panes.close_all()  # cancels a run in progress; what it stored stays
        self.corrections.close()  # a proposal being stored is finished
        QApplication.instance().removeEventFilter(self)
        event.accept()
