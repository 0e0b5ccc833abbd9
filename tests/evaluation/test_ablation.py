"""Ablation pictures (issue 24): blank, swapped, noise, made from the size of the picture
the image run sends; what an OpenAI-compatible endpoint received is what is recorded."""

import base64
import hashlib
import io

import numpy as np
import pytest
from PIL import Image

from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.evaluation.ablation import GREY, files_digest, swap_donors
from medrcube_desktop.evaluation.engines.openai_engine import OpenAIEngine
from medrcube_desktop.evaluation.prepare import ImagePipeline
from medrcube_desktop.evaluation.runner import ImageOptions, run_evaluation, run_record
from medrcube_desktop.store import StudyStore
from tests.conftest import dicom_file, item, write_benchmark
from tests.llm.fake_openai import FakeOpenAI


@pytest.fixture
def dicoms(tmp_path):
    """Three items on real pydicom files of three sizes: CT 128 x 128, MR 64 x 64, and a
    CT with a box (rendered with its overlay)."""
    return write_benchmark(
        tmp_path / "b",
        {"ds1": [item("ct", question="scan ct?"),
                 item("mr", image="images/mr.dcm", modality="MR", question="scan mr?"),
                 item("box", bbox=[10, 10, 40, 40], question="scan box?")]},
        {"ds1/images/ct.dcm": dicom_file("CT_small.dcm"),
         "ds1/images/mr.dcm": dicom_file("MR_small.dcm")},
    )  # fmt: skip


def received(server):
    """``{question text: bytes of the picture}`` of every request the server got."""
    found = {}
    for request in server.requests:
        parts = request["body"]["messages"][0]["content"]
        url = next(p["image_url"]["url"] for p in parts if p["type"] == "image_url")
        found[parts[-1]["text"].split("?")[0]] = base64.b64decode(url.split(",", 1)[1])
    return found


def evaluate(bench, tmp_path, name, images):
    items = load_benchmark(bench).items
    store = StudyStore(tmp_path / "s.db")
    with FakeOpenAI() as server:
        engine = OpenAIEngine("m", [server.base_url], "not-needed")
        record = run_record(name, engine, "m", images, str(bench), image_run="m-openai")
        state = run_evaluation(items, store, record, engine, images)
        sent = received(server)
    assert state.failed == []
    return store.responses(name), sent, store.eval_run(name)


@pytest.mark.parametrize("cache", [True, False])
@pytest.mark.parametrize("mode", ["blank", "noise"])
def test_blank_and_noise_have_the_size_of_the_image_runs_picture(dicoms, tmp_path, mode, cache):
    """With the cache the size is the image run's record (nothing decoded); without it
    the item is rendered and the size worked out (sent_geometry), never resized."""
    options = ImageOptions(workers=0, cache=cache)
    normal, _, _ = evaluate(dicoms, tmp_path, "m-openai", options)
    ablated, sent, run = evaluate(
        dicoms, tmp_path, f"m-{mode}", ImageOptions(workers=0, cache=cache, mode=mode, seed=5)
    )
    assert (run.image_mode, run.image_run, run.params["image"]["seed"]) == (mode, "m-openai", 5)
    assert [normal[i].image["sent"] for i in ("ct", "mr", "box")] == [[128, 128], [64, 64],
                                                                       [128, 128]]  # fmt: skip
    for item_id, question in (("ct", "scan ct"), ("mr", "scan mr"), ("box", "scan box")):
        data = next(v for k, v in sent.items() if k.endswith(question))
        pixels = np.asarray(Image.open(io.BytesIO(data)))
        assert list(pixels.shape[:2]) == normal[item_id].image["sent"]
        if mode == "blank":
            assert pixels.dtype == np.uint8 and np.all(pixels == GREY)
        else:
            assert pixels.std() > 60  # uniform on 0..255: std 73.9
        image = ablated[item_id].image
        assert image["sha256"] == hashlib.sha256(data).hexdigest()
        assert image["blake2b"] == hashlib.blake2b(data, digest_size=16).hexdigest()
        assert image["ablation"] == mode and image["mode"] == normal[item_id].image["mode"]
        # the item's own picture's hash where it was at hand (the cache), else none
        assert image.get("of") == (normal[item_id].image["blake2b"] if cache else None)


def test_the_size_worked_out_is_the_one_rendered_image_sends():
    """sent_geometry against rendered_image's own resizing: shrunk, padded, stretched."""
    from medrcube_desktop.evaluation.ablation import sent_geometry

    assert sent_geometry(128, 128, 1.0, 28, 1003520)["sent"] == [128, 128]
    # 2000 x 1000 over a 1,003,520 budget: factor sqrt(0.50176) = 0.70835, int of each
    assert sent_geometry(1000, 2000, 1.0, 28, 1003520) == {
        "rendered": [1000, 2000], "sent": [708, 1416], "scaled": 0.708350, "padded": False,
    }  # fmt: skip
    assert sent_geometry(10, 40, 1.0, 28, 1003520)["sent"] == [28, 40]  # padded
    assert sent_geometry(50, 64, 2.0, 28, 1003520)["rendered"] == [100, 64]  # square pixels


def png(path, value, size=(40, 30)):
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(np.full(size[::-1], value, dtype=np.uint8)).save(path)


@pytest.fixture
def xrays(tmp_path):
    """Six chest X-rays of distinct pictures, a copy of the first under another name, and
    a brain MR alone in its group."""
    root = tmp_path / "x"
    for n in range(6):
        png(root / "ds1" / "images" / f"x{n}.png", 20 * n + 10)
    (root / "ds1/images/copy.png").write_bytes((root / "ds1/images/x0.png").read_bytes())
    png(root / "ds1" / "images" / "brain.png", 200)
    records = [item(f"x{n}", image=f"images/x{n}.png", modality="X-Ray") for n in range(6)]
    records += [item("copy", image="images/copy.png", modality="X-Ray"),
                item("brain", image="images/brain.png", modality="MR", parts="Brain")]  # fmt: skip
    write_benchmark(root, {"ds1": records})
    return load_benchmark(root).items


def swapped(items, seed):
    pipeline = ImagePipeline(items, 28, 1 << 20, workers=0, mode="swapped", seed=seed)
    return {p.item.id: p for p in pipeline}


def test_a_group_of_copies_of_one_file_says_why_none_is_a_swap(tmp_path):
    # two items on two names of the same bytes: "no other image" named the copy too
    root = tmp_path / "c"
    png(root / "ds1" / "images" / "a.png", 50)
    (root / "ds1/images/b.png").write_bytes((root / "ds1/images/a.png").read_bytes())
    write_benchmark(root, {"ds1": [item("a", image="images/a.png"),
                                   item("b", image="images/b.png")]})  # fmt: skip
    found = swapped(load_benchmark(root).items, 0)
    assert found["a"].image is None and found["b"].image is None
    assert found["a"].error == (
        "image: swapped: no other image of modality 'CT' and region 'Chest' among the run's "
        "items (only 1 copy of its own file's bytes, e.g. b.png, which would be no swap), so "
        "none can be sent in its place (not asked)"
    )


def test_swapped_takes_another_image_of_the_same_modality_and_region(xrays):
    by_id = {i.id: i for i in xrays}
    first = swapped(xrays, 1)
    for item_id in ("x0", "x1", "x2", "x3", "x4", "x5", "copy"):
        image = first[item_id].image
        donor = by_id[image.info["swapped_from"]]
        assert (donor.modality, donor.region) == ("X-Ray", "Chest")
        assert files_digest(donor) != files_digest(by_id[item_id])  # never the same picture
        assert image.data == donor.image_path.read_bytes()  # the donor's file as it is
    # the copy of x0 is never x0's donor, nor x0 the copy's
    assert first["x0"].image.info["swapped_from"] != "copy"
    assert first["copy"].image.info["swapped_from"] != "x0"
    # same seed: same choice; another seed: another one for some item of the six
    again = swapped(xrays, 1)
    choice = {i: p.image.info["swapped_from"] for i, p in first.items() if p.image}
    assert choice == {i: p.image.info["swapped_from"] for i, p in again.items() if p.image}
    others = [{i: p.image.info["swapped_from"] for i, p in swapped(xrays, s).items() if p.image}
              for s in (2, 3)]  # fmt: skip
    assert any(other != choice for other in others)
    # the brain MR has no other image in its group: not sent, and it says why
    assert first["brain"].image is None
    assert first["brain"].error == (
        "image: swapped: no other image of modality 'MR' and region 'Brain' among the run's "
        "items, so none can be sent in its place (not asked)"
    )
    assert swap_donors(by_id["brain"], xrays, 1) == ()


def test_noise_is_reproducible_by_seed_and_differs_by_seed(xrays):
    def noise(seed):
        pipeline = ImagePipeline(xrays[:2], 28, 1 << 20, workers=0, mode="noise", seed=seed)
        return {p.item.id: np.asarray(Image.open(io.BytesIO(p.image.data))) for p in pipeline}

    one, same, other = noise(1), noise(1), noise(2)
    assert one["x0"].shape == (30, 40)
    assert all(np.array_equal(one[i], same[i]) for i in one)
    assert not np.array_equal(one["x0"], other["x0"])
    assert not np.array_equal(one["x0"], one["x1"])  # each image its own noise


def test_the_size_without_the_cache_is_rendered_images_for_a_shrunk_and_a_padded_picture(
    tmp_path,
):
    from medrcube_desktop.evaluation.ablation import own_picture_info
    from medrcube_desktop.evaluation.images import rendered_image

    root = tmp_path / "big"
    (root / "ds1" / "images").mkdir(parents=True)
    ramp = np.linspace(0, 4095, 1300 * 900).reshape(900, 1300).astype(np.uint16)
    Image.fromarray(ramp).save(root / "ds1" / "images" / "big.png")  # 16-bit: rendered
    Image.fromarray(ramp[:12, :50]).save(root / "ds1" / "images" / "tiny.png")
    write_benchmark(root, {"ds1": [item("big", image="images/big.png"),
                                   item("tiny", image="images/tiny.png")]})  # fmt: skip
    for one in load_benchmark(root).items:
        made = rendered_image(one, 28, 1003520).info
        info, source = own_picture_info(one, 28, 1003520, None)
        assert source == "rendered"
        keys = ("rendered", "sent", "scaled", "padded", "mode")
        assert {k: info[k] for k in keys} == {k: made[k] for k in keys}
    assert made["padded"] is True and made["sent"] == [28, 50]  # the tiny one
