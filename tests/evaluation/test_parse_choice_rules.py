"""The answer parser's choice rules that no other test pinned (issue 26): each test
below fails when one line of ``evaluation.parse`` is changed (the mutant is named)."""

from hypothesis import given, settings
from hypothesis import strategies as st

from medrcube_desktop.evaluation.parse import parse_answer

VIEWS = {"A": "Axial", "B": "Coronal", "C": "Sagittal", "D": "Oblique"}


def _read(text, options=VIEWS):
    parsed = parse_answer(text, options)
    return parsed.letter, parsed.method


def test_an_answer_phrase_on_the_first_line_decides_when_the_next_line_hides_it():
    # mutant: "answer_phrase" left out of the first-line rule's methods. Read whole,
    # "A\nCoronal" looks like the article before a word; the first line alone is clear.
    text = "Answer: A\nCoronal and axial planes differ; here the kidneys are side by side."
    assert _read(text) == ("A", "first_line")


def test_an_option_named_in_the_text_does_not_outvote_a_letter_standing_alone():
    # mutant: option_text_in_answer without "every standalone letter is that option's"
    text = "I pick the third one, C; an axial slice would show the spine in cross-section."
    assert _read(text) == ("C", "standalone_letter")


def test_an_answer_equal_to_two_options_texts_is_no_choice():
    # mutant: the first of several options with the answer's text taken
    options = {"A": "Normal", "B": "normal.", "C": "Mild", "D": "Severe"}
    assert _read("Normal", options) == (None, "unparsed")


def test_a_leading_letter_with_another_letter_offered_later_is_ambiguous():
    # mutant: the leading letter taken whatever other letters the answer offers
    assert _read("B, or possibly C if the slice is tilted") == (None, "ambiguous")
    assert _read("B, because the spine runs top to bottom") == ("B", "leading_letter")


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from("ABCD"),
    st.sampled_from(["Answer: {}", "The answer is ({})", "{}.", "**{}**", "\\boxed{{{}}}"]),
    st.permutations(list(VIEWS.values())),
)
def test_a_plainly_given_letter_is_read_whatever_the_options_texts(letter, form, texts):
    options = dict(zip("ABCD", texts, strict=True))
    assert parse_answer(form.format(letter), options).letter == letter
