"""A store of proposals in memory with the names of issue 23's store API, for the
widgets' tests that need no database (``path`` None: written on the GUI thread)."""

from __future__ import annotations

import dataclasses

from medrcube_desktop.core.rubric import RULE_IDS
from medrcube_desktop.errors import StoreError
from medrcube_desktop.review.corrections import KINDS, WITHDRAWN, Decision, Proposal


class FakeProposalStore:
    path = None

    def __init__(self) -> None:
        self._proposals: list[Proposal] = []
        self._decisions: dict[str, list[Decision]] = {}

    def save_proposal(self, p: Proposal) -> Proposal:
        if p.kind not in KINDS or p.rule not in RULE_IDS or not p.reason.strip():
            raise StoreError(f"item {p.item_id}: bad proposal")
        n = len(self._proposals) + 1
        stored = dataclasses.replace(p, uid=f"p{n}", created_at=f"2026-12-03T10:{n:02d}:00+00:00")
        self._proposals.append(stored)
        return stored

    def save_decision(self, d: Decision) -> Decision:
        proposal = next((p for p in self._proposals if p.uid == d.proposal_uid), None)
        if proposal is None:
            raise StoreError(f"no proposal {d.proposal_uid}")
        if d.decider == proposal.author and d.decision != WITHDRAWN:
            raise StoreError(f"{d.decider} cannot decide their own proposal")
        history = self._decisions.setdefault(d.proposal_uid, [])
        stored = dataclasses.replace(
            d, revision=len(history) + 1, uid=f"d{len(history) + 1}",
            created_at="2026-12-03T11:00:00+00:00",
        )  # fmt: skip
        history.append(stored)
        return stored

    def proposals(self, item_id: str | None = None) -> list[Proposal]:
        return [p for p in self._proposals if item_id is None or p.item_id == item_id]

    def decisions(self, proposal_uid: str) -> list[Decision]:
        return list(self._decisions.get(proposal_uid, []))

    def proposal_status(self, uid: str) -> str:
        history = self._decisions.get(uid)
        return history[-1].decision if history else "open"

    def open_proposals(self) -> list[Proposal]:
        return [p for p in self._proposals if self.proposal_status(p.uid) == "open"]


class FakeSession:
    """What the pane reads of a session: store, reviewer, and the blinding rule."""

    def __init__(self, store, reviewer: str, blind: bool = False, committed=()) -> None:
        self.store, self.reviewer = store, reviewer
        self.blind, self.committed = blind, set(committed)

    def shown_item_ids(self, item_ids):
        return [i for i in item_ids if not self.blind or i in self.committed]
