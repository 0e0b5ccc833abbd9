"""Where an option's text stands in an answer (issue 26, ``python -m tests.mutation.run
--modules evaluation.parse``): the ASCII fast path (``str.find``) and the regex path for
other text must both find every whole-word occurrence, left to right. Expected spans are
counted by hand; the readings follow rule 7 (``option_text_in_answer``) and rule 8
(``standalone_letter``) of the module docstring."""

import re

import pytest

from medrcube_desktop.evaluation.parse import _ascii_word_spans, parse_answer

VIEWS = {"A": "Axial", "B": "Coronal", "C": "Sagittal", "D": "Oblique"}


def _read(text, options=VIEWS):
    parsed = parse_answer(text, options)
    return parsed.letter, parsed.method


def _reference(text, phrase):
    """Whole-word occurrences as an independent regex finds them (ASCII letters and
    digits are word characters here)."""
    pattern = rf"(?<![A-Za-z0-9]){re.escape(phrase)}(?![A-Za-z0-9])"
    return [(m.start(), m.end()) for m in re.finditer(pattern, text)]


@pytest.mark.parametrize(
    "text, phrase, spans",
    [
        # at the very start, the text going on with a letter (mutants 11, 12: start == 0)
        ("coronal view", "coronal", [(0, 7)]),
        # touched on the left only, then a whole word (9: either side enough; 26, 27, 29: the
        # search after a rejected occurrence; 31: rfind skips the middle one)
        ("xcoronal coronal coronal", "coronal", [(9, 16), (17, 24)]),
        # touched on the right only
        ("coronals coronal", "coronal", [(9, 16)]),
        # three whole occurrences (4: rfind first; 25: rfind after an accepted one)
        ("coronal, coronal, coronal", "coronal", [(0, 7), (9, 16), (18, 25)]),
        # an occurrence one character after a rejected one (33: the search from start + 2)
        ("x--- --", "--", [(2, 4), (5, 7)]),
        ("", "coronal", []),
        ("coronal", "coronal", [(0, 7)]),
    ],
)
def test_ascii_spans_are_every_whole_word_occurrence_left_to_right(text, phrase, spans):
    assert _ascii_word_spans(text, phrase) == spans
    assert _reference(text, phrase) == spans  # the hand count, checked by a regex


def test_an_earlier_occurrence_of_an_option_text_hides_its_letter():
    # both "Grade B" are option A's text, so neither B is a letter: rule 7 gives A.
    # Finding only the last occurrence would leave the first B standalone (rule 8: B).
    grades = {"A": "Grade B", "B": "Grade C", "C": "Normal", "D": "Grade D"}
    assert _read("Grade B, likely grade B.", grades) == ("A", "option_text_in_answer")


@pytest.mark.parametrize(
    "text",
    [
        "Le résultat : Coronal, vue nette",  # "é": not ASCII, the regex path
        "Coupe coronale ou Coronal ?",  # "coronale" is no whole word; "Coronal" is
        "Findings: coronal — sagittal plane excluded",  # an em dash
    ],
)
def test_an_option_text_in_an_answer_that_is_not_ascii_is_found(text):
    # mutants of _option_spans 15 (the ASCII path for any ASCII option: the folded text is
    # empty), 23 (each option's spans replacing the last ones), 24, 25, 26 (regex path)
    letter = "B" if "sagittal" not in text else None
    found = parse_answer(text, VIEWS)
    if letter:
        assert (found.letter, found.method) == ("B", "option_text_in_answer")
    else:
        assert (found.letter, found.method) == (None, "unparsed")  # two options named


def test_a_letter_inside_an_option_text_in_non_ascii_prose_is_not_a_choice():
    # "Grade B" is option A's text; "é" sends it to the regex path. The B inside it is no
    # letter, so rule 7 gives A; without the span the B would stand alone (rule 8: B).
    grades = {"A": "Grade B", "B": "Grade C", "C": "Normal", "D": "Grade D"}
    assert _read("Résultat : grade B.", grades) == ("A", "option_text_in_answer")


@pytest.mark.parametrize("text", ["AB", "BC", "ab", "CD"])
def test_two_letters_run_together_are_no_bare_letter(text):
    # parse_answer 19 (the fast path for a two-character answer): "AB" is a substring of
    # the letters "ABCD" but no letter; each letter touches another, so none stands alone
    assert _read(text) == (None, "unparsed")
