"""import-run's fast path (issue 25 item 1: patterns compiled once per letter set, option
texts found with ``str.find`` in ASCII answers, a bare letter read without the rules, one
``executemany`` per file) stores what the old path stored: the old parser and sqlite-utils'
``insert_all`` are kept here as they were, and both paths import the same public-format
files (the public evaluator's records: the item, its absolute ``image_path``,
``model_response`` and ``correct``)."""

import json
import re
import sqlite3
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.evaluation import parse, results_json
from medrcube_desktop.evaluation.parse import (
    ParsedAnswer,
    _by_option_text,
    _decide,
    _json_answer,
    _offers_alternative,
    _Reader,
    parse_answer,
    strip_reasoning,
)
from medrcube_desktop.evaluation.results_json import import_run, item_record
from medrcube_desktop.store import StudyStore, evaluation


def _old_option_spans(text, options):
    """``parse._option_spans`` before issue 25: a regex per option text."""
    spans = []
    for letter, option in options.items():
        phrase = option.strip().rstrip(".").strip()
        if len(phrase) < 2:
            continue
        pattern = rf"(?<![A-Za-z0-9]){re.escape(phrase)}(?![A-Za-z0-9])"
        spans += [(m.start(), m.end(), letter) for m in re.finditer(pattern, text, re.IGNORECASE)]
    return spans


def _old_parse_answer(response, options):
    """``parse.parse_answer`` before issue 25 (every pattern made per answer), word for
    word; run with :func:`_old_option_spans` in place."""
    letters = "".join(sorted(options))
    if not letters:
        return ParsedAnswer(None, "unparsed")
    text = unicodedata.normalize("NFKC", strip_reasoning(response or "")).strip()
    if not text:
        return ParsedAnswer(None, "empty")
    cls = f"[{letters}{letters.lower()}]"
    bare = re.fullmatch(rf"[*\s]*+[\(\[]?\s*+({cls})\s*+[\)\]]?[.:)]?[*\s]*+", text)
    if bare:
        return ParsedAnswer(bare.group(1).upper(), "letter")
    reader = _Reader(text, options)
    boxed = re.compile(rf"\\boxed\{{\s*+(?:\\(?:text|mathrm|textbf)\{{)?\s*+\(?({cls})\b")
    decided = _decide(reader.letters_in(boxed), "boxed")
    if decided:
        return decided
    json_letter = _json_answer(text, letters)
    if json_letter is not None:
        return ParsedAnswer(json_letter, "json")
    for words in (r"answer|choose|chose|pick|select|go with", r"option|choice"):
        phrase = re.compile(
            rf"(?:{words})\**+\s*+"
            r"(?:is|would be|will be|:|：|-|—|=)?\s*+(?:\**+\s*+)?(?:option\s+|choice\s+)?"
            rf"[\(\[\"'*]*+\s*+({cls})(?![A-Za-z0-9])",
            re.IGNORECASE,
        )
        found = reader.letters_in(phrase)
        if len(found) == 1 and _offers_alternative(text, phrase, reader):
            return ParsedAnswer(None, "ambiguous")
        decided = _decide(found, "answer_phrase")
        if decided:
            return decided
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) > 1:
        first = _old_parse_answer(lines[0], options)
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


def _old_insert_responses(db, responses):
    """``store.evaluation.insert_responses`` before issue 25: sqlite-utils' insert_all."""
    before = db.conn.total_changes
    rows = (evaluation.response_row(r) for r in responses)
    db["eval_responses"].insert_all(rows, ignore=True)
    return db.conn.total_changes - before


@pytest.fixture
def old_path(monkeypatch):
    """Puts the old parser, option spans and insert in place."""

    def use():
        monkeypatch.setattr(parse, "_option_spans", _old_option_spans)
        monkeypatch.setattr(results_json, "parse_answer", _old_parse_answer)
        monkeypatch.setattr(evaluation, "insert_responses", _old_insert_responses)

    return use


OPTIONS = {"A": "Axial", "B": "Coronal", "C": "Sagittal", "D": "Oblique"}
ANSWERS = [
    "B", " c ", "(B)", "B.", "b", "**B**", "  C \n", "Ｂ", "E", "a", "A CT scan", "Answer: B",
    "The answer is (D).", "The correct option is **C**, because the slice is sagittal.",
    "\\boxed{B}", "So the final result is $\\boxed{C}$", "B. Coronal", "C) sagittal plane",
    "(D) Oblique", "Coronal", "sagittal.", "The answer is Oblique", "CORONAL slice; B",
    "This is a coronal slice, so B fits best.", "I'd say B.", "Answer: B or C",
    "<think>Could be A or C... the vessels say C.</think>C", '{"answer": "C"}',
    "<think>A is axial; but looking again</think>\nAnswer: B", "not A but B", "",
    "Either A or C could be right.", "B\nA is wrong because the view is coronal.",
    "答案：Ｃ", "The \u212aelvin-sign word axial, so A", "İaxial or coronal? B",
    "Option b", "axialaxial coronal", "a sagittal or an axial view", "sagittal-ish: C",
    "I'm sorry, I can't help with medical images.", "x" * 300 + " Answer: D",
]  # fmt: skip


@pytest.mark.parametrize("answer", ANSWERS)
@pytest.mark.parametrize(
    "options",
    [OPTIONS, {"A": "CT", "B": "MRI"}, {"A": "Sjögren syndrome", "B": "Lupus", "C": "Axial"}],
)
def test_parse_answer_reads_as_the_old_parser(answer, options, monkeypatch):
    new = parse_answer(answer, options)
    monkeypatch.setattr(parse, "_option_spans", _old_option_spans)
    assert new == _old_parse_answer(answer, options)


WORDS = ["A", "B", "C", "D", "a", "b", "axial", "Axial", "coronal", "\u212a", "İ", "Ｂ", "not",
         "answer", "is", "option", "(", ")", ".", ":", "*", "\n", " ", "<think>", "</think>",
         "\\boxed{", "}", "Sjögren", "ß", "2D", "or"]  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(WORDS), max_size=14).map("".join))
def test_any_answer_made_of_letters_and_option_words_reads_as_before(answer):
    options = {"A": "Axial", "B": "Coronal", "C": "Sjögren syndrome", "D": "k-space"}
    new = parse_answer(answer, options)
    saved, parse._option_spans = parse._option_spans, _old_option_spans
    try:
        assert new == _old_parse_answer(answer, options)
    finally:
        parse._option_spans = saved


@settings(max_examples=400, deadline=None)
@given(
    st.text(alphabet="abAB xy-9.", max_size=30),
    st.text(alphabet="abAB xy-9", min_size=2, max_size=4),
)
def test_option_spans_in_ascii_text_are_the_regex_spans(text, phrase):
    options = {"A": phrase, "B": "xy"}
    assert parse._option_spans(text, options) == _old_option_spans(text, options)


def _public_file(path, items, answers):
    """A results.json as the public evaluator writes it: each item's record, its
    image_path made absolute, model_response and correct (the first letter)."""
    records = []
    for n, item in enumerate(items):
        answer = answers[n % len(answers)]
        record = item_record(item)
        record.update(image_path=str(item.image_path), model_response=answer,
                      correct=answer[:1] == item.answer)  # fmt: skip
        records.append(record)
    records += [
        dict(records[0]),
        {**records[1], "model_response": "A"},
        {"id": "zz", "model_response": "B"},
    ]
    records += [{"model_response": "B"}, 7, {"id": items[2].id}]
    path.write_text(json.dumps(records, indent=2, ensure_ascii=False))
    return path


def _stored(db_path):
    with sqlite3.connect(db_path) as conn:
        conn.row_factory = sqlite3.Row
        rows = conn.execute("SELECT * FROM eval_responses ORDER BY run, item_id").fetchall()
    return [{k: row[k] for k in row.keys() if k != "created_at"} for row in rows]  # noqa: SIM118


@pytest.mark.parametrize("shift", range(4))
def test_the_fast_path_stores_every_row_and_problem_of_the_old(bench, tmp_path, old_path, shift):
    """Each public-format file (12 real items, every answer above in turn, repeats, a
    conflicting repeat, an id not in the benchmark, records without an id or an answer)
    stored by both paths: the same rows (all columns but the time stamp), the same
    problems, the same counts."""
    items = load_benchmark(bench).items
    answers = ANSWERS[shift:] + ANSWERS[:shift]
    files = [_public_file(tmp_path / f"m{k}.json", items, answers[k * 12 :]) for k in range(4)]
    done = {}
    for label in ("new", "old"):
        if label == "old":
            old_path()
        store = StudyStore(tmp_path / f"{label}.db")
        done[label] = [import_run(store, f.stem, f.stem, items, f) for f in files]
        store.close()
    assert done["new"] == done["old"]
    assert done["new"][0].problems  # the bad records were seen
    new, old = _stored(tmp_path / "new.db"), _stored(tmp_path / "old.db")
    assert len(new) == 4 * (len(items) - 2)  # items 1 and 2: two answers, none stored
    assert new == old


def _old_record_response(record):
    """``results_json.record_response`` before issue 25."""
    texts = [
        v for v in (record.get("response"), record.get("model_response")) if isinstance(v, str)
    ]
    return next((t for t in texts if t.strip()), texts[0] if texts else None)


def test_record_response_picks_as_before_for_every_pair_of_values():
    values = ["absent", None, "", "  ", "B", "C", 3, ["B"]]
    for ours in values:
        for public in values:
            record = {k: v for k, v in (("response", ours), ("model_response", public))
                      if v != "absent"}  # fmt: skip
            assert results_json.record_response(record) == _old_record_response(record), record
