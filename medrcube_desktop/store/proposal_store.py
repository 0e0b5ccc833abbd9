"""The corrections part of :class:`~medrcube_desktop.store.study_store.StudyStore`:
proposals and their decisions (a mixin, so the facade stays small; the queries are
:mod:`~medrcube_desktop.store.proposals`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from medrcube_desktop.core.corrections import AcceptedCorrection, Decision, Proposal
from medrcube_desktop.store import proposals as queries
from medrcube_desktop.store.database import utc_now

T = TypeVar("T")


class ProposalStoreMixin:
    """Proposed corrections (never changed) and their decisions (latest wins)."""

    if False:  # pragma: no cover - provided by StudyStore

        def _read(self, what: str, query: Callable[..., T], *args: Any) -> T: ...

        def _write(self, what: str, write: Callable[..., T], *args: Any) -> T: ...

    def save_proposal(self, p: Proposal) -> Proposal:
        """Store a new proposal at once; return it as stored (``uid``, ``created_at``,
        ``app_version`` filled in).

        Raises
        ------
        StoreError
            ``"item ID, FIELD: why"``: an unknown kind or rule, an empty reason or
            author, a change of the wrong shape for its kind (mask labels included); or
            the write fails.
        """
        row = queries.proposal_row(p, utc_now())
        what = f"save the {p.kind} proposal of item {p.item_id}"
        return queries.proposal_from_row(self._write(what, queries.insert_proposal, row))

    def save_decision(self, d: Decision) -> Decision:
        """Store a decision as the next revision of its proposal's decision; return it
        as stored (``revision``, ``uid``, ``created_at``, ``app_version`` filled in).

        Raises
        ------
        StoreError
            An unknown decision, an empty reason or decider, an unknown proposal, a
            decider who is the proposal's author unless withdrawing (or a withdrawal by
            anyone else), a proposal already withdrawn; or the write fails.
        """
        row = queries.decision_row(d, utc_now())
        what = f"save the decision on proposal {d.proposal_uid}"
        return queries.decision_from_row(self._write(what, queries.insert_decision, row))

    def proposal(self, uid: str) -> Proposal | None:
        """The proposal of ``uid``, or ``None``."""
        return self._read(f"read proposal {uid}", queries.proposal, uid)

    def proposals(self, item_id: str | None = None) -> list[Proposal]:
        """Every proposal, or one item's, in creation order."""
        what = "read proposals" if item_id is None else f"read the proposals of item {item_id}"
        return self._read(what, queries.proposals, item_id)

    def decisions(self, proposal_uid: str) -> list[Decision]:
        """Every decision of one proposal, oldest revision first."""
        what = f"read the decisions on proposal {proposal_uid}"
        return self._read(what, queries.decisions, proposal_uid)

    def every_decision(self) -> dict[str, list[Decision]]:
        """Every decision of every decided proposal, by proposal uid, oldest revision
        first (one query: the list's and the export's)."""
        return self._read("read the decisions on proposals", queries.every_decision)

    def latest_decisions(self) -> dict[str, Decision]:
        """The latest decision of every decided proposal, by proposal uid (one query:
        the queue's and the export's)."""
        return self._read("read the decisions on proposals", queries.latest_decisions)

    def proposal_status(self, uid: str) -> str:
        """``"open"`` | ``"accepted"`` | ``"rejected"`` | ``"withdrawn"`` (the latest
        decision) of proposal ``uid``; StoreError when there is none of that uid."""
        return self._read(f"read proposal {uid}", queries.proposal_status, uid)

    def open_proposals(self) -> list[Proposal]:
        """The proposals no one has decided yet, in creation order."""
        return self._read("read the open proposals", queries.open_proposals)

    def accepted_corrections(self) -> list[AcceptedCorrection]:
        """Every proposal whose latest decision accepts it, with that decision, in
        creation order: what ``release`` applies (two that set one field differently
        are both here: :func:`medrcube_desktop.review.proposing.conflicts`)."""
        return self._read("read the accepted corrections", queries.accepted_corrections)
