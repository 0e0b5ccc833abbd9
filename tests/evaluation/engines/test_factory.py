"""The engine a run gets for its image mode (issue 24): a text-only run on vLLM takes the
language-model-only path (image limit 0); the other engines and modes are as before."""

import dataclasses
import json
import sys
import types

import pytest

from medrcube_desktop.evaluation.engines.factory import EngineOptions, build_engine
from medrcube_desktop.evaluation.engines.vllm_backend import language_model_only


@pytest.mark.parametrize("mode, limit", [("image", 1), ("blank", 1), ("swapped", 1),
                                         ("noise", 1), ("text-only", 0)])  # fmt: skip
def test_vllm_sends_no_image_slot_for_a_text_only_run(mode, limit):
    offline = build_engine(EngineOptions(engine="vllm", model="m"), image_mode=mode)
    assert offline.engine_args()["limit_mm_per_prompt"] == {"image": limit}
    assert offline.describe()["limit_mm_per_prompt"] == {"image": limit}
    server = build_engine(EngineOptions(engine="vllm-server", model="m"), image_mode=mode)
    command = server.command(8000)
    assert command[command.index("--limit-mm-per-prompt") + 1] == json.dumps({"image": limit})


def test_the_child_adds_language_model_only_where_vllm_has_it(monkeypatch):
    args = {"model": "m", "limit_mm_per_prompt": {"image": 0}}

    def vllm_with(*names):
        engine_args = dataclasses.make_dataclass("EngineArgs", [(n, bool, False) for n in names])
        module = types.ModuleType("vllm.engine.arg_utils")
        module.EngineArgs = engine_args
        monkeypatch.setitem(sys.modules, "vllm.engine.arg_utils", module)

    vllm_with("model", "language_model_only")
    assert language_model_only(args) == {**args, "language_model_only": True}
    image_run = {"model": "m", "limit_mm_per_prompt": {"image": 1}}
    assert language_model_only(image_run) == image_run
    vllm_with("model")  # an older vLLM (0.11): the image limit 0 alone
    assert language_model_only(args) == args
