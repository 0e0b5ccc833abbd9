"""The answer parser's rules that survived mutation (issue 26, tests/mutation/run.py
``evaluation.parse``): each test names the mutants it kills (mutmut's names, less the
module prefix). Expected readings follow the rules of the module docstring, worked out
by hand for each answer."""

import pytest

from medrcube_desktop.evaluation.parse import official_answer, parse_answer, strip_reasoning

VIEWS = {"A": "Axial", "B": "Coronal", "C": "Sagittal", "D": "Oblique"}


def _read(text, options=VIEWS):
    parsed = parse_answer(text, options)
    return parsed.letter, parsed.method


@pytest.mark.parametrize(
    "text, letter",
    [
        ('{"answer": "B"}', "B"),  # _json_answer 3, 5, 6, 8, 9; parse_answer 58, 60, 65, 68, 69
        ('{"option": "c"}', "C"),  # 11, 12 (the key), 25 (a lower-case letter: re.I), 19
        ('{"choice": "(D)"}', "D"),  # 13, 14; 27 (the brackets stripped)
        ('{"final_answer": "A."}', "A"),  # 15, 16
        ('{"reasoning": "coronal", "answer": "B"}', "B"),  # 17, 18 (found from its key)
        ('```json\n{"answer": "B"}\n```', "B"),  # _without_fence 2, 3, 4, 10, 11, 13, 14
        ('```json{"answer": "B"}```', "B"),  # 9 ([5:] cuts the brace), 17 ([:-4])
        ('```\n{"answer": "B"}\n```', "B"),  # 5 (startswith(None)), 16 ([:+3])
        ('```JSON\n{"answer": "B"}```', None),  # 6, 7: only "json" is a tag (JSON stays)
    ],
)
def test_a_json_answer_is_read_by_its_key(text, letter):
    if letter is None:
        # "JSON\n{...}" is no JSON object: the rules below read the standalone letter
        assert _read(text) == ("B", "standalone_letter")
    else:
        assert _read(text) == (letter, "json")


def test_a_json_value_that_is_no_object_or_no_letter_is_not_the_json_rule():
    assert _read('["B"]')[1] != "json"  # _json_answer 8: a list is no answer object
    assert _read('{"answer": "Coronal"}')[1] != "json"  # a text, not a letter


def test_an_answer_that_is_an_option_text_in_stars_is_that_option():
    # _by_option_text 16: the stars stripped (strip(None) keeps them: the text rule misses)
    assert _read("**Coronal**") == ("B", "option_text")


def test_an_option_text_that_begins_or_ends_with_x_is_matched_whole():
    # _by_option_text 17, 18, 22: "X" stripped with the stars or the period would leave
    # "-ray" / "Factor " and the whole-answer rule would miss
    modality = {"A": "MRI", "B": "CT", "C": "X-ray", "D": "Ultrasound"}
    assert _read("X-ray", modality) == ("C", "option_text")
    factors = {"A": "Factor V", "B": "Factor X", "C": "Factor VIII", "D": "Fibrinogen"}
    assert _read("Factor X", factors) == ("B", "option_text")
    assert _read("The answer is: Factor X.", factors) == ("B", "option_text")


def test_an_option_text_inside_another_is_not_matched_on_its_prefix():
    # _option_spans 5: "Factor X" cut to "Factor" would also match inside "Factor V"
    factors = {"A": "Factor V", "B": "Factor X", "C": "Factor VIII", "D": "Fibrinogen"}
    assert _read("Findings fit a Factor V deficiency", factors) == ("A", "option_text_in_answer")


def test_a_one_character_option_does_not_stop_the_search_for_the_others():
    # _option_spans 8: break instead of continue at the short option
    options = {"A": "1", "B": "Coronal", "C": "Sagittal", "D": "Oblique"}
    assert _read("Coronal, clearly.", options) == ("B", "option_text_in_answer")


def test_an_alternative_equal_to_the_letter_is_no_alternative():
    # _offers_alternative 10, 14: "B or b" compared in one case
    assert _read("The answer is B or b") == ("B", "answer_phrase")


def test_an_alternative_that_is_negated_is_no_alternative():
    # _offers_alternative 26: the alternative's end at start - 1 reads " C is wrong",
    # which no negation matches ("B or C is wrong" negates both: no answer at all)
    assert _read("Answer: B or maybe C is wrong") == ("B", "answer_phrase")
    assert _read("Answer: B or C is wrong") == (None, "unparsed")


def test_an_alternative_followed_by_a_slash_and_a_letter_still_counts():
    # _offers_alternative 27: the alternative's end at start + 2 sees "D" after "/"
    assert _read("Answer: B or C/D") == (None, "ambiguous")


def test_an_alternative_outside_the_options_is_no_alternative():
    # _Reader.counts 4: a letter no option has is never a choice
    three = {"A": "Axial", "B": "Coronal", "C": "Sagittal"}
    assert _read("Answer: B or D", three) == ("B", "answer_phrase")


def test_no_options_reads_nothing():
    # parse_answer 6-10: no options: unparsed, whatever the response
    assert parse_answer("B", {}) == parse_answer("B", {}).__class__(None, "unparsed")
    assert _read("B", {}) == (None, "unparsed")


def test_a_letter_no_option_has_is_not_read():
    # parse_answer 3 and _Reader.__init__ 5: "XXXX".join(letters) makes X a letter
    assert _read("X") == (None, "unparsed")
    assert _read("C, X marks the spot") == ("C", "leading_letter")


def test_the_first_line_rule_takes_only_a_letter_an_answer_phrase_or_a_leading_letter():
    # parse_answer 113: "and" made "or": a first line read by option text would decide
    assert _read("Coronal\nThe kidneys sit side by side, as in B.") == (
        "B",
        "option_text_in_answer",
    )
    # parse_answer 118, 119: "leading_letter" misspelt: the whole answer is ambiguous
    assert _read("B. Coronal\nA and C are planes that would not show this.") == ("B", "first_line")


def test_reasoning_blocks_are_removed_each_up_to_its_own_closing_tag():
    # strip_reasoning 25: rfind of the closing tag would drop "B" between two blocks
    assert strip_reasoning("<think>x</think>B<think>y</think>C") == "BC"
    # 38: of several stray closing tags the last ends the reasoning
    assert strip_reasoning("a</think>b</think>C") == "C"
    # 42, 43: a closing tag at the very start
    assert strip_reasoning("</think>B") == "B"


def test_a_letter_inside_a_long_option_that_holds_a_shorter_one_is_not_counted():
    # _Reader.__init__ 17: the reach of the spans must be the running maximum
    options = {
        "A": "chronic liver disease, stage C",
        "B": "liver disease",
        "C": "Normal",
        "D": "Fibrosis",
    }
    assert _read("Consistent with chronic liver disease, stage C", options) == (None, "unparsed")


def test_a_letter_inside_the_second_option_text_named_is_not_counted():
    # _Reader._inside_option 10: reach[k - 2] looks at the option named before it
    options = {"A": "Normal", "B": "Grade C lesion", "C": "Cyst", "D": "Abscess"}
    assert _read("Not normal; a Grade C lesion.", options) == (None, "unparsed")


def test_a_letter_after_a_digit_at_the_start_is_part_of_a_word():
    # _Reader.counts 13: "3D" with the digit at index 0
    assert _read("3D reconstruction shows it") == (None, "unparsed")


def test_a_lower_case_a_before_or_is_a_letter():
    # _Reader.counts 39, 40: the lower-case word check is not for "a" (the article
    # check before it already decided)
    assert _read("Answer: a or b") == (None, "ambiguous")


def test_a_negated_list_at_the_very_start_is_negated():
    # _Reader.counts 72, 73: the window for "not A or C" begins at index 0
    assert _read("Not A or C, so B.") == ("B", "standalone_letter")


def test_a_lower_case_letter_standing_alone_is_read():
    # _Reader.standalone 3: the lower-case letters searched as well
    assert _read("I'd say c, given the spine") == ("C", "standalone_letter")


def test_the_public_evaluator_reads_no_letter_from_no_answer():
    assert official_answer(None) is None
    assert official_answer("") is None


def test_the_negation_windows_are_40_60_and_80_characters_wide():
    # _Reader.counts 53, 74, 79: a negation just outside its window does not count ...
    assert _read("not" + " " * 38 + "C") == ("C", "standalone_letter")  # 41 before
    assert _read("not A or" + " " * 53 + "C") == ("C", "standalone_letter")  # 61 before
    assert _read("C is" + " " * 73 + "wrong") == ("C", "standalone_letter")  # 81 after
    # ... and just inside it does
    assert _read("not" + " " * 37 + "C") == (None, "unparsed")
    assert _read("not A or" + " " * 52 + "C") == (None, "unparsed")
    assert _read("C is" + " " * 72 + "wrong") == (None, "unparsed")
