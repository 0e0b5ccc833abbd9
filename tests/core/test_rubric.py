"""core.rubric: resources/rubric.json is the one source of the rule ids, the principles,
their labels and the judgment's JSON schema."""

import json
import shutil
import subprocess
import sys
import textwrap
from importlib.resources import files

import pytest

from medrcube_desktop.core.rubric import (
    PRINCIPLES,
    RULE_IDS,
    judgment_schema,
    load_rubric,
    parse_rubric,
    score_column,
)

# What the judge (llm/judge.py) and the Batch API file (llm/batch.py) sent as
# ``response_format`` before the schema was derived from the rubric, byte for byte.
SENT_BEFORE = (
    '{"type": "json_schema", "json_schema": {"name": "nbme_quality_review", "strict": true, '
    '"schema": {"type": "object", "properties": {"1.1": {"type": "integer", "enum": [0, 1]}, '
    '"1.2": {"type": "integer", "enum": [0, 1]}, "1.3": {"type": "integer", "enum": [0, 1]}, '
    '"1.4": {"type": "integer", "enum": [0, 1]}, "2.1": {"type": "integer", "enum": [0, 1]}, '
    '"2.2": {"type": "integer", "enum": [0, 1]}, "2.3": {"type": "integer", "enum": [0, 1]}}, '
    '"required": ["1.1", "1.2", "1.3", "1.4", "2.1", "2.2", "2.3"], '
    '"additionalProperties": false}}}'
)


def test_rubric_is_table_10_of_the_paper():
    rubric = load_rubric()
    assert rubric.principles == {"1": "Question Integrity", "2": "Option Set Effectiveness"}
    # names as Table 5/10 of the MedRCube paper give them
    assert [(r.id, r.name) for r in rubric.rules] == [
        ("1.1", "Clinical & Anatomical Accuracy"),
        ("1.2", "Logical Coherence"),
        ("1.3", "Unambiguous Phrasing"),
        ("1.4", "VQA Suitability (Image-Dependence & Objectivity)"),
        ("2.1", "Conceptual & Grammatical Homogeneity"),
        ("2.2", "Mutual Exclusivity"),
        ("2.3", "Plausibility of Distractors"),
    ]
    assert [r.principle for r in rubric.rules] == ["1"] * 4 + ["2"] * 3
    assert score_column("2.3") == "score_2_3"


def test_ids_principles_and_labels_come_from_the_file():
    raw = json.loads(files("medrcube_desktop.resources").joinpath("rubric.json").read_text())
    assert tuple(r["id"] for r in raw["rules"]) == RULE_IDS
    assert RULE_IDS == ("1.1", "1.2", "1.3", "1.4", "2.1", "2.2", "2.3")
    assert PRINCIPLES == {"1": ("1.1", "1.2", "1.3", "1.4"), "2": ("2.1", "2.2", "2.3")}
    rubric = load_rubric()
    assert rubric is load_rubric()  # read once
    assert rubric.rule_ids == RULE_IDS and rubric.principle_rules == PRINCIPLES
    assert rubric.rules[0].label == "1.1 Clinical & Anatomical Accuracy"
    assert rubric.principle_label("2") == "Principle 2: Option Set Effectiveness"


def test_the_derived_schema_is_what_the_judge_sends(tmp_path):
    from medrcube_desktop.llm.prompt import response_format

    assert json.dumps(response_format()) == SENT_BEFORE
    assert judgment_schema() == json.loads(SENT_BEFORE)["json_schema"]["schema"]


def test_the_batch_file_sends_the_derived_schema(tmp_path):
    from medrcube_desktop.core.dataset import load_benchmark
    from medrcube_desktop.llm.batch import export_batch_requests
    from medrcube_desktop.llm.judge import JudgeConfig
    from medrcube_desktop.store import StudyStore
    from tests.conftest import dicom_file, item, write_benchmark

    root = write_benchmark(
        tmp_path / "bench", {"ds1": [item("i0")]}, {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")}
    )
    store = StudyStore(tmp_path / "study.db")
    config = JudgeConfig(model="gpt-5.1", base_url="http://127.0.0.1:9/v1")
    assert export_batch_requests(load_benchmark(root).items, store, config, tmp_path / "b.jsonl")
    store.close()
    line = json.loads((tmp_path / "b.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert json.dumps(line["body"]["response_format"]) == SENT_BEFORE


def test_the_pydantic_model_accepts_exactly_what_the_schema_describes():
    from medrcube_desktop.llm.parse import JudgmentModel, UnusableAnswer, parse_judgment

    model_schema = JudgmentModel.model_json_schema(by_alias=True)
    schema = judgment_schema()
    assert model_schema["required"] == schema["required"] == list(RULE_IDS)
    assert list(model_schema["properties"]) == list(schema["properties"])
    assert model_schema["additionalProperties"] is schema["additionalProperties"] is False
    scores = dict(zip(RULE_IDS, [1, 0, 1, 1, 0, 1, 1], strict=True))
    assert parse_judgment(json.dumps(scores)) == scores
    for bad in ({**scores, "2.4": 1}, {**scores, "1.1": 2}, {**scores, "1.1": True}):
        with pytest.raises(UnusableAnswer):
            parse_judgment(json.dumps(bad))


def _raw(**changes):
    raw = json.loads(files("medrcube_desktop.resources").joinpath("rubric.json").read_text())
    raw.update(changes)
    return raw


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (_raw(rules=[]), "distinct rule ids"),
        (_raw(version=""), "distinct rule ids"),
        ({"version": "x", "principles": []}, "missing or malformed"),
        (_raw(principles=[{"id": "1", "name": "A"}, {"id": "1", "name": "B"}]), "twice"),
    ],
)
def test_a_malformed_rubric_is_refused(raw, message):
    with pytest.raises(ValueError, match=message):
        parse_rubric(raw)


def test_rules_must_belong_to_a_listed_principle_and_be_grouped():
    def rule(rid, pid):
        return {"id": rid, "principle": pid, "name": rid, "description": ""}

    two = [{"id": "1", "name": "A"}, {"id": "2", "name": "B"}]
    with pytest.raises(ValueError, match="principle"):
        parse_rubric(_raw(principles=two, rules=[rule("1.1", "1"), rule("2.1", "1")]))
    with pytest.raises(ValueError, match="principle"):
        parse_rubric(_raw(principles=two, rules=[rule("1.1", "1"), rule("3.1", "3")]))
    with pytest.raises(ValueError, match="listed together"):
        parse_rubric(
            _raw(principles=two, rules=[rule("1.1", "1"), rule("2.1", "2"), rule("1.2", "1")])
        )
    with pytest.raises(ValueError, match="listed together"):  # principle 2 has no rule
        parse_rubric(_raw(principles=two, rules=[rule("1.1", "1")]))


def test_changing_the_rubric_changes_the_ids_everywhere(tmp_path):
    # A fresh interpreter whose shipped resources are a copy with another rubric: three
    # principles, four rules. Every module takes the ids from core.rubric.
    resources = tmp_path / "resources"
    shutil.copytree(files("medrcube_desktop.resources"), resources)
    raw = _raw(
        version="test-2",
        principles=[
            {"id": "1", "name": "Question Integrity"},
            {"id": "2", "name": "Option Set Effectiveness"},
            {"id": "3", "name": "Image Quality"},
        ],
        rules=[
            {"id": "1.1", "principle": "1", "name": "Accuracy", "description": "a"},
            {"id": "1.2", "principle": "1", "name": "Coherence", "description": "b"},
            {"id": "2.1", "principle": "2", "name": "Homogeneity", "description": "c"},
            {"id": "3.1", "principle": "3", "name": "Legible Image", "description": "d"},
        ],
    )
    (resources / "rubric.json").write_text(json.dumps(raw), encoding="utf-8")
    code = textwrap.dedent(
        """
        import importlib.util, json, sys

        folder = sys.argv[1]
        spec = importlib.util.spec_from_file_location(
            "medrcube_desktop.resources", folder + "/__init__.py",
            submodule_search_locations=[folder],
        )
        module = importlib.util.module_from_spec(spec)
        sys.modules["medrcube_desktop.resources"] = module
        spec.loader.exec_module(module)

        from medrcube_desktop.core.rubric import PRINCIPLES, RULE_IDS, load_rubric
        from medrcube_desktop.llm.parse import UnusableAnswer, parse_judgment
        from medrcube_desktop.llm.prompt import response_format
        from medrcube_desktop.review.agreement import StudyRun, compare, table_rows
        from medrcube_desktop.review.draft import Draft
        from medrcube_desktop.review.queues import STATUS_CHOICES

        scores = {"1.1": 1, "1.2": 0, "2.1": 1, "3.1": 0}
        try:
            parse_judgment(json.dumps({r: 1 for r in ("1.1", "1.2", "1.3", "1.4", "2.1", "2.2", "2.3")}))
            old_refused = False
        except UnusableAnswer:
            old_refused = True
        result = compare({"a": scores, "b": scores}, {"a": scores, "b": {**scores, "3.1": 1}}, bootstrap=0)
        run = StudyRun(result, {})
        print(json.dumps({
            "version": load_rubric().version,
            "ids": RULE_IDS,
            "principles": PRINCIPLES,
            "schema": response_format()["json_schema"]["schema"]["required"],
            "properties": list(response_format()["json_schema"]["schema"]["properties"]),
            "parsed": parse_judgment(json.dumps(scores)),
            "old_refused": old_refused,
            "agreement_rules": {rule: f.agreement for rule, f in result.rules.items()},
            "agreement_principles": sorted(result.principles),
            "rows": [(row["key"], row["label"]) for row in table_rows(run)],
            "queues": [title for value, title in STATUS_CHOICES if value.startswith("failed:")],
            "draft": Draft("a", {r: None for r in RULE_IDS}).unscored(),
        }))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(resources)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    ids = ["1.1", "1.2", "2.1", "3.1"]
    assert seen["version"] == "test-2"
    assert seen["ids"] == seen["schema"] == seen["properties"] == seen["draft"] == ids
    assert seen["principles"] == {"1": ["1.1", "1.2"], "2": ["2.1"], "3": ["3.1"]}
    assert seen["parsed"] == {"1.1": 1, "1.2": 0, "2.1": 1, "3.1": 0}
    assert seen["old_refused"] is True
    assert seen["agreement_rules"] == {"1.1": 1.0, "1.2": 1.0, "2.1": 1.0, "3.1": 0.5}
    assert seen["agreement_principles"] == ["1", "2", "3"]
    assert seen["rows"][1:] == [
        ["P1", "Principle 1: Question Integrity (verdict)"],
        ["1.1", "1.1 Accuracy"],
        ["1.2", "1.2 Coherence"],
        ["P2", "Principle 2: Option Set Effectiveness (verdict)"],
        ["2.1", "2.1 Homogeneity"],
        ["P3", "Principle 3: Image Quality (verdict)"],
        ["3.1", "3.1 Legible Image"],
    ]
    assert seen["queues"] == [f"Rule {rule} failed" for rule in ids]
