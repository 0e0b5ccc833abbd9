"""``evaluate --image blank|swapped|noise`` (issue 24) from the command line: the run's
default name says the mode, it is linked to its image run, ``--text-only`` is
``--image text-only``, and ``export-run`` / ``import-run`` keep the mode, the link, the
seed and the hashes of the pictures sent."""

import json

import numpy as np
from PIL import Image

from medrcube_desktop.cli import main
from medrcube_desktop.store import StudyStore
from tests.conftest import item, write_benchmark
from tests.llm.fake_openai import FakeOpenAI


def xrays(tmp_path):
    root = tmp_path / "x"
    (root / "ds1" / "images").mkdir(parents=True)
    for n in range(4):
        pixels = np.full((30, 40), 40 * n + 20, dtype=np.uint8)
        Image.fromarray(pixels).save(root / "ds1" / "images" / f"x{n}.png")
    records = [item(f"x{n}", image=f"images/x{n}.png", modality="X-Ray",
                    question=f"scan {n}?") for n in range(4)]  # fmt: skip
    return write_benchmark(root, {"ds1": records})


def test_ablation_runs_are_named_linked_and_travel_through_export_and_import(tmp_path, capsys):
    bench, db = xrays(tmp_path), str(tmp_path / "s.db")
    with FakeOpenAI() as server:
        base = ["evaluate", "--dataset", str(bench), "--db", db, "--engine", "openai",
                "--model", "m", "--base-url", server.base_url, "--image-workers", "0"]  # fmt: skip
        assert main(base) == 0  # the image run: m-openai
        capsys.readouterr()
        assert main([*base, "--image", "swapped", "--image-seed", "3", "--json"]) == 0
        summary = json.loads(capsys.readouterr().out)
        assert main([*base, "--text-only"]) == 0
        assert main([*base, "--text-only", "--image", "noise"]) == 2
    assert (summary["run"], summary["image_mode"], summary["n"]) == (
        "m-openai-swapped",
        "swapped",
        4,
    )
    assert "--text-only and --image noise: give one of them" in capsys.readouterr().err
    store = StudyStore(tmp_path / "s.db")
    assert store.eval_run_names() == ["m-openai", "m-openai-swapped", "m-openai-text-only"]
    swapped = store.eval_run("m-openai-swapped")
    assert (swapped.image_mode, swapped.image_run) == ("swapped", "m-openai")
    assert swapped.params["image"] == {"text_only": False, "min_side": 28,
                                       "max_pixels": 1003520, "mode": "swapped", "seed": 3}  # fmt: skip
    text = store.eval_run("m-openai-text-only")
    assert (text.image_mode, text.image_run, text.text_only) == ("text-only", "m-openai", True)
    sent = store.responses("m-openai-swapped")
    assert all(sent[i].image["swapped_from"] != i for i in sent) and len(sent) == 4
    store.close()
    out = tmp_path / "swapped.json"
    export = ["export-run", "--db", db, "--run", "m-openai-swapped", "--dataset", str(bench)]
    assert main([*export, "--out", str(out)]) == 0
    records = json.loads(out.read_text())
    assert {(r["image_mode"], r["image_run"], r["image_seed"]) for r in records} == {
        ("swapped", "m-openai", 3)
    }
    db2 = str(tmp_path / "other.db")
    assert (
        main(["import-run", "--db", db2, "--dataset", str(bench), "--run", "back", str(out)]) == 0
    )
    other = StudyStore(tmp_path / "other.db")
    back = other.eval_run("back")
    assert (back.image_mode, back.image_run, back.text_only) == ("swapped", "m-openai", False)
    assert back.params["image"] == {"mode": "swapped", "seed": 3}
    again = other.responses("back")
    assert {i: r.image for i, r in again.items()} == {i: r.image for i, r in sent.items()}
    # and once more: what the import stored exports as the first export did
    other.close()
    out2 = tmp_path / "back.json"
    assert main(["export-run", "--db", db2, "--run", "back", "--dataset", str(bench),
                 "--out", str(out2)]) == 0  # fmt: skip
    assert json.loads(out2.read_text()) == records
