"""Fixtures of the command-line tests: the evaluation tests' benchmark serves the
``evaluate``, ``export-run`` and ``import-run`` commands too."""

from tests.evaluation.conftest import bench  # noqa: F401
