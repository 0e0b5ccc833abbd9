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
        ("This is a coronal slice, so B fits best.", "B", "option_text_in_answer"),
        ("I'd say B.", "B", "standalone_letter"),
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
        ("a sagittal or an axial view", "unparsed"),  # two options named, no letter
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


MODALITIES = {"A": "MRI", "B": "CT", "C": "X-ray", "D": "Ultrasound"}
GRADES = {"A": "Type A", "B": "Type B", "C": "Grade B", "D": "None of the above"}


@pytest.mark.parametrize(
    ("response", "options", "letter"),
    [
        # the article "A"/"a" is never option A (the public rule's fault)
        ("A coronal slice of the brain.", OPTIONS, "B"),
        ("A CT scan.", MODALITIES, "B"),
        ("A X-ray", MODALITIES, "C"),
        ("The answer is a sagittal view.", OPTIONS, "C"),
        ("Answer: a sagittal section", OPTIONS, "C"),
        ("The best choice a radiologist would make here is B.", OPTIONS, "B"),
        # letters inside words, numbers and option texts
        ("This 2D slice is coronal.", OPTIONS, "B"),
        ("It is Grade B", GRADES, "C"),
        ("Findings consistent with hepatitis B.", {"A": "Hepatitis B", "B": "Cirrhosis"}, "A"),
        # negation
        ("Option A is incorrect, the answer is B", OPTIONS, "B"),
        ("(A) and (B) are both wrong, so C", OPTIONS, "C"),
        ("B, not C", OPTIONS, "B"),
        ("Not A but B", OPTIONS, "B"),
        ("I would choose B over A", OPTIONS, "B"),
        # an answer, then an explanation naming other options
        ("B\n\nThe image shows the coronal plane; A and C would look different.", OPTIONS, "B"),
        ("**B**\n\nA would show both hemispheres.", OPTIONS, "B"),
        ("Option A shows the hemispheres; option C the midline.\n\n**Answer:** B", OPTIONS, "B"),
        ("### Answer\nB", OPTIONS, "B"),
        ("Answer - C", OPTIONS, "C"),
        ('{"answer": "B"}', OPTIONS, "B"),
        ("\\boxed{\\text{B}}", OPTIONS, "B"),
        ("Ｂ", OPTIONS, "B"),  # full width
        ("b) coronal", OPTIONS, "B"),
    ],
)
def test_human_graders_read_these_the_same_way(response, options, letter):
    assert parse_answer(response, options).letter == letter


@pytest.mark.parametrize(
    "response",
    ["Not A", "The answer is not A.", "Answer: Not B", "A is wrong", "Anything but A",
     "Answer: B or C", "answer is (A) or (B)", "The answer is B and C"],
)  # fmt: skip
def test_negated_or_several_letters_give_no_letter(response):
    assert parse_answer(response, OPTIONS).letter is None


def test_degenerate_reasoning_blocks():
    assert parse_answer("<think>" * 5000 + "B", OPTIONS).method == "empty"  # never closed
    assert parse_answer("<think>a</think>" * 5000 + "B", OPTIONS).letter == "B"
