"""The gold standard of a several-experts study: adjudicated where adjudicated, else the
experts' value where they agree.

Per item and rule: the latest adjudication of that rule when there is one; else, when at
least two experts judged the item (first judgments) and all of them gave the same value,
that value. An item whose seven rules do not all have a gold value is left out of every
comparison with the gold standard and counted (``left_out``). The overall verdict of a
gold item is its adjudicated ``verdict`` when there is one, else "all seven pass".

An expert compared with a gold standard that their own judgments helped build agrees
with it by construction on every item nobody adjudicated (gold is their shared value),
and on an item they adjudicated themselves gold is their own later decision; only the
items adjudicated by someone else say something about them (:func:`gold_sources`). The
LLM never contributes to the gold standard: its agreement with gold is independent on
every gold item.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from medrcube_desktop.core.rubric import CANNOT_JUDGE, RULE_IDS
from medrcube_desktop.review.agreement.stats import Scores
from medrcube_desktop.store.adjudications import VERDICT, Adjudication


@dataclass
class Gold:
    """The gold standard over a universe of items.

    ``scores``: item → rule → 0/1 for the items with all seven; ``verdicts``: item →
    adjudicated overall verdict (only where adjudicated); ``adjudicated``: items with at
    least one adjudicated value; ``left_out``: items judged or adjudicated but without a
    complete gold standard, sorted.
    """

    scores: dict[str, dict[str, int]] = field(default_factory=dict)
    verdicts: dict[str, int] = field(default_factory=dict)
    adjudicated: set[str] = field(default_factory=set)
    left_out: list[str] = field(default_factory=list)


def gold_standard(
    experts: Mapping[str, Scores],
    adjudications: Mapping[str, Mapping[str, Adjudication]],
    universe: Sequence[str] | None = None,
) -> Gold:
    """The gold standard from the experts' first judgments and the latest adjudications.

    Parameters
    ----------
    experts : mapping
        Expert name → item → rule → 0/1.
    adjudications : mapping
        Item → target (rule id or ``"verdict"``) → latest :class:`Adjudication`.
    universe : sequence of str, optional
        The items considered (a study's sample); default every item an expert judged or
        an adjudication names.
    """
    items = (
        sorted(set(universe))
        if universe is not None
        else sorted(set().union(*map(set, experts.values()), adjudications))
    )
    gold = Gold()
    for item in items:
        judged = [scores[item] for scores in experts.values() if item in scores]
        settled = adjudications.get(item, {})
        if not judged and not settled:
            continue
        values: dict[str, int] = {}
        for rule in RULE_IDS:
            if rule in settled:
                values[rule] = settled[rule].value
            elif (
                len(judged) >= 2
                and len({s[rule] for s in judged}) == 1
                and judged[0][rule] != CANNOT_JUDGE  # an abstention is decided, not shared
            ):
                values[rule] = int(judged[0][rule])
        if settled:
            gold.adjudicated.add(item)
        if len(values) < len(RULE_IDS):
            gold.left_out.append(item)
            continue
        gold.scores[item] = values
        if VERDICT in settled:
            gold.verdicts[item] = settled[VERDICT].value
    return gold


@dataclass(frozen=True)
class GoldSources:
    """Where the gold value comes from on the gold items one expert judged.

    ``consensus``: items nobody adjudicated: gold is the experts' shared value, this
    expert's included, so they agree with it by construction (1.00). ``own``: items with
    a latest adjudication by this expert: gold is their own later decision, which may
    overrule their first judgment. ``others``: items adjudicated, none of it by this
    expert: the informative comparison. ``own_matching``: the ``own`` items on which the
    expert's first judgment matches gold on all seven rules. Each list sorted.
    """

    consensus: list[str]
    own: list[str]
    others: list[str]
    own_matching: int = 0

    def to_dict(self) -> dict[str, int]:
        return {
            "n_items": len(self.consensus) + len(self.own) + len(self.others),
            "consensus": len(self.consensus),
            "own": len(self.own),
            "others": len(self.others),
            "own_matching_first": self.own_matching,
        }


def gold_sources(
    name: str,
    scores: Scores,
    gold: Gold,
    adjudications: Mapping[str, Mapping[str, Adjudication]],
) -> GoldSources:
    """Split the gold items that ``name`` judged (``scores``: item → rule → 0/1) by where
    their gold value comes from (:class:`GoldSources`)."""
    consensus, own, others = [], [], []
    for item in sorted(i for i in gold.scores if i in scores):
        if item not in gold.adjudicated:
            consensus.append(item)
        elif any(a.adjudicator == name for a in adjudications.get(item, {}).values()):
            own.append(item)
        else:
            others.append(item)
    matching = sum(1 for i in own if all(scores[i][r] == gold.scores[i][r] for r in RULE_IDS))
    return GoldSources(consensus, own, others, matching)


def _n(count: int, what: str = "item") -> str:
    return f"{count} {what}{'' if count == 1 else 's'}"


def expert_note(name: str, sources: GoldSources, column: str | None) -> str:
    """What ``name``'s agreement with gold is made of, in a sentence (counts included);
    ``column`` names their column over the items adjudicated by someone else."""
    d = sources.to_dict()
    parts = []
    if sources.consensus:
        parts.append(
            f"on the {_n(d['consensus'], 'consensus item')} gold is the experts' shared "
            f"verdict, {name}'s included (agreement 1.00 by construction)"
        )
    if sources.own:
        parts.append(
            f"on the {_n(d['own'])} {name} adjudicated, gold is {name}'s own later decision "
            f"({name}'s first judgment matches it on all seven rules on {d['own_matching_first']}"
            f" of them)"
        )
    if sources.others:
        parts.append(
            f"the {_n(d['others'])} adjudicated by someone else "
            f"{'is' if d['others'] == 1 else 'are'} the informative comparison ('{column}')"
        )
    else:
        parts.append(f"no item was adjudicated by someone else: {name} has no independent "
                     "comparison with gold")  # fmt: skip
    return f"{name}, {_n(d['n_items'], 'gold item')} judged: " + "; ".join(parts)
