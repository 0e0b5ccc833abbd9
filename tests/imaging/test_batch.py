"""The `render` command: square pixels, the facts it reports, one-line errors."""

import json
import threading

import nibabel as nib
import numpy as np
import pydicom
from PIL import Image

from medrcube_desktop.cli import main
from tests.conftest import dicom_file


def test_render_ct_with_preset_and_box(tmp_path, capsys):
    out = tmp_path / "ct.png"
    code = main(
        [
            "render",
            str(dicom_file("CT_small.dcm")),
            "--preset",
            "lung",
            "--bbox",
            "10,10,60,60",
            "--out",
            str(out),
            "--json",
        ]
    )
    assert code == 0
    facts = json.loads(capsys.readouterr().out)
    ds = pydicom.dcmread(dicom_file("CT_small.dcm"))
    assert facts["native_shape"] == [ds.Rows, ds.Columns] == facts["shape"]
    assert facts["pixel_spacing_mm"] == [float(v) for v in ds.PixelSpacing]
    assert facts["window"] == [-600.0, 1500.0] and facts["photometric"] == "MONOCHROME2"
    assert facts["overlay_pixels"] == 4 * 50  # outline of a 51x51 box, 1 px thick
    assert Image.open(out).size == (ds.Columns, ds.Rows)


def test_render_makes_pixels_square(tmp_path, capsys):
    out = tmp_path / "us.png"
    assert main(["render", str(dicom_file("color-pl.dcm")), "--out", str(out), "--json"]) == 0
    facts = json.loads(capsys.readouterr().out)
    ds = pydicom.dcmread(dicom_file("color-pl.dcm"))
    vertical, horizontal = (int(v) for v in ds.PixelAspectRatio)  # 4\3
    assert facts["shape"] == [round(ds.Rows * vertical / horizontal), ds.Columns]
    assert Image.open(out).size == (ds.Columns, round(ds.Rows * vertical / horizontal))


def test_render_nifti_slice_with_mask_reports_axis_and_slice(tmp_path, capsys):
    data = np.zeros((6, 8, 5), np.float32)
    mask = np.zeros((6, 8, 5), np.uint8)
    mask[1:4, 2:5, 3] = 1  # 9 voxels on slice 3, the largest mask area
    nib.save(nib.Nifti1Image(data, np.diag([2.0, 1.0, 3.0, 1.0])), tmp_path / "v.nii.gz")
    nib.save(nib.Nifti1Image(mask, np.diag([2.0, 1.0, 3.0, 1.0])), tmp_path / "m.nii.gz")
    assert (
        main(
            [
                "render",
                str(tmp_path / "v.nii.gz"),
                "--mask",
                str(tmp_path / "m.nii.gz"),
                "--out",
                str(tmp_path / "v.png"),
                "--json",
            ]
        )
        == 0
    )
    facts = json.loads(capsys.readouterr().out)
    assert (facts["slice_index"], facts["axis"]) == (3, 2)
    assert facts["native_shape"] == [6, 8] and facts["overlay_pixels"] == 9


def test_render_of_a_file_without_pixels_exits_2_naming_it(capsys):
    assert main(["render", str(dicom_file("rtplan.dcm"))]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "rtplan.dcm" in err


def test_render_batch_renders_good_items_and_lists_bad_ones(tmp_path, capsys):
    from tests.conftest import item, write_benchmark

    root = write_benchmark(
        tmp_path / "b",
        {"ds1": [item("good"), item("bad", image="images/bad.dcm")]},
        {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")},
    )
    (root / "ds1" / "images" / "bad.dcm").write_bytes(b"not an image")
    assert main(["render-batch", str(root), "--out", str(tmp_path / "out"), "--json"]) == 1
    summary = json.loads(capsys.readouterr().out)
    assert summary["rendered"] == 1 and not summary["cancelled"]
    assert [f["item"] for f in summary["failed"]] == ["bad"] and "bad.dcm" in summary["failed"][0][
        "message"
    ]
    assert Image.open(tmp_path / "out" / "ds1" / "good.png").size == (128, 128)


def test_render_benchmark_stops_when_cancelled(tmp_path):
    from medrcube_desktop.core.dataset import load_benchmark
    from medrcube_desktop.imaging.batch import render_benchmark
    from tests.conftest import item, write_benchmark

    root = write_benchmark(
        tmp_path / "b",
        {"ds1": [item("a"), item("b")]},
        {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")},
    )
    cancel = threading.Event()
    seen = []

    def progress(record):
        seen.append(record.label)
        cancel.set()  # after the first item has started

    summary = render_benchmark(load_benchmark(root).items, tmp_path / "out", progress, cancel)
    assert seen == ["a"]
    assert summary.to_dict() == {"rendered": 1, "failed": [], "cancelled": True}


def test_negative_window_center_can_follow_the_option(tmp_path, capsys):
    out = tmp_path / "lung.png"
    assert (
        main(
            [
                "render",
                str(dicom_file("CT_small.dcm")),
                "--window",
                "-600,1500",
                "--out",
                str(out),
                "--json",
            ]
        )
        == 0
    )
    assert json.loads(capsys.readouterr().out)["window"] == [-600.0, 1500.0]


def test_implausible_pixel_spacing_is_ignored_not_fatal(tmp_path, capsys):
    ds = pydicom.dcmread(dicom_file("CT_small.dcm"))
    ds.PixelSpacing = [100000, 0.0001]
    ds.save_as(tmp_path / "huge.dcm")
    assert (
        main(["render", str(tmp_path / "huge.dcm"), "--out", str(tmp_path / "h.png"), "--json"])
        == 0
    )
    facts = json.loads(capsys.readouterr().out)
    assert facts["pixel_spacing_mm"] is None and facts["shape"] == [128, 128]


def test_render_batch_keeps_clashing_ids_apart_and_counts_refused_items(tmp_path, capsys):
    from tests.conftest import item, write_benchmark

    root = write_benchmark(
        tmp_path / "b",
        {"ds1": [item("a/b"), item("a_b"), item("gone", image="images/missing.dcm")]},
        {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")},
    )
    assert main(["render-batch", str(root), "--out", str(tmp_path / "out"), "--json"]) == 1
    summary = json.loads(capsys.readouterr().out)
    assert summary["rendered"] == 2 and [f["item"] for f in summary["failed"]] == ["gone"]
    assert sorted(p.name for p in (tmp_path / "out" / "ds1").iterdir()) == ["a_b-2.png", "a_b.png"]
