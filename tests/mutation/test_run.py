"""tests/mutation/run.py without running mutmut: every module it names exists and has
tests, the work folder's pyproject runs pytest in one process, equivalent.md is read, and
the score counts a timeout as killed."""

import json
import tomllib

import pytest

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


def test_a_mutant_no_test_reaches_counts_against_the_score():
    counts = dict.fromkeys(run.COLUMNS, 0) | {"killed": 1, "no tests": 9}
    assert run.score(counts) == 10.0


def test_a_no_tests_mutant_does_not_hide_a_gone_listing():
    stats = "medrcube_desktop.review.agreement.stats.x_compare__mutmut_"
    listed = {f"{stats}1": "why", f"{stats}999": "why"}
    found = {f"{stats}1": "no tests", f"{stats}2": "killed"}
    # 999 is made no more; 1 is reached by no test, which refutes no listing
    assert run.stale(found, listed, run.MODULES["agreement.stats"]) == [f"{stats}999"]


DEGENERATE = "medrcube_desktop.review.agreement.degenerate.x_mean_undefined__mutmut_"


@pytest.mark.parametrize(
    ("lines", "says"),
    [
        ([f"- {DEGENERATE}1: no backticks"], "line 3: not a listing"),
        ([f"- `{DEGENERATE}1` no colon"], "line 3: not a listing"),
        ([f"- `{DEGENERATE}1`:   "], "line 3: not a listing"),
        ([f"- `{DEGENERATE} 1`: a space"], "line 3: not a listing"),
        ([f"* `{DEGENERATE}1`: another bullet"], "line 3: not a listing"),
        ([f"- `{DEGENERATE}1`: once", f"- `{DEGENERATE}1`: twice"], "line 4: "
         f"{DEGENERATE}1 is listed twice"),
        (["## store.guards", f"- `{DEGENERATE}1`: under guards"], "line 4: "
         f"{DEGENERATE}1 is not a mutant of module store.guards"),
        (["## no.such", "text"], "line 3: heading 'no.such' names no module"),
    ],
)  # fmt: skip
def test_a_listing_read_wrong_is_refused_with_its_line(tmp_path, lines, says):
    path = tmp_path / "equivalent.md"
    path.write_text("## agreement.degenerate\n\n" + "\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(run.ListingError) as caught:
        run.equivalent(path)
    assert says in str(caught.value) and str(path) in str(caught.value)


def test_listings_are_read_under_their_modules_heading(tmp_path):
    path = tmp_path / "equivalent.md"
    path.write_text(
        f"# title\n\nprose\n\n## agreement.degenerate\n\n- `{DEGENERATE}1`: a reason\n",
        encoding="utf-8",
    )
    assert run.equivalent(path) == {f"{DEGENERATE}1": "a reason"}


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--modules", ""], "names no module"),
        (["--modules", ","], "names no module"),
        (["--modules", "nosuch"], "unknown module(s): nosuch"),
        (["--budget-s", "0"], "seconds must be more than 0"),
        (["--budget-s", "-5"], "seconds must be more than 0"),
        (["--module-budget-s", "0.5"], "at least 20 s"),
        (["--fail-under", "150"], "a score is 0 to 100 per cent"),
        (["--fail-under", "-1"], "a score is 0 to 100 per cent"),
    ],
)
def test_bad_arguments_are_refused_before_anything_runs(capsys, argv, says):
    with pytest.raises(SystemExit) as caught:
        run.main(argv)
    assert caught.value.code == 2 and says in capsys.readouterr().err


def test_a_work_path_that_is_a_file_is_refused(tmp_path, capsys):
    afile = tmp_path / "afile"
    afile.write_text("", encoding="utf-8")
    with pytest.raises(SystemExit):
        run.main(["--work", str(afile), "--report-only"])
    assert "a file, not a folder" in capsys.readouterr().err


def test_report_only_without_results_says_to_run_first(tmp_path, capsys):
    assert run.main(["--modules", "review.blinding", "--work", str(tmp_path), "--report-only"]) == 1
    out = capsys.readouterr().out
    assert f"no results in {tmp_path / 'review.blinding'}: run it without --report-only" in out


def _results(tmp_path, codes):
    """A work folder with mutmut's .meta for review.blinding: mutant number -> exit code."""
    (source,) = run.MODULES["review.blinding"].sources
    meta = tmp_path / "review.blinding" / "mutants" / run.PKG / (source + ".meta")
    meta.parent.mkdir(parents=True)
    key = "medrcube_desktop.review.blinding.x_blind__mutmut_"
    meta.write_text(json.dumps({"exit_code_by_key": {f"{key}{n}": c for n, c in codes.items()}}))


def test_strict_fails_on_an_unexplained_survivor_and_a_plain_run_does_not(tmp_path, capsys):
    _results(tmp_path, {1: 1, 2: 1, 3: 0})  # mutmut: 1 killed, 0 survived
    argv = ["--modules", "review.blinding", "--work", str(tmp_path), "--report-only"]
    assert run.main(argv) == 0
    out = capsys.readouterr().out
    assert "66.7 % ( 66.7 % of the non-equivalent)" in out and "unexplained 1" in out
    assert run.main([*argv, "--strict"]) == 1
    assert "--strict: unexplained survivors or stale listings in review.blinding" in (
        capsys.readouterr().out
    )
    assert run.main([*argv, "--fail-under", "70"]) == 1
    assert "below --fail-under 70 %: review.blinding" in capsys.readouterr().out


def test_a_module_with_no_mutant_judged_is_a_failure(tmp_path, capsys):
    _results(tmp_path, {1: None, 2: None})  # mutmut stopped before its first mutant
    argv = ["--modules", "review.blinding", "--work", str(tmp_path), "--report-only"]
    assert run.main(argv) == 1
    assert "mutmut judged no mutant" in capsys.readouterr().out
