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
        assert "--text-only and --image noise: give one of them" in capsys.readouterr().err
        assert main([*base, "--image-run", "m-openai"]) == 2  # an image run links to none
        assert "--image-run links an ablation run" in capsys.readouterr().err
        # no other image of that modality and region: not asked, said, exit 1
        lone = ["--run", "lone", "--image", "swapped", "--limit", "1"]
        assert main([*base, *lone]) == 1
        assert "swapped: no other image of modality 'X-Ray' and region 'Chest'" in (
            capsys.readouterr().err
        )
    assert (summary["run"], summary["image_mode"], summary["n"]) == (
        "m-openai-swapped",
        "swapped",
        4,
    )
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
    image = tmp_path / "image.json"  # the link is to a stored run of the model: import it too
    export_image = ["export-run", "--db", db, "--run", "m-openai", "--dataset", str(bench)]
    assert main([*export_image, "--out", str(image)]) == 0
    imp = ["import-run", "--db", db2, "--dataset", str(bench), "--model", "m"]
    assert main([*imp, "--run", "m-openai", str(image)]) == 0
    assert main([*imp, "--run", "back", str(out)]) == 0
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


def test_import_run_refuses_ablation_fields_evaluate_would_refuse_and_goes_on(tmp_path, capsys):
    """image_seed −3, image_run 5, an image_run not stored or of another model: refused
    naming the file, the run and the field (the check of ``evaluate --image-run``); the
    other files are imported; a folder exported as it was imports with its links."""
    bench, db = xrays(tmp_path), str(tmp_path / "s.db")
    records = [{"id": f"x{n}", "model_response": "A"} for n in range(4)]
    folder = tmp_path / "runs"
    folder.mkdir()

    def write(name, **fields):
        path = folder / f"{name}.json"
        path.write_text(json.dumps([{**r, **fields} for r in records]))
        return path

    image = write("m")  # an image run, model m
    bad = {
        "seed": write("seed", image_mode="noise", image_run="m", image_seed=-3),
        "number": write("number", image_mode="blank", image_run=5),
        "missing": write("missing", image_mode="blank", image_run="nowhere"),
        "unseeded": write("unseeded", image_mode="swapped", image_run="m"),
    }
    write("k")  # an image run of model k
    good = write("m-blank", image_mode="blank", image_run="m")  # model from its link
    base = ["import-run", "--db", db, "--dataset", str(bench)]
    assert main([*base, "--json", str(folder)]) == 1
    rows = {row["run"]: row for row in json.loads(capsys.readouterr().out)["files"]}
    assert rows["seed"]["error"] == (
        f"{bad['seed']}: run 'seed': image_seed -3 is not a seed (a whole number from 0 to "
        "4294967295, as --image-seed takes)"
    )
    assert rows["number"]["error"] == (
        f"{bad['number']}: run 'number': image_run 5 is not a run name (the name of the "
        "image run, in quotes)"
    )
    assert rows["missing"]["error"] == (
        f"{bad['missing']}: run 'missing': image_run 'nowhere': no run of that name is "
        "stored (import the image run first, or remove image_run from the file); nothing "
        "imported"
    )
    assert rows["unseeded"]["error"] == (
        f"{bad['unseeded']}: run 'unseeded': a swapped run without its image_seed (the seed "
        "its pictures were chosen with, as export-run writes it)"
    )
    assert {r for r, row in rows.items() if row["error"] is None} == {"m", "k", "m-blank"}
    assert rows["m-blank"]["model"] == "m"  # its linked image run's, as stored
    other = tmp_path / "other.json"  # its model given: a link to model k's run is refused
    other.write_text(json.dumps([{**r, "image_mode": "blank", "image_run": "k"} for r in records]))
    assert main([*base, "--run", "z-blank", "--model", "z", str(other)]) == 2
    assert (
        f"{other}: run 'z-blank': image_run 'k': a run of model 'k', not of this run's 'z'"
        in capsys.readouterr().err
    )
    store = StudyStore(tmp_path / "s.db")
    assert store.eval_run_names() == ["k", "m", "m-blank"]
    blank = store.eval_run("m-blank")  # met before m's file was stored: tried again after
    assert (blank.model, blank.image_run, blank.image_mode) == ("m", "m", "blank")
    store.close()
    assert image.exists() and good.exists()


def test_a_resume_with_another_image_run_mode_or_seed_is_refused_in_words(tmp_path, capsys):
    bench, db = xrays(tmp_path), str(tmp_path / "s.db")
    with FakeOpenAI() as server:
        base = ["evaluate", "--dataset", str(bench), "--db", db, "--engine", "openai",
                "--model", "m", "--base-url", server.base_url, "--image-workers", "0"]  # fmt: skip
        assert main(base) == 0 and main([*base, "--run", "m2"]) == 0
        noise = [*base, "--run", "n", "--image", "noise", "--image-seed", "7"]
        assert main([*noise, "--limit", "2"]) == 0
        capsys.readouterr()
        head = "run 'n' exists with other settings (image differ); resume it with the same "
        for extra, asked in (
            (["--image-run", "m2"], "a noise run (seed 7, image run m2)"),
            (["--image-seed", "8"], "a noise run (seed 8, image run m-openai)"),
            (["--image", "blank"], "a blank run (image run m-openai)"),
        ):
            assert main([*noise, *extra]) == 2
            err = capsys.readouterr().err
            assert head in err and "{" not in err
            assert (
                "(image: the run is a noise run (seed 7, image run m-openai), you asked for "
                f"{asked})" in err
            )
        assert main(noise) == 0  # the same settings (its stored link kept): resumed
    store = StudyStore(tmp_path / "s.db")
    assert len(store.responses("n")) == 4 and store.eval_run("n").image_run == "m-openai"
    store.close()


def test_an_ablation_record_whose_image_is_not_an_object_is_said_and_its_answer_kept(
    tmp_path, capsys
):
    # a hand-edited export: the hash of the picture sent was dropped without a word
    bench, db = xrays(tmp_path), str(tmp_path / "s.db")
    image = tmp_path / "m.json"
    image.write_text(json.dumps([{"id": f"x{n}", "model_response": "A"} for n in range(4)]))
    base = ["import-run", "--db", db, "--dataset", str(bench)]
    assert main([*base, str(image)]) == 0
    blank = tmp_path / "m-blank.json"
    records = [{"id": f"x{n}", "model_response": "A", "image_mode": "blank", "image_run": "m",
                "image": {"ablation": "blank", "sha256": "ab"}} for n in range(4)]  # fmt: skip
    records[2]["image"] = "abc"
    blank.write_text(json.dumps(records))
    capsys.readouterr()
    assert main([*base, str(blank)]) == 1
    assert (
        f"{blank} record #3 (id 'x2'): image \"abc\" is not an object (how the picture was "
        "sent, as export-run writes it); the answer is stored without it" in capsys.readouterr().err
    )
    store = StudyStore(tmp_path / "s.db")
    stored = {i: r.image for i, r in store.responses("m-blank").items()}
    store.close()
    assert stored["x2"] == {} and stored["x1"] == {"ablation": "blank", "sha256": "ab"}
    assert len(stored) == 4


def test_an_ablation_record_whose_image_is_another_mode_or_its_own_swap_is_said(tmp_path, capsys):
    # hand-edited exports: a blank run's record saying a noise picture was sent, and a
    # swapped record "swapped" with itself; both answers are stored, without that image
    bench, db = xrays(tmp_path), str(tmp_path / "s.db")
    image = tmp_path / "m.json"
    image.write_text(json.dumps([{"id": f"x{n}", "model_response": "A"} for n in range(4)]))
    base = ["import-run", "--db", db, "--dataset", str(bench)]
    assert main([*base, str(image)]) == 0
    blank = tmp_path / "m-blank.json"
    records = [{"id": f"x{n}", "model_response": "A", "image_mode": "blank", "image_run": "m",
                "image": {"ablation": "blank", "sha256": "ab"}} for n in range(4)]  # fmt: skip
    records[1]["image"] = {"ablation": "noise", "sha256": "cd"}
    blank.write_text(json.dumps(records))
    swapped = tmp_path / "m-swapped.json"
    records = [{"id": f"x{n}", "model_response": "B", "image_mode": "swapped", "image_run": "m",
                "image_seed": 3, "image": {"ablation": "swapped", "seed": 3,
                                           "swapped_from": f"x{(n + 1) % 4}"}}
               for n in range(4)]  # fmt: skip
    records[3]["image"]["swapped_from"] = "x3"
    swapped.write_text(json.dumps(records))
    capsys.readouterr()
    assert main([*base, str(blank), str(swapped)]) == 1
    err = capsys.readouterr().err
    assert (
        f"{blank} record #2 (id 'x1'): image ablation \"noise\" is not the run's image_mode "
        "'blank'; the answer is stored without it" in err
    )
    assert (
        f"{swapped} record #4 (id 'x3'): image swapped_from 'x3' is the item itself; the "
        "answer is stored without it" in err
    )
    store = StudyStore(tmp_path / "s.db")
    blanks = {i: r.image for i, r in store.responses("m-blank").items()}
    swaps = {i: r.image for i, r in store.responses("m-swapped").items()}
    store.close()
    assert blanks["x1"] == {} and blanks["x0"] == {"ablation": "blank", "sha256": "ab"}
    assert swaps["x3"] == {} and swaps["x0"]["swapped_from"] == "x1"
    assert len(blanks) == len(swaps) == 4


def test_a_file_of_several_image_modes_names_the_first_record_that_differs(tmp_path, capsys):
    bench, db = xrays(tmp_path), str(tmp_path / "s.db")
    image = tmp_path / "m.json"
    image.write_text(json.dumps([{"id": f"x{n}", "model_response": "A"} for n in range(4)]))
    base = ["import-run", "--db", db, "--dataset", str(bench)]
    assert main([*base, str(image)]) == 0
    mixed = tmp_path / "m-blank.json"
    records = [{"id": f"x{n}", "model_response": "A", "image_mode": "blank", "image_run": "m"}
               for n in range(4)]  # fmt: skip
    records[2]["image_mode"] = "noise"
    mixed.write_text(json.dumps(records))
    capsys.readouterr()
    assert main([*base, str(mixed)]) == 2
    assert (
        f'{mixed}: records of several image_mode values ("blank", "noise"); record #3 '
        '(id \'x2\') gives "noise", record #1 gives "blank"' in capsys.readouterr().err
    )
