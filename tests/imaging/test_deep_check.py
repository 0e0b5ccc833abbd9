"""``validate --deep``: what only decoding finds is a problem of the benchmark, named by
file, item and field, while ``validate`` alone (records and files) lets it through."""

import json
import threading

import numpy as np
import pydicom
from PIL import Image

from medrcube_desktop.cli import main
from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.imaging.deep_check import check_pictures
from tests.conftest import dicom_file, item, write_benchmark


def _bench(tmp_path):
    rows, cols = pydicom.dcmread(dicom_file("CT_small.dcm")).pixel_array.shape  # 128 x 128
    root = write_benchmark(
        tmp_path / "b",
        {
            "ds1": [
                item("good"),
                item("labels", mask_path="images/labels.png"),  # a picture given as a mask
                item("grid", mask_path="images/small.png"),  # a mask on another grid
                item("cut", image="images/cut.dcm"),  # the pixel data cut short
                item("fine-mask", mask_path="images/ok.png"),
            ]
        },
        {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")},
    )
    images = root / "ds1" / "images"
    ramp = (np.arange(rows * cols) % 1000).reshape(rows, cols).astype(np.uint16)
    Image.fromarray(ramp).save(images / "labels.png")  # 1,000 labels
    Image.fromarray(np.zeros((rows // 2, cols // 2), np.uint8)).save(images / "small.png")
    ok = np.zeros((rows, cols), np.uint8)
    ok[40:60, 40:60] = 1
    Image.fromarray(ok).save(images / "ok.png")
    whole = dicom_file("CT_small.dcm").read_bytes()
    (images / "cut.dcm").write_bytes(whole[: len(whole) - 20_000])
    return root


def test_decoding_finds_what_the_record_and_file_checks_cannot(tmp_path, capsys):
    root = _bench(tmp_path)
    benchmark = load_benchmark(root)
    assert [i.id for i in benchmark.items] == ["good", "labels", "grid", "cut", "fine-mask"]
    assert benchmark.problems == []  # the files are there: validate alone finds nothing
    summary = check_pictures(benchmark.items, workers=2)
    assert summary.checked == 5 and not summary.cancelled
    found = {(p.file, p.item, p.field) for p in summary.problems}
    assert found == {
        ("ds1/test.json", "labels", "mask_path"),
        ("ds1/test.json", "grid", "mask_path"),
        ("ds1/test.json", "cut", "image_path"),
    }
    by_item = {p.item: p.message for p in summary.problems}
    assert "labels.png" in by_item["labels"] and "255" in by_item["labels"]
    assert "small.png" in by_item["grid"]
    assert "cut.dcm" in by_item["cut"]

    assert main(["validate", str(root)]) == 0
    capsys.readouterr()
    assert main(["validate", "--deep", str(root), "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["deep"]["checked"] == 5 and len(data["problems"]) == 3
    assert {p["item"] for p in data["problems"]} == {"labels", "grid", "cut"}


def test_a_cancel_stops_between_items_and_says_so(tmp_path):
    root = _bench(tmp_path)
    items = load_benchmark(root).items * 20  # 100 items
    cancel = threading.Event()
    seen = []

    def progress(record):
        seen.append(record.done)
        if record.done == 3:
            cancel.set()

    summary = check_pictures(items, progress, cancel, workers=1)
    assert summary.cancelled and 3 <= summary.checked < len(items)
    assert seen[0] == 0 and seen[-1] == summary.checked


def test_an_empty_mask_a_box_off_the_image_a_photo_and_the_image_itself_are_problems(
    tmp_path, capsys
):
    rows, cols = pydicom.dcmread(dicom_file("CT_small.dcm")).pixel_array.shape  # 128 x 128
    photo = (np.add.outer(np.arange(rows), 3 * np.arange(cols)) % 200 + 20).astype(np.uint8)
    root = write_benchmark(
        tmp_path / "b",
        {
            "ds1": [
                item("empty", mask_path="images/empty.png"),
                item("off", bbox=[cols + 10, 5, cols + 40, 30]),  # right of the image
                item("edge", bbox=[cols - 1, rows - 1, cols + 40, rows + 30]),  # one pixel on
                item("photo", mask_path="images/photo.png"),
                item("itself", image="images/p.png", mask_path="images/p.png"),
                item("volume", image="images/vol.nii.gz", mask_path="images/vmask.nii.gz"),
            ]
        },
        {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")},
    )
    images = root / "ds1" / "images"
    Image.fromarray(np.zeros((rows, cols), np.uint8)).save(images / "empty.png")
    Image.fromarray(photo).save(images / "photo.png")
    Image.fromarray(photo).save(images / "p.png")
    import nibabel as nib

    nib.save(nib.Nifti1Image(np.ones((6, 7, 4), np.float32), np.eye(4)), images / "vol.nii.gz")
    nib.save(nib.Nifti1Image(np.zeros((6, 7, 4), np.uint8), np.eye(4)), images / "vmask.nii.gz")
    benchmark = load_benchmark(root)
    assert benchmark.problems == []
    summary = check_pictures(benchmark.items, workers=2)
    found = {p.item: (p.field, p.message) for p in summary.problems}
    assert sorted(found) == ["empty", "itself", "off", "photo", "volume"]
    assert summary.checked == 6 and summary.clean == 1  # "edge" shows its corner pixel
    assert found["empty"] == (
        "mask_path",
        f"{images / 'empty.png'}: the mask labels no pixel: the question's region cannot be shown",
    )
    assert found["volume"][0] == "mask_path" and "labels no pixel" in found["volume"][1]
    assert found["off"] == (
        "bbox",
        f"the box {[float(cols + 10), 5.0, float(cols + 40), 30.0]} lies wholly outside the "
        f"image ({cols}x{rows} pixels, x = column, y = row): the question's region cannot "
        "be shown",
    )
    assert found["photo"][0] == "mask_path"
    assert found["photo"][1].startswith(
        f"{images / 'photo.png'}: 200 distinct values, 100 % of neighbouring pixels differ"
    )
    assert found["itself"][0] == "mask_path"
    assert "mask_path names the image itself" in found["itself"][1]

    assert main(["validate", "--deep", str(root), "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["deep"]["clean"] == 1 and len(data["problems"]) == 5
