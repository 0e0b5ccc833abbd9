"""render-batch: every output lands inside --out, whatever the benchmark's text says,
and no output is written over an image the benchmark reads."""

import json
import os
from pathlib import Path

import pytest
from PIL import Image

from medrcube_desktop.cli import main
from tests.conftest import dicom_file, item, write_benchmark

HOSTILE = ["../x", "/abs", "..", ".", "a/../../b", "..\\..\\win", "C:\\temp\\x", "~", "", "NUL"]


@pytest.mark.parametrize("text", HOSTILE)
def test_every_output_path_from_benchmark_text_stays_inside(tmp_path, text):
    from medrcube_desktop.imaging.batch import output_png

    out = tmp_path / "out"
    used: set[str] = set()
    for dataset, item_id in ((text, "ok"), ("ds", text), (text, text)):
        target = output_png(out, dataset, item_id, used)
        assert target.parent.parent == out  # out/<one name>/<one name>.png
        assert target.parent.name not in ("", ".", "..") and "/" not in target.parent.name
        assert os.path.normpath(target).startswith(str(out) + os.sep)
        assert "\\" not in target.name and not target.name.startswith(".")


def test_names_are_kept_apart_where_case_is_ignored_and_long_ids_cut():
    from medrcube_desktop.imaging.batch import output_png, safe_component

    used: set[str] = set()
    out = Path("out")
    assert output_png(out, "ds", "A", used).name == "A.png"
    assert output_png(out, "ds", "a", used).name == "a-2.png"  # one file on macOS, Windows
    long_a, long_b = "x" * 300 + "a", "x" * 300 + "b"
    assert safe_component(long_a, "item") != safe_component(long_b, "item")
    assert len(safe_component(long_a, "item")) <= 120
    assert safe_component("con.txt", "item") == "_con.txt"
    assert safe_component("ct-1.2_a", "item") == "ct-1.2_a"  # ordinary names unchanged


def test_render_batch_writes_nothing_outside_out(tmp_path, capsys):
    records = [
        item(f"i{n}", image="../ds1/images/ct.dcm", dataset=dataset, **{"id": item_id})
        for n, (dataset, item_id) in enumerate(
            [("../escape", "a"), ("/abs", "b"), ("..", "c"), ("a/../../b", "d"),
             ("..\\..\\win", "e"), ("ds", "../../x"), ("ds", "/etc/passwd"), ("ds", "..")]
        )
    ]  # fmt: skip
    root = write_benchmark(
        tmp_path / "bench" / "b",
        {"ds1": records},
        {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")},
    )
    out = tmp_path / "bench" / "deep" / "out"
    assert main(["render-batch", str(root), "--out", str(out), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["rendered"] == len(records) and not summary["failed"]
    written = sorted(p for p in tmp_path.rglob("*.png"))
    assert len(written) == len(records)
    assert all(out in p.parents and p.parent.parent == out for p in written)


def test_render_batch_never_writes_over_an_item_image(tmp_path, capsys):
    root = tmp_path / "b"
    (root / "ds1").mkdir(parents=True)
    picture = root / "ds1" / "pic.png"
    Image.new("L", (16, 16), 80).save(picture)
    before = picture.read_bytes()
    write_benchmark(root, {"ds1": [item("pic", image="pic.png", modality="X-ray")]})
    # another spelling: --out is the benchmark root, so out/ds1/pic.png is the image
    spelled = tmp_path / "b" / ".." / "b"
    assert main(["render-batch", str(root), "--out", str(spelled), "--json"]) == 1
    failed = json.loads(capsys.readouterr().out)["failed"]
    assert [f["item"] for f in failed] == ["pic"] and "source image" in failed[0]["message"]
    # a hard link of the image where the output would go
    linked = tmp_path / "out" / "ds1"
    linked.mkdir(parents=True)
    os.link(picture, linked / "pic.png")
    assert main(["render-batch", str(root), "--out", str(tmp_path / "out"), "--json"]) == 1
    assert "source image" in json.loads(capsys.readouterr().out)["failed"][0]["message"]
    assert picture.read_bytes() == before


def test_a_symbolic_link_already_inside_out_cannot_lead_outside(tmp_path, capsys):
    root = write_benchmark(
        tmp_path / "b",
        {"ds1": [item("a", dataset="elsewhere"), item("b", dataset="ds")]},
        {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")},
    )
    out, outside = tmp_path / "out", tmp_path / "outside"
    out.mkdir()
    outside.mkdir()
    (out / "elsewhere").symlink_to(outside)  # left there by someone, before the run
    assert main(["render-batch", str(root), "--out", str(out), "--json"]) == 1
    summary = json.loads(capsys.readouterr().out)
    assert summary["rendered"] == 1
    assert [f["item"] for f in summary["failed"]] == ["a"]
    assert "leads outside" in summary["failed"][0]["message"]
    assert list(outside.iterdir()) == []
