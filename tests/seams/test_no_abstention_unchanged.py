"""Seam: "cannot judge" (issue 24) across the agreement study, its exports, the
adjudication queue and the review CSV. When nobody abstains every output is
byte-identical to what the app wrote before abstentions existed.

``GOLDEN`` was written by :func:`produce` run against the code of ``main`` before
issue 24 (``python tests/seams/test_no_abstention_unchanged.py --write`` with that
package first on ``sys.path``); the test runs :func:`produce` again on today's code.
Only what changes from run to run is masked: the temporary folder, the creation time,
matplotlib's SVG clip-path ids and the app version.
"""

from __future__ import annotations

import csv
import json
import re
import sys
from pathlib import Path

GOLDEN = Path(__file__).with_name("no_abstention_golden.json")

RULES = ("1.1", "1.2", "1.3", "1.4", "2.1", "2.2", "2.3")
ITEMS = [f"i{k:02d}" for k in range(12)]
FAILS = {  # rater → rule → failed items: the other rules pass
    "dr-a": {"1.3": {"i00", "i01", "i02"}, "1.4": {"i05"}, "2.3": {"i07", "i08"}},
    "dr-b": {"1.3": {"i00", "i02", "i03"}, "2.1": {"i09"}, "2.3": {"i07"}},
    "llm": {"1.3": {"i00", "i01", "i03", "i04"}, "2.2": {"i05", "i06"}, "2.3": {"i08"}},
}


def _scores(rater: str, item_id: str) -> dict[str, int]:
    return {r: 0 if item_id in FAILS[rater].get(r, set()) else 1 for r in RULES}


def produce(tmp: Path) -> dict[str, str]:
    """Every output of a two-expert-plus-LLM study without an abstention, by name."""
    import contextlib
    import io

    from medrcube_desktop.cli import main
    from tests.conftest import dicom_file, item, write_benchmark

    root = write_benchmark(
        tmp / "bench",
        {"ds1": [item(i) for i in ITEMS]},
        {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")},
    )
    db = str(tmp / "study.db")
    for rater in ("dr-a", "dr-b"):
        path = tmp / f"{rater}.csv"
        with open(path, "w", newline="") as f:
            writer = csv.writer(f)
            writer.writerow(["item_id", *RULES, "comment", "committed_at"])
            for n, i in enumerate(ITEMS):
                s = _scores(rater, i)
                writer.writerow(
                    [i, *(s[r] for r in RULES), "why" if 0 in s.values() else "",
                     f"2026-01-01T00:{n:02d}:00+00:00"]
                )  # fmt: skip
        main(["import-reviews", "--db", db, "--reviewer", rater, str(path)])
    judgments = tmp / "llm.jsonl"
    judgments.write_text("".join(json.dumps({"id": i, **_scores("llm", i)}) + "\n" for i in ITEMS))
    main(["import-judgments", "--db", db, "--model", "gpt-5.1", str(judgments)])
    main(["study", "--dataset", str(root), "--db", db, "--name", "all", "--n", "12", "--seed", "3"])
    out: dict[str, str] = {}

    def run(name: str, *args: str) -> None:
        buffer = io.StringIO()
        with contextlib.redirect_stdout(buffer):
            code = main(list(args))
        out[name] = f"exit {code}\n" + buffer.getvalue()

    study = ["--db", db, "--study", "all"]
    model = ["agreement", *study, "--reviewer", "dr-a", "--model", "gpt-5.1"]
    run("model_text", *model)  # the paper's preset: default draws and seed
    run("model_json", *model, "--json")
    run("model_out", *model, "--bootstrap", "200", "--out", str(tmp / "out"))
    experts = ["agreement", *study, "--reviewer", "dr-a", "--reviewer2", "dr-b"]
    run("experts_text", *experts, "--bootstrap", "300")
    run("experts_json", *experts, "--bootstrap", "300", "--json")
    queue = ["adjudicate-queue", "--db", db, "--dataset", str(root), "--model", "gpt-5.1"]
    run("queue_text", *queue, "--against", "any")
    run("queue_json", *queue, "--against", "any", "--json")
    run(
        "export",
        "export-reviews",
        "--db",
        db,
        "--reviewer",
        "dr-a",
        "--out",
        str(tmp / "dr-a-out.csv"),
    )
    for name in ("agreement.json", "agreement_long.csv", "report.html"):
        out[name] = (tmp / "out" / name).read_text(encoding="utf-8-sig")
    out["dr-a-out.csv"] = (tmp / "dr-a-out.csv").read_text(encoding="utf-8-sig")
    from openpyxl import load_workbook

    book = load_workbook(tmp / "out" / "agreement.xlsx")
    out["agreement.xlsx"] = json.dumps(
        {s.title: [list(r) for r in s.iter_rows(values_only=True)] for s in book.worksheets},
        default=str,
    )
    return {name: _masked(text, tmp) for name, text in out.items()}


_CLIP = re.compile(r"\b(?:m|p|image)[0-9a-f]{10}\b")
"""A clip-path, marker or image id of matplotlib's SVG (random per figure)."""
_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(\+00:00|Z)?")


def _masked(text: str, tmp: Path) -> str:
    """``text`` with the temporary folder, creation times of this run, SVG clip-path ids
    and the app version masked (the imported commit times, 2026-01-01, are kept)."""
    from medrcube_desktop import __version__

    text = text.replace(str(tmp), "<tmp>")
    text = _TIME.sub(lambda m: m[0] if m[0].startswith("2026-01-01T00:") else "<time>", text)
    text = _CLIP.sub("<clip>", text)
    return text.replace(__version__, "<version>")


def test_every_output_without_an_abstention_is_as_before_issue_24(tmp_path):
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))
    now = produce(tmp_path)
    assert sorted(now) == sorted(golden)
    for name in golden:
        assert now[name] == golden[name], name
    # the fixture is not trivial: figures disagree, the queue holds items
    assert json.loads(now["model_json"].split("\n", 1)[1])["rules"]["1.3"]["confusion"] == [
        [2, 1], [2, 7]
    ]  # fmt: skip
    assert "abstentions" not in now["model_json"] and "Cannot judge" not in now["report.html"]


if __name__ == "__main__":  # write GOLDEN (see the module docstring)
    import tempfile

    if sys.argv[1:] == ["--write"]:
        with tempfile.TemporaryDirectory() as folder:
            GOLDEN.write_text(json.dumps(produce(Path(folder)), indent=1, sort_keys=True) + "\n")
