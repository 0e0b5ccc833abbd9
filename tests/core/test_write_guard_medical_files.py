"""The guarded writer never replaces a medical image (by content, whatever its name), a
benchmark's own files, or any file of a benchmark dataset folder, in a command that
loaded no benchmark (render, export-run, a screenshot); a folder output never lands in a
dataset folder, and a failed one names the real file and leaves no empty folder (issue 21,
second hostile trial)."""

from __future__ import annotations

import errno
import gzip
import shutil
from pathlib import Path

import pytest

from medrcube_desktop.cli import main
from medrcube_desktop.core.files import atomic_write, write_folder_all_or_nothing
from medrcube_desktop.core.write_guard import ProtectedFileError, medical_image

from ..conftest import dicom_file, item, nibabel_example, write_benchmark


def _nifti1(path: Path) -> Path:
    """A NIfTI-1 header by hand: sizeof_hdr 348, magic ``n+1\\0`` at byte 344."""
    header = bytearray(352)
    header[0:4] = (348).to_bytes(4, "little")
    header[344:348] = b"n+1\x00"
    path.write_bytes(bytes(header))
    return path


def _medical_files(folder: Path) -> dict[Path, str]:
    """Real medical files under names that say nothing → what :func:`medical_image`
    must call them."""
    folder.mkdir(parents=True, exist_ok=True)
    found = {}
    dcm = folder / "some.png"
    shutil.copy(dicom_file("CT_small.dcm"), dcm)
    found[dcm] = "a DICOM file"
    niigz = folder / "lone.nii.gz"
    shutil.copy(nibabel_example(), niigz)
    found[niigz] = "a NIfTI-1 volume"
    hidden = folder / "volume.png"  # gzip-compressed NIfTI under another name
    hidden.write_bytes(gzip.compress(_nifti1(folder / "plain.nii").read_bytes()))
    found[hidden] = "a NIfTI-1 volume"
    found[folder / "plain.nii"] = "a NIfTI-1 volume"
    nrrd = folder / "scan.dat"
    nrrd.write_bytes(b"NRRD0004\ntype: short\ndimension: 2\nsizes: 2 2\n\n" + bytes(8))
    found[nrrd] = "an NRRD volume"
    mha = folder / "scan.txt"
    mha.write_bytes(b"ObjectType = Image\nNDims = 2\nDimSize = 2 2\n")
    found[mha] = "a MetaImage (MHA/MHD) volume"
    return found


def test_a_medical_image_is_never_replaced_whatever_its_name(tmp_path):
    for path, kind in _medical_files(tmp_path / "loose").items():
        assert medical_image(path) == kind
        before = path.read_bytes()
        with pytest.raises(ProtectedFileError, match=kind.split()[-2]):
            atomic_write(path, b"\x89PNG\r\n\x1a\n fake")
        assert path.read_bytes() == before, path


def test_a_benchmarks_files_are_never_replaced_without_loading_it(tmp_path):
    bench = write_benchmark(
        tmp_path / "bench",
        {"ds1": [item("a", image="images/ct.dcm", mask_path="masks/mask.png")]},
        {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")},
    )
    mask = bench / "ds1" / "masks" / "mask.png"
    mask.parent.mkdir()
    mask.write_bytes(b"\x89PNG\r\n\x1a\n a mask")
    manifest = tmp_path / "elsewhere" / "MANIFEST.json"
    manifest.parent.mkdir()
    manifest.write_text("{}")
    for target in (mask, bench / "MANIFEST.json", manifest):
        if not target.exists():
            target.write_text("{}")
        before = target.read_bytes()
        with pytest.raises(ProtectedFileError, match="benchmark"):
            atomic_write(target, "{}\n")
        assert target.read_bytes() == before


def test_our_own_earlier_outputs_are_still_replaced(tmp_path):
    render = tmp_path / "ct.png"
    render.write_bytes(b"\x89PNG\r\n\x1a\n an earlier render")
    results = tmp_path / "results.json"
    results.write_text("[]")
    atomic_write(render, b"new")
    atomic_write(results, "[1]")
    assert render.read_bytes() == b"new"
    assert results.read_text() == "[1]"


def test_render_out_never_replaces_a_mask_or_a_volume(tmp_path):
    source = tmp_path / "x.dcm"
    shutil.copy(dicom_file("CT_small.dcm"), source)
    bench = write_benchmark(tmp_path / "bench", {"ds1": [item("a")]})
    mask = bench / "ds1" / "masks" / "mask.png"
    mask.parent.mkdir()
    mask.write_bytes(b"\x89PNG\r\n\x1a\n a mask")
    other_dcm = tmp_path / "some.dcm"
    shutil.copy(dicom_file("MR_small.dcm"), other_dcm)
    lone = tmp_path / "lone.nii.gz"
    shutil.copy(nibabel_example(), lone)
    for out in (mask, other_dcm, lone):
        before = out.read_bytes()
        assert main(["render", str(source), "--out", str(out)]) == 2
        assert out.read_bytes() == before, out


@pytest.mark.parametrize("through_link", [False, True])
def test_a_folder_output_inside_a_dataset_folder_is_refused(tmp_path, through_link):
    bench = write_benchmark(tmp_path / "bench", {"ds1": [item("a")]})
    out = bench / "ds1" / "cmp"
    if through_link:
        link = tmp_path / "reports"
        link.symlink_to(bench / "ds1")
        out = link / "cmp"
    with pytest.raises(ProtectedFileError, match="dataset"):
        write_folder_all_or_nothing(
            out, lambda stage: (stage / "a.txt").write_text("x") and ["a.txt"]
        )
    assert sorted(p.name for p in (bench / "ds1").iterdir()) == ["test.json"]


def test_a_full_disk_names_the_output_file_and_leaves_no_folder(tmp_path):
    out = tmp_path / "cmp"

    def write(stage: Path):
        raise OSError(errno.ENOSPC, "No space left on device", str(stage / "fig3.png"))

    with pytest.raises(OSError) as caught:
        write_folder_all_or_nothing(out, write)
    assert caught.value.errno == errno.ENOSPC
    assert caught.value.filename == str(out / "fig3.png")
    assert ".writing-" not in str(caught.value)
    assert not out.exists()
