"""Review-session state: the item queue, the current item, drafts, blinding, repeats.

Plain Python (glue-style state object): the Qt views only display it and call its
methods, so the whole review flow is testable without a window. Every edit is written to
the study database as a draft at once; a commit turns the draft into a review.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence

from medrcube_desktop.core.items import Item
from medrcube_desktop.core.rubric import RULE_IDS
from medrcube_desktop.review.draft import Draft, ReviewIncomplete, Snapshot, draft_from_stored
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
from medrcube_desktop.review.reveal import Reveal, RevealMixin
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


class ReviewSessionState(RevealMixin):
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
            item_id: draft_from_stored(stored, self.saved.get(item_id))
            for item_id, stored in store.drafts(reviewer).items()
            if item_id in self._by_id
        }
        self._noted: set[str] = store.noted_review_uids(reviewer)
        self._after_repeat: str | None = None

    def reload_judgments(self) -> None:
        """Read the LLM judgments again (after a run stored new ones; raises StoreError).

        They stay hidden for every item the reviewer has not committed.
        """
        models = self.store.judgment_models()
        self.llm_model = self.study.llm_model or (models[0] if models else "")
        self.judgments = self.store.judgments(self.llm_model) if self.llm_model else {}

    @property
    def require_comment_on_fail(self) -> bool:
        """Whether a failed rule needs a comment (the study setting)."""
        return self.study.require_comment_on_fail

    @require_comment_on_fail.setter
    def require_comment_on_fail(self, value: bool) -> None:
        self.study.require_comment_on_fail = value

    # -- listing --------------------------------------------------------------
    def choices(self, attribute: str) -> list[str]:
        """Sorted distinct values of ``task`` (abbreviation), ``modality``, ``region`` or
        ``dataset``; for ``study``, the names of the agreement studies."""
        if attribute == "study":
            return self.store.study_names()
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
        note_missing = {item_id for item_id in disagrees if self.pending_note(item_id)}
        return QueueFacts(set(self.saved), set(self.flagged), failed, disagrees, note_missing)

    def set_filter(self, item_filter: ItemFilter) -> list[Item]:
        """Apply a filter and order; return the visible items.

        Raises ``ValueError`` for an unknown status or order.
        """
        facts = self.facts()
        if item_filter.study:
            record = self.store.study(item_filter.study)
            facts.study_items = set(record.item_ids) if record is not None else set()
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
        return self._step(draft, draft.undo_stack, draft.redo_stack)

    def redo(self) -> bool:
        """Redo the last undone edit of the current item; False if none."""
        draft = self._current_draft()
        return self._step(draft, draft.redo_stack, draft.undo_stack)

    def _step(self, draft: Draft, source: list[Snapshot], target: list[Snapshot]) -> bool:
        """Restore the last snapshot of ``source``, keeping the present one in ``target``."""
        if not source:
            return False
        target.append(draft.snapshot())
        draft.restore(source.pop())
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
                scores={rule: int(value) for rule, value in draft.scores.items()},  # type: ignore[arg-type]
                comment=draft.comment.strip(),
                started_at=draft.started_at,
                committed_at=utc_now(),
                active_seconds=draft.active_seconds,
                tags=tuple(draft.tags),
                repeat=draft.repeat,
                blind=not exposed,
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
                and not self.has_unsaved_changes(item_id)  # never over a revision draft
                and is_repeat_candidate(self.reviewer, item_id, share)
            ):
                return item_id
        return None

    def next_target(self) -> tuple[str, bool] | None:
        """What to show after a commit: ``(item_id, is_repeat)``, or ``None`` when every
        visible item is reviewed.

        A due intra-rater repeat comes first, and afterwards the reviewer goes on from
        where they were before it. Otherwise the visible item after the current one; past
        the end of the list, the first visible item not reviewed yet (so a list re-ordered
        mid-way still offers every item).
        """
        following = self._after_repeat if self._after_repeat is not None else self.next_item_id()
        repeat = self.due_repeat()
        if repeat is not None and not (self.current is not None and self.current.id == repeat):
            self._after_repeat = following
            return repeat, True
        self._after_repeat = None
        if following is None:
            current = self.current.id if self.current is not None else None
            following = next(
                (i.id for i in self.visible if i.id not in self.saved and i.id != current), None
            )
        return (following, False) if following is not None else None

    def next_item_id(self) -> str | None:
        """The visible item after the current one, or ``None`` at the end of the list."""
        ids = [i.id for i in self.visible]
        if self.current is None or self.current.id not in ids:
            return ids[0] if ids else None
        position = ids.index(self.current.id)
        return ids[position + 1] if position + 1 < len(ids) else None
