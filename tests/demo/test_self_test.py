"""The Qt-free half of ``self-test``: digests, their comparison, which demo items are
rendered, which source files the bundle carries."""

import numpy as np
import pytest

from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.demo import self_test
from medrcube_desktop.demo.build import build_demo
from medrcube_desktop.demo.dicom_sources import DICOM_RECIPES


@pytest.fixture(scope="module")
def demo_items(tmp_path_factory):
    return load_benchmark(build_demo(tmp_path_factory.mktemp("demo") / "d")).items


def test_a_digest_changes_with_one_pixel():
    rgba = np.zeros((4, 5, 4), np.uint8)
    first = self_test.digest("a.dcm", rgba)
    rgba[1, 2, 0] = 1
    second = self_test.digest("a.dcm", rgba)
    assert first.shape == (4, 5, 4) and first.sha256 != second.sha256
    assert second.to_dict()["shape"] == [4, 5, 4]


def test_compare_names_a_different_and_a_missing_check():
    same = {"source": "x", "shape": [2, 2, 4], "sha256": "aa", "mean": 1.0}
    other = dict(same, sha256="bb", mean=2.0)
    assert self_test.compare_digests({"a": same}, {"a": dict(same)}) == []
    problems = self_test.compare_digests({"a": same, "b": same}, {"a": other, "c": same})
    assert len(problems) == 3 and problems[0].startswith("a (x): ")
    assert "not expected" in problems[1] and "not rendered" in problems[2]


def test_the_demo_has_an_item_for_every_check(demo_items):
    picks = self_test.pick_items(demo_items)
    assert set(picks) == set(self_test.DEMO_ITEM_CHECKS)
    assert picks["nifti_volume_with_mask"].mask_path is not None
    assert self_test.png_bit_depth(picks["png16"].image_path) == 16


def test_every_check_renders_rgba(demo_items):
    found = self_test.render_checks(demo_items)
    assert set(found) == set(self_test.DIRECT_DICOM) | set(self_test.DEMO_ITEM_CHECKS)
    assert all(d.shape[2] == 4 and d.mean > 0 for d in found.values())


def test_the_bundle_carries_the_named_sources_and_no_other_test_file():
    names = {path.name for path, _ in self_test.bundled_sources()}
    wanted = {r.source_file for r in DICOM_RECIPES} | set(self_test.DIRECT_DICOM.values())
    assert wanted <= names
    assert len(names - wanted) == 4  # the three MNI templates and their description
    folders = {folder for _, folder in self_test.bundled_sources()}
    assert folders <= {"pydicom/data/test_files", "data_store/data",
                       "nilearn/datasets/data", "nilearn/datasets/description"}  # fmt: skip
