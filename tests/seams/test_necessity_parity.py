"""The Compare pane's Image necessity tab shows what ``compare --json`` gives (issue 24
item 2, one computation on every surface), on the parity study with a blank and a noise
run added beside its text-only run; the answerable items are counted by hand."""

from __future__ import annotations

from medrcube_desktop.evaluation.compare.necessity import PANE_ITEMS_FILE, necessity_lines
from medrcube_desktop.store import StudyStore, utc_now
from medrcube_desktop.store.evaluation import ResponseRecord, RunRecord
from tests import parity_bench as pb
from tests.seams.test_pane_cli_parity import cli_json, compared, open_study

ABLATION_RUNS = {  # name: (model, mode, linked image run, the items it gets right)
    "iv8-blank": ("OpenGVLab/InternVL3_5-8B", "blank", "iv8", set(pb.ITEMS[:10])),
    "ls-noise": ("lingshu-medical-mllm/Lingshu-7B", "noise", "", set(pb.ITEMS[4:12])),
}


def _add_ablations(db) -> None:
    store = StudyStore(db)
    for name, (model, mode, link, right) in ABLATION_RUNS.items():
        run = RunRecord(name, "openai", model, {}, "", "test", utc_now(), image_mode=mode,
                        image_run=link)  # fmt: skip
        store.replace_run(run, [
            ResponseRecord(name, i, "x", pb.RIGHT if i in right else "A", "test",
                           i in right, None, False, utc_now())
            for i in pb.ITEMS
        ])  # fmt: skip
    store.close()


def _answerable_by_hand() -> list[str]:
    """Per item, each model's ablation answers pooled (right when more than half are):
    iv8 has its text-only and blank runs, Lingshu its noise run."""
    out = []
    for item in pb.ITEMS:
        iv8 = [pb.ANSWERS[pb.TEXT_RUN][item], pb.RIGHT if item in ABLATION_RUNS["iv8-blank"][3]
               else "A"]  # fmt: skip
        iv8 = [a for a in iv8 if a != pb.MISSING]
        iv8_right = sum(a == pb.RIGHT for a in iv8) * 2 > len(iv8)
        ls_right = item in ABLATION_RUNS["ls-noise"][3]
        if iv8_right + ls_right > 0.5 * 2:
            out.append(item)
    return out


def test_the_necessity_tab_shows_what_compare_json_gives(qtbot, tmp_path, capsys):
    root, db = pb.build(tmp_path)
    _add_ablations(db)
    expected = cli_json(capsys, "compare", "--db", db, "--dataset", root)["necessity"]
    window = open_study(qtbot, root, db)
    pane = compared(qtbot, window)
    assert pane.comparison.result.to_dict()["necessity"] == expected
    view = pane.necessity
    assert (
        view.summary.text() == necessity_lines(pane.comparison.result.necessity, PANE_ITEMS_FILE)[0]
    )
    # the pane has no --out: it names its own way to the per-item file
    assert "--out" not in view.summary.text()
    assert view.summary.text().endswith("Export report… on the Figures tab)")
    answerable = [r["item"] for r in expected["items"] if r["answerable"]]
    assert answerable == _answerable_by_hand() and answerable
    assert f"{len(answerable)} of the {len(pb.ITEMS)} items" in view.summary.text()
    shown = [view.items.item(r, 0).text() for r in range(view.items.rowCount())]
    assert shown == answerable
    # by default the overall rows only, one per pair, in the JSON's order
    overall_rows = [g for g in expected["gaps"] if g["level"] == "overall"]
    assert view.level.currentText() == "Overall" and view.pair.currentText() == "All pairs"
    assert [
        (view.gaps.item(r, 0).text(), view.gaps.item(r, 1).text(), view.gaps.item(r, 3).text())
        for r in range(view.gaps.rowCount())
    ] == [(g["image_run"], g["ablated_run"], "Overall") for g in overall_rows]
    assert view.shown_rows.text() == f"{len(overall_rows)} of {len(expected['gaps'])} rows"
    # one pair, per voxel: that pair's voxel rows only
    view.level.setCurrentIndex(view.level.findText("Per voxel"))
    view.pair.setCurrentIndex(view.pair.findText("iv8 vs iv8-blank (blank)"))
    voxel_rows = [g["scope"] for g in expected["gaps"]
                  if g["level"] == "voxel" and g["ablated_run"] == "iv8-blank"]  # fmt: skip
    assert voxel_rows
    assert [view.gaps.item(r, 3).text() for r in range(view.gaps.rowCount())] == voxel_rows
    assert {view.gaps.item(r, 1).text() for r in range(view.gaps.rowCount())} == {"iv8-blank"}
    view.show_result(pane.comparison.result)  # a new comparison keeps the filters chosen
    assert view.pair.currentText() == "iv8 vs iv8-blank (blank)"
    assert view.gaps.rowCount() == len(voxel_rows)
    # every gap row on screen with all levels and pairs, with the JSON's numbers
    view.level.setCurrentIndex(view.level.findText("All levels"))
    view.pair.setCurrentIndex(view.pair.findText("All pairs"))
    assert view.gaps.rowCount() == len(expected["gaps"])
    modes = {(g["image_run"], g["ablated_run"], g["mode"]) for g in expected["gaps"]}
    assert modes == {("iv8", pb.TEXT_RUN, "text-only"), ("iv8", "iv8-blank", "blank"),
                     ("ls", "ls-noise", "noise")}  # fmt: skip
    for r, row in enumerate(expected["gaps"]):
        cells = [view.gaps.item(r, c).text() for c in range(view.gaps.columnCount())]
        assert cells[:4] == [row["image_run"], row["ablated_run"], row["mode"], row["scope"]]
        assert cells[4] == str(row["n"])
        assert cells[8] == f"{row['gap'] * 100:.1f}"
        assert cells[9] == f"[{row['low'] * 100:.1f}, {row['high'] * 100:.1f}]"
    # by hand: iv8 against its blank run over the items both answered
    both = [i for i in pb.ITEMS if pb.ANSWERS["iv8"][i] != pb.MISSING]
    gap = sum((pb.ANSWERS["iv8"][i] == pb.RIGHT) - (i in ABLATION_RUNS["iv8-blank"][3])
              for i in both) / len(both)  # fmt: skip
    overall = next(g for g in expected["gaps"]
                   if g["ablated_run"] == "iv8-blank" and g["scope"] == "Overall")  # fmt: skip
    assert overall["n"] == len(both) and abs(overall["gap"] - gap) < 1e-12
    window.close()
