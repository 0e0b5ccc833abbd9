"""Mutation testing of the modules whose figures are published or that protect data
(issue 26 item 1), per module within a time bound, with mutmut 3.

    python -m tests.mutation.run                         # every module, 300 s each
    python -m tests.mutation.run --modules parse,gold    # some modules
    python -m tests.mutation.run --budget-s 1200 --strict   # CI's: the IMPORTANT modules
    python -m tests.mutation.run --list                  # the modules and their tests

Each module is run in its own work folder (``.mutation/<module>/`` under the repository,
git-ignored): a ``pyproject.toml`` whose ``[tool.mutmut]`` names that module's source
files and only the tests that mirror it (:data:`MODULES`), and links to the package,
tests and resources. mutmut copies the package into ``mutants/``, rewrites each function
of the module into its mutants behind a trampoline, runs the module's tests once to record
which tests reach which function, and then runs each mutant against just the tests that
reach its function (pytest in one process, ``-p no:xdist``: mutmut forks per mutant).

The report prints, per module, killed / survived / timeout / no tests / not checked and
the score (killed + timeout over the mutants judged: killed, timeout, survived, no tests,
suspicious; a mutant no test reaches counts against the score), then each survivor with
its diff, marked "equivalent" where ``tests/mutation/equivalent.md`` lists it with the
reason, "SURVIVED" (unexplained) where not: write the test that kills it, or list it with
why no input can tell it from the code. A module that runs past its budget is stopped (its
unchecked mutants are "not checked", outside the score). The exit status is 0 whatever the
scores (a low score is a finding to read, like the benchmark report's); 1 when a module
could not run (its tests fail on the unmutated code, mutmut failed), with ``--fail-under
P`` also when a module's raw score is below P per cent, and with ``--strict`` also when a
survivor is unexplained or a listing is stale; 2 for bad arguments or a malformed
equivalent.md (the line is named).

mutmut is in the test extra of pyproject.toml. Run it niced on a shared machine
(``nice -n 19``) and one at a time: it forks one test process per core by default
(``--max-children``)."""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
PKG = "medrcube_desktop"
EQUIVALENT = HERE / "equivalent.md"


@dataclass(frozen=True)
class Module:
    """One module under mutation: the source files mutated (paths under the package)
    and the test files or folders run against their mutants (paths under tests/)."""

    sources: tuple[str, ...]
    tests: tuple[str, ...]


MODULES: dict[str, Module] = {
    # the agreement study (Table 5): kappa, AC1, Wilson, bootstrap, McNemar, the gold verdict
    # stats.py is the study (compare, AgreementResult): its fast tests only; the coverage
    # simulation and the command's subprocess (test_stats_references, test_stats_degenerate)
    # take 20 s a mutant and reach every function of it
    "agreement.stats": Module(
        ("review/agreement/stats.py",),
        (
            "review/agreement/test_stats.py",
            "review/agreement/test_stats_bootstrap.py",
            "review/agreement/test_stats_cannot_judge.py",
            "review/agreement/test_stats_mutants.py",
            "review/agreement/test_stats_compare*.py",
        ),
    ),
    "agreement.coefficients": Module(
        ("review/agreement/coefficients.py",), ("review/agreement/test_coefficients*.py",)
    ),
    "agreement.intervals": Module(
        ("review/agreement/intervals.py",), ("review/agreement/test_intervals*.py",)
    ),
    "agreement.degenerate": Module(
        ("review/agreement/degenerate.py",), ("review/agreement/test_degenerate*.py",)
    ),
    "agreement.pair_figures": Module(
        ("review/agreement/pair_figures.py",), ("review/agreement/test_pair_figures*.py",)
    ),
    "agreement.fleiss": Module(
        ("review/agreement/fleiss.py",), ("review/agreement/test_fleiss*.py",)
    ),
    "agreement.gold": Module(("review/agreement/gold.py",), ("review/agreement/test_gold*.py",)),
    "agreement.panel": Module(("review/agreement/panel.py",), ("review/agreement/test_panel*.py",)),
    "agreement.table": Module(("review/agreement/table.py",), ("review/agreement/test_table*.py",)),
    "review.adjudication": Module(("review/adjudication.py",), ("review/test_adjudication*.py",)),
    "review.blinding": Module(
        ("review/blinding.py",),
        (
            "review/test_blinding*.py",
            "review/test_session_flow.py",
            "review/test_session_outcomes.py",
        ),
    ),
    # credibility (Section 6, Appendix H): Luck Rate, Rationality, SP and their intervals
    "evaluation.credibility": Module(
        ("evaluation/credibility.py",),
        (
            "evaluation/test_credibility*.py",
            "evaluation/test_metrics_credibility.py",
            "evaluation/compare/test_credibility_stats*.py",
        ),
    ),
    "evaluation.metrics": Module(("evaluation/metrics.py",), ("evaluation/test_metrics*.py",)),
    "evaluation.parse": Module(("evaluation/parse.py",), ("evaluation/test_parse*.py",)),
    # comparison (Table 3.3, Section 5): leaderboard, paired tests, credibility across models
    "compare.leaderboard": Module(
        ("evaluation/compare/leaderboard.py",), ("evaluation/compare/test_leaderboard*.py",)
    ),
    "compare.credibility_stats": Module(
        ("evaluation/compare/credibility_stats.py",),
        (
            "evaluation/compare/test_credibility_stats*.py",
            "evaluation/compare/test_result_degenerate.py",
        ),
    ),
    "compare.credibility_models": Module(
        ("evaluation/compare/credibility_models.py",),
        ("evaluation/compare/test_credibility_models*.py",),
    ),
    "compare.voxels": Module(
        ("evaluation/compare/voxels.py",), ("evaluation/compare/test_voxels*.py",)
    ),
    "compare.matrix": Module(
        ("evaluation/compare/matrix.py",), ("evaluation/compare/test_matrix*.py",)
    ),
    # pictures (Appendix E.1): lookup tables, window, rescale, MONOCHROME1, flips, masks
    "imaging.lookup_tables": Module(
        ("imaging/lookup_tables.py",), ("imaging/test_lookup_tables*.py",)
    ),
    # with the decode-ahead and pixel-facts tests, which test render's slice cache
    "imaging.render": Module(
        ("imaging/render.py",),
        ("imaging/test_render*.py", "imaging/test_decode_ahead.py", "imaging/test_pixel_facts.py"),
    ),
    # the loading tests that open DICOMs through dicom.py, fast ones only: the batch,
    # series and decode-ahead tests reach it through jobs, and test_j2k decodes full
    # JPEG 2000 images (seconds a mutant; test_dicom_reduced covers dicom's choice)
    "imaging.dicom": Module(
        ("imaging/dicom.py",),
        (
            "imaging/test_dicom*.py",
            "imaging/test_loading_awkward_values.py",
            "imaging/test_pixel_facts.py",
            "imaging/test_declared_sizes.py",
        ),
    ),
    # the header values a render uses (rescale, window, rows/columns, bits, spacing,
    # orientation), read plain or through pydicom: its own tests, the dicom ones and
    # those of the spacing, aspect and orientation they give a picture
    "imaging.dicom_header": Module(
        ("imaging/dicom_header.py",),
        (
            "imaging/test_dicom*.py",
            "imaging/test_loading_awkward_values.py",
            "imaging/test_declared_sizes.py",
            "imaging/test_geometry.py",
        ),
    ),
    "imaging.masks": Module(("imaging/masks.py",), ("imaging/test_masks*.py",)),
    # data that must never be lost: the first-judgment lock and the merge of review files
    "store.guards": Module(("store/guards.py",), ("store/test_guards*.py",)),
    "store.drafts": Module(
        ("store/drafts.py",), ("store/test_drafts*.py", "review/test_draft*.py")
    ),
    "store.merging": Module(
        ("store/merging.py",),
        ("store/test_merging.py", "store/test_merging_summary.py", "store/test_merging_files.py"),
    ),
    # the self-test's Qt-free half (the pixel digests the frozen bundle must match)
    "demo.self_test": Module(("demo/self_test.py",), ("demo/test_self_test*.py",)),
}
"""Every module under mutation, by a short name."""

IMPORTANT = (
    "agreement.gold",
    "evaluation.credibility",
    "evaluation.parse",
    "compare.leaderboard",
    "imaging.lookup_tables",
    "agreement.coefficients",
    "agreement.intervals",
    "agreement.pair_figures",
    "agreement.stats",
)
"""The modules CI's bounded mode runs when none are named: the figures a paper prints and
the guard that picks the gold standard; the largest last, so it gets the time the others
leave (each module's share is the budget left over the modules left)."""

STATUS = {
    1: "killed",
    3: "killed",
    0: "survived",
    5: "no tests",
    33: "no tests",
    34: "skipped",
    36: "timeout",
    24: "timeout",
    -24: "timeout",
    152: "timeout",
    255: "timeout",
    37: "killed",  # caught by a type check (none configured)
    None: "not checked",
    2: "not checked",  # interrupted
}
"""mutmut's exit codes as the report counts them (mutmut/stats.py); others: suspicious."""

COLUMNS = ("killed", "survived", "timeout", "no tests", "not checked", "suspicious")


def test_files(module: Module) -> list[str]:
    """The test files of ``module`` (its patterns expanded under tests/), as paths
    relative to the repository, sorted."""
    found = {
        p.relative_to(ROOT).as_posix()
        for pattern in module.tests
        for p in (ROOT / "tests").glob(pattern)
        if p.is_file()
    }
    return sorted(found)


def _pyproject(module: Module) -> str:
    """The work folder's pyproject.toml: the repository's, with pytest in one process
    (no xdist, no cache) and a ``[tool.mutmut]`` table for ``module``."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    text = re.sub(
        r"^addopts = .*$",
        "addopts = \"-m 'not real' -p no:xdist -p no:cacheprovider\"",
        text,
        count=1,
        flags=re.M,
    )
    text = re.sub(r"^\[tool\.mutmut\].*?(?=^\[|\Z)", "", text, flags=re.M | re.S)
    sources = [f"{PKG}/{s}" for s in module.sources]
    tests = test_files(module)
    return (
        text
        + "\n[tool.mutmut]\n"
        + f'source_paths = ["{PKG}"]\n'
        + f"only_mutate = {json.dumps(sources)}\n"
        + f"pytest_add_cli_args_test_selection = {json.dumps(tests)}\n"
        + 'pytest_add_cli_args = ["-p", "no:randomly", "-p", "tests.mutation.pytest_plugin"]\n'
        + 'also_copy = ["resources", "review_db", "docs"]\n'
        + "use_git_change_detection = false\n"
    )


def prepare(name: str, work: Path, fresh: bool) -> Path:
    """The work folder of module ``name`` under ``work``, made (or remade when
    ``fresh``): links to the package, tests/ and the resource folders, and its
    pyproject.toml. Returns the folder."""
    folder = work / name
    if fresh and folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for link in (PKG, "tests", "resources", "review_db", "docs"):
        target = folder / link
        if target.is_symlink() and target.readlink() != ROOT / link:
            target.unlink()  # a work folder copied from another checkout: point it here
        if not target.is_symlink():
            target.symlink_to(ROOT / link, target_is_directory=True)
    (folder / "pyproject.toml").write_text(_pyproject(MODULES[name]), encoding="utf-8")
    # the package's other modules as they are now (mutmut copies a file only once)
    mutants = folder / "mutants" / PKG
    if mutants.exists():
        mutated = {f"{PKG}/{s}" for s in MODULES[name].sources}
        for path in (ROOT / PKG).rglob("*.py"):
            rel = path.relative_to(ROOT).as_posix()
            if rel not in mutated:
                (folder / "mutants" / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(path, folder / "mutants" / rel)
    return folder


DONE = "mutations/second"
"""What mutmut prints when every mutant has run (after it, the process may still wait at
exit for a thread a test left, so the log is watched for it)."""


def run_module(folder: Path, budget_s: float, max_children: int) -> tuple[int | None, float]:
    """Run mutmut in ``folder`` for at most ``budget_s`` seconds (then interrupt it, as
    Ctrl+C does: each mutant's result is already saved). Returns mutmut's exit status
    (0 once it has reported every mutant run, None when stopped at the budget) and the
    seconds it ran."""
    env = {**os.environ, "QT_QPA_PLATFORM": os.environ.get("QT_QPA_PLATFORM", "offscreen")}
    path = folder / "mutmut.log"
    log = open(path, "w", encoding="utf-8")  # noqa: SIM115
    started = time.monotonic()
    with log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "mutmut", "run", "--max-children", str(max_children)],
            cwd=folder,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        status: int | None = None
        try:
            while time.monotonic() - started < budget_s:
                try:
                    status = proc.wait(timeout=2)
                    break
                except subprocess.TimeoutExpired:
                    if DONE in path.read_text(encoding="utf-8", errors="replace")[-2000:]:
                        try:
                            status = proc.wait(timeout=10)
                        except subprocess.TimeoutExpired:
                            status = 0  # done; only its exit hangs
                        break
        finally:  # stopped at the budget, or this script interrupted (Ctrl+C): mutmut too
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGINT if status is None else signal.SIGKILL)
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()
    return status, time.monotonic() - started


def results(folder: Path, module: Module) -> dict[str, str]:
    """Each mutant of ``module`` by name and its status (:data:`STATUS`), from the
    ``.meta`` files mutmut writes beside each mutated file."""
    found: dict[str, str] = {}
    for source in module.sources:
        meta = folder / "mutants" / PKG / (source + ".meta")
        if not meta.is_file():
            continue
        codes = json.loads(meta.read_text(encoding="utf-8"))["exit_code_by_key"]
        for key, code in codes.items():
            found[key] = STATUS.get(code, "suspicious")
    return found


class ListingError(ValueError):
    """A line of equivalent.md that is no listing as :func:`equivalent` reads them."""


LISTING = re.compile(r"^- `([^`\s]+)`:\s*(\S.*)$")


def equivalent(path: Path = EQUIVALENT) -> dict[str, str]:
    """The mutants listed in equivalent.md, each with its reason: lines
    ``- `<mutant name>`: <why it is equivalent>``, under a ``## <module>`` heading of
    :data:`MODULES` whose sources the mutant is of.

    Raises :class:`ListingError` naming the line for a bullet that is not such a listing
    (no backticks, no colon, no reason, a space in the name), a mutant listed twice, or one
    under another module's heading: a listing read wrong would leave a survivor
    unexplained or hide one."""
    if not path.is_file():
        return {}
    listed: dict[str, str] = {}
    heading = None
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        where = f"{path} line {number}"
        if line.startswith("## "):
            heading = line[3:].strip()
            if heading not in MODULES:
                raise ListingError(f"{where}: heading {heading!r} names no module (see --list)")
            continue
        if not re.match(r"^\s*[-*+]\s", line):
            continue
        m = LISTING.match(line.strip())
        if m is None:
            raise ListingError(
                f"{where}: not a listing ('- `<mutant name>`: <why it is equivalent>'): {line!r}"
            )
        key, why = m.groups()
        if key in listed:
            raise ListingError(f"{where}: {key} is listed twice")
        prefixes = (
            ()
            if heading is None
            else tuple(
                f"{PKG}.{s.removesuffix('.py').replace('/', '.')}."
                for s in MODULES[heading].sources
            )
        )
        if not prefixes or not key.startswith(prefixes):
            raise ListingError(f"{where}: {key} is not a mutant of module {heading}")
        listed[key] = why
    return listed


def diffs(folder: Path, names: list[str]) -> dict[str, str]:
    """The diff of each mutant in ``names`` (mutmut's own, read in ``folder``)."""
    if not names:
        return {}
    code = (
        "import json,sys\n"
        "from mutmut.mutation.diff_apply import get_diff_for_mutant\n"
        "out={}\n"
        "for n in json.loads(sys.stdin.read()):\n"
        "    try: out[n]=get_diff_for_mutant(n)\n"
        "    except Exception as e: out[n]=f'(no diff: {e!r})'\n"
        "print(json.dumps(out))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=folder,
        input=json.dumps(names),
        capture_output=True,
        text=True,
        timeout=300,
    )
    try:
        return json.loads(done.stdout)
    except json.JSONDecodeError:
        return {n: "(no diff)" for n in names}


JUDGED = ("killed", "timeout", "survived", "no tests", "suspicious")
"""The statuses a score is taken over: every mutant mutmut made and judged ("not checked",
stopped at the budget, is not judged)."""


def score(counts: dict[str, int]) -> float | None:
    """Killed (a timeout counts as killed) over the mutants judged (:data:`JUDGED`: a
    mutant no test reaches counts as not killed), in per cent; None when none was."""
    run = sum(counts[c] for c in JUDGED)
    return None if run == 0 else 100.0 * (counts["killed"] + counts["timeout"]) / run


def stale(found: dict[str, str], listed: dict[str, str], module: Module) -> list[str]:
    """The mutants of ``module`` that equivalent.md lists but that did not survive this
    run: killed (a test now tells them from the code) or not made at all (the function
    changed and mutmut renumbered its mutants). A listing is a claim that no input tells
    the mutant apart; one that a test refutes, or that names another mutation now, is
    wrong and is removed. In a run stopped at its budget (a mutant "not checked") only a
    killed listing is judged; a mutant no test reaches ("no tests") is judged, and a
    listing of one is not refuted by it."""
    prefixes = tuple(f"{PKG}.{s.removesuffix('.py').replace('/', '.')}." for s in module.sources)
    if any(status == "not checked" for status in found.values()):
        return sorted(k for k in listed if found.get(k) in ("killed", "timeout"))
    return sorted(
        k
        for k in listed
        if k.startswith(prefixes) and found.get(k) not in ("survived", "suspicious", "no tests")
    )


def report(name: str, found: dict[str, str], listed: dict[str, str], folder: Path) -> dict:
    """Print one module's counts, its score, each survivor and each stale listing
    (:func:`stale`); return the figures."""
    counts = {c: 0 for c in COLUMNS}
    for status in found.values():
        counts[status if status in counts else "suspicious"] += 1
    survivors = sorted(k for k, s in found.items() if s in ("survived", "suspicious"))
    unexplained = [k for k in survivors if k not in listed]
    pct = score(counts)
    print(
        f"\n=== {name}: "
        + ", ".join(f"{counts[c]} {c}" for c in COLUMNS if counts[c] or c != "suspicious")
        + (f"; score {pct:.1f} %" if pct is not None else "; no mutant run")
        + (
            f" ({len(survivors) - len(unexplained)} of {len(survivors)} survivors listed"
            " equivalent)"
            if survivors
            else ""
        ),
        flush=True,
    )
    shown = diffs(folder, survivors)
    for key in survivors:
        why = listed.get(key)
        print(f"--- {'equivalent' if why else 'SURVIVED'}: {key}" + (f" ({why})" if why else ""))
        if not why:
            print("    " + shown.get(key, "").replace("\n", "\n    "))
    wrong = stale(found, listed, MODULES[name])
    for key in wrong:
        made = found.get(key, "no such mutant now")
        print(f"--- STALE listing in equivalent.md: {key} ({made}: remove or renumber it)")
    equivalents = len(survivors) - len(unexplained)
    run = sum(counts[c] for c in JUDGED) - equivalents
    adjusted = None if run <= 0 else 100.0 * (counts["killed"] + counts["timeout"]) / run
    return {
        "counts": counts,
        "score": pct,
        "unexplained": len(unexplained),
        "equivalent": equivalents,
        "adjusted": adjusted,
        "stale": len(wrong),
    }


LEGEND = (
    "killed: a test failed on the mutant; survived: every test passed on it (equivalent:"
    " listed in tests/mutation/equivalent.md with why no input tells it apart;"
    " unexplained: write the test that kills it, or list it); no tests: no test reaches"
    " it (counted against the score); not checked: not run, the budget ran out; a STALE"
    " listing names a mutant that was killed or is not made any more: remove or renumber"
    " it."
)


def _positive(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text}: seconds must be more than 0")
    return value


def _percent(text: str) -> float:
    value = float(text)
    if not 0 <= value <= 100:
        raise argparse.ArgumentTypeError(f"{text}: a score is 0 to 100 per cent")
    return value


MIN_MODULE_S = 20.0
"""Seconds below which a module is not started: mutmut's copy of the package and its
first run of the tests (which records what reaches what) take about that."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--modules", help="comma-separated names (default: all; see --list)")
    parser.add_argument(
        "--budget-s",
        type=_positive,
        help="seconds of mutmut runs for all modules together; without --modules, the"
        " IMPORTANT ones (CI's bounded mode)",
    )
    parser.add_argument(
        "--module-budget-s",
        type=_positive,
        default=300.0,
        help=f"seconds per module (default 300; at least {MIN_MODULE_S:.0f})",
    )
    parser.add_argument(
        "--max-children",
        type=int,
        default=os.cpu_count() or 1,
        help="test processes mutmut forks at once (default: one per core)",
    )
    parser.add_argument(
        "--work",
        type=Path,
        default=ROOT / ".mutation",
        help="the folder of the per-module work folders (default .mutation/)",
    )
    parser.add_argument("--resume", action="store_true", help="keep earlier results")
    parser.add_argument(
        "--report-only", action="store_true", help="print the last results, run nothing"
    )
    parser.add_argument(
        "--fail-under",
        type=_percent,
        help="exit 1 when a module's raw score is below this (per cent)",
    )
    parser.add_argument(
        "--strict",
        action="store_true",
        help="exit 1 when a survivor is unexplained or a listing is stale",
    )
    parser.add_argument("--list", action="store_true", help="print the modules and exit")
    args = parser.parse_args(argv)
    if args.list:
        for name, m in MODULES.items():
            mark = "*" if name in IMPORTANT else " "
            print(f"{mark} {name:28s} {', '.join(m.sources)}  <- {', '.join(test_files(m))}")
        print("* run by --budget-s without --modules (CI)")
        return 0
    if args.module_budget_s < MIN_MODULE_S:
        parser.error(f"--module-budget-s {args.module_budget_s:g}: at least {MIN_MODULE_S:.0f} s")
    if args.work.exists() and not args.work.is_dir():
        parser.error(f"--work {args.work}: a file, not a folder")
    if args.modules is not None:
        names = [n.strip() for n in args.modules.split(",") if n.strip()]
        if not names:
            parser.error(f"--modules {args.modules!r} names no module (see --list)")
    else:
        names = list(IMPORTANT if args.budget_s is not None else MODULES)
    unknown = [n for n in names if n not in MODULES]
    if unknown:
        parser.error(f"unknown module(s): {', '.join(unknown)} (see --list)")
    try:
        listed = equivalent()
    except ListingError as exc:
        parser.error(str(exc))
    except UnicodeDecodeError as exc:
        parser.error(f"{EQUIVALENT}: not UTF-8 text: {exc}")
    started, summary, broken, below, loose = time.monotonic(), [], 0, [], []
    for i, name in enumerate(names):
        budget = args.module_budget_s
        if args.budget_s is not None:
            left = args.budget_s - (time.monotonic() - started)
            budget = min(budget, left / (len(names) - i))
        folder = args.work / name
        status, took = None, 0.0
        if not args.report_only:
            if budget < MIN_MODULE_S:  # the budget's doing, not the module's: no failure
                summary.append(f"  {name:28s} not run (no time left in --budget-s)")
                continue
            folder = prepare(name, args.work, fresh=not args.resume)
            print(f"\n... {name} (budget {budget:.0f} s)", flush=True)
            status, took = run_module(folder, budget, args.max_children)
        found = results(folder, MODULES[name])
        log = folder / "mutmut.log"
        if not found:
            broken += 1
            why = (
                f"no results in {folder}: run it without --report-only first"
                if args.report_only and not log.is_file()
                else f"did not run (see {log})"
            )
            summary.append(f"  {name:28s} {why}")
            continue
        judged = any(s != "not checked" for s in found.values())
        if status is None and not judged and not args.report_only:
            summary.append(f"  {name:28s} stopped at its budget before judging a mutant")
            continue
        if (status is not None and status != 0) or not judged:
            broken += 1  # e.g. its tests fail on the unmutated code: nothing was judged
            summary.append(
                f"  {name:28s} mutmut judged no mutant (exit status {status}; do the"
                f" module's tests pass on the unmutated code? see {log})"
            )
            continue
        figures = report(name, found, listed, folder)
        pct = figures["score"]
        stopped = " (stopped at its budget)" if status is None and not args.report_only else ""
        adjusted = figures["adjusted"]
        counts = figures["counts"]
        line = f"  {name:28s} " + (f"{pct:5.1f} %" if pct is not None else "  n/a  ")
        line += f" ({adjusted:5.1f} % of the non-equivalent)" if adjusted is not None else ""
        line += f"  killed {counts['killed'] + counts['timeout']}"
        line += f" survived {counts['survived'] + counts['suspicious']}"
        line += f" (equivalent {figures['equivalent']}, unexplained {figures['unexplained']})"
        line += f" no tests {counts['no tests']}" if counts["no tests"] else ""
        line += f" not checked {counts['not checked']}"
        line += f"  STALE listings {figures['stale']}" if figures["stale"] else ""
        summary.append(line + (f"  {took:.0f} s" if took else "") + stopped)
        if args.fail_under is not None and (pct is None or pct < args.fail_under):
            below.append(name)
        if args.strict and (figures["unexplained"] or figures["stale"]):
            loose.append(name)
    print(
        "\n=== mutation score per module (killed + timeout over the mutants judged; then over"
        " those not listed in tests/mutation/equivalent.md)",
        *summary,
        textwrap.fill(LEGEND, 100),
        sep="\n",
    )
    if below:
        print(f"below --fail-under {args.fail_under:g} %: {', '.join(below)}")
    if loose:
        print(f"--strict: unexplained survivors or stale listings in {', '.join(loose)}")
    return 1 if broken or below or loose else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:  # mutmut was stopped too (run_module); its results are kept
        print("\ninterrupted: the mutants judged so far are kept (--report-only prints them)")
        sys.exit(130)
