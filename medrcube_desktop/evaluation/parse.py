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

import bisect
import functools
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


MAX_ANSWER_CHARS = 100_000
"""Longest model answer kept (characters), as the judge keeps its raw text
(``llm.judge.MAX_RAW_CHARS``): a runaway answer is cut, with a note (:func:`cap_answer`)."""


def cap_answer(text: str) -> str:
    """``text``, or its first :data:`MAX_ANSWER_CHARS` characters and a last line saying
    it was cut and how long it was (a line no rule reads as a choice)."""
    if len(text) <= MAX_ANSWER_CHARS:
        return text
    return (
        text[:MAX_ANSWER_CHARS]
        + f"\n[cut by MedRCube: the answer ran to {len(text):,} characters, the first "
        f"{MAX_ANSWER_CHARS:,} are kept]"
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
    """(start, end, letter) of every whole-word occurrence of an option's text (case
    ignored, as ``re.IGNORECASE`` ignores it)."""
    spans = []
    ascii_text = text.isascii()
    folded = text.lower() if ascii_text else ""
    for letter, option in options.items():
        phrase = option.strip().rstrip(".").strip()
        if len(phrase) < 2:
            continue
        if ascii_text and phrase.isascii():
            spans += [(s, e, letter) for s, e in _ascii_word_spans(folded, phrase.lower())]
        else:
            spans += [(m.start(), m.end(), letter) for m in _phrase_pattern(phrase).finditer(text)]
    return spans


def _ascii_word_spans(text: str, phrase: str) -> list[tuple[int, int]]:
    """What ``finditer`` of :func:`_phrase_pattern` finds when ``text`` and ``phrase``
    are ASCII and lower-cased (so ``re.IGNORECASE`` is ``==``; no other character can
    fold onto an ASCII one in ASCII text): the non-overlapping occurrences, left to
    right, that no ASCII letter or digit touches; with ``str.find``, no regex compiled
    per option text (a benchmark's option texts are all different, and compiling them
    was most of an import's time)."""
    found = []
    start = text.find(phrase)
    while start >= 0:
        end = start + len(phrase)
        if (start == 0 or text[start - 1] not in _ASCII_ALNUM) and (
            end == len(text) or text[end] not in _ASCII_ALNUM
        ):
            found.append((start, end))
            start = text.find(phrase, end)
        else:
            start = text.find(phrase, start + 1)
    return found


@functools.lru_cache(maxsize=4096)
def _phrase_pattern(phrase: str) -> re.Pattern[str]:
    """An option text as a whole-word, case-ignoring pattern (text that is not ASCII)."""
    return re.compile(rf"(?<![A-Za-z0-9]){re.escape(phrase)}(?![A-Za-z0-9])", re.IGNORECASE)


_ASCII_ALNUM = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
_WORD_AFTER = re.compile(r"\s+([A-Za-z][\w-]*)")
_LOWER_WORD_AFTER = re.compile(r"\s+[a-z]")
_NOT_BUT = re.compile(r"\bnot\s+[\(\[]?[A-D][\)\]]?\s*,?\s*but\s*[\(\[\"'*]*\Z", re.I)


class _Reader:
    """One response and the facts every rule shares.

    Every check of a letter looks at a bounded window around it (at most 60 characters
    before, 80 after, or the word that follows), never at the whole text, and finds the
    option texts covering it by bisection: reading a response takes time linear in its
    length (a 128,000-character answer once took a minute).
    """

    def __init__(self, text: str, options: Mapping[str, str]) -> None:
        self.text = text
        self.options = options
        self.letters = "".join(sorted(options))
        self.spans = _option_spans(text, options)
        ordered = sorted((s, e) for s, e, _ in self.spans)
        self._span_starts = [s for s, _ in ordered]
        self._reach: list[int] = []  # the furthest end of the spans starting up to here
        for _, e in ordered:
            self._reach.append(max(e, self._reach[-1]) if self._reach else e)

    def _inside_option(self, start: int, end: int) -> bool:
        """Whether text[start:end] lies inside one option's text (a span s <= start,
        end <= e): the spans starting at or before ``start`` reach ``end``."""
        k = bisect.bisect_right(self._span_starts, start)
        return k > 0 and self._reach[k - 1] >= end

    def counts(self, start: int, end: int, letter: str) -> bool:
        """Whether a letter at text[start:end] is a choice (not an article, not a word
        or number part, not inside an option's text, not negated)."""
        text = self.text
        if letter.upper() not in self.letters:
            return False
        if self._inside_option(start, end):
            return False
        if (start > 0 and text[start - 1] in _ASCII_ALNUM) or text[end : end + 1] in _ASCII_ALNUM:
            return False
        if letter in "Aa":
            word = _WORD_AFTER.match(text, end)
            if word and word.group(1).lower() not in NOT_NOUNS:
                return False  # the article: "A CT scan", "is a sagittal view"
        if letter.islower() and letter != "a" and _LOWER_WORD_AFTER.match(text, end):
            return False  # "b with" etc. inside prose
        before40 = text[max(0, start - 40) : start]
        negation = NEGATED_BEFORE.search(before40)
        if negation and negation.group(0).lower().startswith("but") and _NOT_BUT.search(before40):
            negation = None  # "not A but B": B is the choice
        if negation or NEGATED_LIST.search(text[max(0, start - 60) : start]):
            return False
        return not NEGATED_AFTER.match(text[end : end + 80])

    def letters_in(self, pattern: re.Pattern[str]) -> set[str]:
        """Distinct counted letters captured by group 1 of ``pattern``."""
        found = set()
        for match in pattern.finditer(self.text):
            if self.counts(match.start(1), match.end(1), match.group(1)):
                found.add(match.group(1).upper())
        return found

    def standalone(self) -> set[str]:
        return self.letters_in(_patterns(self.letters).standalone)


def _decide(found: set[str], method: str) -> ParsedAnswer | None:
    if len(found) == 1:
        return ParsedAnswer(found.pop(), method)
    if len(found) > 1:
        return ParsedAnswer(None, "ambiguous")
    return None


@dataclass(frozen=True)
class _Patterns:
    """The rules' patterns for one set of option letters, compiled once (a pattern made
    per answer was compiled again whenever ``re``'s cache had dropped it)."""

    bare: re.Pattern[str]
    boxed: re.Pattern[str]
    phrases: tuple[re.Pattern[str], re.Pattern[str]]
    leading: re.Pattern[str]
    standalone: re.Pattern[str]


@functools.lru_cache(maxsize=64)
def _patterns(letters: str) -> _Patterns:
    cls = f"[{letters}{letters.lower()}]"
    phrases = tuple(
        re.compile(
            rf"(?:{words})\**+\s*+"
            r"(?:is|would be|will be|:|：|-|—|=)?\s*+(?:\**+\s*+)?(?:option\s+|choice\s+)?"
            rf"[\(\[\"'*]*+\s*+({cls})(?![A-Za-z0-9])",
            re.IGNORECASE,
        )
        for words in (r"answer|choose|chose|pick|select|go with", r"option|choice")  # strong first
    )
    return _Patterns(
        # possessive runs (*+): a run of blanks or stars is never rescanned, so a long
        # answer costs linear time; each run is followed by what it cannot match
        bare=re.compile(rf"[*\s]*+[\(\[]?\s*+({cls})\s*+[\)\]]?[.:)]?[*\s]*+"),
        boxed=re.compile(rf"\\boxed\{{\s*+(?:\\(?:text|mathrm|textbf)\{{)?\s*+\(?({cls})\b"),
        phrases=phrases,  # type: ignore[arg-type]
        leading=re.compile(rf"[*\s]*[\(\[]?({cls})[\)\]]?\**\s*(?:[.:)\-,–—]|\s-)"),
        standalone=re.compile(rf"([{letters}{letters.lower()}])"),
    )


def _answer_text(response: str) -> str:
    """The answer without reasoning blocks, NFKC-folded and stripped. ASCII without a
    ``<`` (most answers) holds no tag and folds to itself: only stripped."""
    if response.isascii() and "<" not in response:
        return response.strip()
    return unicodedata.normalize("NFKC", strip_reasoning(response)).strip()


def parse_answer(response: str | None, options: Mapping[str, str]) -> ParsedAnswer:
    """The option letter a response chooses among ``options`` (letter → text)."""
    letters = "".join(sorted(options))
    if not letters:
        return ParsedAnswer(None, "unparsed")
    if response is not None and len(response) <= 8:  # the fast path: a bare letter
        bare_letter = response.strip()
        if len(bare_letter) == 1 and bare_letter.upper() in letters and bare_letter.isascii():
            return ParsedAnswer(bare_letter.upper(), "letter")
    text = _answer_text(response or "")
    if not text:
        return ParsedAnswer(None, "empty")
    patterns = _patterns(letters)
    bare = patterns.bare.fullmatch(text)
    if bare:
        return ParsedAnswer(bare.group(1).upper(), "letter")
    reader = _Reader(text, options)
    decided = _decide(reader.letters_in(patterns.boxed), "boxed")
    if decided:
        return decided
    json_letter = _json_answer(text, letters)
    if json_letter is not None:
        return ParsedAnswer(json_letter, "json")
    for phrase in patterns.phrases:
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
    leading = patterns.leading.match(text)
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
        other = _ALTERNATIVE.match(text, match.end(1))  # at the letter's end, not a copy
        if other and other.group(1).upper() != match.group(1).upper():
            start = other.start(1)
            if reader.counts(start, start + 1, other.group(1)):
                return True
    return False


_ALTERNATIVE = re.compile(
    r"[\)\]\"'*]*+\s*+(?:or|/|and|and/or|,)\s*+(?:maybe\s+)?[\(\[]?([A-Da-d])(?![A-Za-z0-9])",
    re.I,
)


def _json_answer(text: str, letters: str) -> str | None:
    body = _without_fence(text.strip())
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


def _without_fence(text: str) -> str:
    """``text`` without a leading ```` ``` ```` / ```` ```json ```` and a trailing
    ```` ``` ```` fence (and the blanks beside them); string operations, not a regex that
    would rescan every run of blanks."""
    if text.startswith("```"):
        text = text[3:]
        if text.startswith("json"):
            text = text[4:]
        text = text.lstrip()
    if text.endswith("```"):
        text = text[:-3].rstrip()
    return text


_LEAD_IN = re.compile(r"^(?:the\s+)?(?:correct\s+)?answer\s+is\s*[:：]?\s*", re.I)
_OFFICIAL = re.compile(r"\b[A-D]\b")


def _by_option_text(text: str, options: Mapping[str, str]) -> str | None:
    """The letter whose option text is the whole answer (after an optional lead-in)."""
    answer = _LEAD_IN.sub("", text)
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
    match = _OFFICIAL.search((response or "").upper())
    return match.group(0) if match else None
