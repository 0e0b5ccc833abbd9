"""A small benchmark in three styles of ``test.json`` (indented, compact UTF-8, tabs) with
every kind of image and mask a release edits, and accepted corrections built by hand
(shared by the release tests; the store's ``accepted_corrections`` gives the same
objects)."""

from __future__ import annotations

import hashlib
import io
import json
import os
from pathlib import Path

import numpy as np

from medrcube_desktop.review.corrections import AcceptedCorrection, Decision, Proposal
from tests.conftest import dicom_file, item

AFFINE = np.array(
    [[-0.9, 0.0, 0.0, 40.0], [0.0, 1.1, 0.1, -30.0], [0.0, 0.0, 2.5, 12.0], [0.0, 0.0, 0.0, 1.0]]
)
"""The volume's voxel-to-RAS affine (mm): not the identity, so a lost affine shows."""

VOLUME_SHAPE = (20, 16, 6)


def records() -> dict[str, list[dict]]:
    """The records of each dataset folder."""
    ds1 = [
        item("ct-1", correct_index=1),  # CT = option_B: 0-based
        item(
            "ct-2",
            question="Which plane is shown?",
            option_A="Axial",
            option_B="Coronal",
            option_C="Sagittal",
            option_D="Oblique",
            gt_answer="Axial",
            task="View Identification",
        ),  # fmt: skip
        item("ct-3", bbox=[10, 12, 40, 50], question="What is in the box?"),
        item("ct-4", question="Which modality é?"),
    ]
    ds2 = [
        item("png-1", image="images/pic.png", mask_path="masks/pic_mask.png", dataset="ds2",
             question="Which organ is outlined in the mask ü?"),
        item("png-2", image="images/pic.png", dataset="ds2"),
        item("png-3", image="images/pic.png", dataset="ds2", correct_index=2),  # 1-based
    ]  # fmt: skip
    ds3 = [
        item("vol-1", image="vol/brain.nii.gz", mask_path="vol/brain_mask.nii.gz",
             dataset="ds3", modality="MRI", gt_answer="MRI", correct_index=0),
        item("vol-2", image="vol/brain.nii.gz", dataset="ds3", modality="MRI",
             gt_answer="MRI"),
    ]  # fmt: skip
    return {"ds1": ds1, "ds2": ds2, "ds3": ds3}


STYLES = {
    "ds1": {"indent": 2},  # json.dump's default escapes: "\u00e9"
    "ds2": {"separators": (",", ":"), "ensure_ascii": False},
    "ds3": {"indent": "\t", "ensure_ascii": False},
}
"""How each folder's test.json is written (json.dumps keyword arguments)."""


def mask_2d() -> np.ndarray:
    """(48, 64) uint8 labels of ``masks/pic_mask.png``: a block of 1 and one of 2."""
    labels = np.zeros((48, 64), np.uint8)
    labels[5:20, 8:30] = 1
    labels[30:40, 40:60] = 2
    return labels


def mask_3d() -> np.ndarray:
    """(20, 16, 6) uint8 labels of ``vol/brain_mask.nii.gz``: label 1 on slices 1-4."""
    labels = np.zeros(VOLUME_SHAPE, np.uint8)
    labels[4:12, 3:9, 1:5] = 1
    labels[14:18, 10:14, 2:4] = 3
    return labels


def build(root: Path) -> Path:
    """Write the benchmark under ``root`` and return it."""
    import nibabel as nib
    from PIL import Image

    for folder, rows in records().items():
        (root / folder).mkdir(parents=True)
        (root / folder / "test.json").write_text(json.dumps(rows, **STYLES[folder]), "utf-8")
    (root / "ds1" / "images").mkdir()
    (root / "ds1" / "images" / "ct.dcm").write_bytes(dicom_file("CT_small.dcm").read_bytes())
    (root / "ds1" / "notes.txt").write_text("not an item's file\n", "utf-8")
    (root / "README.md").write_text("the source benchmark\n", "utf-8")
    for sub in ("images", "masks"):
        (root / "ds2" / sub).mkdir()
    picture = (np.arange(48 * 64).reshape(48, 64) % 251).astype(np.uint8)
    Image.fromarray(picture).save(root / "ds2" / "images" / "pic.png")
    palette = Image.frombytes("P", (64, 48), mask_2d().tobytes())
    palette.putpalette([0, 0, 0, 255, 0, 0, 0, 255, 0] + [0] * (256 * 3 - 9))
    palette.save(root / "ds2" / "masks" / "pic_mask.png")
    (root / "ds3" / "vol").mkdir()
    rng = np.random.default_rng(7)
    volume = rng.integers(0, 900, VOLUME_SHAPE).astype(np.int16)
    nib.save(nib.Nifti1Image(volume, AFFINE), root / "ds3" / "vol" / "brain.nii.gz")
    mask = nib.Nifti1Image(mask_3d(), AFFINE)
    mask.header["descrip"] = b"labels of the source"
    nib.save(mask, root / "ds3" / "vol" / "brain_mask.nii.gz")
    return root


def npy(labels: np.ndarray) -> bytes:
    """``labels`` as a ``.npy`` file's bytes (``Proposal.mask_labels``)."""
    buffer = io.BytesIO()
    np.save(buffer, labels)
    return buffer.getvalue()


_COUNTER = iter(range(1, 10**6))


def accepted(
    item_id: str,
    kind: str,
    change: dict | None = None,
    *,
    rule: str = "1.3",
    author: str = "dr-a",
    decider: str = "dr-b",
    labels: np.ndarray | None = None,
    source_file: str = "",
) -> AcceptedCorrection:
    """One accepted correction, numbered in the order made (uid ``p<n>``, proposed at
    minute n, accepted an hour later)."""
    n = next(_COUNTER)
    proposal = Proposal(
        item_id=item_id, kind=kind, rule=rule, reason=f"reason {n}", author=author,
        change=change or {}, source_file=source_file,
        mask_labels=None if labels is None else npy(labels), uid=f"p{n:04d}",
        created_at=f"2026-12-01T{n // 60 % 24:02d}:{n % 60:02d}:00+00:00", app_version="test",
    )  # fmt: skip
    decision = Decision(
        proposal_uid=proposal.uid, decision="accepted", reason=f"agreed {n}", decider=decider,
        revision=1, uid=f"d{n:04d}", created_at=f"2026-12-02T{n // 60 % 24:02d}:{n % 60:02d}:00+00:00",
        app_version="test",
    )  # fmt: skip
    return AcceptedCorrection(proposal, decision)


def tree_hashes(root: Path) -> dict[str, str]:
    """Relative path → SHA-256 of every file under ``root`` (links followed)."""
    found = {}
    for folder, _, names in os.walk(root, followlinks=True):
        for name in names:
            path = Path(folder) / name
            found[path.relative_to(root).as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found
