"""Comparing models (issue 14): many runs over one benchmark, side by side, as the
MedRCube paper does (Sections 4–6): the leaderboard, voxel correlation, credibility
across models. Every analysis starts from a :class:`~.matrix.RunMatrix`."""

from medrcube_desktop.evaluation.compare.matrix import RunMatrix, run_matrix

__all__ = ["RunMatrix", "run_matrix"]
