"""The comparison's figures (paper Figs. 3 and 4) against computations made here with
scipy directly: the drawn arrays, colours, points and titles, not only that they draw."""

import re

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from scipy.cluster.hierarchy import leaves_list, linkage
from scipy.spatial.distance import squareform
from scipy.stats import pearsonr

from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.evaluation.compare.credibility_models import (
    accuracy_shortcut_correlation,
    model_credibility,
)
from medrcube_desktop.evaluation.compare.figures import (
    credibility_figure,
    region_heatmap,
    save_figure,
    voxel_heatmap,
    within_between,
)
from medrcube_desktop.evaluation.compare.voxels import cluster_voxels

VOXELS = [
    "MR|CT|Brain", "OR|CT|Chest", "MR|X-ray|Chest", "OR|MRI|Brain",  # block 1
    "DD|CT|Chest", "DG|MRI|Brain", "DD|X-ray|Lungs", "DG|CT|Lungs", "DD|MRI|Brain",  # block 2
]  # fmt: skip


def _two_blocks():
    """(9, 9) ρ: voxels 0–3 correlate 0.8 among themselves, 4–8 0.6, 0.1 across, with
    a little symmetric noise so that the optimal leaf order is unique."""
    rng = np.random.default_rng(7)
    block = np.array([0] * 4 + [1] * 5)
    rho = np.where(np.equal.outer(block, block), np.where(block[:, None] == 0, 0.8, 0.6), 0.1)
    noise = rng.normal(scale=0.03, size=rho.shape)
    rho = rho + (noise + noise.T) / 2
    np.fill_diagonal(rho, 1.0)
    permutation = rng.permutation(9)  # the blocks interleaved in input order
    return (
        [VOXELS[i] for i in permutation],
        rho[np.ix_(permutation, permutation)],
        block[permutation],
    )


def _axes(figure, label):
    found = [a for a in figure.axes if a.get_label() == label]
    assert len(found) == 1, [a.get_label() for a in figure.axes]
    return found[0]


def test_clustered_heatmap_is_rho_in_scipys_leaf_order_with_boxes_round_the_blocks():
    voxels, rho, block = _two_blocks()
    clustering = cluster_voxels(rho, k=2)
    figure = voxel_heatmap(voxels, rho, clustering, n_models=12)
    FigureCanvasAgg(figure).draw()
    tree = linkage(squareform(1 - rho, checks=False), "average", optimal_ordering=True)
    order = leaves_list(tree)
    heat = _axes(figure, "heatmap")
    np.testing.assert_allclose(heat.images[0].get_array(), rho[np.ix_(order, order)])
    assert heat.images[0].norm.vmin == -1.0 and heat.images[0].norm.vmax == 1.0  # centred at 0
    # the two planted blocks are the two clusters, each boxed on the diagonal
    ordered = block[order]
    assert (np.diff(ordered) != 0).sum() == 1
    boxes = sorted((p.get_x(), p.get_width()) for p in heat.patches if p.get_label() == "block")
    size = int((ordered == ordered[0]).sum())
    assert boxes == [(-0.5, size), (size - 0.5, 9 - size)]
    # tick labels follow the order; the dendrogram's leaves sit on the heatmap's rows
    assert [t.get_text() for t in heat.get_yticklabels()] == [voxels[i] for i in order]
    dendrogram = _axes(figure, "dendrogram")
    leaf_rows = {
        y for line in dendrogram.lines for x, y in zip(*line.get_data(), strict=True) if x == 0
    }
    assert leaf_rows == set(range(9))
    # the title's means are those of the planted blocks, computed here
    upper = np.triu(np.ones((9, 9), dtype=bool), 1)
    same = np.equal.outer(block, block)
    within, between = rho[upper & same].mean(), rho[upper & ~same].mean()
    assert within_between(rho, clustering.labels) == pytest.approx((within, between))
    title = figure.get_suptitle()
    assert f"within clusters {within:.3f}" in title and f"between clusters {between:.3f}" in title
    assert "over 12 models" in title


def test_strips_colour_each_row_by_its_task_modality_and_region_as_the_legend_says():
    voxels, rho, _ = _two_blocks()
    clustering = cluster_voxels(rho, k=2)
    figure = voxel_heatmap(voxels, rho, clustering)
    FigureCanvasAgg(figure).draw()
    legends = _axes(figure, "legends")
    for part, kind in enumerate(("task", "modality", "region")):
        strip = _axes(figure, f"strip:{kind}").images[0].get_array()  # (n, 1, 4)
        assert strip.shape == (9, 1, 4)
        (legend,) = [a for a in legends.artists if a.get_label() == f"legend:{kind}"]
        colour = {
            text.get_text(): tuple(handle.get_facecolor())
            for text, handle in zip(legend.get_texts(), legend.legend_handles, strict=True)
        }
        for row, voxel in enumerate(voxels[i] for i in clustering.order):
            value = voxel.split("|")[part]
            assert tuple(strip[row, 0]) == pytest.approx(colour[value])
        assert len(set(colour.values())) == len(colour)  # distinct labels, distinct colours


def test_many_voxels_drop_the_tick_labels_and_nan_cells_show_grey():
    rng = np.random.default_rng(0)
    voxels = [f"T{n % 8}|M{n % 3}|R{n % 5}" for n in range(100)]
    accuracy = rng.random((12, 100))
    rho = np.corrcoef(accuracy, rowvar=False)
    rho[3, 5] = rho[5, 3] = np.nan
    figure = voxel_heatmap(voxels, rho, cluster_voxels(rho, 3))
    FigureCanvasAgg(figure).draw()
    heat = _axes(figure, "heatmap")
    assert heat.get_yticklabels() == [] and heat.get_xticklabels() == []
    assert heat.images[0].get_array().mask.sum() == 2
    assert "1 pairs without ρ" in figure.get_suptitle()


def test_region_heatmap_orders_by_region_and_gives_the_brain_island():
    voxels, rho, _ = _two_blocks()
    figure = region_heatmap(voxels, rho)
    order = sorted(range(9), key=lambda n: (voxels[n].rsplit("|", 1)[1], voxels[n]))
    heat = _axes(figure, "heatmap")
    np.testing.assert_allclose(heat.images[0].get_array(), rho[np.ix_(order, order)])
    brain = np.array([v.endswith("|Brain") for v in voxels])
    upper = np.triu(np.ones((9, 9), dtype=bool), 1)
    within = rho[upper & np.outer(brain, brain)].mean()
    others = rho[np.ix_(brain, ~brain)].mean()
    title = figure.get_suptitle()
    assert f"Brain (4 voxels): mean ρ among themselves {within:.3f}" in title
    assert f"with other regions {others:.3f}" in title
    (island,) = [p for p in heat.patches if p.get_label() == "island"]
    start = [voxels[i].endswith("|Brain") for i in order].index(True)
    assert (island.get_x(), island.get_width()) == (start - 0.5, 4)
    no_brain = [v.replace("Brain", "Heart") for v in voxels]
    assert "no brain voxels" in region_heatmap(no_brain, rho).get_suptitle()


def test_bad_input_is_a_clear_error():
    with pytest.raises(MedRCubeError, match="at least 2 voxels"):
        region_heatmap(["MR|CT|Brain"], np.ones((1, 1)))
    voxels, rho, _ = _two_blocks()
    with pytest.raises(MedRCubeError, match=r"shape \(9, 9\) for 8 voxels"):
        voxel_heatmap(voxels[:8], rho, cluster_voxels(rho, 2))
    with pytest.raises(MedRCubeError, match="clustering has 9 voxels"):
        voxel_heatmap(voxels[:8], rho[:8, :8], cluster_voxels(rho, 2))
    with pytest.raises(MedRCubeError, match="not in the regions|no voxel of region"):
        region_heatmap(voxels, rho, island="Knee")


def _models(n=20, seed=1):
    rng = np.random.default_rng(seed)
    counts = {}
    for m in range(n):
        low = rng.random(300) < rng.uniform(0.3, 0.9)
        high = rng.random(300) < rng.uniform(0.3, 0.9)
        counts[f"model-{m}"] = (
            int((low & high).sum()), int((low & ~high).sum()),
            int((~low & ~high).sum()), int((~low & high).sum()),
        )  # fmt: skip
    return model_credibility(counts)


def test_credibility_points_identity_line_quadrants_and_r_match_scipy():
    figures = _models()
    correlation = accuracy_shortcut_correlation(figures)
    figure = credibility_figure(figures, correlation, {f.run: "G" for f in figures})
    FigureCanvasAgg(figure).draw()
    acc = np.array([f.acc_h for f in figures])
    rationality = np.array([f.rationality for f in figures])
    shortcut = np.array([f.shortcut_prob for f in figures])
    left, right = _axes(figure, "rationality"), _axes(figure, "shortcut")
    np.testing.assert_allclose(
        left.collections[0].get_offsets(), np.column_stack([acc, rationality])
    )
    np.testing.assert_allclose(right.collections[0].get_offsets(), np.column_stack([acc, shortcut]))
    quadrant = {(tuple(line.get_xdata()), tuple(line.get_ydata())) for line in left.lines}
    assert ((acc.mean(), acc.mean()), (0, 1)) in quadrant
    assert ((0, 1), (rationality.mean(), rationality.mean())) in quadrant
    (identity,) = [line for line in right.lines if "independence" in line.get_label()]
    np.testing.assert_array_equal(identity.get_xdata(), identity.get_ydata())  # y = x
    assert identity.get_xdata()[0] <= min(acc.min(), shortcut.min())
    assert identity.get_xdata()[-1] >= max(acc.max(), shortcut.max())
    expected = pearsonr(acc, shortcut)
    interval = expected.confidence_interval(0.95)
    r = re.search(r"r = (-?[\d.]+) \(95% CI (-?[\d.]+) to (-?[\d.]+)\)", right.get_title())
    assert [float(v) for v in r.groups()] == pytest.approx(
        [expected.statistic, interval.low, interval.high], abs=5e-4
    )
    labels = sorted(t.get_text() for t in right.texts)
    assert labels == sorted(f.run for f in figures)


def test_credibility_with_too_few_models_says_so_instead_of_failing():
    figures = _models(2)
    figure = credibility_figure(figures, accuracy_shortcut_correlation(figures))
    FigureCanvasAgg(figure).draw()
    title = " ".join(_axes(figure, "shortcut").get_title().split())
    assert "r undefined: fewer than 4 distinct points (2 points, 2 distinct)" in title
    empty = model_credibility({"a": (0, 0, 0, 0)})
    figure = credibility_figure(empty, None)
    assert "no model has paired" in figure.texts[0].get_text()


def test_save_figure_writes_png_and_svg_by_suffix_and_refuses_others(tmp_path):
    voxels, rho, _ = _two_blocks()
    figure = region_heatmap(voxels, rho)
    png = save_figure(figure, tmp_path / "f.png")
    svg = save_figure(figure, tmp_path / "f.svg")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "<svg" in svg.read_text(encoding="utf-8")
    width = int.from_bytes(png.read_bytes()[16:20], "big")
    assert width == round(figure.get_figwidth() * 200)  # 200 dpi
    assert "<dc:date>" not in svg.read_text(encoding="utf-8")  # no date: diffs stay small
    with pytest.raises(MedRCubeError, match=r"\.png or \.svg"):
        save_figure(figure, tmp_path / "f.pdf")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.png", "f.svg"]
