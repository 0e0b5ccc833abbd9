"""The review window bound to its session: each session change re-renders what it names.

The session (plain Python) tells its observers what changed
(:class:`~medrcube_desktop.review.flow.Change`); :class:`ReviewBinding` is the one
observer of the window and renders from the session's state, never from what a handler
believes it changed. Handlers of keys and clicks only call the session.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING

from medrcube_desktop.core.rubric import RULE_IDS, abstained_rules
from medrcube_desktop.review.flow import Aspect, Change
from medrcube_desktop.review.queues import STATUS_ANSWERABLE
from medrcube_desktop.ui.widgets.text import format_duration

if TYPE_CHECKING:
    from PySide6.QtWidgets import QLabel, QProgressBar

    from medrcube_desktop.review.session import ReviewSessionState
    from medrcube_desktop.ui.review.evidence_worker import EvidenceWorker
    from medrcube_desktop.ui.review.panes import ItemListPane, ItemPane
    from medrcube_desktop.ui.review.reveal_pane import RevealPane
    from medrcube_desktop.ui.review.rubric_pane import RubricPane


def local_time(iso: str) -> str:
    """An ISO 8601 UTC timestamp as local time, e.g. ``2026-11-29 15:10``."""
    try:
        return datetime.fromisoformat(iso).astimezone().strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return iso


def evidence_source(session: ReviewSessionState) -> Callable[[], dict]:
    """The session's image-necessity evidence, read when first needed: every run of its
    study over its items, restricted ones too
    (:func:`~medrcube_desktop.evaluation.compare.necessity.store_evidence`, the
    computation ``compare`` shows; the review layer cannot call the evaluation layer)."""

    def read() -> dict:
        from medrcube_desktop.evaluation.compare.necessity import store_evidence

        return store_evidence(session.store, [*session.items, *session.restricted])

    return read


class ReviewBinding:
    """Renders a :class:`ReviewSessionState` into the review window's panes.

    :meth:`bind` subscribes to a session (and leaves the previous one); the widgets
    (``list_pane``, ``item_pane``, ``rubric_pane``, ``reveal_pane``, the progress label
    and bar) are the window's, given at construction, and ``refresh_actions()`` updates
    which of its actions are enabled; ``evidence_arrived()`` is called once the
    image-necessity evidence, computed on a worker
    (:class:`~medrcube_desktop.ui.review.evidence_worker.EvidenceWorker`), arrived.
    """

    def __init__(
        self,
        list_pane: ItemListPane,
        item_pane: ItemPane,
        rubric_pane: RubricPane,
        reveal_pane: RevealPane,
        progress_label: QLabel,
        progress_bar: QProgressBar,
        refresh_actions: Callable[[], None],
        evidence_arrived: Callable[[], None] | None = None,
    ) -> None:
        self.evidence_arrived = evidence_arrived
        self.evidence_worker: EvidenceWorker | None = None
        self.list_pane, self.item_pane = list_pane, item_pane
        self.rubric_pane, self.reveal_pane = rubric_pane, reveal_pane
        self.progress_label, self.progress_bar = progress_label, progress_bar
        self.refresh_actions = refresh_actions
        self.session: ReviewSessionState | None = None

    def bind(self, session: ReviewSessionState) -> None:
        """Render ``session`` from now on."""
        if self.session is not None:
            self.session.unsubscribe(self.on_change)
        self.session = session
        session.subscribe(self.on_change)
        self.stop()
        start = None
        if session.store.path is not None:  # a file a worker can open: off the GUI thread
            from medrcube_desktop.ui.review.evidence_worker import EvidenceWorker

            self.evidence_worker = EvidenceWorker(
                session.store.path, [*session.items, *session.restricted],
                session.evidence_arrived,
            )  # fmt: skip
            if self.evidence_arrived is not None:
                self.evidence_worker.arrived.connect(self.evidence_arrived)
            start = self.evidence_worker.start
        session.set_evidence_source(evidence_source(session), start)  # rule 1.4's evidence

    def stop(self) -> None:
        """Wait for an evidence computation still running (the window closes); its
        result is dropped."""
        if self.evidence_worker is not None:
            self.evidence_worker.stop()
            self.evidence_worker = None

    def on_change(self, change: Change) -> None:
        """Re-render what ``change`` names (called by the session after each change)."""
        aspect, item_id = change.aspect, change.item_id
        if aspect is Aspect.VISIBLE:
            self.render_list()
            self.render_progress()  # items left out for a file problem leave the total
        elif aspect is Aspect.CURRENT:
            self.render_current() if item_id is not None else self.render_nothing()
        elif aspect is Aspect.JUDGMENTS:
            if self._current_id() is not None:
                self.render_reveal()
        elif item_id is not None:
            self.list_pane.refresh_mark(item_id)
            if aspect is Aspect.SAVED:
                self.render_progress()
            if item_id == self._current_id():
                if aspect in (Aspect.DRAFT, Aspect.SAVED):
                    self.render_draft()
                else:  # a flag or a note (a note typed in the reveal pane stays)
                    self.render_saved_status()
                    if aspect is Aspect.NOTE:
                        self.render_reveal()
                self.refresh_actions()

    def _current_id(self) -> str | None:
        current = self.session.current if self.session is not None else None
        return current.id if current is not None else None

    # -- marks and the list -------------------------------------------------------
    def mark(self, item_id: str) -> str:
        """The list mark of an item: ✎ a draft, ✓ committed, ⚑ added when flagged."""
        session = self.session
        if session is None:
            return ""
        if session.has_unsaved_changes(item_id):
            mark = "✎"
        else:
            mark = "✓" if item_id in session.saved else ""
        return f"{mark}⚑" if item_id in session.flagged else mark

    def render_list(self) -> None:
        """The visible items, the current one selected."""
        session = self.session
        self.list_pane.set_items(
            session.visible,
            self._current_id(),
            left_out=session.left_out_for_files(),
            computing=session.filter.status == STATUS_ANSWERABLE and session.evidence_pending,
        )

    def render_progress(self) -> None:
        """``n of N reviewed · about … left`` and the bar in the status bar."""
        done, total = self.session.progress()
        eta = self.session.eta_seconds()
        left = f" · {format_duration(eta)} left" if eta is not None and done < total else ""
        label, bar = self.progress_label, self.progress_bar
        assigned = "" if self.session.assigned is None else " (assigned to you)"
        label.setText(f"{done} of {total} reviewed{assigned}{left}")
        label.setToolTip("Time left = unreviewed items × your median active time per item")
        bar.setRange(0, max(total, 1))
        bar.setValue(done)

    # -- the current item ---------------------------------------------------------
    def render_current(self) -> None:
        """A new current item: its list row, question, draft, status and reveal."""
        session = self.session
        self.list_pane.select(session.current.id)
        self.item_pane.show_item(session.current)
        draft = session.draft
        self.rubric_pane.show_scores(draft.scores)
        self.rubric_pane.show_tags(draft.scores, draft.tags)
        self.rubric_pane.show_comment(draft.comment)
        self.render_saved_status()
        self.render_reveal()
        self.refresh_actions()

    def render_draft(self) -> None:
        """The current draft: scores, tags, comment (left alone while it is what the box
        holds, so typing keeps its cursor), status, and the comparison that follows it."""
        rubric, draft = self.rubric_pane, self.session.draft
        rubric.show_scores(draft.scores)
        rubric.show_tags(draft.scores, draft.tags)
        if rubric.comment.toPlainText().strip() != draft.comment.strip():
            rubric.show_comment(draft.comment)
        self.render_saved_status()
        self.render_reveal()

    def render_nothing(self) -> None:
        """No current item: nothing of an earlier item stays in the rubric or reveal."""
        rubric = self.rubric_pane
        rubric.show_scores({rule: None for rule in RULE_IDS})
        rubric.show_comment("")
        rubric.show_status("")
        rubric.show_tags({rule: None for rule in RULE_IDS}, [])
        rubric.show_comparison("", None, [])
        self.reveal_pane.show_hidden(False, anything=False)
        self.refresh_actions()

    def render_saved_status(self) -> None:
        """The line under the commit button: draft, committed revision, repeat, flag."""
        session = self.session
        item_id = session.current.id
        saved = session.saved.get(item_id)
        draft = session.draft
        if draft is not None and draft.repeat:
            text = "Repeat for intra-rater agreement: score afresh, Enter commits."
        elif session.has_unsaved_changes(item_id):
            text = "Draft saved, not committed (Enter commits; Ctrl+Z undoes)."
        elif saved:
            text = f"Saved: revision {saved.revision}, committed {local_time(saved.committed_at)}."
        else:
            text = "Not reviewed yet."
        shown = draft.scores if draft is not None else (saved.scores if saved else {})
        if abstained := abstained_rules(shown):
            text += f"  Cannot judge {', '.join(abstained)}: no all-pass verdict."
        if item_id in session.flagged:
            text += "  ⚑ Flagged (F unflags)."
        self.rubric_pane.show_status(text)

    def render_reveal(self) -> None:
        """The reveal pane for the current item: hidden (blind) or side by side."""
        session = self.session
        current = session.current
        reveal = session.reveal(current.id) if current is not None else None
        if reveal is None:
            self.rubric_pane.show_comparison("", None, [])
            draft = session.draft
            self.reveal_pane.show_hidden(
                draft is not None and draft.repeat, anything=current is not None
            )
            return
        self.rubric_pane.show_comparison(reveal.llm_model, reveal.llm, reveal.disagreements)
        pending = session.note_needed
        rules = pending[1] if pending and pending[0].item_id == current.id else None
        self.reveal_pane.show_reveal(reveal, rules)
