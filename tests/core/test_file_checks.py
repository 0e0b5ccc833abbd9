"""Record checks at load, file checks later: confinement stays exact (issue 15, item 1)."""

import os
import threading

import pytest

from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.core.file_checks import require_item_files
from medrcube_desktop.errors import ImageLoadError
from medrcube_desktop.imaging.render import render_item
from tests.conftest import dicom_file, item, write_benchmark


@pytest.fixture
def escaping(tmp_path):
    """A benchmark whose items reach a file outside the root through a file link, a
    folder link, and a link inside the root (allowed), beside a good item."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "ct.dcm").write_bytes(dicom_file("CT_small.dcm").read_bytes())
    root = write_benchmark(
        tmp_path / "b",
        {
            "ds1": [
                item("good"),
                item("file-link", image="images/evil.dcm"),
                item("folder-link", image="linked/ct.dcm"),
                item("inner-link", image="images/alias.dcm"),
                item("missing", image="images/gone.dcm"),
            ]
        },
        {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")},
    )
    os.symlink(outside / "ct.dcm", root / "ds1" / "images" / "evil.dcm")
    os.symlink(outside, root / "ds1" / "linked")
    os.symlink(root / "ds1" / "images" / "ct.dcm", root / "ds1" / "images" / "alias.dcm")
    return root


def test_validate_refuses_links_out_of_the_root_and_keeps_links_inside(escaping):
    bench = load_benchmark(escaping)  # check_files=True: what validate runs
    assert [i.id for i in bench.items] == ["good", "inner-link"]
    messages = {p.item: p.message for p in bench.problems}
    assert messages == {
        "file-link": "'images/evil.dcm' leaves the benchmark root",
        "folder-link": "'linked/ct.dcm' leaves the benchmark root",
        "missing": "file not found: ds1/images/gone.dcm",
    }


def test_lazy_load_keeps_them_and_the_background_pass_finds_the_same_problems(escaping):
    eager = load_benchmark(escaping)
    lazy = load_benchmark(escaping, check_files=False)
    assert not lazy.problems and len(lazy.items) == 5
    assert list(lazy.check_files()) == eager.problems


def test_rendering_refuses_an_image_whose_real_path_leaves_the_root(escaping):
    items = {i.id: i for i in load_benchmark(escaping, check_files=False).items}
    for name in ("file-link", "folder-link"):
        with pytest.raises(ImageLoadError, match=f"item {name} field image_path: .*leaves"):
            render_item(items[name])
    with pytest.raises(ImageLoadError, match="file not found"):
        require_item_files(items["missing"])
    assert render_item(items["inner-link"]).rgba.shape[2] == 4


def test_a_link_made_after_loading_is_refused_when_shown(escaping):
    items = {i.id: i for i in load_benchmark(escaping, check_files=False).items}
    render_item(items["good"])
    target = escaping / "ds1" / "images" / "ct.dcm"
    os.replace(target, escaping.parent / "outside" / "moved.dcm")
    os.symlink(escaping.parent / "outside" / "moved.dcm", target)
    with pytest.raises(ImageLoadError, match="leaves the benchmark root"):
        render_item(items["good"])


def test_lexical_escape_is_refused_at_load_without_the_file_system(tmp_path):
    root = write_benchmark(
        tmp_path / "b",
        {"ds1": [item("up", image="../../x.png"), item("abs", image="/etc/passwd")]},
    )
    bench = load_benchmark(root, check_files=False)
    assert {p.item: p.message for p in bench.problems} == {
        "up": "'../../x.png' leaves the benchmark root",
        "abs": "'/etc/passwd' is absolute; paths must be relative to the folder of test.json",
    }


def test_the_background_pass_stops_when_cancelled(escaping):
    cancel = threading.Event()
    cancel.set()
    assert list(load_benchmark(escaping, check_files=False).check_files(cancel)) == []


def test_a_mask_of_the_wrong_kind_is_found_by_the_background_pass(tmp_path):
    root = write_benchmark(
        tmp_path / "b",
        {"ds1": [item("m", mask_path="images/mask.jpg")]},
        {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")},
    )
    (root / "ds1" / "images" / "mask.jpg").write_bytes(b"\xff\xd8")
    lazy = load_benchmark(root, check_files=False)
    assert [(p.item, p.field) for p in lazy.check_files()] == [("m", "mask_path")]


def test_a_series_folder_of_links_to_files_outside_is_no_series(tmp_path):
    """A DICOM series folder inside the root holding links to slices elsewhere: its
    slices are never read (the folder itself is inside, its files are not)."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "ct.dcm").write_bytes(dicom_file("CT_small.dcm").read_bytes())
    root = write_benchmark(tmp_path / "b", {"ds1": [item("series", image="linkser")]},
                           {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")})  # fmt: skip
    (root / "ds1" / "linkser").mkdir()
    os.symlink(outside / "ct.dcm", root / "ds1" / "linkser" / "1.dcm")
    problems = load_benchmark(root).problems
    assert [(p.item, p.field) for p in problems] == [("series", "image_path")]
    (lazy,) = load_benchmark(root, check_files=False).items
    with pytest.raises(ImageLoadError):
        render_item(lazy)


def test_an_evaluation_never_sends_a_file_outside_the_root(escaping):
    """The model's image goes through the same confinement as the window's."""
    from medrcube_desktop.evaluation.prepare import prepare_one

    items = {i.id: i for i in load_benchmark(escaping, check_files=False).items}
    for name in ("file-link", "folder-link"):
        image, source, error, _ = prepare_one(items[name], 28, 1280 * 28 * 28, None)
        assert image is None and source == "failed" and "leaves the benchmark root" in error
    image, source, _, _ = prepare_one(items["inner-link"], 28, 1280 * 28 * 28, None)
    assert image is not None


def test_a_file_replaced_with_its_old_time_kept_is_read_again(tmp_path):
    """cp -p / rsync -t keep the modification time: the render must not show the old
    picture from a cache keyed by it."""
    import numpy as np
    from PIL import Image

    root = write_benchmark(tmp_path / "b", {"ds1": [item("p", image="images/p.png")]})
    picture = root / "ds1" / "images" / "p.png"
    picture.parent.mkdir(parents=True, exist_ok=True)
    ramp = (np.arange(64).reshape(8, 8) * 4).astype(np.uint8)
    Image.fromarray(ramp).save(picture)
    (p,) = load_benchmark(root).items
    first = render_item(p).rgba[0, 0, 0]
    stamp = os.stat(picture)
    Image.fromarray(255 - ramp).save(picture)  # the same size, other pixels
    os.utime(picture, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))  # the old time kept
    assert render_item(p).rgba[0, 0, 0] != first


def _both_kinds_benchmark(tmp_path):
    """Items with a record problem and a file problem at once (and a few around them)."""
    outside = tmp_path / "outside.dcm"
    outside.write_bytes(dicom_file("CT_small.dcm").read_bytes())
    root = write_benchmark(
        tmp_path / "b",
        {
            "ds1": [
                item("good"),
                item("both", image="images/gone.dcm", question=""),
                item("mask", task="no such task", mask_path="masks/gone.png"),
                item("escape", image="images/evil.dcm", gt_answer="Heart"),
                item("bad-path", image="../../out.dcm", question=""),  # one problem per field
                item("restricted", image="images/r.png", restricted=True, question=""),
                item("files-only", image="images/gone2.dcm"),
            ]
        },
        {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")},
    )
    os.symlink(outside, root / "ds1" / "images" / "evil.dcm")
    return root


def test_the_background_file_check_lists_what_validate_lists(tmp_path):
    root = _both_kinds_benchmark(tmp_path)
    eager = load_benchmark(root)  # what validate lists
    deferred = load_benchmark(root, check_files=False)
    later = list(deferred.check_files())
    assert sorted(map(str, deferred.problems + later)) == sorted(map(str, eager.problems))
    assert {(p.item, p.field) for p in later} == {
        ("both", "image_path"), ("mask", "mask_path"), ("escape", "image_path"),
        ("files-only", "image_path"),
    }  # fmt: skip
    assert not any(p.item == "restricted" and p.field == "image_path" for p in later)
