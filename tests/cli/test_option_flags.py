"""Every compare, agreement, experts and judge setting is declared once (issue 22 item 2):
the commands' flags, the library's defaults and the docs' tables are what the tables
(:mod:`medrcube_desktop.core.options` rows) say, and nothing else."""

from __future__ import annotations

import argparse
import inspect
from dataclasses import MISSING, fields

import pytest

from medrcube_desktop.cli import argtypes
from medrcube_desktop.cli.app import build_parser
from medrcube_desktop.cli.judge import TYPES as JUDGE_TYPES
from medrcube_desktop.cli.option_docs import DOCS, PAGES, page_text
from medrcube_desktop.cli.option_flags import value_type
from medrcube_desktop.evaluation import credibility, scoring
from medrcube_desktop.evaluation.compare import (
    credibility_models,
    credibility_stats,
    result,
    voxels,
)
from medrcube_desktop.evaluation.compare_options import (
    CREDIBILITY_PRESETS,
    RELEASE_DIFF,
    SETTINGS,
    CompareSettings,
)
from medrcube_desktop.evaluation.engine_options import ENGINE
from medrcube_desktop.evaluation.engines.base import SAMPLING_RANGES
from medrcube_desktop.evaluation.image_modes import IMAGE_OPTIONS
from medrcube_desktop.llm.config import JUDGE, MAX_CONCURRENCY, JudgeConfig
from medrcube_desktop.review import adjudication, studies
from medrcube_desktop.review.agreement import panel_run, run, stats
from medrcube_desktop.review.agreement_options import (
    AGREEMENT,
    ASSIGNMENT,
    MAX_BOOTSTRAP,
    QUEUE,
    STUDY,
)

NOT_SETTINGS = {
    "compare": {"-h", "--db", "--dataset", "--run", "--out", "--json", "--release-diff"},
    "credibility": {"-h", "--results", "--run", "--db", "--dataset", "--file-correct",
                    "--json"},
    "agreement": {"-h", "--db", "--reviewer", "--model", "--reviewer2", "--gold", "--study",
                  "--out", "--json", "--release"},
    "study": {"-h", "--dataset", "--db", "--name", "--n", "--json"},
    "adjudicate-queue": {"-h", "--db", "--dataset", "--reviewer", "--model", "--json"},
    "assign": {"-h", "--db", "--dataset", "--reviewer", "--new-reviewer", "--study",
               "--databases", "--json"},
    "judge": {"-h", "--dataset", "--db", "--limit", "--api-key-env", "--batch-out", "--json"},
}  # fmt: skip
"""The flags of each command that choose its inputs and outputs, not a setting: every
other flag must be a row of the command's table."""

TABLES = {
    "compare": {**SETTINGS, **RELEASE_DIFF},
    "credibility": {"preset": SETTINGS["preset"]},
    "agreement": AGREEMENT,
    "study": STUDY,
    "adjudicate-queue": QUEUE,
    "assign": ASSIGNMENT,
    "judge": JUDGE,
}
"""Each command's table (``credibility`` takes one row of compare's)."""

NARROWED = {("credibility", "preset"): CREDIBILITY_PRESETS}
"""Choices a command takes only some of."""

OWN_HELP = {
    ("credibility", "preset"): "pairing of credibility (paper Section 6, or the public "
    "script's; %(default)s)"
}
"""Rows whose flag a command shows with a help of its own (the row's text names a choice
the command narrows away: compare's ``both``)."""


def command_parser(command: str) -> argparse.ArgumentParser:
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices[command]


def setting_actions(command: str, parser=None) -> dict[str, argparse.Action]:
    """The actions of ``command``'s parser (or of ``parser``) by flag, its input/output
    flags left out."""
    found = {}
    for action in (parser or command_parser(command))._actions:
        flags = set(action.option_strings)
        if not flags or flags & NOT_SETTINGS[command]:
            continue
        (flag,) = flags  # one spelling per setting
        found[flag] = action
    return found


def differences(command: str, parser=None) -> list[str]:
    """What the parser of ``command`` (or ``parser``) says otherwise than its table
    (empty: nothing)."""
    table = TABLES[command]
    by_flag = {row.flag: row for row in table.values()}
    actions = setting_actions(command, parser)
    wrong = [f"{flag}: not in the table" for flag in actions.keys() - by_flag.keys()]
    wrong += [f"{flag}: no flag" for flag in by_flag.keys() - actions.keys()]
    for flag in actions.keys() & by_flag.keys():
        action, row = actions[flag], by_flag[flag]
        types = JUDGE_TYPES if command == "judge" else None
        want = {
            "dest": row.dest,
            "default": row.default,
            "required": row.required,
            "help": OWN_HELP.get((command, row.name), row.help),
        }
        if row.type is bool:
            want |= {"const": True, "nargs": 0}
        elif row.choices:
            want["choices"] = NARROWED.get((command, row.name), row.choices)
        else:
            want |= {"type": value_type(row, types), "metavar": row.metavar or None}
        for key, value in want.items():
            got = getattr(action, key)
            if key == "choices":
                got = tuple(got)
            if got != value:
                wrong.append(f"{flag}: {key} {got!r}, the table {value!r}")
    return sorted(wrong)


@pytest.mark.parametrize("command", list(TABLES))
def test_each_commands_flags_are_its_tables_rows(command):
    assert differences(command) == []


def test_a_flag_that_differs_from_its_row_is_caught(monkeypatch):
    """The wrong variants: a default typed again, a flag the table lacks."""
    parser = command_parser("compare")
    stability = next(a for a in parser._actions if "--stability" in a.option_strings)
    monkeypatch.setattr(stability, "default", 0)
    assert differences("compare", parser) == ["--stability: default 0, the table 100"]
    parser.add_argument("--linkage", default="average")
    assert "--linkage: not in the table" in differences("compare", parser)
    judge = command_parser("judge")
    timeout = next(a for a in judge._actions if "--timeout" in a.option_strings)
    monkeypatch.setattr(timeout, "type", float)
    assert differences("judge", judge) == [
        f"--timeout: type {float!r}, the table {argtypes.seconds!r}"
    ]


def defaults_of(function, rename=None) -> dict[str, object]:
    """``function``'s (or a dataclass's) parameters with a default, by the table's name."""
    rename = rename or {}
    found = {}
    for name, parameter in inspect.signature(function).parameters.items():
        if parameter.default is not inspect.Parameter.empty:
            found[rename.get(name, name)] = parameter.default
    return found


LIBRARY = [
    (CompareSettings, SETTINGS, {}),
    (result.compare_runs, SETTINGS, {}),
    (result.CompareResult, SETTINGS, {"leakage": "leakage rows"}),  # the rows, not the flag
    (result.voxel_rho, SETTINGS, {}),
    (voxels.voxel_matrix, SETTINGS, {}),
    (voxels.cluster_voxels, SETTINGS, {"k": "clusters"}),
    (voxels.cluster_stability, SETTINGS, {"k": "clusters", "n_boot": "n_stability"}),
    (credibility.pair_outcomes, SETTINGS, {}),
    (credibility.image_group_counts, SETTINGS, {}),
    (scoring.paired_figures, SETTINGS, {}),
    (credibility_models.model_pairs, SETTINGS, {}),
    (credibility_models.group_counts, SETTINGS, {}),
    (credibility_models.credibility_table, SETTINGS, {}),
    (credibility_stats.pair_index, SETTINGS, {}),
    (credibility_stats.image_counts, SETTINGS, {}),
    (credibility_stats.bootstrap_intervals, SETTINGS, {}),
    (stats.compare, AGREEMENT, {}),
    (stats.AgreementResult, AGREEMENT, {}),
    (run.run_study, AGREEMENT, {"evidence": "evidence figures"}),  # not the folder
    (panel_run.run_panel, AGREEMENT, {}),
    (panel_run.run_gold, AGREEMENT, {}),
    (studies.create_or_extend_study, STUDY, {}),
    (adjudication.build_queue, QUEUE, {}),
    (JudgeConfig, JUDGE, {}),
]
"""The library's functions and dataclasses that take a declared setting, with the names
they give some of them."""


def library_differences(function, table, rename) -> list[str]:
    got = defaults_of(function, rename)
    return [f"{function.__qualname__}({name}={got[name]!r}): the table {row.default!r}"
            for name, row in table.items() if name in got and got[name] != row.default]  # fmt: skip


@pytest.mark.parametrize(
    "function, table, rename", LIBRARY, ids=lambda x: getattr(x, "__qualname__", "")
)
def test_the_librarys_defaults_are_the_tables(function, table, rename):
    assert library_differences(function, table, rename) == []
    assert set(defaults_of(function, rename)) & set(table)  # it takes some of them


def test_one_runs_pairings_are_compares_but_both():
    assert credibility.PRESETS == CREDIBILITY_PRESETS == ("paper", "official")
    assert SETTINGS["preset"].choices == (*CREDIBILITY_PRESETS, "both")


def test_every_setting_of_a_library_dataclass_is_a_row():
    for cls, table in ((CompareSettings, SETTINGS), (JudgeConfig, JUDGE)):
        assert [f.name for f in fields(cls)] == list(table), cls
    (model,) = [f for f in fields(JudgeConfig) if f.default is MISSING]  # the required one
    assert model.name == "model" and JUDGE["model"].required


def test_a_library_default_typed_again_is_caught(monkeypatch):
    """The wrong variant: the old ``compare_runs(..., n_stability=0)``."""

    def compare_runs(matrix, min_items=5, clusters=3, n_stability=0):
        raise AssertionError

    compare_runs.__qualname__ = "compare_runs"
    assert library_differences(compare_runs, SETTINGS, {}) == [
        "compare_runs(n_stability=0): the table 100"
    ]


def test_the_library_computes_what_compare_prints_with_no_setting_passed(tmp_path, capsys):
    """The stability replicates were 100 in the command and the pane but 0 in
    :func:`compare_runs`: the library called without settings now gives the command's
    figures, the voxel tree's stability included (100 replicates)."""
    import json

    from medrcube_desktop.cli import main
    from medrcube_desktop.evaluation.compare import run_matrix
    from medrcube_desktop.evaluation.compare.inputs import scored_benchmark
    from medrcube_desktop.store import StudyStore
    from tests import parity_bench as pb

    root, db = pb.build(tmp_path)
    assert main(["compare", "--db", str(db), "--dataset", str(root), "--min-items", "3",
                 "--json"]) == 0  # fmt: skip
    printed = json.loads(capsys.readouterr().out)
    store = StudyStore(db)
    try:
        matrix = run_matrix(store, store.eval_run_names(), scored_benchmark(root).items)
    finally:
        store.close()
    computed = result.compare_runs(matrix, min_items=3)
    assert computed.n_stability == 100 and computed.stability is not None
    assert computed.stability.co_clustering.shape == (8, 8)  # the 8 voxels of 3 items
    assert computed.to_dict() == printed


def test_the_declared_ranges_are_what_the_parsers_accept():
    """Each whole-number row's ends are accepted by its flag's parser and one step beyond
    refused (the agreement bootstrap's upper end is the library's: the parser takes any
    count and :func:`~medrcube_desktop.review.agreement.stats.compare` refuses more)."""
    library_max = {("agreement", "bootstrap")}
    for command, table in TABLES.items():
        types = JUDGE_TYPES if command == "judge" else None
        for row in table.values():
            if row.type is not int or row.choices:
                continue
            parse = value_type(row, types)
            if row.minimum is not None:
                assert parse(str(int(row.minimum))) == row.minimum, (command, row.name)
                with pytest.raises(argparse.ArgumentTypeError):
                    parse(str(int(row.minimum) - 1))
            if row.maximum is not None and (command, row.name) not in library_max:
                assert parse(str(int(row.maximum))) == row.maximum, (command, row.name)
                with pytest.raises(argparse.ArgumentTypeError):
                    parse(str(int(row.maximum) + 1))
    assert AGREEMENT["bootstrap"].maximum == MAX_BOOTSTRAP == stats.MAX_BOOTSTRAP
    with pytest.raises(stats.TooManyDraws):
        stats.compare({}, {}, [], bootstrap=MAX_BOOTSTRAP + 1)
    assert JUDGE["concurrency"].maximum == MAX_CONCURRENCY
    low, high, _, _ = SAMPLING_RANGES["temperature"]
    assert (JUDGE["temperature"].minimum, JUDGE["temperature"].maximum) == (low, high)


@pytest.mark.parametrize("key", list(PAGES))
def test_the_committed_docs_tables_are_the_generated_ones(key):
    name, _, make = PAGES[key]
    committed = (DOCS / name).read_text(encoding="utf-8")
    assert page_text(key, committed) == committed, (
        f"docs/{name} is stale: run python -m medrcube_desktop.cli.option_docs"
    )
    tables = {"compare": SETTINGS, "judge": JUDGE, "engine": ENGINE, "image": IMAGE_OPTIONS}
    for row in (tables.get(key) or AGREEMENT).values():
        assert f"`{row.flag}`" in committed and row.help_text().split(";")[0] in committed


def test_a_docs_page_with_an_old_default_is_stale():
    """The wrong variant: the page as it would read with the library's old stability 0."""
    name, _, _ = PAGES["compare"]
    committed = (DOCS / name).read_text(encoding="utf-8")
    old = committed.replace(
        "| `--stability` | Stability | `100` |", "| `--stability` | Stability | `0` |"
    )
    assert old != committed and page_text("compare", old) != old


def test_the_declared_ranges_of_fractional_rows_are_what_the_parsers_accept():
    """Each float row's ends are accepted by its flag's parser and a value beyond either
    end refused there (so argparse's message names the flag and the range), as for the
    whole-number rows above. Fails on a row without a ``kind`` (a bare ``float``
    accepts ``--overlap 1.5``, refused later by ``assign`` without naming the flag)."""
    checked = []
    for command, table in TABLES.items():
        types = JUDGE_TYPES if command == "judge" else None
        for row in table.values():
            if row.type is not float or row.choices or not row.flag:
                continue
            parse = value_type(row, types)
            for end, beyond in ((row.minimum, -0.001), (row.maximum, 0.001)):
                if end is None:
                    continue
                assert parse(str(end)) == end, (command, row.name)
                with pytest.raises(argparse.ArgumentTypeError, match=_number_text(end)):
                    parse(str(end + beyond))
            checked.append((command, row.name))
    assert ("assign", "overlap") in checked


def _number_text(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)
