"""What the demo's examples study holds, as a script: each scripted model's answer to each
item and each rater's scores, drawn from ``random.Random`` seeded with the seed and a fixed
label, and the local endpoint's reply to each prompt (:func:`responder`). Kept apart from
how the study is made (:mod:`medrcube_desktop.demo.examples`), so that the tests compute
every expected figure from this script independently of the build.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from medrcube_desktop.core.items import Item
from medrcube_desktop.core.rubric import RULE_IDS

DEFAULT_SEED = 0
EXPERTS: tuple[str, str] = ("dr-ana", "dr-ben")
"""The two experts; the first also adjudicates."""
JUDGE = "demo-judge"
"""The LLM judge's model name."""


@dataclass(frozen=True)
class Personality:
    """One scripted evaluation run: ``accuracy`` is the share of items (rounded to whole
    items) answered right; ``unparsed`` items get an answer naming no option."""

    run: str
    model: str
    accuracy: float
    text_only: bool = False
    unparsed: int = 0


PERSONALITIES: tuple[Personality, ...] = (
    Personality("demo-strong", "demo-strong", 0.85),
    Personality("demo-middling", "demo-middling", 0.6),
    Personality("demo-weak", "demo-weak", 0.35, unparsed=2),
    Personality("demo-guesser", "demo-guesser", 0.25),
    Personality("demo-strong-text-only", "demo-strong", 0.3, text_only=True),
)
"""The runs, in the order they are made; the text-only run is the baseline of
``demo-strong`` (same model)."""

UNPARSED_ANSWER = "I cannot tell from this picture."
FAIL_RATE = 0.15
"""Share of (item, rule) cells that fail in the scripted truth."""
FLIP_RATES: dict[str, float] = {EXPERTS[0]: 0.04, EXPERTS[1]: 0.10, JUDGE: 0.14}
"""Share of cells each rater judges against the scripted truth."""


def scripted_answers(items: Sequence[Item], seed: int = DEFAULT_SEED) -> dict[str, dict]:
    """Each run's answer letter per item: run → item id → letter, or ``None`` for an
    answer naming no option (:data:`UNPARSED_ANSWER`).

    For each :class:`Personality` ``round(accuracy * n)`` items, drawn with
    ``random.Random(f"{seed}:{run}")``, get the right letter and the others a wrong one.
    Items whose prompts are identical (same question and options) share the first one's
    answer, since the endpoint cannot tell them apart.
    """
    from medrcube_desktop.evaluation.prompt import build_prompt

    scripts: dict[str, dict] = {}
    for person in PERSONALITIES:
        rng = random.Random(f"{seed}:{person.run}")
        ids = [item.id for item in items]
        right = set(rng.sample(ids, round(person.accuracy * len(ids))))
        wrong = sorted(set(ids) - right)
        unparsed = set(rng.sample(wrong, min(person.unparsed, len(wrong))))
        by_prompt: dict[str, str | None] = {}
        letters: dict[str, str | None] = {}
        for item in items:
            prompt = build_prompt(item)
            if prompt not in by_prompt:
                others = sorted(set(item.options) - {item.answer})
                by_prompt[prompt] = (
                    item.answer
                    if item.id in right or not others
                    else None
                    if item.id in unparsed
                    else rng.choice(others)
                )
            letters[item.id] = by_prompt[prompt]
        scripts[person.run] = letters
    return scripts


def scripted_scores(items: Sequence[Item], seed: int = DEFAULT_SEED) -> dict[str, dict]:
    """Each rater's scores: rater (the :data:`EXPERTS` and :data:`JUDGE`) → item id →
    rule → 0/1.

    A scripted truth fails each cell with :data:`FAIL_RATE`; each rater then judges a
    cell against it with their :data:`FLIP_RATES` (``random.Random(f"{seed}:truth")``
    and ``random.Random(f"{seed}:{rater}")``)."""
    truth_rng = random.Random(f"{seed}:truth")
    truth = {
        item.id: {rule: int(truth_rng.random() >= FAIL_RATE) for rule in RULE_IDS} for item in items
    }
    scores: dict[str, dict] = {}
    for rater, rate in FLIP_RATES.items():
        rng = random.Random(f"{seed}:{rater}")
        scores[rater] = {
            item_id: {rule: value ^ int(rng.random() < rate) for rule, value in rules.items()}
            for item_id, rules in truth.items()
        }
    scores["truth"] = truth
    return scores


def responder(items: list[Item], answers: dict[str, dict], scores: dict[str, dict]):
    """The endpoint's script: the Table 9 prompt of an item → the run's answer, the
    Table 10 user message of an item → the judge's scores as JSON."""
    import json

    from medrcube_desktop.evaluation.prompt import build_prompt
    from medrcube_desktop.llm.prompt import load_prompt

    review_prompt = load_prompt()
    by_model: dict[tuple[str, bool], dict[str, str]] = {}
    for person in PERSONALITIES:
        script = by_model.setdefault((person.model, not person.text_only), {})
        for item in items:
            letter = answers[person.run][item.id]
            script[build_prompt(item)] = UNPARSED_ANSWER if letter is None else f"Answer: {letter}"
    judge = {
        review_prompt.messages(item)[-1]["content"]: json.dumps(scores[JUDGE][item.id])
        for item in items
    }

    def respond(model: str, text: str, with_image: bool) -> str | None:
        if model == JUDGE:
            return judge.get(text)
        return by_model.get((model, with_image), {}).get(text)

    return respond
