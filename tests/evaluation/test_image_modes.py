"""The one vocabulary of image modes (issue 24), right for runs stored before it."""

from types import SimpleNamespace

import pytest

from medrcube_desktop.evaluation.image_modes import (
    ABLATIONS,
    IMAGE_MODES,
    IMAGE_OPTIONS,
    check_image_mode,
    is_ablation,
    run_image_mode,
    run_image_seed,
    sends_image,
)


def test_the_modes_and_their_rows():
    assert IMAGE_MODES == ("image", "text-only", "blank", "swapped", "noise")
    assert ABLATIONS == ("text-only", "blank", "swapped", "noise")
    assert [m for m in IMAGE_MODES if sends_image(m)] == ["image", "blank", "swapped", "noise"]
    assert [m for m in IMAGE_MODES if is_ablation(m)] == list(ABLATIONS)
    assert IMAGE_OPTIONS["image_mode"].choices == IMAGE_MODES
    assert (IMAGE_OPTIONS["image_mode"].flag, IMAGE_OPTIONS["image_mode"].default) == (
        "--image", "image",
    )  # fmt: skip
    with pytest.raises(ValueError, match="image mode 'grey': not one of image, text-only"):
        check_image_mode("grey")


def test_a_run_of_before_modes_reads_as_image_or_text_only():
    old_image = SimpleNamespace(text_only=False, params={"image": {"text_only": False}})
    old_text = SimpleNamespace(text_only=True, params={})
    assert (run_image_mode(old_image), run_image_mode(old_text)) == ("image", "text-only")
    assert run_image_seed(old_image) is None
    swapped = SimpleNamespace(text_only=False, image_mode="swapped",
                              params={"image": {"mode": "swapped", "seed": 0}})  # fmt: skip
    assert (run_image_mode(swapped), run_image_seed(swapped)) == ("swapped", 0)
    assert run_image_seed(SimpleNamespace(params={"image": {"seed": True}})) is None


def test_every_ablation_mode_has_its_mark_and_an_image_run_none():
    from medrcube_desktop.evaluation.image_modes import mode_mark, mode_words

    assert [mode_mark(m) for m in ("image", "text-only", "blank", "swapped", "noise")] == [
        "",
        " (text only)",
        " (blank ablation)",
        " (swapped ablation)",
        " (noise ablation)",
    ]
    assert mode_mark("sepia") == ""
    assert mode_words("text-only") == (
        "Text only: no picture at all (the prior-leakage baseline, paper Table 4)"
    )
