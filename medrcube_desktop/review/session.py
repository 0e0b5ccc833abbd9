"""Review-session state: the item queue, the current item, drafts, blinding, repeats.

Plain Python (glue-style state object): the Qt views only display it and call its
methods, so the whole review flow is testable without a window. Every edit is written to
the study database as a draft at once; a commit turns the draft into a review.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from medrcube_desktop.core.items import Item
from medrcube_desktop.core.rubric import RULE_IDS
from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.review.queues import (
    ALL,
    STATUS_REVIEWED,
    STATUS_UNREVIEWED,
    ItemFilter,
    QueueFacts,
    is_repeat_candidate,
    matches,
    ordered,
)
from medrcube_desktop.review.study import StudySettings
from medrcube_desktop.review.timing import ActiveTimer
from medrcube_desktop.store.drafts import StoredDraft
from medrcube_desktop.store.reviews import Review, ReviewStore, utc_now

__all__ = [
    "ALL",
    "STATUS_REVIEWED",
    "STATUS_UNREVIEWED",
    "Draft",
    "ItemFilter",
    "Reveal",
    "ReviewIncomplete",
    "ReviewSessionState",
]

Snapshot = tuple[tuple[int | None, ...], str, tuple[str, ...]]
"""What undo restores: scores in rubric order, comment, tags."""


class ReviewIncomplete(MedRCubeError):
    """A commit was refused: a rule is not scored, or a comment is missing.

    ``needs_comment`` is True when the missing piece is the comment.
    """

    def __init__(self, message: str, needs_comment: bool = False) -> None:
        super().__init__(message)
        self.needs_comment = needs_comment


@dataclass
class Draft:
    """Scores, comment and tags being edited for one item (saved as a draft, not committed).

    ``scores`` maps each rule id to 1 (pass), 0 (fail) or ``None`` (not scored yet). A
    fresh item starts unscored so that nothing is passed without a look; a committed item
    starts from its saved scores; an intra-rater repeat (``repeat``) starts unscored again.
    ``dirty`` is True while the draft differs from where it started. ``active_seconds``
    is the active time spent on it (seconds).
    """

    item_id: str
    scores: dict[str, int | None]
    comment: str = ""
    tags: list[str] = field(default_factory=list)
    started_at: str = field(default_factory=utc_now)
    dirty: bool = False
    repeat: bool = False
    active_seconds: float = 0.0
    base: Snapshot | None = None
    undo_stack: list[Snapshot] = field(default_factory=list)
    redo_stack: list[Snapshot] = field(default_factory=list)
    last_edit: str = ""

    def __post_init__(self) -> None:
        if self.base is None:
            self.base = self.snapshot()

    def unscored(self) -> list[str]:
        """Rule ids without a score, in rubric order."""
        return [rule for rule in RULE_IDS if self.scores[rule] is None]

    def snapshot(self) -> Snapshot:
        """The editable content, for undo."""
        return tuple(self.scores[r] for r in RULE_IDS), self.comment, tuple(self.tags)

    def restore(self, snapshot: Snapshot) -> None:
        """Put back an earlier :meth:`snapshot`."""
        values, self.comment, tags = snapshot
        self.scores = dict(zip(RULE_IDS, values, strict=True))
        self.tags = list(tags)


@dataclass(frozen=True)
class Reveal:
    """What the reviewer sees of others' judgments of an item once it may be shown.

    ``mine`` are the reviewer's scores as on screen (the draft, else the latest
    committed; ``None`` for an unscored rule); ``llm`` the LLM judgment
    (``None`` when the item has none); ``others`` the latest scores of every other
    reviewer; ``disagreements`` the rules where ``mine`` and ``llm`` differ.
    """

    item_id: str
    mine: dict[str, int | None]
    llm_model: str
    llm: dict[str, int] | None
    others: dict[str, dict[str, int]]
    disagreements: list[str]


class ReviewSessionState:
    """One reviewer working through one benchmark.

    Parameters
    ----------
    items : sequence of Item
        The benchmark's loadable items, in benchmark order.
    store : ReviewStore
        Where drafts and committed reviews go (written at once).
    reviewer : str
        Name stored with each review.
    study : StudySettings, optional
        The study's protocol (blinding, comment rules, repeats); read from the database
        when not given.
    clock : callable
        Monotonic clock in seconds for active time (tests pass a fake).

    Raises
    ------
    StoreError
        The reviewer's saved work cannot be read.
    """

    def __init__(
        self,
        items: Sequence[Item],
        store: ReviewStore,
        reviewer: str,
        study: StudySettings | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.items = list(items)
        self._by_id = {item.id: item for item in self.items}
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
        self.filter = ItemFilter()
        self.visible: list[Item] = list(self.items)
        self.current: Item | None = None
        self.drafts: dict[str, Draft] = {
            item_id: _draft_from_stored(stored, self.saved.get(item_id))
            for item_id, stored in store.drafts(reviewer).items()
            if item_id in self._by_id
        }
        self.note_needed: tuple[Review, list[str]] | None = None

    @property
    def require_comment_on_fail(self) -> bool:
        """Whether a failed rule needs a comment (the study setting)."""
        return self.study.require_comment_on_fail

    @require_comment_on_fail.setter
    def require_comment_on_fail(self, value: bool) -> None:
        self.study.require_comment_on_fail = value

    # -- listing --------------------------------------------------------------
    def choices(self, attribute: str) -> list[str]:
        """Sorted distinct values of ``task`` (abbreviation), ``modality``, ``region`` or ``dataset``."""
        values = {
            item.task.abbreviation if attribute == "task" else getattr(item, attribute)
            for item in self.items
        }
        return sorted(values)

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
        return QueueFacts(set(self.saved), set(self.flagged), failed, disagrees)

    def set_filter(self, item_filter: ItemFilter) -> list[Item]:
        """Apply a filter and order; return the visible items.

        Raises ``ValueError`` for an unknown status or order.
        """
        facts = self.facts()
        chosen = [item for item in self.items if matches(item, item_filter, facts)]
        self.filter = item_filter
        self.visible = ordered(chosen, item_filter.order, self.reviewer)
        return self.visible

    def progress(self) -> tuple[int, int]:
        """(reviewed, total) over the whole benchmark for this reviewer."""
        ids = {item.id for item in self.items}
        return len(ids & set(self.saved)), len(ids)

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
        item = self._by_id[item_id]
        self.activity()
        self.timer.pause()
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
        return item

    def clear_current(self) -> None:
        """No item is current (for example when no item matches the filters)."""
        self.activity()
        self.timer.pause()
        self.current = None

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
        return f"last_item:{self.reviewer}"

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

    # -- blinding -------------------------------------------------------------------
    def is_revealed(self, item_id: str) -> bool:
        """Whether the LLM judgment and other reviewers' scores of an item may be shown.

        With a blind study: only once the reviewer has committed the item, and not while
        an intra-rater repeat of it is open.
        """
        draft = self.drafts.get(item_id)
        if draft is not None and draft.repeat:
            return False
        return not self.study.blind or item_id in self.saved

    def reveal(self, item_id: str) -> Reveal | None:
        """The judgments to show beside the reviewer's, or ``None`` while they are hidden."""
        if not self.is_revealed(item_id):
            return None
        judgment = self.judgments.get(item_id)
        draft, saved = self.drafts.get(item_id), self.saved.get(item_id)
        mine: dict[str, int | None] = (
            dict(draft.scores) if draft else dict(saved.scores) if saved else {}
        )
        others = {
            name: review.scores
            for name, review in self.store.item_reviews(item_id).items()
            if name != self.reviewer
        }
        return Reveal(
            item_id,
            mine,
            self.llm_model,
            dict(judgment.scores) if judgment and judgment.scores else None,
            others,
            self.disagreements(item_id, mine) if mine else [],
        )

    def disagreements(self, item_id: str, scores: dict[str, int | None] | None = None) -> list[str]:
        """Rules where ``scores`` (default: the latest committed ones) differ from the LLM
        judgment; empty when either is missing. Does not check blinding."""
        judgment = self.judgments.get(item_id)
        if scores is None:
            saved = self.saved.get(item_id)
            scores = dict(saved.scores) if saved else None
        if judgment is None or judgment.scores is None or scores is None:
            return []
        return [r for r in RULE_IDS if scores[r] is not None and scores[r] != judgment.scores[r]]

    # -- editing ----------------------------------------------------------------------
    def toggle(self, rule_id: str) -> int:
        """Score one rule: unscored → fail (0), fail → pass (1), pass → fail.

        Returns the new value. Raises ``RuntimeError`` when no item is current and
        ``StoreError`` when the draft cannot be saved (the edit stays on screen).
        """
        draft = self._current_draft()
        value = 1 if draft.scores[rule_id] == 0 else 0
        self._edit("score", lambda d: d.scores.__setitem__(rule_id, value))
        return value

    def pass_unscored(self) -> list[str]:
        """Score every unscored rule as pass (1); return the rules changed."""
        changed = self._current_draft().unscored()
        if changed:
            self._edit("score", lambda d: d.scores.update(dict.fromkeys(changed, 1)))
        return changed

    def set_comment(self, text: str) -> None:
        """Replace the draft comment (consecutive comment edits undo as one step)."""
        draft = self.draft
        if draft is not None and draft.comment != text:
            self._edit("comment", lambda d: setattr(d, "comment", text))

    def toggle_tag(self, tag: str) -> bool:
        """Add or remove a quick tag; return True when it is now set."""
        draft = self._current_draft()
        on = tag not in draft.tags
        self._edit("tag", lambda d: d.tags.append(tag) if on else d.tags.remove(tag))
        return on

    def undo(self) -> bool:
        """Undo the last score, comment or tag edit of the current item; False if none."""
        draft = self._current_draft()
        if not draft.undo_stack:
            return False
        draft.redo_stack.append(draft.snapshot())
        draft.restore(draft.undo_stack.pop())
        draft.last_edit = ""
        self._persist(draft)
        return True

    def redo(self) -> bool:
        """Redo the last undone edit of the current item; False if none."""
        draft = self._current_draft()
        if not draft.redo_stack:
            return False
        draft.undo_stack.append(draft.snapshot())
        draft.restore(draft.redo_stack.pop())
        draft.last_edit = ""
        self._persist(draft)
        return True

    def _edit(self, kind: str, change: Callable[[Draft], object]) -> None:
        draft = self._current_draft()
        self.activity()
        if not (kind == "comment" and draft.last_edit == "comment"):  # typing is one step
            draft.undo_stack.append(draft.snapshot())
        draft.redo_stack.clear()
        draft.last_edit = kind
        change(draft)
        self._persist(draft)

    def _persist(self, draft: Draft) -> None:
        """Save the draft (or drop it when back where it started) at once."""
        draft.dirty = draft.snapshot() != draft.base or draft.repeat
        if draft.dirty:
            self.store.save_draft(
                StoredDraft(
                    self.reviewer,
                    draft.item_id,
                    dict(draft.scores),
                    draft.comment,
                    tuple(draft.tags),
                    draft.repeat,
                    draft.active_seconds,
                    draft.started_at,
                    utc_now(),
                ),
                position_key=self._position_key,
            )
        else:
            self.store.delete_draft(self.reviewer, draft.item_id)

    def _current_draft(self) -> Draft:
        if self.draft is None:
            raise RuntimeError("no current item")
        return self.draft

    def toggle_flag(self) -> bool:
        """Flag or unflag the current item (saved at once); return True when flagged."""
        item_id = self._current_draft().item_id
        on = item_id not in self.flagged
        self.store.set_flag(self.reviewer, item_id, on, utc_now())
        (self.flagged.add if on else self.flagged.discard)(item_id)
        return on

    # -- committing -------------------------------------------------------------------
    def commit(self) -> Review:
        """Save the draft as a committed review at once and return it.

        A blind study may then want a note on why the reviewer disagrees with the LLM:
        ``note_needed`` is set to ``(review, rules)``; see :meth:`add_disagreement_note`.

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
        review = self.store.save_review(
            Review(
                reviewer=self.reviewer,
                item_id=draft.item_id,
                scores={rule: int(value) for rule, value in draft.scores.items()},  # type: ignore[arg-type]
                comment=draft.comment.strip(),
                started_at=draft.started_at,
                committed_at=utc_now(),
                active_seconds=draft.active_seconds,
                tags=tuple(draft.tags),
                repeat=draft.repeat,
            )
        )
        self.note_needed = None
        if review.repeat:
            self._repeated.add(review.item_id)
        else:
            if review.revision == 1:
                self._first_order.append(review.item_id)
            self.saved[review.item_id] = review
            rules = self.disagreements(review.item_id)
            if self.study.blind and rules and self.study.require_comment_on_disagreement:
                self.note_needed = (review, rules)
        latest = self.saved[review.item_id]
        self.drafts[review.item_id] = Draft(
            review.item_id, dict(latest.scores), latest.comment, list(latest.tags)
        )
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

    def add_disagreement_note(self, comment: str) -> None:
        """Store the reviewer's reason for disagreeing with the revealed LLM judgment.

        Raises
        ------
        ReviewIncomplete
            The comment is empty.
        RuntimeError
            No note is pending.
        StoreError
            The write failed.
        """
        if self.note_needed is None:
            raise RuntimeError("no disagreement note is pending")
        if not comment.strip():
            raise ReviewIncomplete("say why you disagree with the LLM", needs_comment=True)
        review, rules = self.note_needed
        self.store.add_disagreement_note(
            review.uid, self.llm_model, rules, comment.strip(), utc_now()
        )
        self.note_needed = None

    # -- what comes next ------------------------------------------------------------
    def due_repeat(self) -> str | None:
        """An item due for its intra-rater repeat, or ``None``.

        An item is repeated when it is one of the study's ``repeat_share`` for this
        reviewer, has a first review followed by at least ``repeat_gap`` other first
        reviews, and has not been repeated yet.
        """
        share, gap = self.study.repeat_share, self.study.repeat_gap
        order = self._first_order
        for position, item_id in enumerate(order):
            if len(order) - 1 - position < gap:
                break
            if (
                item_id in self._by_id
                and item_id not in self._repeated
                and is_repeat_candidate(self.reviewer, item_id, share)
            ):
                return item_id
        return None

    def next_target(self) -> tuple[str, bool] | None:
        """What to show after a commit: ``(item_id, is_repeat)``, or ``None`` at the end.

        A due intra-rater repeat comes first; otherwise the visible item after the
        current one.
        """
        repeat = self.due_repeat()
        if repeat is not None and not (self.current is not None and self.current.id == repeat):
            return repeat, True
        following = self.next_item_id()
        return (following, False) if following is not None else None

    def next_item_id(self) -> str | None:
        """The visible item after the current one, or ``None`` at the end of the list."""
        ids = [i.id for i in self.visible]
        if self.current is None or self.current.id not in ids:
            return ids[0] if ids else None
        position = ids.index(self.current.id)
        return ids[position + 1] if position + 1 < len(ids) else None


def _draft_from_stored(stored: StoredDraft, saved: Review | None) -> Draft:
    """A draft read back after a restart: its edits count as unsaved changes, measured
    from the saved review (or from nothing scored)."""
    start = Draft(stored.item_id, {rule: None for rule in RULE_IDS})
    if saved is not None and not stored.repeat:
        start = Draft(stored.item_id, dict(saved.scores), saved.comment, list(saved.tags))
    draft = Draft(
        stored.item_id,
        dict(stored.scores),
        stored.comment,
        list(stored.tags),
        started_at=stored.started_at,
        repeat=stored.repeat,
        active_seconds=stored.active_seconds,
        base=start.snapshot(),
    )
    draft.dirty = True
    return draft
