"""The reveal: what of others' judgments a reviewer may see, and the disagreement note.

The rule itself is :mod:`medrcube_desktop.review.blinding`.

A mixin of :class:`~medrcube_desktop.review.session.ReviewSessionState` (which sets the
attributes declared below), kept apart so each module stays small.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from medrcube_desktop.core.items import Item
from medrcube_desktop.core.rubric import CANNOT_JUDGE, RULE_IDS
from medrcube_desktop.review import blinding
from medrcube_desktop.review.draft import Draft, ReviewIncomplete
from medrcube_desktop.review.flow import Aspect
from medrcube_desktop.review.necessity_evidence import Evidence
from medrcube_desktop.review.study import StudySettings
from medrcube_desktop.store import Review, StudyStore, utc_now
from medrcube_desktop.store.judgments import Judgment


@dataclass(frozen=True)
class Reveal:
    """What the reviewer sees of others' judgments of an item once it may be shown.

    ``mine`` are the reviewer's scores as on screen (the draft, else the latest
    committed; ``None`` for an unscored rule); ``llm`` the LLM judgment
    (``None`` when the item has none); ``others`` the latest scores of every other
    reviewer; ``disagreements`` the rules where ``mine`` and ``llm`` differ;
    ``evidence`` how many models answered the item right without its image (rule 1.4,
    :mod:`~medrcube_desktop.review.necessity_evidence`; None when no ablation run
    answered it, or while it is computed); ``evidence_pending`` True while it is being
    computed off the GUI thread (the reveal says so), ``evidence_error`` why it could
    not be read ("" when it could).
    """

    item_id: str
    mine: dict[str, int | str | None]
    llm_model: str
    llm: dict[str, int] | None
    others: dict[str, dict[str, int | str]]
    disagreements: list[str]
    evidence: dict[str, object] | None = None
    evidence_pending: bool = False
    evidence_error: str = ""


EvidenceStart = Callable[[int], None]
"""``start(generation)``: begins computing the evidence elsewhere (the window: on a
worker thread) and hands it back later with
:meth:`RevealMixin.evidence_arrived` ``(generation, evidence)``."""


class RevealMixin:
    """Blinding rules and disagreement notes of a review session."""

    store: StudyStore
    reviewer: str
    study: StudySettings
    saved: dict[str, Review]
    drafts: dict[str, Draft]
    judgments: dict[str, Judgment]
    llm_model: str
    current: Item | None
    _noted: set[str]
    items: list[Item]
    _evidence: Evidence | None = None
    _evidence_source: Callable[[], Evidence] | None = None
    _evidence_start: EvidenceStart | None = None
    _evidence_generation: int = 0
    _evidence_pending: bool = False
    _evidence_error: str = ""

    if TYPE_CHECKING:

        def _notify(self, aspect: Aspect, item_id: str | None = None) -> None: ...

    def is_revealed(self, item_id: str) -> bool:
        """Whether the LLM judgment and other reviewers' scores of an item may be shown
        (:func:`~medrcube_desktop.review.blinding.may_reveal`)."""
        draft = self.drafts.get(item_id)
        return blinding.may_reveal(
            self.study.blind, item_id in self.saved, draft is not None and draft.repeat
        )

    def set_evidence_source(
        self, source: Callable[[], Evidence] | None, start: EvidenceStart | None = None
    ) -> None:
        """Where :meth:`necessity_evidence` reads the evidence from (the window passes
        :func:`~medrcube_desktop.evaluation.compare.necessity.store_evidence` of its
        study; None: no evidence); read again at the next call. With ``start``, the
        evidence is computed elsewhere (:data:`EvidenceStart`: the window's worker) and
        :meth:`necessity_evidence` never waits for it."""
        self._evidence_source, self._evidence_start = source, start
        self._forget_evidence()

    def _forget_evidence(self) -> None:
        self._evidence = None
        self._evidence_generation += 1  # a computation still running is for older runs
        self._evidence_pending, self._evidence_error = False, ""

    def necessity_evidence(self) -> Evidence:
        """Every item's image-necessity evidence (item id → row), read once from the
        source (:meth:`set_evidence_source`; empty without one) and kept until
        :meth:`reload_evidence`. With a ``start``: empty until it arrived
        (:attr:`evidence_pending`; the first call starts it). Not blinded:
        :meth:`reveal` and the queue apply the gate."""
        if self._evidence is None:
            if self._evidence_start is not None:
                if not self._evidence_pending:
                    self._evidence_pending = True
                    self._evidence_start(self._evidence_generation)
                return {}
            source = self._evidence_source
            self._evidence = source() if source is not None else {}
        return self._evidence

    @property
    def evidence_pending(self) -> bool:
        """Whether the evidence is being computed (started, not arrived)."""
        return self._evidence is None and self._evidence_pending

    def evidence_arrived(self, generation: int, evidence: Evidence, error: str = "") -> None:
        """The evidence computed for ``generation`` (what :data:`EvidenceStart` was
        given); ``error`` why it could not be read (the evidence is then empty). Dropped
        when the runs changed since (:meth:`reload_evidence`). The reveal follows
        (:attr:`~medrcube_desktop.review.flow.Aspect.JUDGMENTS`)."""
        if generation != self._evidence_generation:
            return
        self._evidence, self._evidence_pending, self._evidence_error = dict(evidence), False, error
        self._notify(Aspect.JUDGMENTS)

    def reload_evidence(self) -> None:
        """The runs changed: read them again at the next :meth:`necessity_evidence`
        (a computation still running is dropped when it arrives); the reveal follows."""
        self._forget_evidence()
        self._notify(Aspect.JUDGMENTS)

    def agreement_items(self) -> set[str] | None:
        """The items an agreement study may count for this reviewer (None: every item)."""
        return blinding.counted_items(self.study.blind, self.saved.keys())

    def shown_item_ids(self, item_ids: list[str]) -> list[str]:
        """Those of ``item_ids`` this reviewer may be shown by id beside a judgment."""
        return blinding.visible_items(self.study.blind, self.saved.keys(), item_ids)

    def reveal(self, item_id: str) -> Reveal | None:
        """The judgments to show beside the reviewer's, or ``None`` while they are hidden."""
        if not self.is_revealed(item_id):
            return None
        judgment = self.judgments.get(item_id)
        draft, saved = self.drafts.get(item_id), self.saved.get(item_id)
        mine: dict[str, int | str | None] = (
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
            self.necessity_evidence().get(item_id),
            self.evidence_pending,
            self._evidence_error,
        )

    def disagreements(
        self, item_id: str, scores: dict[str, int | str | None] | None = None
    ) -> list[str]:
        """Rules where ``scores`` (default: the latest committed ones) differ from the LLM
        judgment; empty when either is missing. A rule the reviewer cannot judge is no
        disagreement (the LLM never abstains). Does not check blinding."""
        judgment = self.judgments.get(item_id)
        if scores is None:
            saved = self.saved.get(item_id)
            scores = dict(saved.scores) if saved else None
        if judgment is None or judgment.scores is None or scores is None:
            return []
        return [
            r
            for r in RULE_IDS
            if scores[r] not in (None, CANNOT_JUDGE) and scores[r] != judgment.scores[r]
        ]

    def pending_note(self, item_id: str) -> tuple[Review, list[str]] | None:
        """``(review, rules)`` when the study wants a note on why the reviewer's latest
        review of ``item_id`` differs from the revealed LLM judgment and there is none."""
        if not (self.study.blind and self.study.require_comment_on_disagreement):
            return None
        review, draft = self.saved.get(item_id), self.drafts.get(item_id)
        if review is None or review.uid in self._noted or (draft is not None and draft.repeat):
            return None
        rules = self.disagreements(item_id)
        return (review, rules) if rules else None

    @property
    def note_needed(self) -> tuple[Review, list[str]] | None:
        """:meth:`pending_note` of the current item (``None`` without one)."""
        return self.pending_note(self.current.id) if self.current is not None else None

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
            raise ReviewIncomplete(
                "say why you disagree with the LLM", needs_comment=True, needs_note=True
            )
        review, rules = self.note_needed
        self.store.add_disagreement_note(
            review.uid, self.llm_model, rules, comment.strip(), utc_now()
        )
        self._noted.add(review.uid)
        self._notify(Aspect.NOTE, review.item_id)
