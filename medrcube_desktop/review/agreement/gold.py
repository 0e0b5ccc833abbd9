"""The gold standard of a several-experts study: adjudicated where adjudicated, else the
experts' value where they agree.

Per item and rule: the latest adjudication of that rule when there is one; else, when at
least two experts judged the item (first judgments) and all of them gave the same value,
that value. An item whose seven rules do not all have a gold value is left out of every
comparison with the gold standard and counted (``left_out``). The overall verdict of a
gold item is its adjudicated ``verdict`` when there is one, else "all seven pass".

An expert compared with a gold standard that their own judgments helped build agrees
with it by construction where the experts agreed; the figures say how the adjudicated
disagreements went. The LLM never contributes to the gold standard.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from medrcube_desktop.core.rubric import RULE_IDS
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
            elif len(judged) >= 2 and len({s[rule] for s in judged}) == 1:
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
