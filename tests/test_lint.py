"""Lint and architecture checks run with the tests, so CI enforces them."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_finds_nothing():
    ruff = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))
    result = subprocess.run(
        [ruff, "check", "medrcube_desktop", "tests"], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_import_linter_contracts_keep_qt_in_ui_and_layers_pointing_down():
    tool = shutil.which("lint-imports") or str(Path(sys.executable).with_name("lint-imports"))
    result = subprocess.run([tool], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Contracts: 5 kept, 0 broken." in result.stdout


@pytest.mark.slow
def test_mypy_passes_on_the_non_ui_packages():
    tool = shutil.which("mypy") or str(Path(sys.executable).with_name("mypy"))
    result = subprocess.run([tool], cwd=ROOT, capture_output=True, text=True)  # config: pyproject
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Success: no issues found" in result.stdout
