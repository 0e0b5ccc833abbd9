"""Reading the chosen option out of a model's answer, and saying how.

Ours is written here because no library does it right for this benchmark (the issue
lists the faults of the public evaluator and of other harnesses). Rules, tried in order
after stripping reasoning blocks (``<think>…</think>``):

1. ``letter``: the answer is a bare letter: ``B``, ``(B)``, ``B.``, ``b``, ``**B**``.
2. ``boxed``: ``\\boxed{B}``.
3. ``answer_phrase``: "Answer: B", "The answer is (B)", "correct option is B", "Option B".
4. ``leading_letter``: the answer starts with a letter and a separator: "B. Coronal",
   "B) coronal", "(B) Coronal plane".
5. ``option_text``: the answer is exactly one option's text (case and a trailing period
   ignored), possibly after "The answer is".
6. ``standalone_letter``: exactly one distinct capital letter of the options stands alone
   in the text; an "A" followed by a lower-case word is the article ("A coronal slice"),
   never option A; lower-case "a" never counts.

Several different letters at the step that finds any make the answer ``ambiguous``;
an empty answer or a refusal is ``empty`` / ``unparsed``. The parsed letter is ``None``
then. :func:`official_answer` gives the public MedRCube evaluator's reading, for
comparison with published numbers.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

NOT_NOUNS = {
    "or",
    "and",
    "nor",
    "is",
    "was",
    "are",
    "seems",
    "would",
    "could",
    "might",
    "may",
    "appears",
    "fits",
    "matches",
}
"""Words after a capital "A" that show it is a letter, not the article ("A or C")."""

THINK = re.compile(r"<think>.*?</think>", re.IGNORECASE | re.DOTALL)
OPEN_THINK = re.compile(r"<think>.*\Z", re.IGNORECASE | re.DOTALL)


@dataclass(frozen=True)
class ParsedAnswer:
    """``letter`` (``None`` when unparsed) and ``method`` (a rule name above, or
    ``empty``, ``ambiguous``, ``unparsed``)."""

    letter: str | None
    method: str


def strip_reasoning(text: str) -> str:
    """The answer without ``<think>…</think>`` blocks (an unclosed one runs to the end)."""
    text = THINK.sub(" ", text)
    text = re.sub(r"^.*?</think>", " ", text, flags=re.IGNORECASE | re.DOTALL)  # opened earlier
    return OPEN_THINK.sub(" ", text).strip()


def parse_answer(response: str | None, options: Mapping[str, str]) -> ParsedAnswer:
    """The option letter a response chooses among ``options`` (letter → text)."""
    letters = "".join(sorted(options))
    if not letters:
        return ParsedAnswer(None, "unparsed")
    text = strip_reasoning(response or "")
    if not text:
        return ParsedAnswer(None, "empty")
    cls = f"[{letters}{letters.lower()}]"
    plain = text.strip().strip("*").strip()
    bare = re.fullmatch(rf"\(?({cls})\)?[.:)]?", plain)
    if bare:
        return ParsedAnswer(bare.group(1).upper(), "letter")
    rules: tuple[tuple[str, re.Pattern[str]], ...] = (
        ("boxed", re.compile(rf"\\boxed\{{\s*\(?({cls})\)?\s*\}}")),
        (
            "answer_phrase",
            re.compile(
                rf"(?:answer|option|choice)(?:\s+is)?\s*[:：]?\s*\**\(?({cls})\)?\**(?![A-Za-z])",
                re.IGNORECASE,
            ),
        ),
        ("leading_letter", re.compile(rf"^\**\(?([{letters}])\)?\**\s*[.:)\-]\s*\S")),
    )
    alternatives = {
        m.group(1)
        for m in re.finditer(rf"(?:\bor\b|\band\b|/)\s*\(?([{letters}])\)?(?![A-Za-z])", text)
    }
    for method, pattern in rules:
        found = {m.group(1).upper() for m in pattern.finditer(text)}
        if len(found) == 1 and not alternatives - found:
            return ParsedAnswer(found.pop(), method)
        if found:  # several letters, or "B or C"
            return ParsedAnswer(None, "ambiguous")
    by_text = _by_option_text(text, options)
    if by_text is not None:
        return ParsedAnswer(by_text, "option_text")
    standalone = set()
    for match in re.finditer(rf"(?<![A-Za-z])([{letters}])(?![A-Za-z'’])", text):
        after = re.match(r"\s+([a-z]+)", text[match.end() :])
        if match.group(1) == "A" and after and after.group(1) not in NOT_NOUNS:
            continue  # "A coronal slice": the article
        standalone.add(match.group(1))
    if len(standalone) == 1:
        return ParsedAnswer(standalone.pop(), "standalone_letter")
    return ParsedAnswer(None, "ambiguous" if standalone else "unparsed")


def _by_option_text(text: str, options: Mapping[str, str]) -> str | None:
    """The letter whose option text is the whole answer (after an optional lead-in)."""
    answer = re.sub(r"^(?:the\s+)?(?:correct\s+)?answer\s+is\s*[:：]?\s*", "", text, flags=re.I)
    answer = answer.strip().strip("*").strip().rstrip(".").strip().casefold()
    hits = [
        letter
        for letter, option in options.items()
        if option.strip().rstrip(".").casefold() == answer
    ]
    return hits[0] if len(hits) == 1 else None


def official_answer(response: str | None) -> str | None:
    """The public MedRCube evaluator's reading: the first ``\\b[A-D]\\b`` of the
    upper-cased response ("a coronal slice" → "A"), ``None`` without one."""
    match = re.search(r"\b[A-D]\b", (response or "").upper())
    return match.group(0) if match else None
