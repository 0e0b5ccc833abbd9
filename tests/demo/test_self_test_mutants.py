"""The self-test's digests as written and compared, and the files it names (issue 26,
``python -m tests.mutation.run --modules demo.self_test``): the JSON keys and the mean's
4 digits, each problem line's words, every check's source file name, every bundled
source present, and a file outside the three packages refused."""

from pathlib import Path

import numpy as np
import pytest

from medrcube_desktop.demo import self_test
from medrcube_desktop.errors import DatasetError
from tests.demo.test_self_test import demo_items  # noqa: F401 (the module's fixture)


def test_a_digest_is_written_with_its_keys_and_the_mean_to_four_digits():
    rgba = np.zeros((2, 3, 4), np.uint8)
    rgba[0, 0] = (255, 128, 7, 255)  # mean (255 + 128 + 7 + 255) / 24 = 26.875
    d = self_test.digest("a.dcm", rgba)
    assert d.to_dict() == {
        "source": "a.dcm",
        "shape": [2, 3, 4],
        "sha256": d.sha256,
        "mean": 26.875,
    }
    assert len(d.sha256) == 64
    assert self_test.PixelDigest("b", (1, 1, 4), "ff", 12.3456789).to_dict()["mean"] == 12.3457


def test_each_problem_line_says_what_is_missing_on_which_side():
    same = {"source": "x", "shape": [2, 2, 4], "sha256": "aa", "mean": 1.0}
    problems = self_test.compare_digests({"b": same}, {"c": same})
    assert problems == ["b: not expected", "c: not rendered"]
    other = dict(same, shape=[2, 3, 4], mean=2.5)
    assert self_test.compare_digests({"a": same}, {"a": other}) == [
        "a (x): shape [2, 2, 4] mean 1.0, expected shape [2, 3, 4] mean 2.5"
    ]


def test_every_check_names_the_file_it_rendered(demo_items):  # noqa: F811
    found = self_test.render_checks(demo_items)
    picks = self_test.pick_items(demo_items)
    assert {c: found[c].source for c in self_test.DIRECT_DICOM} == self_test.DIRECT_DICOM
    assert {c: found[c].source for c in picks} == {c: i.image_path.name for c, i in picks.items()}
    # each check renders the kind of file it is named for
    assert picks["nifti_volume_with_mask"].image_path.name.endswith((".nii", ".nii.gz"))
    assert picks["nifti_volume_with_mask"].mask_path is not None
    assert "j2k" in picks["jpeg2000_demo_item"].image_path.name.lower()
    assert picks["png16"].image_path.suffix.lower() == ".png"


def test_every_bundled_source_is_a_file_and_the_t1_template_is_one():
    sources = self_test.bundled_sources()
    assert all(path.is_file() for path, _ in sources)
    from medrcube_desktop.demo.mni_sources import TEMPLATE

    assert TEMPLATE.format("t1") in {path.name for path, _ in sources}


def test_a_file_outside_the_three_packages_is_refused(tmp_path):
    stray = tmp_path / "x.dcm"
    stray.write_bytes(b"")
    with pytest.raises(DatasetError, match=r"x\.dcm: not inside pydicom, pydicom-data or nilearn$"):
        self_test._package_root(Path(stray))
