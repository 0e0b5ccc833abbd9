"""Issue 25's speed changes render what the code before them rendered, byte for byte, on
real files: every uncompressed pydicom test file (the plain header read, the native
frame, the overlay planes unpacked to bool), nibabel's NIfTI images and nilearn's MNI
template with its grey-matter map as a mask (the two-thread read, integer volumes kept
as read, the label count, the window of the foreground) and 8- and 16-bit PNGs made
here (the one-pass decode, its fallbacks).

Each case's fingerprint is the SHA-256 of its RGBA at the default window and at a
user's window, with the window used, the file's windows, the pixel spacing, the slice,
the notes and the error (paths replaced by the file's name). The pinned values were
computed by the code before issue 25 (commit 9063324) with
``python tests/seams/test_render_before_speed.py`` (its ``__main__``) run there.
"""

from __future__ import annotations

import hashlib
import json
import re
import struct
import sys
import warnings
import zlib
from pathlib import Path

import numpy as np
import pytest

UNCOMPRESSED = ("1.2.840.10008.1.2", "1.2.840.10008.1.2.1", "1.2.840.10008.1.2.2")
"""Implicit and explicit VR little endian, explicit VR big endian: the syntaxes whose
decode issue 25 changed (compressed ones go through decoders of their own, whose bytes
may change with their versions)."""

NILEARN = "nilearn/datasets/data/mni_icbm152_{}_tal_nlin_sym_09a_converted.nii.gz"
NIBABEL = ("anatomical.nii", "functional.nii", "example4d.nii.gz", "example_nifti2.nii.gz",
           "standard.nii.gz", "reoriented_anat_moved.nii")  # fmt: skip


def _dicom_cases() -> list[Path]:
    import pydicom
    from pydicom.data import get_testdata_files

    found = []
    for name in sorted(get_testdata_files()):
        path = Path(name)
        if path.suffix.lower() not in (".dcm", ""):
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ds = pydicom.dcmread(path, defer_size=1024)
        except Exception:  # not DICOM, or not readable by pydicom: other tests' concern
            continue
        meta = getattr(ds, "file_meta", None)
        syntax = str(meta.get("TransferSyntaxUID", "")) if meta is not None else ""
        if syntax in UNCOMPRESSED and "PixelData" in ds:
            found.append(path)
    return found


def _site_file(relative: str) -> Path | None:
    for folder in map(Path, sys.path):
        if (folder / relative).is_file():
            return folder / relative
    return None


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def _pngs(folder: Path) -> list[Path]:
    """Greyscale PNGs written here, chunk by chunk: 8 and 16 bits, one IDAT or several
    (one empty), cut short in the middle of its data, with gAMA, with data after IEND."""
    rng = np.random.default_rng(25)
    made = []
    for depth in (8, 16):
        values = rng.integers(0, 2**depth if depth == 8 else 4000, (41, 37))
        rows = values.astype(">u2" if depth == 16 else np.uint8).reshape(41, -1)
        data = zlib.compress(b"".join(b"\x00" + row.tobytes() for row in rows.view(np.uint8)))
        head = b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", struct.pack(">IIBBBBB", 37, 41, depth, 0, 0, 0, 0))  # fmt: skip
        end = _chunk(b"IEND", b"")
        variants = {
            "one": head + _chunk(b"IDAT", data) + end,
            "split": head
            + b"".join(
                _chunk(b"IDAT", data[a:b]) for a, b in [(0, 1), (1, 1), (1, 90), (90, len(data))]
            )
            + end,  # fmt: skip
            "cut": head + _chunk(b"IDAT", data[: len(data) // 2]) + end,
            "gama": head + _chunk(b"gAMA", struct.pack(">I", 45455)) + _chunk(b"IDAT", data) + end,
            "after_iend": head + _chunk(b"IDAT", data) + end + b"more" * 9,
        }
        for name, content in variants.items():
            path = folder / f"grey{depth}_{name}.png"
            path.write_bytes(content)
            made.append(path)
    return made


HEADERS = {
    "ds_1e400": [(0x00281050, "DS", b"1e400 "), (0x00281051, "DS", b"1e400 ")],
    "ds_spaces": [(0x00281050, "DS", b" 12 "), (0x00281051, "DS", b" 500")],
    "ds_plus": [(0x00281050, "DS", b"+5"), (0x00281051, "DS", b"+500")],
    "ds_multi": [(0x00281050, "DS", b"1\\2\\3 "), (0x00281051, "DS", b"10\\20 ")],
    "ds_nan": [(0x00281050, "DS", b"nan "), (0x00281051, "DS", b"inf ")],
    "ds_empty": [(0x00281050, "DS", b""), (0x00281051, "DS", b"")],
    "ds_slope_huge": [(0x00281053, "DS", b"1e308 "), (0x00281052, "DS", b"-1e308")],
    "ds_slope_inf": [(0x00281053, "DS", b"1e400 "), (0x00281052, "DS", b"0 ")],
    "ds_slope_text": [(0x00281053, "DS", b"abc "), (0x00281052, "DS", b"1.5")],
    "ds_spacing_multi": [(0x00280030, "DS", b"1\\2\\3 ")],
    "ds_spacing_one": [(0x00280030, "DS", b"0.5 ")],
    "ds_spacing_long": [(0x00280030, "DS", b"0.12345678901234567\\1 ")],
    "ds_nul": [(0x00280030, "DS", b"1\\2\x00")],
    "is_frames_huge": [(0x00280008, "IS", b"99999999999 ")],
    "is_frames_neg": [(0x00280008, "IS", b"-3")],
    "us_bits_odd": [(0x00280101, "US", b"\x10")],
    "us_pixrep_multi": [(0x00280103, "US", b"\x01\x00\x00\x00")],
    "cs_photo_lower": [(0x00280004, "CS", b"monochrome1 ")],
    "cs_photo_lead": [(0x00280004, "CS", b" MONOCHROME1")],
    "cs_photo_multi": [(0x00280004, "CS", b"MONOCHROME1\\MONOCHROME2 ")],
    "cs_voi_sigmoid": [
        (0x00281056, "CS", b"SIGMOID "),
        (0x00281050, "DS", b"600 "),
        (0x00281051, "DS", b"800 "),
    ],  # fmt: skip
    "cs_dx_orient": [(0x00080060, "CS", b"DX"), (0x00200020, "CS", b"L\\F ")],
    "cs_cr_orient_one": [(0x00080060, "CS", b"CR"), (0x00200020, "CS", b"LP")],
    "cs_inverse": [(0x20500020, "CS", b"INVERSE ")],
    "private_same_number": [
        (0x00291050, "DS", b"nan "),
        (0x00290010, "LO", b"ACME "),
        (0x00091050, "DS", b"5 "),
    ],  # fmt: skip
    "ds_iop_nan": [(0x00200037, "DS", b"1\\0\\0\\0\\1\\nan ")],
}
"""Header values a render reads, as the file holds them: each written into MR_small in
explicit and implicit VR little endian and into MR_small_bigendian (US byte-swapped)."""


def _raw(ds, tag: int, vr: str | None, value: bytes, implicit: bool, little: bool) -> None:
    from pydicom.dataelem import RawDataElement
    from pydicom.tag import Tag

    ds[tag] = RawDataElement(Tag(tag), vr, len(value), value, 0, implicit, little)


def _dicoms(folder: Path) -> list[Path]:
    """MR_small with awkward header values (:data:`HEADERS`) and overlay planes (wrong
    length, several frames, Bits Allocated other than 1, origin outside, OB)."""
    import copy

    import pydicom
    from pydicom.data import get_testdata_file
    from pydicom.errors import BytesLengthException
    from pydicom.uid import ImplicitVRLittleEndian

    little = pydicom.dcmread(get_testdata_file("MR_small.dcm"))
    big = pydicom.dcmread(get_testdata_file("MR_small_bigendian.dcm"))
    made = []

    def save(ds, name: str) -> None:
        path = folder / f"{name}.dcm"
        try:
            ds.save_as(path, enforce_file_format=True)
        except BytesLengthException:  # pydicom will not write it (an odd US, implicit VR)
            return
        made.append(path)

    for name, elements in HEADERS.items():
        for kind in ("explicit", "implicit", "big"):
            ds = copy.deepcopy(big if kind == "big" else little)
            for tag, vr, value in elements:
                if kind == "big" and vr == "US" and len(value) % 2 == 0:
                    value = b"".join(value[i : i + 2][::-1] for i in range(0, len(value), 2))
                implicit = kind == "implicit"
                _raw(ds, tag, None if implicit else vr, value, implicit, kind != "big")
            if kind == "implicit":
                ds.file_meta.TransferSyntaxUID = ImplicitVRLittleEndian
            save(ds, f"{name}_{kind}")
    bits = np.zeros((64, 64), bool)
    bits[10:30, 5:50] = True
    bits[0, :] = True
    packed = np.packbits(bits.ravel(), bitorder="little").tobytes()
    planes = {
        "plain": {}, "alloc16": {"alloc": 16}, "alloc0": {"alloc": 0},
        "short": {"data": packed[:-2]}, "long": {"data": packed + bytes(2)},
        "long_ff": {"data": packed + b"\xff" * 4}, "empty": {"data": b""},
        "rows_zero": {"rows": 0}, "half_grid": {"rows": 32, "data": packed[:256]},
        "frames1": {"frames": b"1 "}, "frames_plus": {"frames": b"+1"},
        "frames2": {"frames": b"2 ", "data": packed + packed}, "frames2_short": {"frames": b"2 "},
        "frames0": {"frames": b"0 "}, "frames_text": {"frames": b"x "},
        "origin_out": {"origin": (1000, -1000)}, "ob": {"vr": "OB"}, "implicit": {"implicit": True},
    }  # fmt: skip
    for name, plane in planes.items():
        ds = copy.deepcopy(little)
        implicit = plane.get("implicit", False)
        origin = b"".join(
            int(o).to_bytes(2, "little", signed=True) for o in plane.get("origin", (1, 1))
        )
        elements = [
            (0x60000010, "US", int(plane.get("rows", 64)).to_bytes(2, "little")),
            (0x60000011, "US", (64).to_bytes(2, "little")),
            (0x60000100, "US", int(plane.get("alloc", 1)).to_bytes(2, "little")),
            (0x60000102, "US", bytes(2)),
            (0x60000040, "CS", b"G "),
            (0x60000050, "SS", origin),
            (0x60003000, plane.get("vr", "OW"), plane.get("data", packed)),
        ]  # fmt: skip
        if "frames" in plane:
            elements.append((0x60000015, "IS", plane["frames"]))
        for tag, vr, value in elements:
            _raw(ds, tag, None if implicit else vr, value, implicit, True)
        if implicit:
            ds.file_meta.TransferSyntaxUID = ImplicitVRLittleEndian
        save(ds, f"overlay_{name}")
    return made


def fingerprint(path: Path, mask: Path | None = None, slice_index: int | None = None) -> str:
    """The case's render as a digest (see the module text)."""
    from medrcube_desktop.imaging.loading import load_slice
    from medrcube_desktop.imaging.render import compose_rgba

    def named(text: str) -> str:
        for p in (path, mask):
            if p is not None:
                text = text.replace(str(p), p.name)
        return text

    digest = hashlib.sha256()
    try:
        data = load_slice(path, slice_index, mask)
    except Exception as exc:
        digest.update(named(f"{type(exc).__name__}: {exc}").encode())
        return digest.hexdigest()
    facts = [data.file_windows, data.pixel_spacing, data.slice_index, data.slice_count,
             [named(n) for n in data.notes]]  # fmt: skip
    digest.update(repr(facts).encode())
    for window in (None, (40.0, 400.0)):
        rendered = compose_rgba(data, window=None if data.is_color else window)
        digest.update(np.ascontiguousarray(rendered.rgba).tobytes())
        digest.update(repr((rendered.window, [named(n) for n in rendered.notes])).encode())
    return digest.hexdigest()


def cases(folder: Path) -> dict[str, tuple[Path, Path | None, int | None]]:
    """Every case by name: the files found here and the PNGs written into ``folder``."""
    from nibabel.testing import data_path

    found: dict[str, tuple[Path, Path | None, int | None]] = {}
    for path in _dicom_cases():
        # a DICOMDIR's files have no suffix and a folder's number for a name
        name = path.name if path.suffix else f"{path.parent.name}/{path.name}"
        found[f"dicom/{name}"] = (path, None, None)
    for name in NIBABEL:
        path = Path(data_path) / name
        found[f"nibabel/{name}"] = (path, None, None)
        found[f"nibabel/{name}@0"] = (path, None, 0)
    t1, grey = _site_file(NILEARN.format("t1")), _site_file(NILEARN.format("gm"))
    if t1 is not None and grey is not None:
        found["nilearn/t1+gm"] = (t1, grey, None)
        found["nilearn/t1+gm@60"] = (t1, grey, 60)
        found["nilearn/gm+t1"] = (grey, t1, None)  # a picture's values as labels: refused
    for path in _pngs(folder):
        found[f"png/{path.name}"] = (path, None, None)
    for path in _dicoms(folder):
        found[f"made/{path.name}"] = (path, None, None)
    return found


PINNED_FILE = Path(__file__).with_name("render_before_speed.json")


CHANGED_ON_PURPOSE = {
    "dicom/badVR.dcm": "Number of Frames (0028,0008) is '1A', not one whole number",
    **{
        f"made/is_frames_huge_{kind}.dcm": "Pixel Data (7FE0,0010) holds less than expected "
        "(8192 vs 819199999991808 bytes) for 99999999999 frame(s) of 8192 bytes"
        for kind in ("explicit", "implicit", "big")
    },
}
"""Cases whose render changed since, and why: badVR's error said Python's ``invalid
literal for int()``, now the element and its value; a Number of Frames of 99999999999
said the operating system's ``[Errno 22] Invalid argument`` (pydicom seeking past the
file), now what the Pixel Data holds against what the frames need
(:func:`~medrcube_desktop.imaging.declared.check_native_frames`)."""


def test_every_case_renders_as_before_issue_25(tmp_path):
    pinned = json.loads(PINNED_FILE.read_text())
    here = cases(tmp_path)
    compared, differ = 0, []
    for name, (path, mask, slice_index) in here.items():
        if name not in pinned:  # a file this pydicom or nibabel has and that one had not
            continue
        now = fingerprint(path, mask, slice_index)
        if name in CHANGED_ON_PURPOSE:
            assert now != pinned[name], name
            from medrcube_desktop.errors import ImageLoadError
            from medrcube_desktop.imaging.loading import load_slice

            with pytest.raises(ImageLoadError, match=re.escape(CHANGED_ON_PURPOSE[name])):
                load_slice(path, slice_index, mask)
            continue
        if now != pinned[name]:
            differ.append(name)
        compared += 1
    assert differ == []
    # the core of the set is here wherever the test runs (pydicom, nibabel, nilearn and
    # the PNGs are the project's own dependencies)
    for name in ("dicom/MR_small.dcm", "dicom/CT_small.dcm", "dicom/MR-SIEMENS-DICOM-WithOverlays.dcm",
                 "nibabel/example4d.nii.gz", "nilearn/t1+gm", "png/grey16_cut.png",
                 "made/overlay_alloc16.dcm", "made/ds_multi_big.dcm"):  # fmt: skip
        assert name in here and name in pinned, name
    assert compared >= 180


if __name__ == "__main__":  # the pinned values, computed by the code on PYTHONPATH
    import tempfile

    with tempfile.TemporaryDirectory() as where:
        everything = {name: fingerprint(*case) for name, case in sorted(cases(Path(where)).items())}
    PINNED_FILE.write_text(json.dumps(everything, indent=1, sort_keys=True) + "\n")
    print(len(everything), "cases")
