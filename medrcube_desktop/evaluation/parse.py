"""Reading the chosen option out of a model's answer, and saying how.

Ours is written here because no library does it right for this benchmark (the issue
lists the faults of the public evaluator and of other harnesses). The rules favour
"no answer" over a wrong letter. After removing reasoning blocks (``<think>…</think>``)
and folding full-width characters (NFKC), in order:

1. ``letter``: the answer is a bare letter: ``B``, ``(B)``, ``B.``, ``b``, ``**B**``.
2. ``boxed``: ``\\boxed{B}``, ``\\boxed{\\text{B}}``, ``\\boxed{B. Coronal}``.
3. ``json``: a JSON object such as ``{"answer": "B"}``.
4. ``answer_phrase``: "Answer: B", "**Answer:** C", "Answer - B", "The answer is (B)",
   "correct option is B", "I choose B", "Option B".
5. ``leading_letter``: the answer starts with a letter and a separator: "B. Coronal",
   "b) coronal", "(D) Oblique", "B, not C".
6. ``option_text``: the answer is exactly one option's text (case and a trailing period
   ignored), possibly after "The answer is".
7. ``option_text_in_answer``: exactly one option's text appears in the answer
   ("Findings consistent with hepatitis B." when an option is "Hepatitis B").
8. ``standalone_letter``: exactly one option letter stands alone in the text.

Everywhere, a letter does not count when it is the article ("A CT scan", "the answer is
a sagittal view"), part of a word or a number ("2D"), inside an option's text ("Grade
B"), or negated ("not A", "A is wrong", "B over A", "rather than C"). Several different
letters where a rule finds any make the answer ``ambiguous``; an empty answer is
``empty``; nothing found is ``unparsed``. :func:`official_answer` gives the public
MedRCube evaluator's reading, for comparison with published numbers.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass

NOT_NOUNS = {
    "or", "and", "nor", "is", "was", "are", "seems", "would", "could", "might", "may",
    "appears", "fits", "matches", "because", "since", "as", "then", "so", "but", "with",
}  # fmt: skip
"""Words after "A" that show it is a letter, not the article ("A or C", "A is right")."""

NEGATED_BEFORE = re.compile(
    r"(?:\bnot|n't|\bexcept|\bbut|\brather than|\binstead of|\bover|\bcannot be|"
    r"\bcan't be|\bexclude|\bexcluding|\brule out|\bruled out)\s+(?:options?\s+|choices?\s+)?"
    r"[\(\[\"'*]*\Z",
    re.IGNORECASE,
)
NEGATED_LIST = re.compile(
    r"(?:\bnot|n't|\bexcept|\bcannot be|\bcan't be|\brather than)\s+[\(\[]?[A-D][\)\]]?"
    r"(?:\s*(?:,|/|\bor\b|\bnor\b|\band\b)\s*[\(\[]?[A-D][\)\]]?)*\s*(?:,|/|\bor\b|\bnor\b|\band\b)"
    r"\s*[\(\[]?\Z",
    re.IGNORECASE,
)
NEGATED_AFTER = re.compile(
    r"^[\)\]\"'*]*(?:\s*(?:,|and|or)\s*[\(\[]?[A-D][\)\]]?)*\s+(?:is|are|was|were|seems|looks|"
    r"would be)\s+(?:both\s+|also\s+|clearly\s+|definitely\s+)?(?:wrong|incorrect|unlikely|"
    r"not|less likely|ruled out|excluded|false)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class ParsedAnswer:
    """``letter`` (``None`` when unparsed) and ``method`` (a rule name above, or
    ``empty``, ``ambiguous``, ``unparsed``)."""

    letter: str | None
    method: str


def strip_reasoning(text: str) -> str:
    """The answer without ``<think>…</think>`` blocks (an unclosed one runs to the end;
    a closing tag without an opening one ends the reasoning). One pass, linear time even
    on a degenerate output full of tags."""
    lower = text.lower()
    kept: list[str] = []
    position = 0
    while True:
        start = lower.find("<think>", position)
        if start < 0:
            kept.append(text[position:])
            break
        kept.append(text[position:start])
        end = lower.find("</think>", start)
        if end < 0:
            break  # unfinished reasoning: nothing after it is an answer
        position = end + len("</think>")
    answer = "".join(kept)
    close = answer.lower().rfind("</think>")
    if close >= 0:
        answer = answer[close + len("</think>") :]
    return answer.strip()


def _option_spans(text: str, options: Mapping[str, str]) -> list[tuple[int, int, str]]:
    """(start, end, letter) of every whole-word occurrence of an option's text."""
    spans = []
    for letter, option in options.items():
        phrase = option.strip().rstrip(".").strip()
        if len(phrase) < 2:
            continue
        pattern = rf"(?<![A-Za-z0-9]){re.escape(phrase)}(?![A-Za-z0-9])"
        spans += [(m.start(), m.end(), letter) for m in re.finditer(pattern, text, re.IGNORECASE)]
    return spans


class _Reader:
    """One response and the facts every rule shares."""

    def __init__(self, text: str, options: Mapping[str, str]) -> None:
        self.text = text
        self.options = options
        self.letters = "".join(sorted(options))
        self.spans = _option_spans(text, options)

    def counts(self, start: int, end: int, letter: str) -> bool:
        """Whether a letter at text[start:end] is a choice (not an article, not a word
        or number part, not inside an option's text, not negated)."""
        text = self.text
        if letter.upper() not in self.letters:
            return False
        if any(s <= start and end <= e for s, e, _ in self.spans):
            return False
        before, after = text[:start], text[end:]
        if re.search(r"[A-Za-z0-9]\Z", before) or re.match(r"[A-Za-z0-9]", after):
            return False
        if letter in "Aa":
            word = re.match(r"\s+([A-Za-z][\w-]*)", after)
            if word and word.group(1).lower() not in NOT_NOUNS:
                return False  # the article: "A CT scan", "is a sagittal view"
        if letter.islower() and letter != "a" and re.match(r"\s+[a-z]", after):
            return False  # "b with" etc. inside prose
        negation = NEGATED_BEFORE.search(before[-40:])
        if (
            negation
            and negation.group(0).lower().startswith("but")
            and re.search(
                r"\bnot\s+[\(\[]?[A-D][\)\]]?\s*,?\s*but\s*[\(\[\"'*]*\Z", before[-40:], re.I
            )
        ):
            negation = None  # "not A but B": B is the choice
        if negation or NEGATED_LIST.search(before[-60:]):
            return False
        return not NEGATED_AFTER.match(after[:80])

    def letters_in(self, pattern: re.Pattern[str]) -> set[str]:
        """Distinct counted letters captured by group 1 of ``pattern``."""
        found = set()
        for match in pattern.finditer(self.text):
            if self.counts(match.start(1), match.end(1), match.group(1)):
                found.add(match.group(1).upper())
        return found

    def standalone(self) -> set[str]:
        letters = self.letters + self.letters.lower()
        return self.letters_in(re.compile(rf"([{letters}])"))


def _decide(found: set[str], method: str) -> ParsedAnswer | None:
    if len(found) == 1:
        return ParsedAnswer(found.pop(), method)
    if len(found) > 1:
        return ParsedAnswer(None, "ambiguous")
    return None


def parse_answer(response: str | None, options: Mapping[str, str]) -> ParsedAnswer:
    """The option letter a response chooses among ``options`` (letter → text)."""
    letters = "".join(sorted(options))
    if not letters:
        return ParsedAnswer(None, "unparsed")
    text = unicodedata.normalize("NFKC", strip_reasoning(response or "")).strip()
    if not text:
        return ParsedAnswer(None, "empty")
    cls = f"[{letters}{letters.lower()}]"
    bare = re.fullmatch(rf"[*\s]*[\(\[]?\s*({cls})\s*[\)\]]?[.:)]?[*\s]*", text)
    if bare:
        return ParsedAnswer(bare.group(1).upper(), "letter")
    reader = _Reader(text, options)
    boxed = re.compile(rf"\\boxed\{{\s*(?:\\(?:text|mathrm|textbf)\{{)?\s*\(?({cls})\b")
    decided = _decide(reader.letters_in(boxed), "boxed")
    if decided:
        return decided
    json_letter = _json_answer(text, letters)
    if json_letter is not None:
        return ParsedAnswer(json_letter, "json")
    for words in (r"answer|choose|chose|pick|select|go with", r"option|choice"):  # strong first
        phrase = re.compile(
            rf"(?:{words})\**\s*"
            r"(?:is|would be|will be|:|：|-|—|=)?\s*(?:\**\s*)?(?:option\s+|choice\s+)?"
            rf"[\(\[\"'*]*\s*({cls})(?![A-Za-z0-9])",
            re.IGNORECASE,
        )
        found = reader.letters_in(phrase)
        if len(found) == 1 and _offers_alternative(text, phrase, reader):
            return ParsedAnswer(None, "ambiguous")  # "Answer: B or C"
        decided = _decide(found, "answer_phrase")
        if decided:
            return decided
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) > 1:  # the answer first, then an explanation naming other options
        first = parse_answer(lines[0], options)
        if first.letter is not None and first.method in (
            "letter",
            "leading_letter",
            "answer_phrase",
        ):
            return ParsedAnswer(first.letter, "first_line")
    leading = re.match(rf"[*\s]*[\(\[]?({cls})[\)\]]?\**\s*(?:[.:)\-,–—]|\s-)", text)
    if leading and reader.counts(leading.start(1), leading.end(1), leading.group(1)):
        others = reader.standalone() - {leading.group(1).upper()}
        return (
            ParsedAnswer(leading.group(1).upper(), "leading_letter")
            if not others
            else (ParsedAnswer(None, "ambiguous"))
        )
    exact = _by_option_text(text, options)
    if exact is not None:
        return ParsedAnswer(exact, "option_text")
    standalone = reader.standalone()
    named = {letter for _, _, letter in reader.spans}
    if len(named) == 1 and standalone <= named:
        return ParsedAnswer(named.pop(), "option_text_in_answer")
    decided = _decide(standalone, "standalone_letter")
    return decided or ParsedAnswer(None, "unparsed")


def _offers_alternative(text: str, phrase: re.Pattern[str], reader: _Reader) -> bool:
    """Whether the phrase's letter is followed by "or C", "/C", "and C" (another choice)."""
    for match in phrase.finditer(text):
        after = text[match.end(1) :]
        other = re.match(
            r"[\)\]\"'*]*\s*(?:or|/|and|and/or|,)\s*(?:maybe\s+)?[\(\[]?([A-Da-d])(?![A-Za-z0-9])",
            after,
            re.I,
        )
        if other and other.group(1).upper() != match.group(1).upper():
            start = match.end(1) + other.start(1)
            if reader.counts(start, start + 1, other.group(1)):
                return True
    return False


def _json_answer(text: str, letters: str) -> str | None:
    body = re.sub(r"^```(?:json)?\s*|\s*```$", "", text.strip())
    if not body.startswith("{"):
        return None
    try:
        value = json.loads(body)
    except (ValueError, RecursionError):
        return None
    if not isinstance(value, dict):
        return None
    for key in ("answer", "option", "choice", "final_answer"):
        found = value.get(key)
        if isinstance(found, str) and re.fullmatch(rf"\(?[{letters}]\)?\.?", found.strip(), re.I):
            return found.strip().strip("().").upper()
    return None


def _by_option_text(text: str, options: Mapping[str, str]) -> str | None:
    """The letter whose option text is the whole answer (after an optional lead-in)."""
    answer = re.sub(r"^(?:the\s+)?(?:correct\s+)?answer\s+is\s*[:：]?\s*", "", text, flags=re.I)
    answer = answer.strip().strip("*").strip().rstrip(".!").strip().casefold()
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
