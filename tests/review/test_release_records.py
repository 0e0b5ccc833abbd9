"""The byte-preserving rewrite of a ``test.json``: spans found by the JSON scanner, a
record's changed values replaced in the file's style, retired records removed."""

from __future__ import annotations

import json

import pytest

from medrcube_desktop.review.release_records import (
    ReleaseError,
    assemble,
    members,
    read_records_file,
    rewrite_record,
)

ROWS = [
    {"id": "a", "question": "x [1, 2]", "nested": {"k": [1, {"b": "}"}]}, "bbox": [1, 2, 3, 4]},
    {"id": 7, "question": "y , ] }"},
    {"id": "c", "question": "z \u00e9"},
]


def _file(tmp_path, text: str, name: str = "test.json"):
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    return read_records_file(path)


@pytest.mark.parametrize(
    "style",
    [{"indent": 2}, {}, {"separators": (",", ":")}, {"indent": 4, "ensure_ascii": False},
     {"indent": "\t"}],
)  # fmt: skip
def test_changed_and_retired_records_give_what_json_dumps_gives_in_the_same_style(tmp_path, style):
    file = _file(tmp_path, json.dumps(ROWS, **style))
    assert assemble(file, {}) == json.dumps(ROWS, **style).encode()
    assert [r["id"] for r in file.records] == ["a", 7, "c"]
    s0, e0 = file.spans[0]
    s1, e1 = file.spans[1]
    new0 = rewrite_record(
        file.text, s0, e0, {"question": "ü", "bbox": [5, 6, 7.5, 8], "mask_path": "m.png"},
        file.ensure_ascii,
    )  # fmt: skip
    new1 = rewrite_record(file.text, s1, e1, {"bbox": [0, 0, 9, 9]}, file.ensure_ascii)
    expected = [
        {**ROWS[0], "question": "ü", "bbox": [5, 6, 7.5, 8], "mask_path": "m.png"},
        {**ROWS[1], "bbox": [0, 0, 9, 9]},
    ]
    assert assemble(file, {0: new0, 1: new1, 2: None}).decode() == json.dumps(expected, **style)
    for retired in ({0}, {1}, {2}, {0, 2}, {0, 1, 2}):
        kept = [r for n, r in enumerate(ROWS) if n not in retired]
        text = assemble(file, dict.fromkeys(retired)).decode()
        assert json.loads(text) == kept
        if kept:
            assert text == json.dumps(kept, **style)


def test_a_byte_order_mark_crlf_and_odd_spacing_are_kept(tmp_path):
    text = '\ufeff[ {"id" : "a" ,\r\n  "question":"q"}\r\n,\r\n\t{"id":"b","question":"r"}  ]\r\n'
    file = _file(tmp_path, text)
    assert file.bom == "\ufeff" and assemble(file, {}) == text.encode("utf-8")
    start, end = file.spans[1]
    new = rewrite_record(file.text, start, end, {"question": "s"}, True)
    assert new == '{"id":"b","question":"s"}'
    out = assemble(file, {1: new}).decode("utf-8")
    assert out == text.replace('"r"', '"s"')
    assert assemble(file, {0: None}).decode("utf-8") == '\ufeff[ {"id":"b","question":"r"}  ]\r\n'


def test_a_crlf_indented_record_gains_a_field_on_its_own_line(tmp_path):
    text = '[\r\n  {\r\n    "id": "a",\r\n    "question": "q"\r\n  }\r\n]'
    file = _file(tmp_path, text)
    start, end = file.spans[0]
    new = rewrite_record(file.text, start, end, {"bbox": [1, 2, 3, 4]}, True)
    assert new == (
        '{\r\n    "id": "a",\r\n    "question": "q",\r\n    "bbox": [\r\n      1,\r\n      2,'
        "\r\n      3,\r\n      4\r\n    ]\r\n  }"
    )
    assert json.loads(assemble(file, {0: new}))[0]["bbox"] == [1, 2, 3, 4]


def test_a_repeated_key_is_replaced_where_a_reader_takes_it_the_last(tmp_path):
    file = _file(tmp_path, '[{"id": "a", "q": "first", "q": "last"}]')
    assert [m.key for m in members(file.text, *file.spans[0])] == ["id", "q", "q"]
    new = rewrite_record(file.text, *file.spans[0], {"q": "new"}, True)
    assert new == '{"id": "a", "q": "first", "q": "new"}'


def test_non_ascii_is_escaped_only_where_the_file_escapes_it(tmp_path):
    escaped = _file(tmp_path, json.dumps([{"id": "a", "q": "é"}]), "a.json")
    raw = _file(tmp_path, json.dumps([{"id": "a", "q": "é"}], ensure_ascii=False), "b.json")
    assert escaped.ensure_ascii and not raw.ensure_ascii
    assert rewrite_record(escaped.text, *escaped.spans[0], {"q": "ü"}, True).endswith('"\\u00fc"}')
    assert rewrite_record(raw.text, *raw.spans[0], {"q": "ü"}, False).endswith('"ü"}')


def test_an_empty_list_and_an_overlong_integer_are_read(tmp_path):
    assert _file(tmp_path, " [ ] ", "e.json").spans == []
    file = _file(tmp_path, '[{"id": "a", "n": ' + "9" * 5000 + "}]", "big.json")
    assert file.records[0]["id"] == "a" and len(file.spans) == 1


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('{"id": "a"}', "expected a JSON list of items"),
        ('[{"id": "a"},\n {"id": }]', "invalid JSON at line 2 column 9"),
        ('[{"id": "a"} {"id": "b"}]', "invalid JSON at line 1 column 14: expected ',' or ']'"),
        ('[{"id": "a"}] x', "extra data after the list"),
    ],
)
def test_a_file_that_is_no_json_list_is_refused_naming_it(tmp_path, text, said):
    with pytest.raises(ReleaseError, match=said) as caught:
        _file(tmp_path, text)
    assert str(caught.value).startswith(str(tmp_path / "test.json"))


def test_a_file_that_is_not_utf8_is_refused(tmp_path):
    path = tmp_path / "test.json"
    path.write_bytes(b'[{"id": "\xe9"}]')
    with pytest.raises(ReleaseError, match="not UTF-8 text"):
        read_records_file(path)
