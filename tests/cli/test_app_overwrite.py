"""No command writes over a file it reads: the database (and the files SQLite keeps
beside it), a benchmark file or a source image, named by a hard link or another spelling
of its path."""

import os
from pathlib import Path

import pytest
from PIL import Image

from medrcube_desktop.cli import main
from medrcube_desktop.store import StudyStore
from tests.conftest import dicom_file, item, write_benchmark


def spellings(target: Path, tmp_path: Path) -> list[Path]:
    """``target`` by another spelling of its path, and by a new hard link to it."""
    link = tmp_path / "links" / f"link-{target.name}"
    link.parent.mkdir(exist_ok=True)
    if not link.exists():
        os.link(target, link)
    # "new/.." after a folder that does not exist yet: the writer would create it
    return [
        target.parent / ".." / target.parent.name / target.name,
        link,
        target.parent / "not-yet" / "deeper" / ".." / ".." / target.name,
    ]


@pytest.fixture
def db(tmp_path) -> Path:
    path = tmp_path / "data" / "study.db"
    path.parent.mkdir()
    StudyStore(path).close()
    return path


@pytest.fixture
def bench(tmp_path) -> Path:
    return write_benchmark(
        tmp_path / "bench", {"ds1": [item("a")]}, {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")}
    )


@pytest.mark.parametrize("command", ["export-reviews", "export-judgments"])
def test_an_export_is_refused_over_its_database_by_any_name(command, db, tmp_path, capsys):
    who = ["--reviewer", "a"] if command == "export-reviews" else ["--model", "m"]
    for out in [*spellings(db, tmp_path), db.with_name("study.db-wal")]:
        assert main([command, "--db", str(db), *who, "--out", str(out)]) == 2
        assert "is the input" in capsys.readouterr().err
    assert (
        not db.with_name("study.db-wal").exists()
        or db.with_name("study.db-wal").stat().st_size == 0
    )


def test_export_run_refuses_its_database_and_the_benchmark_files(db, bench, tmp_path, capsys):
    base = ["export-run", "--db", str(db), "--run", "r", "--dataset", str(bench), "--out"]
    test_json = bench / "ds1" / "test.json"
    image = bench / "ds1" / "images" / "ct.dcm"
    for out in [
        *spellings(db, tmp_path),
        *spellings(test_json, tmp_path),
        *spellings(image, tmp_path),
    ]:
        before = (db.read_bytes(), test_json.read_bytes(), image.read_bytes())
        assert main([*base, str(out)]) == 2
        assert "is the input" in capsys.readouterr().err
        assert (db.read_bytes(), test_json.read_bytes(), image.read_bytes()) == before


def test_judge_batch_out_refuses_the_benchmark_files(db, bench, tmp_path, capsys):
    image = bench / "ds1" / "images" / "ct.dcm"
    base = ["judge", "--dataset", str(bench), "--db", str(db), "--model", "m", "--batch-out"]
    for out in [*spellings(db, tmp_path), *spellings(image, tmp_path)]:
        before = image.read_bytes()
        assert main([*base, str(out)]) == 2
        assert "is the input" in capsys.readouterr().err
        assert image.read_bytes() == before


def test_render_refuses_its_source_and_mask_by_any_name(tmp_path, capsys):
    source = tmp_path / "img" / "scan.png"
    source.parent.mkdir()
    Image.new("L", (8, 8), 100).save(source)
    mask = tmp_path / "img" / "mask.png"
    Image.new("L", (8, 8), 1).save(mask)
    before = (source.read_bytes(), mask.read_bytes())
    for out in [*spellings(source, tmp_path), *spellings(mask, tmp_path)]:
        assert main(["render", str(source), "--mask", str(mask), "--out", str(out)]) == 2
        assert "would overwrite the source image" in capsys.readouterr().err
    assert (source.read_bytes(), mask.read_bytes()) == before


def test_agreement_out_refuses_a_folder_holding_its_database(tmp_path, capsys):
    report = tmp_path / "report"
    report.mkdir()
    db = report / "agreement.json"  # a database named like one of the outputs
    StudyStore(db).close()
    other = tmp_path / "data" / "study.db"
    other.parent.mkdir()
    StudyStore(other).close()
    os.link(other, report / "report.html")  # a hard link where an output would go
    for database, out in (
        (db, report.parent / "." / "report"),  # another spelling of the folder
        (other, report),
        (other, other),  # the database itself as the folder
    ):
        before = database.read_bytes()
        args = ["agreement", "--db", str(database), "--reviewer", "a", "--model", "m"]
        assert main([*args, "--out", str(out)]) == 2
        assert "is the input" in capsys.readouterr().err
        assert database.read_bytes() == before


def test_demo_build_refuses_a_file_by_any_name(db, tmp_path, capsys):
    before = db.read_bytes()
    for out in spellings(db, tmp_path):
        assert main(["demo", "build", str(out)]) == 2
        assert "new or empty folder" in capsys.readouterr().err
    assert db.read_bytes() == before


def test_a_sidecar_of_the_database_by_its_other_name_is_refused(db, tmp_path, capsys):
    link = tmp_path / "other.db"
    os.link(db, link)
    for opened, out in ((link, db.with_name(db.name + "-wal")), (db, tmp_path / "other.db-wal")):
        args = ["export-reviews", "--db", str(opened), "--reviewer", "r", "--out", str(out)]
        assert main(args) == 2, (opened, out)
        assert "is the input" in capsys.readouterr().err
        assert not out.exists()


@pytest.mark.parametrize("command", ["export-reviews", "export-judgments"])
def test_an_export_that_reads_no_benchmark_still_never_replaces_one_or_a_study(
    command, db, bench, tmp_path, capsys
):
    import nibabel as nib
    import numpy as np

    from medrcube_desktop.core.rubric import RULE_IDS
    from medrcube_desktop.store import Review

    other_study = tmp_path / "other" / "study.db"  # not this command's input: another study
    other_study.parent.mkdir()
    StudyStore(other_study).close()
    volume = tmp_path / "t1.nii"
    nib.save(nib.Nifti1Image(np.zeros((4, 4, 4), np.int16), np.eye(4)), volume)
    png = tmp_path / "mask.png"
    Image.new("L", (4, 4)).save(png)
    nifti2 = tmp_path / "t1-v2.nii"
    nib.save(nib.Nifti2Image(np.zeros((4, 4, 4), np.int16), np.eye(4)), nifti2)
    tiff = tmp_path / "slice.tif"
    Image.new("I;16", (4, 4)).save(tiff)
    from openpyxl import Workbook

    xlsx = tmp_path / "agreement.xlsx"
    Workbook().save(xlsx)
    other_wal = other_study.with_name("study.db-wal")  # another study's unsaved commits
    writer = StudyStore(other_study)
    writer.save_review(Review("b", "b", dict.fromkeys(RULE_IDS, 0), "", "2024-05-01T10:00:00+00:00",
                              "2024-05-01T10:00:00+00:00"))  # fmt: skip
    import shutil

    shutil.copy(other_study.with_name("study.db-wal"), tmp_path / "kept-wal")
    writer.close()
    shutil.copy(tmp_path / "kept-wal", other_wal)  # as a killed writer leaves it
    targets = {
        bench / "ds1" / "test.json": "is a benchmark's test.json",
        bench / "ds1" / "images" / "ct.dcm": "is a DICOM file",
        other_study: "is a SQLite database",
        volume: "is a NIfTI-1 volume",
        png: "is a PNG image",
        nifti2: "is a NIfTI-2 volume",
        tiff: "is a TIFF image",
        xlsx: "is a zip file (an .xlsx workbook?)",
        other_wal: "is the -wal file SQLite keeps beside study.db",
    }
    store = StudyStore(db)
    t0 = "2024-05-01T10:00:00+00:00"
    store.save_review(Review("a", "a", dict.fromkeys(RULE_IDS, 1), "", t0, t0))
    store.close()
    who = ["--reviewer", "a"] if command == "export-reviews" else ["--model", "m"]
    for out, said in targets.items():
        before = out.read_bytes()
        assert main([command, "--db", str(db), *who, "--out", str(out)]) == 2, out
        err = capsys.readouterr().err
        assert f"{out}: {said}" in err and "was not written over it" in err, err
        assert out.read_bytes() == before


def test_an_export_named_test_json_or_over_a_json_list_is_refused_and_folders_are_made(
    db, bench, tmp_path, capsys
):
    from medrcube_desktop.core.rubric import RULE_IDS
    from medrcube_desktop.store import Review

    store = StudyStore(db)
    t0 = "2024-05-01T10:00:00+00:00"
    store.save_review(Review("a", "a", dict.fromkeys(RULE_IDS, 1), "", t0, t0))
    store.close()
    renamed = tmp_path / "items.json"  # a benchmark list under another name
    renamed.write_bytes((bench / "ds1" / "test.json").read_bytes())
    base = ["export-reviews", "--db", str(db), "--reviewer", "a", "--out"]
    assert main([*base, str(renamed)]) == 2
    assert "is a JSON list" in capsys.readouterr().err
    assert renamed.read_bytes() == (bench / "ds1" / "test.json").read_bytes()
    new_test_json = tmp_path / "fresh" / "test.json"
    assert main([*base, str(new_test_json)]) == 2
    assert "is named test.json" in capsys.readouterr().err and not new_test_json.exists()
    nested = tmp_path / "new" / "deeper" / "reviews.csv"
    assert main([*base, str(nested)]) == 0  # a missing folder is made, as other exports do
    assert nested.read_text(encoding="utf-8-sig").startswith("item_id,1.1")
    assert main([*base, str(nested)]) == 0  # an earlier export of its own is replaced
