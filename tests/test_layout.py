"""Tests mirror the package (issue 22, item 3): ``tests/<folders>/test_<module>.py`` or
``test_<module>_<aspect>.py`` tests ``medrcube_desktop/<folders>/<module>.py``, so the
tests of a module are found by its path, and a module's new test has one place to go.

A test about a seam between modules (one figure across a pane and its command, names
in every written file) goes in ``tests/seams/`` and says in its docstring which seam.
The few files that are neither are listed in :data:`ALLOWED` with the reason."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

SEAMS = "seams"
"""The folder under tests/ for tests of a seam between modules (any name, a docstring)."""

ALLOWED = {
    "test_layout.py": "checks the layout of tests/ itself",
    "test_layering.py": "checks the import contracts of the whole package",
    "test_lint.py": "runs ruff, import-linter and mypy over the whole package",
    "ui/test_qt_binding.py": "checks the Qt binding's release the window runs on "
    "(no module of ui/ is the binding); README and pyproject name this path",
    "real": "the real vLLM and transformers (README's second command, -m real)",
    "mutation": "the mutation runner (issue 26) and its own checks; it mutates other modules",
}
"""Paths under tests/ (a file, or a folder and all under it) that mirror no module."""


def _modules(package: Path) -> set[str] | None:
    """The module names of one package folder: ``x`` for each ``x.py`` (``__init__`` and
    ``__main__`` left out). None when the folder is not a package."""
    if not (package / "__init__.py").is_file():
        return None
    return {p.stem for p in package.glob("*.py") if not p.stem.startswith("__")}


def _tests_module(name: str, modules: set[str]) -> bool:
    """Whether the test file stem ``test_<name>`` is named after one of ``modules``:
    ``<module>`` itself or ``<module>_<aspect>``."""
    return any(name == m or name.startswith(m + "_") for m in modules)


def misplaced(tests: Path, package: Path) -> list[str]:
    """Each test file under ``tests`` that mirrors no module of ``package``, as
    ``"path: why"`` (paths relative to ``tests``, sorted); empty when all mirror.

    A test file is a ``test_*.py``. It mirrors a module when ``package`` holds, at the
    same folders, a module it is named after (:func:`_tests_module`). Files under
    ``tests/seams/`` mirror none but need a module docstring naming the seam; paths in
    :data:`ALLOWED` are left out."""
    found = []
    for path in sorted(tests.rglob("test_*.py")):
        rel = path.relative_to(tests)
        if any(rel.as_posix() == a or rel.as_posix().startswith(a + "/") for a in ALLOWED):
            continue
        if rel.parts[0] == SEAMS:
            if not ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))):
                found.append(f"{rel.as_posix()}: a seam's test says in its docstring which seam")
            continue
        mirror = package.joinpath(*rel.parts[:-1])
        modules = _modules(mirror)
        name = path.stem.removeprefix("test_")
        if modules is None:
            found.append(
                f"{rel.as_posix()}: {mirror.relative_to(package.parent).as_posix()}/ is no "
                "package folder (tests/ mirrors medrcube_desktop/)"
            )
        elif not _tests_module(name, modules):
            found.append(
                f"{rel.as_posix()}: names no module of "
                f"{mirror.relative_to(package.parent).as_posix()}/ (test_<module>.py or "
                f"test_<module>_<aspect>.py; a seam goes in tests/{SEAMS}/)"
            )
    return found


def test_every_test_file_mirrors_a_module_or_is_a_seam():
    assert misplaced(ROOT / "tests", ROOT / "medrcube_desktop") == []


def test_the_allowed_paths_exist():
    """An allowance outliving its file would let a misnamed file of that name back in."""
    assert [a for a in ALLOWED if not (ROOT / "tests" / a).exists()] == []


def _tree(tmp_path: Path, files: dict[str, str]) -> tuple[Path, Path]:
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    return tmp_path / "tests", tmp_path / "medrcube_desktop"


def test_a_misnamed_or_misplaced_test_file_is_named(tmp_path):
    tests, package = _tree(
        tmp_path,
        {
            "medrcube_desktop/__init__.py": "",
            "medrcube_desktop/cli/__init__.py": "",
            "medrcube_desktop/cli/compare.py": "",
            "medrcube_desktop/cli/compare_options.py": "",
            "tests/cli/test_compare.py": "",  # the module
            "tests/cli/test_compare_degenerate.py": "",  # the module and an aspect
            "tests/cli/test_compare_options.py": "",  # a longer module name
            "tests/cli/test_comparison.py": "",  # no module "comparison"
            "tests/cli/test_outcomes.py": "",  # no module "outcomes"
            "tests/test_compare.py": "",  # cli's module one folder up
            "tests/store/test_compare.py": "",  # no package store/
            "tests/seams/test_pane_cli_parity.py": '"""The pane against its command."""',
            "tests/seams/test_no_docstring.py": "x = 1",
            "tests/cli/helpers.py": "",  # not a test file
        },
    )
    assert misplaced(tests, package) == [
        "cli/test_comparison.py: names no module of medrcube_desktop/cli/ (test_<module>.py"
        " or test_<module>_<aspect>.py; a seam goes in tests/seams/)",
        "cli/test_outcomes.py: names no module of medrcube_desktop/cli/ (test_<module>.py"
        " or test_<module>_<aspect>.py; a seam goes in tests/seams/)",
        "seams/test_no_docstring.py: a seam's test says in its docstring which seam",
        "store/test_compare.py: medrcube_desktop/store/ is no package folder (tests/"
        " mirrors medrcube_desktop/)",
        "test_compare.py: names no module of medrcube_desktop/ (test_<module>.py or"
        " test_<module>_<aspect>.py; a seam goes in tests/seams/)",
    ]
