"""The adjudication queue: items where experts (or an expert and the LLM) disagree, and
recording an adjudicated verdict kept apart from first judgments (issue 15 item 4).

Who may adjudicate what (the decision, documented in the README): an adjudicator is a
named person, one of the experts or a third one. In a blind study they see an item in
the queue — and with it every rater's first judgment of it — only once they have
committed their own review of that item: the blinding rule of the review window
(:func:`~medrcube_desktop.review.blinding.may_reveal`), so adjudicating reveals nothing
the review window still hides. A third adjudicator therefore first reviews the item
blind, like everyone else. In a study that is not blind every queued item is shown.

"Cannot judge" (issue 24): an item where an expert abstained on a rule is queued with
that rule to decide (whatever ``against`` and ``on`` say, and with one expert only): an
abstention is never settled by the other raters' values. :attr:`QueueEntry.abstained`
names who abstained on which rule.
Adjudications never change ``reviews`` or ``judgments``; they go to their own table
(:meth:`~medrcube_desktop.store.StudyStore.save_adjudications`), revised by new
revisions (the latest wins).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field

from medrcube_desktop.core.rubric import CANNOT_JUDGE, RULE_IDS, abstained_rules, all_pass
from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.review import blinding
from medrcube_desktop.review.agreement_options import QUEUE
from medrcube_desktop.store import StudyStore
from medrcube_desktop.store.adjudications import VERDICT, Adjudication

AGAINST = ("experts", "llm", "any")
"""Which disagreements queue an item: between experts, between an expert and the LLM,
or either."""

ON = ("rules", "verdict")
"""Queue an item when raters differ on any rule, or only when their overall verdicts
(all seven pass) differ."""


@dataclass(frozen=True)
class RaterJudgment:
    """One rater's first judgment of an item as the adjudicator sees it.

    ``kind`` is ``"review"`` (an expert's first judgment) or ``"llm"``; ``comment`` the
    reviewer's comment, or for an LLM judgment what its answer says in words
    (:func:`llm_comment`), never its raw JSON.
    """

    rater: str
    kind: str
    scores: dict[str, int | str]
    comment: str
    uid: str
    revision: int
    blind: bool = True

    @property
    def verdict(self) -> int | str:
        """1 when all seven rules pass; 0 when one fails; :data:`CANNOT_JUDGE` when none
        fails and the expert cannot judge one (no all-pass verdict)."""
        if any(self.scores[r] == 0 for r in RULE_IDS):
            return 0
        return 1 if all_pass(self.scores) else CANNOT_JUDGE

    @property
    def abstained(self) -> list[str]:
        """The rules this rater cannot judge, in rubric order (never for the LLM)."""
        return abstained_rules(self.scores)


@dataclass(frozen=True)
class QueueEntry:
    """An item to adjudicate.

    ``rules`` are the rules the compared raters differ on; ``verdict_differs`` whether
    their overall verdicts differ; ``adjudicated`` the latest adjudication of each target
    already settled.
    """

    item_id: str
    judgments: tuple[RaterJudgment, ...]
    rules: tuple[str, ...]
    verdict_differs: bool
    adjudicated: Mapping[str, Adjudication] = field(default_factory=dict)

    @property
    def abstained(self) -> dict[str, list[str]]:
        """Rater → the rules they cannot judge, for the raters who abstained."""
        return {j.rater: j.abstained for j in self.judgments if j.abstained}

    @property
    def open_targets(self) -> list[str]:
        """Disagreeing rules not yet adjudicated. The overall verdict follows from the
        adjudicated rules (all seven pass), so it is never required; an explicit
        ``verdict`` adjudication overrides it in the gold standard."""
        return [t for t in self.rules if t not in self.adjudicated]

    def to_dict(self) -> dict[str, object]:
        """The ``adjudicate-queue --json`` form of the entry."""
        return {
            "item_id": self.item_id,
            "rules": list(self.rules),
            "verdict_differs": self.verdict_differs,
            "open": self.open_targets,
            "judgments": [
                {
                    "rater": j.rater,
                    "kind": j.kind,
                    "scores": j.scores,
                    "comment": j.comment,
                    "uid": j.uid,
                    "revision": j.revision,
                }  # fmt: skip
                for j in self.judgments
            ],
            **({"abstained": self.abstained} if self.abstained else {}),
            "adjudicated": {
                t: {
                    "value": a.value,
                    "reason": a.reason,
                    "adjudicator": a.adjudicator,
                    "revision": a.revision,
                    "created_at": a.created_at,
                }  # fmt: skip
                for t, a in self.adjudicated.items()
            },
        }


@dataclass
class AdjudicationQueue:
    """The queue and what it leaves out: ``hidden_items`` the items the viewer may not
    see yet (blind study, not committed by them), sorted. Their ids say nothing of
    anyone's scores; their judgments stay hidden until the viewer commits a review."""

    entries: list[QueueEntry]
    hidden_items: list[str] = field(default_factory=list)
    reviewers: list[str] = field(default_factory=list)
    model: str = ""

    @property
    def hidden(self) -> int:
        """How many items are hidden (:attr:`hidden_items`)."""
        return len(self.hidden_items)

    def to_dict(self) -> dict[str, object]:
        return {
            "reviewers": self.reviewers,
            "model": self.model,
            "n_items": len(self.entries),
            "n_open": sum(1 for e in self.entries if e.open_targets),
            "hidden_by_blinding": self.hidden,
            "hidden_items": self.hidden_items,
            "items": [e.to_dict() for e in self.entries],
        }


def _differing(judgments: list[RaterJudgment], against: str) -> tuple[list[str], bool]:
    experts = [j for j in judgments if j.kind == "review"]
    llm = next((j for j in judgments if j.kind == "llm"), None)
    # an abstention always needs a decision (issue 24), whoever it is compared with
    rules: set[str] = {r for j in experts for r in j.abstained}
    verdict = any(j.verdict == CANNOT_JUDGE for j in experts)
    if against in ("experts", "any") and len(experts) >= 2:
        rules |= {r for r in RULE_IDS if len({j.scores[r] for j in experts}) > 1}
        verdict |= len({j.verdict for j in experts}) > 1
    if against in ("llm", "any") and llm is not None and experts:
        rules |= {r for r in RULE_IDS if any(j.scores[r] != llm.scores[r] for j in experts)}
        verdict |= any(j.verdict != llm.verdict for j in experts)
    return [r for r in RULE_IDS if r in rules], verdict


def check_queue_inputs(
    store: StudyStore,
    reviewers: list[str] | None,
    model: str | None,
    items: Collection[str],
    benchmark: str,
) -> None:
    """Refuse what would make an adjudication queue empty for a wrong reason.

    Raises
    ------
    MedRCubeError
        ``"unknown reviewer 'X' (known: …)"``; ``"no judgments by model 'M' (judged
        by: …)"``; or the database's reviews are of items none of which is in the
        benchmark (``benchmark`` names it): the database is for another benchmark.
    StoreError
        The database cannot be read.
    """
    known = store.reviewers()
    unknown = [name for name in reviewers or () if name not in known]
    if unknown:
        raise MedRCubeError(
            f"unknown reviewer {', '.join(map(repr, unknown))} "
            f"(known: {', '.join(known) or 'none: no review is stored'})"
        )
    if model and model not in store.judgment_models():
        models = store.judgment_models()
        raise MedRCubeError(
            f"no judgments by model {model!r} (judged by: {', '.join(models) or 'none'})"
        )
    wanted = set(items)
    reviewed = set().union(*(store.first_reviews(n).keys() for n in reviewers or known))
    if reviewed and not reviewed & wanted:
        example = sorted(reviewed)[:3]
        raise MedRCubeError(
            f"the database's reviews are for another benchmark: none of its "
            f"{len(reviewed)} reviewed items (e.g. {', '.join(example)}) is in {benchmark}"
        )


def llm_comment(scores: dict[str, int]) -> str:
    """An LLM judgment in words, for the place a reviewer's comment goes.

    The Table 10 prompt asks for the seven scores as one JSON object and nothing else,
    so the answer holds no reasons: the text names the rules failed (with their rubric
    names) and says so. ``{"1.1": 0, "2.3": 0, others 1}`` → ``"fails 1.1 Clinical &
    Anatomical Accuracy; 2.3 Plausibility of Distractors (the LLM gives scores only, no
    reasons)"``.
    """
    from medrcube_desktop.core.rubric import load_rubric

    failed = [rule.label for rule in load_rubric().rules if scores.get(rule.id) == 0]
    said = "fails " + "; ".join(failed) if failed else "passes all seven rules"
    return f"{said} (the LLM gives scores only, no reasons)"


def build_queue(
    store: StudyStore,
    reviewers: list[str] | None = None,
    model: str | None = None,
    against: str = QUEUE["against"].default,  # type: ignore[assignment]
    on: str = QUEUE["on"].default,  # type: ignore[assignment]
    items: Collection[str] | None = None,
    viewer: str | None = None,
    blind: bool = True,
) -> AdjudicationQueue:
    """Items where the compared raters disagree, in item-id order.

    Parameters
    ----------
    reviewers : list of str, optional
        The experts (first judgments); default every reviewer.
    model : str, optional
        The LLM whose latest judgment is shown and, with ``against`` "llm" or "any",
        compared.
    against, on : str
        See :data:`AGAINST` and :data:`ON`.
    items : collection of str, optional
        Only these items (the benchmark's).
    viewer, blind
        With a ``viewer``, a blind study lists only the items the viewer has committed
        (the rest are named in ``hidden_items``); without one everything is listed (the
        command line, for the study's analyst).

    Raises
    ------
    MedRCubeError
        Unknown ``against``/``on``, or comparing with the LLM without ``model``.
    StoreError
        The database cannot be read.
    """
    if against not in AGAINST or on not in ON:
        raise MedRCubeError(f"against must be one of {AGAINST}, on one of {ON}")
    if against != "experts" and not model:
        raise MedRCubeError("comparing with the LLM needs a model (--model)")
    names = reviewers if reviewers is not None else store.reviewers()
    firsts = {name: store.first_reviews(name) for name in names}
    judged = store.judgments(model) if model else {}
    adjudications = store.adjudications()
    committed = set(store.first_reviews(viewer)) if viewer else set()
    universe = sorted(set().union(*map(set, firsts.values())) if firsts else set())
    if items is not None:
        universe = [i for i in universe if i in set(items)]
    entries: list[QueueEntry] = []
    hidden: list[str] = []
    for item_id in universe:
        judgments = [
            RaterJudgment(name, "review", dict(r.scores), r.comment, r.uid, r.revision, r.blind)
            for name in names
            if (r := firsts[name].get(item_id)) is not None
        ]
        j = judged.get(item_id)
        if j is not None and j.scores:
            judgments.append(RaterJudgment(f"LLM {model}", "llm", dict(j.scores),
                                           llm_comment(j.scores), j.uid, 1))  # fmt: skip
        rules, verdict = _differing(judgments, against)
        if not (verdict if on == "verdict" else rules or verdict):
            continue
        if viewer is not None and not blinding.may_reveal(blind, item_id in committed):
            hidden.append(item_id)
            continue
        entry = QueueEntry(item_id, tuple(judgments), tuple(rules), verdict,
                           dict(adjudications.get(item_id, {})))  # fmt: skip
        entries.append(entry)
    return AdjudicationQueue(entries, hidden, list(names), model or "")


def adjudicate(
    store: StudyStore,
    entry: QueueEntry,
    adjudicator: str,
    values: Mapping[str, int],
    reasons: Mapping[str, str],
    blind: bool = True,
) -> list[Adjudication]:
    """Record the adjudicated ``values`` (target → 0/1) of ``entry`` with their
    ``reasons`` (target → text), all in one transaction; return them as stored.

    Raises
    ------
    MedRCubeError
        No value given, a reason missing, or (blind study) the adjudicator has not
        committed their own review of the item.
    StoreError
        A target or value is invalid, or the write fails (nothing is stored then).
    """
    if not adjudicator.strip():
        raise MedRCubeError("say who adjudicates (the reviewer's name)")
    if not values:
        raise MedRCubeError(f"item {entry.item_id}: choose a value to adjudicate")
    missing = [t for t in values if not str(reasons.get(t, "")).strip()]
    if missing:
        raise MedRCubeError(f"item {entry.item_id}: give a reason for {', '.join(missing)}")
    if blind and entry.item_id not in store.first_reviews(adjudicator.strip()):
        raise MedRCubeError(
            f"{adjudicator.strip()} has not committed a review of item {entry.item_id}: in a blind "
            "study the adjudicator reviews the item first"
        )
    resolves = [
        {"rater": j.rater, "kind": j.kind, "uid": j.uid, "revision": j.revision}
        for j in entry.judgments
    ]
    records = [
        Adjudication(
            entry.item_id,
            target,
            int(value),
            str(reasons[target]).strip(),
            adjudicator.strip(),
            [
                {**r, "value": _value(j, target)}
                for r, j in zip(resolves, entry.judgments, strict=True)
            ],
        )
        for target, value in values.items()
    ]
    return store.save_adjudications(records)


def _value(judgment: RaterJudgment, target: str) -> int | str:
    return judgment.verdict if target == VERDICT else judgment.scores[target]
