"""Model families of names as runs store them (``compare.families.model_family``)."""

import pytest

from medrcube_desktop.evaluation.compare.families import OTHER, model_family


@pytest.mark.parametrize(
    "model",
    [
        "OpenGVLab/InternVL3_5-8B",
        "InternVL3_5-8B",
        "/data/ckpt/InternVL3_5-8B/",
        "/data/ckpt/InternVL3_5-8B//",
        "C:\\models\\InternVL3_5-8B",
        "C:\\models\\InternVL3_5-8B\\",
        "D:/mixed\\models/InternVL3_5-8B",
    ],
)
def test_a_local_path_is_known_by_its_last_component(model):
    family = model_family(model)
    assert family.series == "InternVL" and family.group != OTHER


def test_an_unknown_path_takes_the_leading_word_of_its_last_component():
    assert model_family("/data/ckpt/foo-7b/") == model_family("foo-7b")
    assert model_family("/data/ckpt/foo-7b/").series == "foo"
    assert model_family("C:\\m\\Bar_2").series == "Bar"
