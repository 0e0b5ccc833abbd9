"""Seam: the experts panel and ``--gold`` (issue 24 trial): when nobody abstains every
output (text, ``--json``, the four files of ``--out``) is byte-identical to what they
wrote before abstentions were excluded per rule; with abstentions the figures leave out
that rule only, pairwise, and the abstentions are reported per rater and rule
(recomputed here by hand).

``GOLDEN`` was written by :func:`produce` against the code of ``main`` before the change
(``python tests/seams/test_panel_no_abstention_unchanged.py --write`` with that package
first on ``sys.path``); masked as :func:`.test_no_abstention_unchanged._masked` does.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import sys
from pathlib import Path

from tests.seams.test_no_abstention_unchanged import ITEMS, RULES, _masked, _scores

GOLDEN = Path(__file__).with_name("panel_no_abstention_golden.json")


def _study(tmp: Path, abstain: dict[str, dict[str, set[str]]] | None = None) -> str:
    """The two-expert-plus-LLM study of :mod:`.test_no_abstention_unchanged`;
    ``abstain`` rater → rule → items on which that expert cannot judge."""
    from medrcube_desktop.cli import main

    db = str(tmp / "study.db")
    for rater in ("dr-a", "dr-b"):
        path = tmp / f"{rater}.csv"
        with open(path, "w", newline="") as f:
            writer = csv.writer(f)
            writer.writerow(["item_id", *RULES, "comment", "committed_at"])
            for n, i in enumerate(ITEMS):
                s = {r: str(v) for r, v in _scores(rater, i).items()}
                for rule, items in (abstain or {}).get(rater, {}).items():
                    if i in items:
                        s[rule] = "cannot judge"
                writer.writerow([i, *(s[r] for r in RULES), "why" if "0" in s.values() else "",
                                 f"2026-01-01T00:{n:02d}:00+00:00"])  # fmt: skip
        main(["import-reviews", "--db", db, "--reviewer", rater, str(path)])
    judgments = tmp / "llm.jsonl"
    judgments.write_text("".join(json.dumps({"id": i, **_scores("llm", i)}) + "\n" for i in ITEMS))
    main(["import-judgments", "--db", db, "--model", "gpt-5.1", str(judgments)])
    return db


def _run(*args: str) -> str:
    from medrcube_desktop.cli import main

    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        code = main(list(args))
    return f"exit {code}\n" + buffer.getvalue()


def produce(tmp: Path) -> dict[str, str]:
    """Every output of the panel and of ``--gold`` without an abstention, by name (the
    text table at 120 columns, whatever the terminal)."""
    import os

    os.environ["COLUMNS"] = "120"
    db = _study(tmp)
    panel = ["agreement", "--db", db, "--reviewer", "dr-a", "--reviewer", "dr-b",
             "--model", "gpt-5.1", "--bootstrap", "200"]  # fmt: skip
    gold = ["agreement", "--db", db, "--reviewer", "dr-a", "--model", "gpt-5.1", "--gold",
            "adjudicated", "--bootstrap", "200"]  # fmt: skip
    out = {
        "panel_text": _run(*panel),
        "panel_json": _run(*panel, "--json"),
        "panel_out": _run(*panel, "--out", str(tmp / "out")),
        "gold_text": _run(*gold),
        "gold_json": _run(*gold, "--json"),
    }
    for name in ("agreement.json", "agreement_long.csv", "report.html"):
        out[name] = (tmp / "out" / name).read_text(encoding="utf-8-sig")
    from openpyxl import load_workbook

    book = load_workbook(tmp / "out" / "agreement.xlsx")
    out["agreement.xlsx"] = json.dumps(
        {s.title: [list(r) for r in s.iter_rows(values_only=True)] for s in book.worksheets},
        default=str,
    )
    return {name: _masked(text, tmp) for name, text in out.items()}


def test_every_panel_output_without_an_abstention_is_as_before(tmp_path, monkeypatch):
    monkeypatch.setenv("COLUMNS", "120")
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))
    now = produce(tmp_path)
    assert sorted(now) == sorted(golden)
    for name in golden:
        assert now[name] == golden[name], name
    assert "abstentions" not in now["panel_json"] and "Cannot judge" not in now["panel_text"]


def test_the_panel_leaves_out_only_the_abstained_rule_and_reports_abstentions(tmp_path):
    # dr-a cannot judge 1.4 on i05 (where they failed it) and i06; dr-b 2.3 on i07
    db = _study(tmp_path, {"dr-a": {"1.4": {"i05", "i06"}}, "dr-b": {"2.3": {"i07"}}})
    panel = ["agreement", "--db", db, "--reviewer", "dr-a", "--reviewer", "dr-b",
             "--model", "gpt-5.1", "--bootstrap", "50"]  # fmt: skip
    data = json.loads(_run(*panel, "--json").split("\n", 1)[1])
    pair = next(c for c in data["columns"] if c["name"] == "dr-a vs dr-b")["rows"]
    # by hand: 1.3 over all 12 (dr-a fails i00-i02, dr-b i00, i02, i03: i01, i03 differ)
    assert pair["1.3"]["n_items"] == [12] and pair["1.3"]["agreement"] == round(10 / 12, 6)
    # 1.4 without i05, i06: both pass the other 10
    assert pair["1.4"]["n_items"] == [10] and pair["1.4"]["agreement"] == 1.0
    # 2.3 without i07: dr-a fails i08, dr-b passes it
    assert pair["2.3"]["n_items"] == [11] and pair["2.3"]["agreement"] == round(10 / 11, 6)
    # P1 holds 1.4: without i05, i06; P2 holds 2.3: without i07
    assert pair["P1"]["n_items"] == [10] and pair["P2"]["n_items"] == [11]
    # all seven over the 9 items nobody abstained on: i00, i02, i04, i10, i11 match
    assert pair["sample"]["n_items"] == [9] and pair["sample"]["agreement"] == round(5 / 9, 6)
    llm = next(c for c in data["columns"] if c["name"] == "dr-a vs LLM gpt-5.1")["rows"]
    assert llm["1.3"]["n_items"] == [12] and llm["1.4"]["n_items"] == [10]
    found = data["abstentions"]
    assert found["dr-a"]["counts"]["1.4"] == 2 and found["dr-a"]["rates"]["1.4"] == round(2 / 12, 6)
    assert found["dr-b"]["counts"]["2.3"] == 1 and found["dr-b"]["items_with_any"] == 1
    assert set(found["LLM gpt-5.1"]["counts"].values()) == {0}
    text = _run(*panel)
    assert "Cannot judge, dr-a (of 12 judged items): 1.4 2 (17 %)." in text
    assert "Cannot judge, dr-b (of 12 judged items): 2.3 1 (8 %)." in text
    assert "Cannot judge, LLM gpt-5.1 (of 12 judged items): never." in text
    # the same figures in report.html and the workbook's "Cannot judge" sheet
    from openpyxl import load_workbook

    _run(*panel, "--out", str(tmp_path / "out"))
    page = (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
    assert "Cannot judge, dr-a (of 12 judged items): 1.4 2 (17 %)." in page
    sheet = load_workbook(tmp_path / "out" / "agreement.xlsx")["Cannot judge"]
    rows = [list(r) for r in sheet.iter_rows(values_only=True)]
    assert rows[0][:5] == ["Rule", "dr-a: count", "dr-a: rate", "dr-b: count", "dr-b: rate"]
    by_rule = {r[0]: r[1:5] for r in rows[1:8]}
    assert by_rule["1.4"] == [2, round(2 / 12, 6), 0, 0.0]
    assert by_rule["2.3"] == [0, 0.0, 1, round(1 / 12, 6)]
    assert rows[8][:5] == ["Items judged", 12, None, 12, None]
    from medrcube_desktop.review.agreement.panel_run import run_gold
    from medrcube_desktop.store import StudyStore
    from medrcube_desktop.store.adjudications import Adjudication

    store = StudyStore(db)  # i06's 1.4 adjudicated: a gold item dr-a abstained on
    store.save_adjudication(Adjudication("i06", "1.4", 1, "the image decides", "dr-c"))
    gold = run_gold(store, ["dr-a"], "gpt-5.1", bootstrap=0)
    store.close()
    out = sum(i in gold.items for i in ("i05", "i06"))  # dr-a's abstentions among gold items
    versus = next(c for c in gold.columns if c.name == "dr-a vs gold").rows
    n = len(gold.items)
    assert versus["1.3"].n_items == [n] and versus["1.4"].n_items == [n - out]
    assert (gold.abstentions or {}).get("dr-a", {}).get("counts", {}).get("1.4", 0) == out
    assert out and n > out  # the gold standard holds an abstained item


if __name__ == "__main__":  # write GOLDEN (see the module docstring)
    import tempfile

    if sys.argv[1:] == ["--write"]:
        with tempfile.TemporaryDirectory() as folder:
            GOLDEN.write_text(json.dumps(produce(Path(folder)), indent=1, sort_keys=True) + "\n")
