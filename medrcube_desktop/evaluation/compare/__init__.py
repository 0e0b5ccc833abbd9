"""Comparing models (issue 14): many runs over one benchmark, side by side, as the
MedRCube paper does (Sections 4–6). Every analysis starts from a
:class:`~.matrix.RunMatrix`:

- :mod:`.leaderboard`: the paper's Table 3 with Wilson intervals, the random baseline,
  paired differences bootstrapped by image, the text-only drop (Table 4);
- :mod:`.voxels`: the model × voxel matrix, Spearman correlation between voxels,
  average-linkage clustering, residuals, region islands, cluster stability (Section 5);
- :mod:`.credibility_models` and :mod:`.credibility_stats`: credibility figures across
  models with bootstrap intervals clustered by image, the Acc_H–Shortcut Probability
  correlation and the independence baseline, log odds ratios and the exact permutation
  test (Section 6, Appendix H);
- :mod:`.text_only`: text-only runs beside the image runs of their model, the drop per
  voxel and the items right without the image (Table 4, prior leakage);
- :mod:`.families`: each model's series and group (Table 3's grouping);
- :mod:`.item_filters`: the items × runs grid's filters (all wrong, models disagree, …);
- :mod:`.result` computes all of it at once (:func:`~.result.compare_runs`), and
  :mod:`.report`, :mod:`.figures`, :mod:`.html` write it: CSV, JSON, XLSX, Figs. 3 and
  4 as PNG and SVG, and the HTML report.

Qt-free: the ``compare`` command (``cli/compare.py``) and the Compare models pane
(``ui/compare/pane.py``) are the two faces of the same :class:`~.result.CompareResult`.
"""

from medrcube_desktop.evaluation.compare.matrix import RunMatrix, run_matrix

__all__ = ["RunMatrix", "run_matrix"]
