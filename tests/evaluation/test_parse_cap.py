"""A runaway answer cut to its first 100,000 characters with a note (issue 26,
``python -m tests.mutation.run --modules evaluation.parse``: ``cap_answer`` had no test
among the parser's own). The figures are written out here, not read from the module."""

from medrcube_desktop.evaluation.parse import cap_answer, parse_answer


def test_an_answer_of_at_most_100000_characters_is_kept_whole():
    assert cap_answer("") == ""
    assert cap_answer("B") == "B"
    exact = "ab" * 50_000  # 100,000 characters: kept
    assert cap_answer(exact) is exact


def test_a_longer_answer_keeps_its_first_100000_characters_and_says_so():
    long = "".join(chr(ord("a") + k % 26) for k in range(100_001))  # one too many
    cut = cap_answer(long)
    assert cut[:100_000] == long[:100_000]
    assert cut[100_000:] == (
        "\n[cut by MedRCube: the answer ran to 100,001 characters, the first 100,000 are kept]"
    )
    huge = "x" * 250_000
    assert cap_answer(huge) == "x" * 100_000 + (
        "\n[cut by MedRCube: the answer ran to 250,000 characters, the first 100,000 are kept]"
    )
    assert parse_answer(cap_answer(huge)[100_000:], {"A": "Axial", "B": "Coronal"}).letter is None
