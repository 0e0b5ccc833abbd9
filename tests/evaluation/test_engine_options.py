"""The engine options are declared once (:mod:`medrcube_desktop.evaluation.engine_options`,
issue 22 item 2): ``evaluate``'s flags, :class:`EngineOptions`, the factory's arguments to
each engine, the keys of each engine's ``describe()``, the Evaluate pane's fields and
``docs/evaluate-options.md`` are the table's rows, and nothing else."""

from __future__ import annotations

import argparse
import dataclasses
import json
from pathlib import Path

import pytest

from medrcube_desktop.cli import evaluate as cli_evaluate
from medrcube_desktop.cli.app import build_parser
from medrcube_desktop.cli.option_docs import DOCS, PAGES, page_text
from medrcube_desktop.cli.option_flags import value_type
from medrcube_desktop.evaluation import engine_options as eo
from medrcube_desktop.evaluation.engine_options import ENGINE, ENGINES, engine_kwargs
from medrcube_desktop.evaluation.engines.factory import EngineOptions, build_engine
from medrcube_desktop.evaluation.runner import OPERATIONAL_PARAMS

NOT_ENGINE = {"-h", "--dataset", "--db", "--text-only", "--image-workers",
              "--no-image-cache", "--run", "--limit", "--only-changed", "--json",
              "--image", "--image-seed", "--image-run"}  # fmt: skip
"""``evaluate``'s flags that are the run's, not the engine's."""

URL = "http://127.0.0.1:9/v1"

CHANGED = dict(max_pixels=1000, gpu_memory_utilization=0.5, kv_cache_memory_bytes=2**30,
               max_model_len=4096, enforce_eager=True, data_parallel_size=2,
               tensor_parallel_size=2, revision="r1", concurrency=3, timeout_s=5.0,
               max_attempts=2, chunk_size=7, temperature=0.5, top_p=0.9, max_tokens=100,
               seed=4)  # fmt: skip
"""A value other than the default for each option an engine's constructor takes."""


def evaluate_parser() -> argparse.ArgumentParser:
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices["evaluate"]


def parser_differences(parser) -> list[str]:
    """What ``evaluate``'s parser says otherwise than :data:`ENGINE` (empty: nothing)."""
    by_flag = {row.flag: row for row in ENGINE.values()}
    actions = {}
    for action in parser._actions:
        if action.option_strings and not set(action.option_strings) & NOT_ENGINE:
            (flag,) = action.option_strings
            actions[flag] = action
    wrong = [f"{flag}: not in the table" for flag in actions.keys() - by_flag.keys()]
    wrong += [f"{flag}: no flag" for flag in by_flag.keys() - actions.keys()]
    for flag in actions.keys() & by_flag.keys():
        action, row = actions[flag], by_flag[flag]
        want: dict[str, object] = {
            # --engine, --model: required by cmd_evaluate (--only-changed takes the run's)
            "dest": row.dest, "required": False,
            "default": [] if row.name == "base_urls" else row.default,
            "help": row.help,
        }  # fmt: skip
        if row.type is bool:
            want |= {"const": True, "nargs": 0}
        elif row.choices:
            want["choices"] = list(row.choices)
        else:
            want |= {"type": value_type(row, cli_evaluate.TYPES), "metavar": row.metavar}
        for key, value in want.items():
            got = getattr(action, key)
            if key == "choices":
                got = list(got)
            if got != value:
                wrong.append(f"{flag}: {key} {got!r}, the table {value!r}")
    return sorted(wrong)


def test_evaluates_flags_are_the_tables_rows():
    assert parser_differences(evaluate_parser()) == []


def test_a_stray_flag_or_a_default_typed_again_is_caught(monkeypatch):
    """The wrong variants: a flag the table lacks, and the old ``--concurrency`` default
    typed again as 8."""
    parser = evaluate_parser()
    parser.add_argument("--swap-space", type=int, default=4)
    assert parser_differences(parser) == ["--swap-space: not in the table"]
    parser = evaluate_parser()
    concurrency = next(a for a in parser._actions if "--concurrency" in a.option_strings)
    monkeypatch.setattr(concurrency, "default", 8)
    assert parser_differences(parser) == ["--concurrency: default 8, the table 16"]


def test_engine_options_reads_every_row_from_its_flag(tmp_path):
    args = evaluate_parser().parse_args(
        ["--dataset", str(tmp_path), "--db", str(tmp_path / "s.db"), "--engine", "vllm", "--model", "m", "--timeout", "7",
         "--base-url", URL, "--base-url", URL.replace("9", "8"), "--seed", "5",
         "--kv-cache-memory-bytes", "1K", "--enforce-eager"]
    )  # fmt: skip
    options = cli_evaluate.engine_options(args)
    assert set(options.values) == set(ENGINE)
    assert (options.timeout_s, options.seed, options.kv_cache_memory_bytes) == (7.0, 5, 1024)
    assert options.base_urls == [URL, "http://127.0.0.1:8/v1"] and options.enforce_eager
    assert options.concurrency == 16 and options.max_attempts == 3 and options.python is None


def test_engine_options_defaults_are_the_tables():
    options = EngineOptions(engine="hf", model="m")
    assert options.values == {**{n: r.default for n, r in ENGINE.items()}, "engine": "hf",
                              "model": "m", "base_urls": []}  # fmt: skip
    with pytest.raises(TypeError, match="no engine option swap_space"):
        EngineOptions(engine="hf", model="m", swap_space=4)
    with pytest.raises(TypeError, match="model needed"):
        EngineOptions(engine="hf")


def built(engine: str, **values):
    urls = [URL] if engine == "openai" else []
    return build_engine(EngineOptions(engine=engine, model="m", base_urls=urls, **values))


@pytest.mark.parametrize("engine", ENGINES)
def test_the_factory_passes_each_row_that_applies_to_the_engine(engine, monkeypatch):
    """Every keyword the factory gives the constructor is a row that applies to the
    engine, with the value asked for (none left at the class's own default)."""
    seen = {}
    import medrcube_desktop.evaluation.engines.local_engines as local
    import medrcube_desktop.evaluation.engines.openai_engine as remote
    import medrcube_desktop.evaluation.engines.vllm_engine as server

    cls = {"openai": remote.OpenAIEngine, "vllm-server": server.VLLMServerEngine,
           "vllm": local.VLLMEngine, "hf": local.HFEngine}[engine]  # fmt: skip

    def record(self, model, *args, **kwargs):
        seen.update(kwargs)

    monkeypatch.setattr(cls, "__init__", record)
    values = {k: v for k, v in CHANGED.items() if engine in ENGINE[k].engines}
    built(engine, **values, python="/bin/py")
    passed = {k: v for k, v in seen.items() if k not in ("sampling", "api_key")}
    want = engine_kwargs({**EngineOptions(engine=engine, model="m").values, **values,
                          "python": "/bin/py", "base_urls": [URL] if engine == "openai"
                          else []}, engine)  # fmt: skip
    assert passed == want
    rows = {n for n, r in ENGINE.items() if engine in r.engines} - eo.NOT_KEYWORDS
    assert set(passed) == rows and set(values) - set(eo.SAMPLING) <= set(passed)


def test_a_row_the_factory_forgets_is_caught():
    """The wrong variant: a row that applies to vllm but is not passed to it."""
    want = engine_kwargs(EngineOptions(engine="vllm", model="m").values, "vllm")
    forgot = {k: v for k, v in want.items() if k != "chunk_size"}
    rows = {n for n, r in ENGINE.items() if "vllm" in r.engines} - eo.NOT_KEYWORDS
    assert set(forgot) != rows


@pytest.mark.parametrize("engine", ENGINES)
def test_describe_records_only_the_tables_rows(engine):
    """Each key of ``describe()`` is a row that applies to the engine (under its
    recorded name) or one the engine fixes; each row it takes, with a changed value, is
    recorded under one of its names."""
    values = {k: v for k, v in CHANGED.items() if engine in ENGINE[k].engines}
    described = built(engine, **values).describe()
    assert set(described) <= eo.recorded_keys(engine), set(described) - eo.recorded_keys(engine)
    for name in values:
        keys = ENGINE[name].recorded_as or (name,)
        if engine not in eo.NOT_RECORDED.get(name, ()):
            assert set(keys) & set(described), (engine, name)


def test_a_describe_key_the_table_lacks_is_caught():
    assert "swap_space" not in eo.recorded_keys("vllm")
    assert "chunk_size" not in eo.recorded_keys("openai")  # vllm's only


BEFORE = json.loads((Path(__file__).with_name("engine_describe_before.json")).read_text())
"""``json.dumps(describe())`` of each engine as the code before the table wrote it (with
the defaults and with :data:`CHANGED`): stored with runs and compared on resume."""


def as_stored(params: dict) -> str:
    """``params`` as the store writes them (``store/evaluation.py``: keys sorted)."""
    return json.dumps(params, sort_keys=True)


@pytest.mark.parametrize("key", list(BEFORE))
def test_describe_is_byte_identical_to_the_code_before_the_table(key):
    # as stored: describe() now lists the options in the table's order, the store sorts
    engine, changed = key.rsplit("-", 1)
    described = built(engine, **(CHANGED if changed == "True" else {})).describe()
    assert as_stored(described) == as_stored(json.loads(BEFORE[key]))


@pytest.mark.parametrize("engine", ENGINES)
def test_describe_is_made_from_the_table(engine):
    """``describe()`` is :func:`~eo.recorded` (the rows it records as given, with their
    values) and what the engine makes itself (:func:`~eo.made_records`), nothing else."""
    values = {k: v for k, v in CHANGED.items() if engine in ENGINE[k].engines}
    made = built(engine, **values)
    described, rows = made.describe(), eo.recorded(made)
    assert {k: described[k] for k in rows} == rows
    assert set(described) - set(rows) <= eo.made_records(), set(described) - set(rows)
    for name in set(values) & set(rows):
        assert rows[name] == values[name], name


def test_a_describe_row_set_otherwise_is_caught(monkeypatch):
    """The wrong variant: ``revision`` without ``omitted_unset`` (the vllm engine would
    record ``revision: ''`` that the runs stored before never had)."""
    monkeypatch.setitem(ENGINE, "revision", dataclasses.replace(ENGINE["revision"],
                                                                omitted_unset=()))  # fmt: skip
    assert as_stored(built("vllm").describe()) != as_stored(json.loads(BEFORE["vllm-False"]))


OPERATIONAL_BEFORE = {
    "base_urls", "concurrency", "timeout_s", "max_attempts", "chunk_size", "attached_to",
    "gpu_memory_utilization", "kv_cache_memory_bytes", "data_parallel_size", "enforce_eager",
    "source", "records_sha256",
}  # fmt: skip
"""``runner.OPERATIONAL_PARAMS`` as the code before the table typed it."""


def test_the_operational_params_are_the_tables_operational_rows(monkeypatch):
    # vLLM's image limit: 0 for a text-only run since issue 24 (the language-model-only
    # path); a text-only run stored with 1 resumes
    assert OPERATIONAL_PARAMS - {"limit_mm_per_prompt"} == OPERATIONAL_BEFORE
    assert "limit_mm_per_prompt" in OPERATIONAL_PARAMS
    assert eo.operational_keys() == OPERATIONAL_BEFORE - {"source", "records_sha256"}
    # the wrong variant: the seed declared operational would let a resume change it
    monkeypatch.setitem(ENGINE, "seed", dataclasses.replace(ENGINE["seed"], operational=True))
    assert "seed" in eo.operational_keys()


def test_the_docs_table_is_the_generated_one():
    name, _, make = PAGES["engine"]
    committed = (DOCS / name).read_text(encoding="utf-8")
    assert name == "evaluate-options.md" and make() == eo.engine_options_markdown()
    assert page_text("engine", committed) == committed, "run python -m ...cli.option_docs"
    for row in ENGINE.values():
        assert f"| `{row.flag}` |" in committed
    stale = committed.replace("| `--max-attempts` | — | `3` |", "| `--max-attempts` | — | `5` |")
    assert stale != committed and page_text("engine", stale) != stale


def test_one_default_run_name():
    from medrcube_desktop.ui.evaluate import pane

    assert eo.default_run_name("Q/m", "vllm", True) == "Q/m-vllm-text-only"
    assert eo.default_run_name("m", "hf", False) == "m-hf"
    assert pane.default_run_name is eo.default_run_name is cli_evaluate.default_run_name


def pane_differences(pane) -> list[str]:
    """What the Evaluate pane's engine fields say otherwise than :data:`ENGINE`: a field
    that is no row, a labelled row without a field, a label or a fresh value that is
    not the row's (a None default shows as 0 or blank)."""
    from PySide6.QtWidgets import QCheckBox, QComboBox, QLabel, QLineEdit

    fields = pane.engine_fields
    labelled = {n for n, r in ENGINE.items() if r.label}
    wrong = [f"{n}: not in the table" for n in fields.keys() - ENGINE.keys()]
    wrong += [f"{n}: no field" for n in labelled - fields.keys()]
    shown = {w.text().replace("&", "") for w in pane.findChildren(QLabel)}
    shown |= {w.text() for w in pane.findChildren(QCheckBox)}
    from PySide6.QtWidgets import QFormLayout

    form = pane.layout().itemAt(0).layout()
    assert isinstance(form, QFormLayout)
    for row in range(form.rowCount()):
        label = form.itemAt(row, QFormLayout.ItemRole.LabelRole)
        if label is not None and label.widget() is not None:
            shown.add(label.widget().text().replace("&", ""))
    for name in fields.keys() & ENGINE.keys():
        row, field = ENGINE[name], fields[name]
        if row.label not in shown:
            wrong.append(f"{name}: label {row.label!r} not shown")
        if row.required or isinstance(field, QComboBox) or name == "base_urls":
            continue
        if isinstance(field, QCheckBox):
            got: object = field.isChecked()
        elif isinstance(field, QLineEdit):
            got = field.text() or None
        else:
            got = field.value() or (None if row.default is None else field.value())
        if got != row.default:
            wrong.append(f"{name}: shows {got!r}, the table {row.default!r}")
    return sorted(wrong)


@pytest.fixture
def pane(qtbot, tmp_path):
    from tests.conftest import dicom_file, item, write_benchmark
    from tests.ui.review.test_review_binding_window import open_window

    root = write_benchmark(
        tmp_path / "b", {"ds1": [item("m1")]}, {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")}
    )
    window, _ = open_window(qtbot, root, tmp_path / "s.db")
    pane = window.open_evaluate_pane()
    yield pane
    pane.close()


def test_the_panes_engine_fields_are_the_tables_rows(pane):
    assert pane_differences(pane) == []
    values = pane.engine_values()
    assert set(values) == set(pane.engine_fields)
    assert values["concurrency"] == 16 and values["max_model_len"] is None


def test_a_pane_field_that_differs_from_its_row_is_caught(pane):
    """The wrong variants: the data-parallel field starting at 2, and a field the table
    lacks."""
    from PySide6.QtWidgets import QSpinBox

    pane.data_parallel.setValue(2)
    pane.engine_fields["swap_space"] = QSpinBox()
    assert pane_differences(pane) == [
        "data_parallel_size: shows 2, the table 1",
        "swap_space: not in the table",
    ]
