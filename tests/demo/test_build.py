"""The demo benchmark: built from real public images, every answer checked at source.

The demo is built once per module. Each test recomputes what it checks from the
original package files with its own code, not with the builder's helpers.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
from collections import Counter, defaultdict
from pathlib import Path

import nibabel as nib
import numpy as np
import pydicom
import pytest
from PIL import Image
from scipy import ndimage

from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.core.taxonomy import Level, canonical_task
from medrcube_desktop.demo import build
from medrcube_desktop.demo.build import build_demo, ensure_demo
from medrcube_desktop.errors import DatasetError
from tests.conftest import dicom_file

MODALITY = {"CT": "CT", "MR": "MRI", "CR": "X-ray", "DX": "X-ray", "US": "Ultrasound"}
IDENTIFYING = ("PatientName", "PatientID", "PatientBirthDate", "InstitutionName", "StudyDate")
IMAGING_PATIENT_ATTRIBUTES = {"PatientPosition", "PatientOrientation", "PatientIdentityRemoved"}


def nilearn_file(name: str) -> Path:
    import nilearn

    return Path(nilearn.__file__).parent / "datasets" / "data" / name


T1 = "mni_icbm152_t1_tal_nlin_sym_09a_converted.nii.gz"


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> Path:
    calls: list[tuple[int, int | None, str]] = []
    root = build_demo(
        tmp_path_factory.mktemp("demo") / "bench",
        lambda p: calls.append((p.done, p.total, p.label)),
    )
    assert calls[-1][0] == calls[-1][1]  # progress ends at done == total
    return root


@pytest.fixture(scope="module")
def items(demo) -> list[dict]:
    records = []
    for path in sorted(demo.glob("*/test.json")):
        for record in json.loads(path.read_text(encoding="utf-8")):
            assert record["dataset"] == path.parent.name
            records.append(record)
    return records


@pytest.fixture(scope="module")
def manifest(demo) -> dict:
    return json.loads((demo / "MANIFEST.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def source_of(manifest):
    """Manifest entry of an item's image."""
    entries = {e["image_path"]: e for e in manifest["images"]}
    return lambda item: entries[f"{item['dataset']}/{item['image_path']}"]


def by_task(items, task_name):
    return [i for i in items if canonical_task(i["task"]).name == task_name]


def test_coverage(items):
    assert len(items) >= 24
    assert {i["modality"] for i in items} == {"CT", "MRI", "X-ray", "Ultrasound"}
    assert len({i["parts"] for i in items}) >= 3
    assert {i["dataset"] for i in items} == {"pydicom_testdata", "pydicom_data", "nilearn_mni152"}
    levels_by_image = defaultdict(set)
    for i in items:
        levels_by_image[(i["dataset"], i["image_path"])].add(canonical_task(i["task"]).level)
    assert set().union(*levels_by_image.values()) == set(Level)
    both = [
        k for k, lv in levels_by_image.items() if Level.HIGH in lv and lv & {Level.LOW, Level.MID}
    ]
    assert len(both) >= 3
    assert {"Abnormity Diagnosis", "View Identification"} <= {i["task"] for i in items}


def test_records_are_well_formed(items):
    assert len({i["id"] for i in items}) == len(items)
    for i in items:
        options = [i[f"option_{x}"] for x in "ABCD"]
        assert options.count(i["gt_answer"]) == 1, i["id"]
        assert len(set(options)) == 4
        assert i["source_fact"].strip()
    assert (
        len(Counter(next(x for x in "ABCD" if i[f"option_{x}"] == i["gt_answer"]) for i in items))
        == 4
    )


def test_loader_finds_no_problems(demo, items):
    benchmark = load_benchmark(demo)
    assert benchmark.problems == []
    assert len(benchmark.items) == len(items)


def test_its_masks_pass_the_deep_check_as_label_masks(demo, items):
    """The demo's masks (the MNI grey/white-matter masks, the liver lesion's PNG) are
    label masks: decoded, none refused as a picture, none empty."""
    from medrcube_desktop.imaging.deep_check import check_pictures

    benchmark = load_benchmark(demo)
    masked = [i for i in benchmark.items if i.mask_path is not None]
    assert len(masked) == sum("mask_path" in i for i in items) >= 4
    summary = check_pictures(masked, workers=2)
    assert summary.problems == [] and summary.clean == len(masked)


def test_modality_answers_match_original_headers(items, source_of):
    checked = 0
    for i in by_task(items, "Modality Recognition"):
        entry = source_of(i)
        if entry["source_package"] in ("pydicom", "pydicom-data"):
            original = pydicom.dcmread(dicom_file(entry["source_file"]), stop_before_pixels=True)
            assert i["gt_answer"] == MODALITY[original.Modality] == i["modality"]
            checked += 1
    assert checked >= 10


def test_view_answers_match_original_headers(items, source_of):
    for i in by_task(items, "View Recognition"):
        entry = source_of(i)
        if entry["source_package"] == "nilearn":
            continue
        original = pydicom.dcmread(dicom_file(entry["source_file"]), stop_before_pixels=True)
        if "ViewPosition" in original:
            assert i["gt_answer"] == original.ViewPosition
        else:
            assert i["gt_answer"] == "Axial"
            assert "AXIAL" in [v.strip() for v in original.ImageType]


def test_dicom_protocol_and_diagnosis_answers(items, source_of):
    (emri,) = [
        i
        for i in by_task(items, "Imaging Protocols Recognition")
        if i["dataset"] != "nilearn_mni152"
    ]
    assert "T1" in pydicom.dcmread(dicom_file(source_of(emri)["source_file"])).ImageType
    assert emri["gt_answer"] == "T1-weighted"
    (dd,) = by_task(items, "Disease Diagnosis")
    study = pydicom.dcmread(dicom_file("RG3_J2KR.dcm"), stop_before_pixels=True).StudyDescription
    assert source_of(dd)["source_file"] == "RG3_J2KR.dcm"
    assert dd["gt_answer"].lower() in study.lower()


@pytest.mark.filterwarnings("ignore:Invalid value for VR UI")
@pytest.mark.filterwarnings("ignore:The value length")
def test_copied_dicoms_are_deidentified_and_decode(demo, manifest):
    copies = [e for e in manifest["images"] if e["image_path"].endswith(".dcm")]
    assert len(copies) >= 10
    for entry in copies:
        copy = pydicom.dcmread(demo / entry["image_path"])
        original = pydicom.dcmread(dicom_file(entry["source_file"]))
        assert not any(k in copy for k in IDENTIFYING), entry["source_file"]
        # nothing about the person is left: the only Patient* attributes allowed describe
        # how the body lay in the scanner (PS3.3 C.7.3.1, C.7.6.1) or record de-identification
        patient = {e.keyword for e in copy.iterall() if e.keyword.startswith("Patient")}
        assert patient <= IMAGING_PATIENT_ATTRIBUTES, (entry["source_file"], patient)
        assert not any(element.tag.is_private for element in copy.iterall())
        assert copy.file_meta.TransferSyntaxUID == original.file_meta.TransferSyntaxUID
        assert copy.pixel_array.shape == original.pixel_array.shape
        assert np.array_equal(copy.pixel_array, original.pixel_array)
        assert copy.Modality == original.Modality


def test_ct_small_is_a_16_bit_png_of_stored_values(demo, manifest):
    (entry,) = [e for e in manifest["images"] if e["source_file"] == "CT_small.dcm"]
    png = Image.open(demo / entry["image_path"])
    original = pydicom.dcmread(dicom_file("CT_small.dcm"))
    assert png.mode == "I;16"
    assert np.array_equal(np.asarray(png), original.pixel_array)
    assert entry["rescale_slope"] == float(original.RescaleSlope)
    assert entry["rescale_intercept"] == float(original.RescaleIntercept) == -1024.0


def test_overlay_mask_fills_the_lesion_outline(demo, items):
    marked = [i for i in items if i.get("mask_path", "").endswith(".png")]
    assert {canonical_task(i["task"]).abbreviation for i in marked} == {"OR", "AD"}
    assert {i["gt_answer"] for i in marked} == {"Liver", "Focal liver lesion"}
    mask = np.asarray(Image.open(demo / marked[0]["dataset"] / marked[0]["mask_path"]))
    original = pydicom.dcmread(dicom_file("MR-SIEMENS-DICOM-WithOverlays.dcm"))
    overlay = original.overlay_array(0x6000).astype(bool)
    assert mask.dtype == np.uint8 and mask.shape == (original.Rows, original.Columns)
    assert set(np.unique(mask)) == {0, 255}
    region = mask > 0
    everything_enclosed = ndimage.binary_fill_holes(overlay)
    assert not (region & ~everything_enclosed).any()
    assert 500 < region.sum() < everything_enclosed.sum()  # not the square marker
    rim = region & ~ndimage.binary_erosion(region)
    assert overlay[rim].all()  # bounded by the drawn outline
    _, cols = np.nonzero(region)
    assert cols.max() < original.Columns / 2  # the liver is on the image's left


@pytest.mark.parametrize(("kind", "tissue"), [("gm", "Grey matter"), ("wm", "White matter")])
def test_tissue_masks_threshold_nilearn_probabilities(demo, items, kind, tissue):
    from nilearn.datasets import load_mni152_gm_template, load_mni152_wm_template

    load = load_mni152_gm_template if kind == "gm" else load_mni152_wm_template
    (item,) = [i for i in items if i["gt_answer"] == tissue]
    mask = nib.load(demo / "nilearn_mni152" / item["mask_path"])
    volume = nib.load(demo / "nilearn_mni152" / item["image_path"])
    probability = load(resolution=1)
    assert mask.get_data_dtype() == np.uint8
    assert mask.shape == volume.shape and np.allclose(mask.affine, volume.affine)
    assert np.array_equal(np.asarray(mask.dataobj) > 0, probability.get_fdata() > 0.5)
    assert nib.aff2axcodes(volume.affine) == ("R", "A", "S")


def test_t1_volume_is_an_exact_copy(demo):
    assert (demo / "nilearn_mni152/images/mni152_t1.nii.gz").read_bytes() == nilearn_file(
        T1
    ).read_bytes()


def test_slices_follow_radiology_orientation(demo, items):
    t1 = nib.as_closest_canonical(nib.load(nilearn_file(T1)))
    data = np.asarray(t1.dataobj, dtype=np.float64)  # (X, Y, Z): right, anterior, superior
    low, high = np.percentile(data[data > 0].astype(np.float32), [1, 99.5])
    nx, ny, nz = data.shape

    def window(values):
        return np.clip(np.rint((values - low) / (high - low) * 255), 0, 255)

    images = {
        p: np.asarray(Image.open(demo / f"nilearn_mni152/images/mni152_t1_{p}.png"))
        for p in ("axial", "coronal", "sagittal")
    }
    assert images["axial"].shape == (ny, nx)
    assert images["coronal"].shape == (nz, nx)
    assert images["sagittal"].shape == (nz, ny)
    row = (
        ny // 2 + 7
    )  # axial row r shows y = ny-1-r; column c shows x = nx-1-c (patient right on the left)
    expected = [window(data[nx - 1 - c, ny - 1 - row, nz // 2]) for c in range(nx)]
    assert np.abs(images["axial"][row].astype(int) - np.array(expected)).max() <= 1
    z = nz - 1 - 60  # coronal row 60 shows z = nz-1-60 (superior at the top)
    assert np.abs(images["coronal"][60].astype(int) - window(data[::-1, ny // 2, z])).max() <= 1
    assert np.abs(images["sagittal"][60].astype(int) - window(data[nx // 2, ::-1, z])).max() <= 1
    planes = {
        i["image_path"]: i["gt_answer"]
        for i in by_task(items, "View Recognition")
        if i["dataset"] == "nilearn_mni152"
    }
    assert planes == {
        f"images/mni152_t1_{p.lower()}.png": p for p in ("Axial", "Coronal", "Sagittal")
    }


def test_roi_box_sits_in_the_answered_quadrant(demo, items):
    (item,) = by_task(items, "Region of Interest Grounding")
    height, width = np.asarray(Image.open(demo / item["dataset"] / item["image_path"])).shape
    x0, y0, x1, y1 = item["bbox"]
    assert 0 <= x0 < x1 <= width and 0 <= y0 < y1 <= height
    assert abs((x1 - x0) - width / 5) <= 1 and abs((y1 - y0) - height / 5) <= 1
    vertical = "Upper" if (y0 + y1) / 2 < height / 2 else "Lower"
    horizontal = "left" if (x0 + x1) / 2 < width / 2 else "right"
    assert item["gt_answer"] == f"{vertical} {horizontal}"


def test_manifest_lists_every_file_with_provenance(demo, manifest):
    on_disk = {p.relative_to(demo).as_posix() for p in demo.glob("*/images/**/*") if p.is_file()}
    listed = [e["image_path"] for e in manifest["images"]]
    assert sorted(listed) == sorted(on_disk)
    assert manifest["created_by"] == "medrcube-desktop demo build"
    assert manifest["builder_version"] == build.BUILDER_VERSION
    for entry in manifest["images"]:
        assert entry["source_package"] in ("pydicom", "pydicom-data", "nilearn")
        assert entry["source_package_version"] == importlib.metadata.version(
            entry["source_package"]
        )
        assert entry["licence"] and entry["derived"] and entry["source_file"]
    assert {e["source_package"] for e in manifest["images"]} == {
        "pydicom",
        "pydicom-data",
        "nilearn",
    }


def test_build_refuses_a_folder_that_is_not_empty(tmp_path):
    (tmp_path / "keep.txt").write_text("x")
    with pytest.raises(DatasetError):
        build_demo(tmp_path)


def test_ensure_demo_builds_once_and_rebuilds_on_new_version(tmp_path, monkeypatch):
    target = tmp_path / "demo"
    assert ensure_demo(target) == target
    manifest = target / "MANIFEST.json"
    os.utime(manifest, (1_000_000, 1_000_000))
    ensure_demo(target)
    assert manifest.stat().st_mtime == 1_000_000  # current: left alone
    monkeypatch.setattr(build, "BUILDER_VERSION", "test-next")
    ensure_demo(target)
    assert json.loads(manifest.read_text())["builder_version"] == "test-next"
    assert manifest.stat().st_mtime != 1_000_000
    assert sorted(p.name for p in tmp_path.iterdir()) == ["demo"]  # no staging left


def test_ensure_demo_keeps_the_old_demo_when_a_build_fails(tmp_path, monkeypatch):
    target = tmp_path / "demo"
    target.mkdir()
    (target / "MANIFEST.json").write_text('{"builder_version": "old"}')

    def broken(out_dir, progress=None):
        (Path(out_dir) / "half.json").write_text("{")
        raise DatasetError("source missing")

    monkeypatch.setattr(build, "build_demo", broken)
    with pytest.raises(DatasetError):
        ensure_demo(target)
    assert json.loads((target / "MANIFEST.json").read_text()) == {"builder_version": "old"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["demo"]


@pytest.mark.parametrize("folder_existed", [False, True])
def test_a_demo_build_that_fills_the_disk_leaves_nothing_and_says_why(
    tmp_path, monkeypatch, folder_existed
):
    import errno

    steps = build.recipes()

    def full(root):
        (root / "half.dcm").write_bytes(b"DICM")  # what a write got out before the disk filled
        try:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        except OSError as exc:  # as pydicom re-raises: the traceback in the message, no errno
            raise OSError(f"With tag (7FE0,0010) got exception: {exc}\nTraceback ...") from exc

    monkeypatch.setattr(build, "recipes", lambda: [steps[0], ("full", full)])
    out = tmp_path / "demo"
    if folder_existed:
        out.mkdir()
    with pytest.raises(DatasetError) as raised:
        build_demo(out)
    assert str(raised.value) == (
        f"{out}: the demo could not be written (No space left on device); nothing was kept"
    )
    assert out.is_dir() == folder_existed and (not folder_existed or not any(out.iterdir()))
    from medrcube_desktop.cli.common import exit_status

    assert exit_status(raised.value) == 1  # a failed write, not bad input
