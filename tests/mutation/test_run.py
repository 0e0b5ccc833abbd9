"""tests/mutation/run.py without running mutmut: every module it names exists and has
tests, the work folder's pyproject runs pytest in one process, equivalent.md is read, and
the score counts a timeout as killed."""

import tomllib

from tests.mutation import run


def test_every_module_names_existing_sources_and_at_least_one_test_file():
    for name, module in run.MODULES.items():
        for source in module.sources:
            assert (run.ROOT / run.PKG / source).is_file(), (name, source)
        assert run.test_files(module), name
    assert set(run.IMPORTANT) <= set(run.MODULES)


def test_the_work_folders_pyproject_runs_one_module_in_one_process():
    config = tomllib.loads(run._pyproject(run.MODULES["evaluation.parse"]))
    assert "-n" not in config["tool"]["pytest"]["ini_options"]["addopts"].split()
    assert "no:xdist" in config["tool"]["pytest"]["ini_options"]["addopts"]
    mutmut = config["tool"]["mutmut"]
    assert mutmut["only_mutate"] == ["medrcube_desktop/evaluation/parse.py"]
    assert "tests/evaluation/test_parse.py" in mutmut["pytest_add_cli_args_test_selection"]
    assert all(
        t.startswith("tests/evaluation/test_parse")
        for t in mutmut["pytest_add_cli_args_test_selection"]
    )
    assert "tests.mutation.pytest_plugin" in mutmut["pytest_add_cli_args"]


def test_every_listed_equivalent_mutant_has_a_reason_and_names_a_listed_module():
    listed = run.equivalent()
    assert listed
    prefixes = {
        f"{run.PKG}.{s.removesuffix('.py').replace('/', '.')}."
        for m in run.MODULES.values()
        for s in m.sources
    }
    for key, why in listed.items():
        assert "__mutmut_" in key and len(why) > 10, key
        assert any(key.startswith(p) for p in prefixes), key


def test_the_score_is_killed_and_timeouts_over_the_mutants_run():
    counts = dict.fromkeys(run.COLUMNS, 0) | {"killed": 6, "timeout": 1, "survived": 3}
    counts["not checked"] = 50  # not run: not in the score
    assert run.score(counts) == 70.0
    assert run.score(dict.fromkeys(run.COLUMNS, 0)) is None


def test_a_listed_mutant_that_was_killed_or_is_gone_is_stale():
    stats = "medrcube_desktop.review.agreement.stats.x_compare__mutmut_"
    other = "medrcube_desktop.evaluation.parse.x_parse_answer__mutmut_1"
    listed = {f"{stats}1": "why", f"{stats}2": "why", f"{stats}3": "why", other: "why"}
    found = {f"{stats}1": "survived", f"{stats}2": "killed", f"{stats}4": "survived"}
    module = run.MODULES["agreement.stats"]
    # 2 killed, 3 no longer made; 1 still survives; parse's line is not this module's
    assert run.stale(found, listed, module) == [f"{stats}2", f"{stats}3"]
    # a run stopped at its budget: only a killed listing is judged
    assert run.stale(found | {f"{stats}5": "not checked"}, listed, module) == [f"{stats}2"]
