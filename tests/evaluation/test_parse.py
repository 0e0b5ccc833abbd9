"""Each parsing rule, with the right letter as the expected value."""

import pytest

from medrcube_desktop.evaluation.parse import official_answer, parse_answer, strip_reasoning

OPTIONS = {"A": "Axial", "B": "Coronal", "C": "Sagittal", "D": "Oblique"}


@pytest.mark.parametrize(
    ("response", "letter", "method"),
    [
        ("B", "B", "letter"),
        ("(B)", "B", "letter"),
        ("B.", "B", "letter"),
        ("b", "B", "letter"),
        ("**B**", "B", "letter"),
        ("  C \n", "C", "letter"),
        ("Answer: B", "B", "answer_phrase"),
        ("The answer is B", "B", "answer_phrase"),
        ("The answer is (D).", "D", "answer_phrase"),
        ("The correct option is **C**, because the slice is sagittal.", "C", "answer_phrase"),
        ("\\boxed{B}", "B", "boxed"),
        ("So the final result is $\\boxed{C}$", "C", "boxed"),
        ("B. Coronal", "B", "leading_letter"),
        ("C) sagittal plane", "C", "leading_letter"),
        ("(D) Oblique", "D", "leading_letter"),
        ("Coronal", "B", "option_text"),
        ("sagittal.", "C", "option_text"),
        ("The answer is Oblique", "D", "option_text"),
        ("This is a coronal slice, so B fits best.", "B", "standalone_letter"),
        ("<think>Could be A or C... the vessels say C.</think>C", "C", "letter"),
        ("<think>A is axial; but looking again</think>\nAnswer: B", "B", "answer_phrase"),
    ],
)
def test_each_rule_reads_the_right_letter(response, letter, method):
    parsed = parse_answer(response, OPTIONS)
    assert (parsed.letter, parsed.method) == (letter, method)


@pytest.mark.parametrize(
    ("response", "method"),
    [
        ("", "empty"),
        ("   ", "empty"),
        (None, "empty"),
        ("<think>still thinking about A and B", "empty"),
        ("A coronal slice of the brain.", "unparsed"),  # the article, not option A
        ("a sagittal or an axial view", "unparsed"),
        ("I cannot determine this from the image.", "unparsed"),
        ("Answer: B or C", "ambiguous"),
        ("Either A or C could be right.", "ambiguous"),
        ("I'm sorry, I can't help with medical images.", "unparsed"),
    ],
)
def test_no_letter_is_guessed(response, method):
    parsed = parse_answer(response, OPTIONS)
    assert (parsed.letter, parsed.method) == (None, method)


def test_letters_outside_the_items_options_are_not_chosen():
    two = {"A": "Yes", "B": "No"}
    assert parse_answer("D", two).letter is None
    assert parse_answer("No", two).letter == "B"


def test_strip_reasoning_handles_open_and_closed_blocks():
    assert strip_reasoning("<think>x</think> B") == "B"
    assert strip_reasoning("reasoning only</think>C") == "C"
    assert strip_reasoning("B <think>unfinished") == "B"


def test_the_public_evaluator_rule_for_comparison():
    assert official_answer("A coronal slice; the answer is B") == "A"  # its known fault
    assert official_answer("b") == "B"
    assert official_answer("") is None
