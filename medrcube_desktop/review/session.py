"""Review-session state: the item queue, the current item, drafts, blinding, repeats.

Plain Python (glue-style state object): the Qt views only display it and call its
methods, so the whole review flow is testable without a window. Every edit is written to
the study database as a draft at once; a commit turns the draft into a review. The
session decides what Enter does (:meth:`ReviewSessionState.commit` returns a
:class:`~medrcube_desktop.review.flow.CommitOutcome`) and tells its observers what
changed (:class:`~medrcube_desktop.review.flow.Change`); the window only renders.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from operator import attrgetter

from medrcube_desktop.core.items import Item
from medrcube_desktop.core.rubric import CANNOT_JUDGE, RULE_IDS, abstained_rules
from medrcube_desktop.review.draft import Draft, ReviewIncomplete, draft_from_stored
from medrcube_desktop.review.editing import DraftEditingMixin
from medrcube_desktop.review.file_problems import FileProblemsMixin
from medrcube_desktop.review.flow import (
    Aspect,
    Change,
    CommitKind,
    CommitOutcome,
    Observable,
    Observer,
)
from medrcube_desktop.review.navigation import NavigationMixin
from medrcube_desktop.review.necessity_evidence import answerable_items
from medrcube_desktop.review.queues import (
    ALL,
    STATUS_ANSWERABLE,
    STATUS_REVIEWED,
    STATUS_UNREVIEWED,
    ItemFilter,
    QueueFacts,
    filter_items,
    ordered,
)
from medrcube_desktop.review.reveal import Reveal, RevealMixin
from medrcube_desktop.review.study import StudySettings
from medrcube_desktop.review.timing import ActiveTimer
from medrcube_desktop.store import Review, StudyStore, utc_now

__all__ = [
    "ALL",
    "STATUS_REVIEWED",
    "STATUS_UNREVIEWED",
    "Aspect",
    "Change",
    "CommitKind",
    "CommitOutcome",
    "Draft",
    "ItemFilter",
    "Observer",
    "Reveal",
    "ReviewIncomplete",
    "ReviewSessionState",
]


_CHOICE_ATTRIBUTES = ("task", "modality", "region", "dataset", "original_task")
_choice_row = attrgetter("task.abbreviation", "modality", "region", "dataset", "original_task")


def _distinct_values(items: Sequence[Item]) -> dict[str, list[str]]:
    """Sorted distinct values of each of :data:`_CHOICE_ATTRIBUTES` (``None`` left out).

    One C loop over the items (distinct rows first, few of them): each item is read once,
    not once per attribute (100,000 items in about a third of the time).
    """
    rows = set(map(_choice_row, items))
    columns = list(zip(*rows, strict=True)) or [()] * len(_CHOICE_ATTRIBUTES)
    return {
        name: sorted(set(column) - {None})
        for name, column in zip(_CHOICE_ATTRIBUTES, columns, strict=True)
    }


class ReviewSessionState(
    RevealMixin, DraftEditingMixin, NavigationMixin, FileProblemsMixin, Observable
):
    """One reviewer working through one benchmark.

    Observers (:meth:`subscribe`) are told after every change: the current item, a draft
    edit, a commit, a note, a flag, the visible list, the judgments read again.

    Parameters
    ----------
    items : sequence of Item
        The benchmark's loadable items, in benchmark order.
    store : StudyStore
        Where drafts and committed reviews go (written at once).
    reviewer : str
        Name stored with each review.
    study : StudySettings, optional
        The study's protocol (blinding, comment rules, repeats); read from the database
        when not given.
    clock : callable
        Monotonic clock in seconds for active time (tests pass a fake).
    restricted : sequence of Item
        Items whose image the release does not ship (``Benchmark.restricted`` without
        their file): listed, after the others, only with the filter's
        ``include_restricted`` or when assigned to the reviewer (``assign``), and
        reviewed on their text (:meth:`text_only`). Progress counts the other items and
        the restricted items assigned to the reviewer.

    Items found later with a file problem (:meth:`files_failed`, from the window's
    background file check) leave the visible list and the progress total.

    Raises
    ------
    StoreError
        The reviewer's saved work cannot be read.
    """

    def __init__(
        self,
        items: Sequence[Item],
        store: StudyStore,
        reviewer: str,
        study: StudySettings | None = None,
        clock: Callable[[], float] = time.monotonic,
        restricted: Sequence[Item] = (),
    ) -> None:
        self.items = list(items)
        self._by_id = dict(zip(map(attrgetter("id"), self.items), self.items, strict=True))
        ids = self._by_id.keys()
        self.restricted = [item for item in restricted if item.id not in ids]
        self._text_only = {item.id for item in self.restricted}
        self._all_by_id = (
            {**self._by_id, **{item.id: item for item in self.restricted}}
            if self.restricted
            else self._by_id
        )
        self.store = store
        self.reviewer = reviewer
        self.study = study if study is not None else StudySettings.load(store)
        self.saved: dict[str, Review] = store.latest_reviews(reviewer)
        self.flagged: set[str] = store.flags(reviewer)
        models = store.judgment_models()
        self.llm_model = self.study.llm_model or (models[0] if models else "")
        self.judgments = store.judgments(self.llm_model) if self.llm_model else {}
        self._first_order = store.first_review_order(reviewer)
        self._repeated = set(store.repeat_reviews(reviewer))
        self.timer = ActiveTimer(self.study.idle_after_s, clock)
        self.assigned: set[str] | None = store.assigned_items(reviewer)
        """Items assigned to this reviewer (``assign``); ``None``: every item."""
        self.filter = ItemFilter()
        self.file_problems: set[str] = set()
        self._image_shown: dict[str, bool] = {}  # what the window showed (image_displayed)
        self._assigned_text_only: list[Item] = (
            [] if self.assigned is None else [i for i in self.restricted if i.id in self.assigned]
        )
        """Restricted items assigned to this reviewer: their work, listed and counted."""
        self.visible: list[Item] = (
            list(self.items)
            if self.assigned is None
            else [i for i in self.items if i.id in self.assigned] + self._assigned_text_only
        )
        self.current: Item | None = None
        self.drafts: dict[str, Draft] = {
            item_id: draft_from_stored(stored, self.saved.get(item_id))
            for item_id, stored in store.drafts(reviewer).items()
            if item_id in self._all_by_id
        }
        self._noted: set[str] = store.noted_review_uids(reviewer)
        self._after_repeat: str | None = None
        self._observers: list[Observer] = []
        self._choices: dict[str, list[str]] | None = None  # see choices()

    def reload_judgments(self) -> None:
        """Read the LLM judgments again (after a run stored new ones; raises StoreError).

        They stay hidden for every item the reviewer has not committed.
        """
        models = self.store.judgment_models()
        self.llm_model = self.study.llm_model or (models[0] if models else "")
        self.judgments = self.store.judgments(self.llm_model) if self.llm_model else {}
        self._notify(Aspect.JUDGMENTS)

    @property
    def require_comment_on_fail(self) -> bool:
        """Whether a failed rule needs a comment (the study setting)."""
        return self.study.require_comment_on_fail

    @require_comment_on_fail.setter
    def require_comment_on_fail(self, value: bool) -> None:
        self.study.require_comment_on_fail = value

    # -- listing --------------------------------------------------------------
    def choices(self, attribute: str) -> list[str]:
        """Sorted distinct values of ``task`` (abbreviation), ``modality``, ``region``,
        ``dataset`` or ``original_task`` (items without one left out); for ``study``,
        the names of the agreement studies."""
        if attribute == "study":
            return self.store.study_names()
        if self._choices is None:
            self._choices = _distinct_values(self.items + self.restricted)
        return list(self._choices[attribute])

    def facts(self) -> QueueFacts:
        """The reviewer's work as the queue filters see it."""
        failed = {
            item_id: [r for r in RULE_IDS if review.scores[r] == 0]
            for item_id, review in self.saved.items()
        }
        disagrees = {
            item_id
            for item_id in self.saved
            if self.disagreements(item_id) and self.is_revealed(item_id)
        }
        note_missing = {item_id for item_id in disagrees if self.pending_note(item_id)}
        abstained = {
            item_id: rules
            for item_id, review in self.saved.items()
            if (rules := abstained_rules(review.scores))
        }
        return QueueFacts(
            set(self.saved), set(self.flagged), failed, disagrees, note_missing,
            assigned=self.assigned, abstained=abstained,
        )  # fmt: skip

    def answerable_to_show(self) -> set[str]:
        """The items answerable without the image that this reviewer may be told of
        (revealed: in a blind study, those committed), the queue
        :data:`~medrcube_desktop.review.queues.STATUS_ANSWERABLE`."""
        evidence = self.necessity_evidence()
        return {i for i in answerable_items(evidence) if self.is_revealed(i)}

    def set_filter(self, item_filter: ItemFilter) -> list[Item]:
        """Apply a filter and order; return the visible items.

        Raises ``ValueError`` for an unknown status or order.
        """
        facts = self.facts()
        if item_filter.status == STATUS_ANSWERABLE:  # the runs are read only for this queue
            facts.answerable = self.answerable_to_show()
        if item_filter.study:
            record = self.store.study(item_filter.study)
            facts.study_items = set(record.item_ids) if record is not None else set()
        listed = (
            self.items + self.restricted
            if item_filter.include_restricted
            else self.items + self._assigned_text_only
        )
        chosen = filter_items(self.listable(listed), item_filter, facts)
        self.filter = item_filter
        self.visible = ordered(chosen, item_filter.order, self.reviewer)
        self._notify(Aspect.VISIBLE)
        return self.visible

    def image_displayed(self, item_id: str, shown: bool) -> None:
        """The window tells what it shows of the item: ``False`` when it opens the item
        (the image is not on screen yet), ``True`` once its image is. A commit records
        it (``Review.image_shown``); an item never told of is recorded as unknown."""
        self._image_shown[item_id] = shown

    def image_shown(self, item_id: str) -> bool | None:
        """Whether the reviewer has seen the item's image: False for a text-only item,
        else as the window told (:meth:`image_displayed`), None when it told nothing."""
        if self.text_only(item_id):
            return False
        return self._image_shown.get(item_id)

    def text_only(self, item_id: str) -> bool:
        """Whether the item is reviewed on its text only (its image is not shipped)."""
        return item_id in self._text_only

    def progress(self) -> tuple[int, int]:
        """(reviewed, total) over the reviewer's assigned items, restricted ones included
        (every item of the benchmark with its image, without an assignment), items with a
        file problem left out (their reviews stay stored)."""
        ids = (
            self._by_id.keys()
            if self.assigned is None
            else self.assigned & (self._by_id.keys() | {i.id for i in self._assigned_text_only})
        )
        if self.file_problems:
            ids = ids - self.file_problems
        return len(ids & self.saved.keys()), len(ids)

    def eta_seconds(self) -> float | None:
        """Estimated seconds left: unreviewed items × the reviewer's median active time
        per committed review; ``None`` before any review with active time."""
        paces = [r.active_seconds for r in self.saved.values() if r.active_seconds > 0]
        if not paces:
            return None
        done, total = self.progress()
        return (total - done) * statistics.median(paces)

    # -- current item -----------------------------------------------------------
    @property
    def draft(self) -> Draft | None:
        """The draft of the current item (kept when the reviewer moves to another item)."""
        return self.drafts.get(self.current.id) if self.current is not None else None

    def select(self, item_id: str, repeat: bool = False) -> Item:
        """Make an item current, keeping any draft of it.

        A new draft starts from the saved review, else with every rule unscored. With
        ``repeat`` (an intra-rater repeat of a committed item) it starts unscored and the
        item's judgments are hidden again until the repeat is committed. Raises
        ``KeyError`` for an id that is not in the benchmark.
        """
        item = self._all_by_id[item_id]
        left = self.current
        self.activity()
        self.timer.pause()
        if not repeat:
            self._after_repeat = None  # the reviewer is back on the normal path
        existing = self.drafts.get(item_id)
        if repeat and not (existing is not None and existing.repeat):
            self.drafts[item_id] = Draft(item_id, {rule: None for rule in RULE_IDS}, repeat=True)
        elif existing is None:
            saved = self.saved.get(item_id)
            if saved is not None:
                self.drafts[item_id] = Draft(
                    item_id, dict(saved.scores), saved.comment, list(saved.tags)
                )
            else:
                self.drafts[item_id] = Draft(item_id, {rule: None for rule in RULE_IDS})
        draft = self.drafts[item_id]
        if not draft.dirty:  # the review of this item (re)starts now
            draft.started_at = utc_now()
        self.current = item
        self.timer.tick()
        self._notify(Aspect.CURRENT, item_id)
        if left is not None and left.id != item_id and left.id in self.file_problems:
            self._list_without_file_problems()  # the reviewer moved on from it
        return item

    def clear_current(self) -> None:
        """No item is current (for example when no item matches the filters)."""
        left = self.current
        self.activity()
        self.timer.pause()
        self.current = None
        self._notify(Aspect.CURRENT)
        if left is not None and left.id in self.file_problems:
            self._list_without_file_problems()

    def activity(self) -> None:
        """The reviewer did something (key, click, scroll): credit the active time since
        the previous input to the current draft (idle gaps are not credited)."""
        credit = self.timer.tick()
        if self.draft is not None:
            self.draft.active_seconds += credit

    def pause(self) -> None:
        """The window lost focus: stop the active-time clock until the next input."""
        credit = self.timer.pause()
        if self.draft is not None:
            self.draft.active_seconds += credit

    def remember_position(self) -> None:
        """Store the current item as where this reviewer resumes (raises StoreError)."""
        if self.current is not None:
            self.store.set_state_quickly(self._position_key, self.current.id)

    @property
    def _position_key(self) -> str:
        return position_key(self.reviewer)

    def is_saved_unchanged(self, item_id: str) -> bool:
        """True when the item is committed and its draft was not edited since."""
        draft = self.drafts.get(item_id)
        return item_id in self.saved and not (draft is not None and (draft.dirty or draft.repeat))

    def has_unsaved_changes(self, item_id: str) -> bool:
        """True when the item has edits that are not committed (they are saved as a draft)."""
        draft = self.drafts.get(item_id)
        return draft is not None and draft.dirty

    def resume_item_id(self) -> str | None:
        """Item to open first: the last one this reviewer was on, else the first unreviewed."""
        last = self.store.get_state(self._position_key)
        if last and any(i.id == last for i in self.visible):
            return last
        for item in self.visible:
            if item.id not in self.saved:
                return item.id
        return self.visible[0].id if self.visible else None

    # -- committing -------------------------------------------------------------------
    def commit(self, note: str = "") -> CommitOutcome:
        """What Enter does on the current item; return what happened.

        - A disagreement note is pending and the scores are unchanged: store ``note``
          (``NOTE_SAVED``; an empty note raises :class:`ReviewIncomplete`).
        - The item is committed and not edited since: nothing is saved (``UNCHANGED``, no
          duplicate revision).
        - Otherwise the draft is saved as a review (:meth:`commit_draft`). When that
          reveals what a blind study hid (an LLM judgment or another reviewer's scores),
          the reviewer stays to see it (``REVEALED``), or to say why they differ from the
          LLM (``NOTE_PENDING``); else ``COMMITTED``.

        :attr:`CommitOutcome.goes_on` says whether to go on to :meth:`next_target`.

        Raises
        ------
        ReviewIncomplete
            See :meth:`commit_draft`; or the pending note is empty.
        StoreError
            The database write failed (the draft or note is kept on screen).
        """
        if self.current is None:
            return CommitOutcome(CommitKind.NO_ITEM)
        item_id = self.current.id
        if self.enter_saves_note():
            self.add_disagreement_note(note)
            return CommitOutcome(CommitKind.NOTE_SAVED)
        if self.is_saved_unchanged(item_id):
            return CommitOutcome(CommitKind.UNCHANGED)
        was_hidden = not self.is_revealed(item_id)
        review = self.commit_draft()
        shown = self.reveal(item_id)
        if (
            was_hidden
            and not review.repeat
            and shown is not None
            and (shown.llm is not None or bool(shown.others))
        ):
            pending = self.note_needed
            if pending is not None:
                return CommitOutcome(CommitKind.NOTE_PENDING, review, tuple(pending[1]))
            return CommitOutcome(CommitKind.REVEALED, review)
        return CommitOutcome(CommitKind.COMMITTED, review)

    def enter_saves_note(self) -> bool:
        """Whether :meth:`commit` would store the pending disagreement note (a note is
        pending and the scores were not changed since)."""
        current = self.current
        return (
            current is not None
            and self.note_needed is not None
            and not self.has_unsaved_changes(current.id)
        )

    def commit_draft(self) -> Review:
        """Save the current draft as a committed review at once and return it.

        The review records whether anything had been revealed before (``blind``). A blind
        study may then want a note on why the reviewer disagrees with the LLM: see
        :attr:`note_needed` and :meth:`add_disagreement_note`.

        Raises
        ------
        RuntimeError
            No item is current.
        ReviewIncomplete
            A rule is unscored; a rule failed without a comment; or (study not blind)
            the scores differ from the shown LLM judgment without a comment.
        StoreError
            The database write failed (the draft is kept so nothing is lost).
        """
        draft = self._current_draft()
        self._check_complete(draft)
        self.activity()
        shown = self.reveal(draft.item_id)
        exposed = shown is not None and (shown.llm is not None or bool(shown.others))
        review = self.store.save_review(
            Review(
                reviewer=self.reviewer,
                item_id=draft.item_id,
                scores={  # an abstention stays one (never 0 or 1)
                    rule: value if value == CANNOT_JUDGE else int(value)  # type: ignore[arg-type]
                    for rule, value in draft.scores.items()
                },
                comment=draft.comment.strip(),
                started_at=draft.started_at,
                committed_at=utc_now(),
                active_seconds=draft.active_seconds,
                tags=tuple(draft.tags),
                repeat=draft.repeat,
                blind=not exposed,
                image_shown=self.image_shown(draft.item_id),
            )
        )
        if review.repeat:
            self._repeated.add(review.item_id)
        else:
            if review.revision == 1:
                self._first_order.append(review.item_id)
            self.saved[review.item_id] = review
        latest = self.saved[review.item_id]
        self.drafts[review.item_id] = Draft(
            review.item_id, dict(latest.scores), latest.comment, list(latest.tags)
        )
        self._notify(Aspect.SAVED, review.item_id)
        return review

    def _check_complete(self, draft: Draft) -> None:
        unscored = draft.unscored()
        if unscored:
            raise ReviewIncomplete(
                f"item {draft.item_id}: score rule{'s' if len(unscored) > 1 else ''} "
                f"{', '.join(unscored)} first (P passes every unscored rule)"
            )
        if draft.comment.strip():
            return
        failed = [rule for rule in RULE_IDS if draft.scores[rule] == 0]
        if failed and self.study.require_comment_on_fail:
            raise ReviewIncomplete(
                f"item {draft.item_id}: rule{'s' if len(failed) > 1 else ''} {', '.join(failed)} "
                "failed: say why in the comment",
                needs_comment=True,
            )
        differs = self.disagreements(draft.item_id, draft.scores)
        if (
            differs
            and not self.study.blind
            and not draft.repeat
            and self.study.require_comment_on_disagreement
        ):
            raise ReviewIncomplete(
                f"item {draft.item_id}: you disagree with {self.llm_model} on "
                f"{', '.join(differs)}: say why in the comment",
                needs_comment=True,
            )


def position_key(reviewer: str) -> str:
    """The study-state key of the item ``reviewer`` was on last (what a window resumes)."""
    return f"last_item:{reviewer}"
