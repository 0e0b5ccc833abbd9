"""Reading a release folder: release.json, changes.json and its test.json files, and the
message that names the file, item and field of bad input."""

import json

import pytest

from medrcube_desktop.errors import DatasetError
from medrcube_desktop.evaluation.release_read import read_release
from tests import release_fixture as rf


@pytest.fixture
def release(tmp_path):
    source = rf.write_source(tmp_path / "source")
    return rf.write_release(tmp_path / "release", source)


def test_the_hand_written_release_reads_as_written(release):
    read = read_release(release)
    assert read.version == "v2" and read.root == release.resolve()
    assert [item.id for item in read.items] == [i for i in rf.IDS if i != "rt"]
    assert read.retired == {"rt"} and read.needs_new_answer == ["qn"]
    assert {i: c.answer_after for i, c in read.changes.items() if c.key_changed} == rf.NEW_KEY
    assert read.changes["k3"].rules == ("2.1",) and read.changes["rt"].kinds == ("retire",)
    assert {i.id: i.answer for i in read.items if i.id in rf.NEW_KEY} == rf.NEW_KEY
    assert read.describe() == {"version": "v2", "dir": str(release.resolve()),
                               "digest": read.digest}  # fmt: skip


def test_the_digest_tells_a_release_rewritten_under_its_version(release):
    first = read_release(release, items=False).digest
    meta = json.loads((release / "release.json").read_text())
    (release / "release.json").write_text(json.dumps({**meta, "changed": 5}))
    assert read_release(release, items=False).digest != first


def _edit(release, name, edit):
    doc = json.loads((release / name).read_text())
    edit(doc)
    (release / name).write_text(json.dumps(doc))


@pytest.mark.parametrize(
    "name, edit, message",
    [
        ("release.json", lambda d: d.update(format="other"),
         "release.json: field 'format': expected 'medrcube-release', found 'other'"),
        ("release.json", lambda d: d.update(format_version=2),
         "release.json: field 'format_version': this app reads 1, found 2"),
        ("changes.json", lambda d: d.update(version="v3"),
         "changes.json: field 'version': 'v3', but release.json says 'v2'"),
        ("release.json", lambda d: d.update(version="../v2"),
         "release.json: field 'version': '../v2': use letters, digits and . _ + -"),
        ("release.json", lambda d: d.update(version="v" * 65),
         "release.json: field 'version': 'vvvvvvvvvvvvvvvvvvvv'…: too long (65 characters, at most 64)"),
        ("changes.json", lambda d: d["items"][0].update(status="edited"),
         "changes.json: item 'k1', field 'status': expected one of changed, retired"),
        ("changes.json", lambda d: d["items"][1].update(answer_after=3),
         "changes.json: item 'k2', field 'answer_after': expected a letter, found 3"),
        ("changes.json", lambda d: d["items"][1].update(answer_after="D"),
         "changes.json: item 'k2', field 'answer_after': 'D', but the release's answer is 'C'"),
        ("changes.json", lambda d: d["items"][4].update(needs_new_answer="yes"),
         "changes.json: item 'qn', field 'needs_new_answer': expected true or false"),
        ("changes.json", lambda d: d["items"].append(dict(d["items"][0])),
         "changes.json: item 'k1' is listed twice"),
        ("changes.json", lambda d: d["items"][0].update(item_id="u1", status="retired",
                                                          answer_after=None),
         "changes.json: item 'u1', field 'status': retired, but"),
        ("changes.json", lambda d: d["items"][0].update(item_id="zz"),
         "changes.json: item 'zz': changed, but no test.json of the release holds it"),
    ],
)  # fmt: skip
def test_bad_input_names_the_file_the_item_and_the_field(release, name, edit, message):
    _edit(release, name, edit)
    with pytest.raises(DatasetError) as raised:
        read_release(release)
    assert message in str(raised.value)
    assert str(release.resolve() / name) in str(raised.value)


def test_a_folder_without_release_json_is_not_a_release(tmp_path):
    source = rf.write_source(tmp_path / "source")
    with pytest.raises(DatasetError, match="release.json: missing: not a release folder"):
        read_release(source)
    (source / "release.json").write_text("{not json")
    with pytest.raises(DatasetError, match="release.json: not valid JSON"):
        read_release(source)


def test_nan_in_changes_json_is_refused_as_not_json(release):
    text = (release / "changes.json").read_text()
    doc = json.loads(text)
    doc["counts"]["changed"] = float("nan")
    (release / "changes.json").write_text(json.dumps(doc))  # Python writes NaN
    assert "NaN" in (release / "changes.json").read_text()
    with pytest.raises(DatasetError) as raised:
        read_release(release)
    said = str(raised.value)
    assert (
        said == f"{release.resolve() / 'changes.json'}: not valid JSON (NaN is not a JSON number)"
    )


def test_a_broken_test_json_of_the_release_is_named(release):
    doc = json.loads((release / "changes.json").read_text())
    broken = next(c["file"] for c in doc["items"] if c["status"] == "changed")
    (release / broken).write_text("[{broken")
    with pytest.raises(DatasetError) as raised:
        read_release(release)
    said = str(raised.value)
    assert said.startswith(f"{release.resolve() / broken}: ")
    assert "(changes.json lists item " in said and "changes.json:" not in said.split(" (")[0]
