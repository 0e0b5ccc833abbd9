"""Comparing models (issue 14): many runs over one benchmark, side by side, as the
MedRCube paper does (Sections 4–6). Every analysis starts from a
:class:`~.matrix.RunMatrix`:

- :mod:`.leaderboard`: the paper's Table 3 with Wilson intervals, the random baseline,
  paired differences bootstrapped by image, the text-only drop (Table 4);
- :mod:`.voxels`: the model × voxel matrix, Spearman correlation between voxels,
  average-linkage clustering, residuals, region islands, cluster stability (Section 5);
- :mod:`.credibility_models`: credibility figures across models, the Acc_H–Shortcut
  Probability correlation and the independence baseline, log odds ratios and a
  permutation test (Section 6, Appendix H).

Qt-free, with no command or pane yet (issue 14 is in progress).
"""

from medrcube_desktop.evaluation.compare.matrix import RunMatrix, run_matrix

__all__ = ["RunMatrix", "run_matrix"]
