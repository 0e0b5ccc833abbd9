"""Shared fixtures: isolated settings folders, offscreen Qt, small real benchmarks."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

#: How long the interpreter may take to exit after the last test, in seconds.
EXIT_LIMIT_S = 120


def pytest_unconfigure(config):
    """After the summary, the interpreter still joins every non-daemon thread (a process
    pool's manager among them): if one never ends, print every thread's stack and exit
    with status 1 instead of hanging CI until its own limit with nothing printed."""
    import faulthandler
    import sys

    faulthandler.dump_traceback_later(EXIT_LIMIT_S, exit=True, file=sys.__stderr__)


def _selects_real(markexpr: str) -> bool:
    """Whether a ``-m`` expression selects the real-component tests (``real``, not
    ``not real``)."""
    return "real" in markexpr.replace("not real", "")


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config):
    """``-n auto`` (pyproject's addopts): one worker per core for the fast suite, but the
    real vLLM and transformers tests (README's second command, ``-m real``) in one
    process: each loads a model that takes the machine's memory and cores."""
    if _selects_real(config.option.markexpr or ""):
        return 0
    return None  # xdist's own count: the cores


def pytest_collection_modifyitems(config, items):
    """The tests marked ``slow`` first, in their order, then the rest in theirs: on
    several workers a long test started last would hold the run open alone."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@pytest.fixture(autouse=True)
def isolated_settings(tmp_path_factory, monkeypatch):
    """Every test gets its own data and config folders (never the user's real ones)."""
    base = tmp_path_factory.mktemp("medrcube-home")
    monkeypatch.setenv("MEDRCUBE_DATA_DIR", str(base / "data"))
    monkeypatch.setenv("MEDRCUBE_CONFIG_DIR", str(base / "config"))
    monkeypatch.setenv("MEDRCUBE_IMAGE_CACHE", str(base / "image-cache"))
    monkeypatch.setenv("XDG_STATE_HOME", str(base / "state"))  # engine children's logs
    return base


def dicom_file(name: str) -> Path:
    """Path of a pydicom / pydicom-data test file (never downloaded)."""
    from pydicom.data import get_testdata_file

    found = get_testdata_file(name, download=False)
    if found is None:
        pytest.fail(f"{name} is not installed (pydicom-data missing?)")
    return Path(str(found))


def item(item_id: str, image: str = "images/ct.dcm", **overrides) -> dict:
    """A valid record in the public MedRCube layout; ``overrides`` replace fields."""
    record = {
        "id": item_id,
        "question": "What is the imaging modality of this image?",
        "option_A": "MRI",
        "option_B": "CT",
        "option_C": "X-ray",
        "option_D": "Ultrasound",
        "gt_answer": "CT",
        "image_path": image,
        "task": "Modality Recognition",
        "modality": "CT",
        "parts": "Chest",
        "dataset": "ds1",
    }
    record.update(overrides)
    return {k: v for k, v in record.items() if v is not None}


def write_benchmark(
    root: Path, files: dict[str, object], images: dict[str, Path] | None = None
) -> Path:
    """Write ``{sub_folder: records or raw text}`` as test.json files and copy images.

    ``images`` maps a path relative to the root (``"ds1/images/ct.dcm"``) to a source file.
    """
    for folder, content in files.items():
        (root / folder).mkdir(parents=True, exist_ok=True)
        text = content if isinstance(content, str) else json.dumps(content)
        (root / folder / "test.json").write_text(text, encoding="utf-8")
    for rel, source in (images or {}).items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(source, root / rel)
    return root


@pytest.fixture
def ct_benchmark(tmp_path) -> Path:
    """Two good items on pydicom's CT_small.dcm (a real CT slice)."""
    return write_benchmark(
        tmp_path / "bench",
        {
            "ds1": [
                item("ct-1"),
                item(
                    "ct-2",
                    question="Which plane is shown?",
                    option_A="Axial",
                    option_B="Coronal",
                    option_C="Sagittal",
                    option_D="Oblique",
                    gt_answer="Axial",
                    task="View Identification",
                ),
            ]
        },
        {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")},
    )


def nibabel_example(name: str = "example4d.nii.gz") -> Path:
    """Path of a NIfTI file bundled with nibabel's tests (a real acquisition: example4d is
    a 128x96x24 fMRI series, int16, 2 x 2 x 2.2 mm voxels)."""
    from nibabel.testing import data_path

    path = Path(data_path) / name
    if not path.is_file():
        pytest.fail(f"{name} is not bundled with this nibabel")
    return path


def png16_file(path: Path, source: str = "MR_small.dcm") -> Path:
    """Write a real 16-bit greyscale PNG: the stored pixels of a pydicom test file (MR,
    values above 255), and return its path."""
    import numpy as np
    import pydicom
    from PIL import Image

    stored = pydicom.dcmread(dicom_file(source)).pixel_array
    values = np.clip(stored, 0, 65535).astype(np.uint16)
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(values).save(path)
    return path
