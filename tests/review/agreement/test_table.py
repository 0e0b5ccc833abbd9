"""The Table-5 rows and how their figures are printed (agreement/table.py): each row's
figures are the study's own, in paper order; cells, intervals, undefined notes, the
meta line and the "cannot judge" and extra sentences word for word."""

import pytest

from medrcube_desktop.core.rubric import CANNOT_JUDGE, RULE_IDS
from medrcube_desktop.review.agreement.run import StudyRun
from medrcube_desktop.review.agreement.stats import compare
from medrcube_desktop.review.agreement.table import (
    FIGURE_NAMES,
    abstention_lines,
    abstention_rows,
    cell,
    ci_cell,
    extra_lines,
    fmt,
    fmt_ci,
    fmt_p,
    meta_line,
    table_rows,
    undefined_notes,
)

FIRST = {
    "i1": dict.fromkeys(RULE_IDS, 1),
    "i2": {**dict.fromkeys(RULE_IDS, 1), "1.1": 0},
    "i3": {**dict.fromkeys(RULE_IDS, 1), "2.2": 0},
    "i4": dict.fromkeys(RULE_IDS, 0),
    "i5": dict.fromkeys(RULE_IDS, 1),
}
SECOND = {
    "i1": dict.fromkeys(RULE_IDS, 1),
    "i2": dict.fromkeys(RULE_IDS, 1),
    "i3": {**dict.fromkeys(RULE_IDS, 1), "2.2": 0, "1.3": 0},
    "i4": {**dict.fromkeys(RULE_IDS, 0), "2.1": 1},
    "i5": dict.fromkeys(RULE_IDS, 1),
}
META = {
    "app_version": "9.9",
    "rubric_version": "r3",
    "prompt_sha256": ["a" * 64, "b" * 64],
    "judge_model": "gpt-x",
    "first": "dr-a",
    "second": "LLM gpt-x",
    "created_at": "2026-12-03T10:00:00Z",
}


def _run(first=FIRST, second=SECOND, **kw):
    return StudyRun(compare(first, second, bootstrap=200, seed=1), dict(META), **kw)


def test_table_rows_are_the_study_figures_in_paper_order():
    run = _run()
    rows = table_rows(run)
    keys = ["sample", "P1", "1.1", "1.2", "1.3", "1.4", "P2", "2.1", "2.2", "2.3"]
    assert [r["key"] for r in rows] == keys
    sample = rows[0]
    assert sample == {
        "key": "sample",
        "label": "Sample level (all seven match)",
        "agreement": run.result.sample_level,
        "ci95": run.result.sample_ci95,
        "undefined": run.result.sample_undefined,
    }
    assert sample["agreement"] == pytest.approx(2 / 5)  # i1, i5 match on all seven
    fields = ("agreement", "ci95", "cohen_kappa", "gwet_ac1", "pabak", "mcnemar_p",
              "confusion", "wilson_ci95", "kappa_ci95", "ac1_ci95")  # fmt: skip
    for row in rows[1:]:
        if row["key"].startswith("P"):
            pid = row["key"][1:]
            figures = run.result.verdict(pid)
            assert row["all_match"] == run.result.principles[pid]["all_match"]
            assert row["all_match_ci95"] == run.result.principles[pid]["all_match_ci95"]
            assert row["undefined"] == {
                **run.result.principles[pid]["undefined"],
                **figures.undefined,
            }
        else:
            figures = run.result.rules[row["key"]]
            assert row["undefined"] == figures.undefined
            assert "all_match" not in row
        for name in fields:
            assert row[name] == getattr(figures, name), (row["key"], name)
    assert rows[1]["label"] == "Principle 1: Question Integrity (verdict)"
    assert rows[6]["label"] == "Principle 2: Option Set Effectiveness (verdict)"
    assert rows[2]["label"] == "1.1 Clinical & Anatomical Accuracy"
    assert rows[9]["label"] == "2.3 Plausibility of Distractors"
    assert rows[2]["agreement"] == pytest.approx(4 / 5)  # 1.1: i2 differs
    assert rows[1]["all_match"] == pytest.approx(3 / 5)  # P1: i2, i3 differ


def test_a_principle_row_joins_its_all_match_and_verdict_reasons():
    same = {i: dict.fromkeys(RULE_IDS, 1) for i in ("i1", "i2", "i3")}
    rows = table_rows(_run(same, {i: dict(v) for i, v in same.items()}))
    p1 = rows[1]
    assert p1["undefined"]["all_match_ci95"] == "every item agrees (no variation to resample)"
    assert p1["undefined"]["cohen_kappa"] == "both raters gave 'pass' to every item"
    assert rows[0]["undefined"] == {"ci95": "every item agrees (no variation to resample)"}


def test_rows_are_copies():
    run = _run()
    rows = table_rows(run)
    rows[2]["undefined"]["x"] = "y"
    rows[0]["undefined"]["x"] = "y"
    assert "x" not in run.result.rules["1.1"].undefined
    assert "x" not in run.result.sample_undefined


def test_cell():
    row = {"agreement": None, "kappa": None, "ac1": 0.8456, "mcnemar_p": 0.0004,
           "undefined": {"agreement": "no item"}}  # fmt: skip
    assert cell(row, "agreement") == "undefined"
    assert cell(row, "kappa") == "—"  # no reason: just missing
    assert cell(row, "ac1") == "0.85"
    assert cell(row, "ac1", 3) == "0.846"
    assert cell(row, "mcnemar_p") == "<0.001"
    assert cell({"mcnemar_p": 0.25}, "mcnemar_p") == "0.250"
    assert cell({"x": 0.5}, "x") == "0.50"
    assert cell({"mcnemar_p": None, "undefined": {"mcnemar_p": "r"}}, "mcnemar_p") == "undefined"


def test_ci_cell():
    row = {"ci95": None, "kappa_ci95": (0.7234, 0.9401), "undefined": {"ci95": "why"}}
    assert ci_cell(row) == "[undefined]"
    assert ci_cell(row, "kappa_ci95") == "[0.72, 0.94]"
    assert ci_cell({"ci95": None}) == ""
    assert ci_cell({"ci95": None, "undefined": {"other": "x"}}) == ""
    assert ci_cell({"ci95": (0.1, 0.2), "undefined": {"ci95": "x"}}) == "[0.10, 0.20]"


def test_undefined_notes_group_by_reason_then_rows():
    rows = [
        {"key": "1.1", "undefined": {"cohen_kappa": "both pass", "kappa_ci95": "both pass"}},
        {"key": "1.2", "undefined": {"cohen_kappa": "both pass", "kappa_ci95": "both pass"}},
        {"key": "1.3", "undefined": {"ac1_ci95": "both pass", "odd": "one item"}},
        {"key": "sample"},
    ]
    assert undefined_notes(rows) == [
        "Cohen's kappa, Kappa interval for 1.1, 1.2; AC1 interval for 1.3 undefined: both pass",
        "odd for 1.3 undefined: one item",
    ]
    assert undefined_notes([]) == []
    assert FIGURE_NAMES["wilson_ci95"] == "Wilson interval"
    assert FIGURE_NAMES["all_match_ci95"] == "All-match interval"


def test_fmt():
    assert fmt(None) == "—"
    assert fmt(0.8456) == "0.85"
    assert fmt(0.8456, 3) == "0.846"
    assert fmt(-0.001) == "0.00"  # never "-0.00"
    assert fmt(-0.25) == "-0.25"
    assert fmt(1) == "1.00"
    assert fmt("n/a") == "n/a"


def test_fmt_ci_and_fmt_p():
    assert fmt_ci(None) == ""
    assert fmt_ci(()) == ""
    assert fmt_ci((0.7234, 0.9401)) == "[0.72, 0.94]"
    assert fmt_ci([-0.5, 0.125]) == "[-0.50, 0.12]"
    assert fmt_p(None) == "—"
    assert fmt_p(0.0009) == "<0.001"
    assert fmt_p(0.001) == "0.001"
    assert fmt_p(1) == "1.000"


def test_meta_line():
    run = _run()
    assert meta_line(run) == (
        "MedRCube Desktop 9.9 · rubric r3 · judge model gpt-x · prompt SHA-256 "
        "aaaaaaaaaaaa, bbbbbbbbbbbb · 2026-12-03T10:00:00Z"
    )
    run.meta.update(prompt_sha256=None, judge_model=None, release={"version": "2026.1"})
    assert meta_line(run) == (
        "MedRCube Desktop 9.9 · rubric r3 · judge model — · prompt SHA-256 — · "
        "2026-12-03T10:00:00Z · release 2026.1"
    )
    run.meta.update(prompt_sha256=[], release=None)
    assert meta_line(run).endswith("prompt SHA-256 — · 2026-12-03T10:00:00Z")


def _abstaining():
    first = {i: dict(v) for i, v in FIRST.items()}
    second = {i: dict(v) for i, v in SECOND.items()}
    first["i1"]["1.2"] = CANNOT_JUDGE
    second["i2"]["1.2"] = CANNOT_JUDGE
    second["i3"]["2.3"] = CANNOT_JUDGE
    return _run(first, second)


def test_abstention_rows():
    assert abstention_rows(_run()) == []
    rows = abstention_rows(_abstaining())
    assert [r["rule"] for r in rows] == list(RULE_IDS)
    by_rule = {r["rule"]: r for r in rows}
    assert by_rule["1.2"] == {
        "rule": "1.2",
        "first_count": 1,
        "first_rate": 0.2,
        "second_count": 1,
        "second_rate": 0.2,
        "left_out": 2,
    }
    assert by_rule["2.3"] == {
        "rule": "2.3",
        "first_count": 0,
        "first_rate": 0.0,
        "second_count": 1,
        "second_rate": 0.2,
        "left_out": 1,
    }
    assert by_rule["1.1"]["left_out"] == 0


def test_abstention_lines():
    assert abstention_lines(_run()) == []
    assert abstention_lines(_abstaining()) == [
        "Cannot judge, dr-a (of 5 compared items): 1.2 1 (20 %).",
        "Cannot judge, LLM gpt-x (of 5 compared items): 1.2 1 (20 %), 2.3 1 (20 %).",
        "Left out where either rater cannot judge (pairwise): rules 1.2 2, 2.3 1; principle "
        "verdicts P1 2, P2 1; sample level (all seven) 3 item(s).",
    ]


def test_abstention_lines_of_one_item_and_no_principle():
    first = {"i1": {**dict.fromkeys(RULE_IDS, 1), "1.2": CANNOT_JUDGE}}
    second = {"i1": dict.fromkeys(RULE_IDS, 1)}
    lines = abstention_lines(StudyRun(compare(first, second, bootstrap=0), dict(META)))
    assert lines[0] == "Cannot judge, dr-a (of 1 compared item): 1.2 1 (100 %)."
    assert lines[1] == "Cannot judge, LLM gpt-x (of 1 compared item): never."
    run = _abstaining()
    run.result.abstentions["principles_left_out"] = {"1": 0, "2": 0}
    assert "principle verdicts none;" in abstention_lines(run)[2]


def test_extra_lines():
    assert extra_lines(_run()) == []
    intra = {"reviewer": "dr-a", "n_repeated": 3, "sample_level": 2 / 3}
    multi = {
        "raters": ["dr-a", "dr-b", "dr-c"],
        "n_samples": 7,
        "rules": {
            "1.1": {"fleiss_kappa": 0.412},
            "1.2": {"fleiss_kappa": None},
            "1.3": {"fleiss_kappa": -0.1},
        },
    }
    assert extra_lines(_run(intra=intra, multi=multi)) == [
        "Intra-rater (dr-a, 3 items shown twice): all seven match on 0.67.",
        "3 raters (dr-a, dr-b, dr-c) on the 7 items all of them judged: Fleiss' κ per rule "
        "from -0.10 to 0.41 (Krippendorff's α in the export).",
    ]
    one = {"reviewer": "dr-b", "n_repeated": 1, "sample_level": 1.0}
    none = {**multi, "rules": {"1.1": {"fleiss_kappa": None}}}
    assert extra_lines(_run(intra=one, multi=none)) == [
        "Intra-rater (dr-b, 1 item shown twice): all seven match on 1.00."
    ]
    evidence = {
        "raters": {
            "dr-a": {"n": 4, "answerable": 1, "expert_fail": 2, "agreement": 0.75,
                     "cohen_kappa": 0.5, "cohen_kappa_ci95": [0.1, 0.9]},
        }
    }  # fmt: skip
    lines = extra_lines(
        _abstaining().__class__(_abstaining().result, dict(META), evidence=evidence)
    )
    assert lines[0].startswith("Cannot judge, dr-a")
    assert lines[-1].startswith("Rule 1.4 of dr-a against the ablation evidence")
    assert len(lines) == 4


def test_rows_without_reasons():
    assert cell({"x": None}, "x") == "—"
    assert ci_cell({"x": None}, "x") == ""
    run = _run()
    for values in run.result.principles.values():
        del values["undefined"]  # a result made without them (built by hand, or older)
    rows = table_rows(run)
    assert rows[1]["undefined"] == run.result.verdict("1").undefined
    assert rows[6]["undefined"] == run.result.verdict("2").undefined
