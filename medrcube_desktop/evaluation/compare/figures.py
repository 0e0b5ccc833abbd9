"""The comparison's figures: the paper's Fig. 3 (voxel correlation, §5) and Fig. 4
(credibility, §6), as matplotlib ``Figure`` objects.

Drawn with matplotlib's object API (no pyplot, no GUI backend, no Qt), so the same
figures go into ``compare --out`` and, on a Qt canvas, into the Compare pane. Every
function takes the objects of :mod:`.voxels` and :mod:`.credibility_models` and computes
nothing the export does not also write: what a figure shows is in the CSV and JSON too.

Axes carry labels (``Axes.get_label()``) so that tests and the pane can find them:
``"heatmap"``, ``"dendrogram"``, ``"strip:task"`` / ``"strip:modality"`` /
``"strip:region"``, ``"colorbar"``, ``"rationality"``, ``"shortcut"``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from medrcube_desktop.core.names import LABEL_LENGTH, figure_text, file_text
from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.evaluation.compare.credibility_models import Correlation, ModelCredibility
from medrcube_desktop.evaluation.compare.voxels import (
    Clustering,
    region_islands,
    region_order,
    voxel_region,
)

STRIPS: tuple[str, ...] = ("task", "modality", "region")
"""The parts of a ``task|modality|region`` voxel label, one colour strip each."""

TICK_LABEL_LIMIT = 40
"""Voxel names are written beside the heatmap up to this many voxels; above it the
colour strips (and their legends) identify the voxels."""

CMAP = "RdBu_r"
"""Diverging colormap of ρ, centred at 0 (red positive, blue negative)."""

NAN_COLOUR = "#d9d9d9"
"""Cells whose ρ is NaN (too few common models, a constant voxel)."""

_PALETTES = {"task": "tab10", "modality": "Set2", "region": "Dark2"}


def _plain(text: object, limit: int | None = None) -> str:
    """Every text a figure shows: hidden characters visible, ``$`` escaped, cut at
    ``limit`` characters (:func:`~medrcube_desktop.core.names.figure_text`)."""
    return figure_text(text, limit)


def cluster_name(label: int) -> str:
    """The paper's cluster names: 0 → "A", 1 → "B", … (Fig. 3a), then "C27".. past Z."""
    return chr(ord("A") + label) if label < 26 else f"C{label + 1}"


def voxel_parts(voxels: Sequence[str]) -> dict[str, list[str]]:
    """``{"task": [...], "modality": [...], "region": [...]}`` of ``task|modality|region``
    labels (as :func:`medrcube_desktop.evaluation.metrics.voxel` writes them; a label
    with fewer parts repeats its last one)."""
    parts: dict[str, list[str]] = {key: [] for key in STRIPS}
    for label in voxels:
        task, _, rest = str(label).partition("|")
        modality = rest.rpartition("|")[0] or rest or task
        parts["task"].append(task)
        parts["modality"].append(modality)
        parts["region"].append(voxel_region(str(label)))
    return parts


def category_colours(values: Sequence[str], kind: str = "task") -> dict[str, tuple]:
    """A colour per distinct value, in sorted order, from the qualitative palette of
    ``kind`` (tab10 for tasks, Set2 for modalities, Dark2 for regions); with more values
    than the palette has, tab20 with its light shades after the dark ones (so that
    neighbours differ), cycled past 20. Values are RGBA tuples of floats in 0–1."""
    from matplotlib import colormaps

    distinct = sorted(set(values))
    cmap = colormaps[_PALETTES.get(kind, "tab10")]
    steps = list(range(getattr(cmap, "N", 10)))
    if len(distinct) > len(steps):
        cmap, steps = colormaps["tab20"], [*range(0, 20, 2), *range(1, 20, 2)]
    return {value: tuple(cmap(steps[i % len(steps)])) for i, value in enumerate(distinct)}


def within_between(rho: np.ndarray, labels: np.ndarray) -> tuple[float, float]:
    """Mean ρ over pairs of distinct voxels in the same cluster, and over pairs in
    different clusters (paper §5.2: 0.405 within cluster A, 0.253 across clusters).

    Each unordered pair counts once; NaN ρ are left out; NaN when there is no such pair.

    Parameters
    ----------
    rho : ndarray of shape (n_voxels, n_voxels), float
    labels : ndarray of shape (n_voxels,), int
        Cluster of each voxel (``Clustering.labels``).
    """
    rho = np.asarray(rho, dtype=float)
    labels = np.asarray(labels)
    upper = np.triu(np.ones(rho.shape, dtype=bool), k=1) & ~np.isnan(rho)
    same = np.equal.outer(labels, labels)

    def mean(mask: np.ndarray) -> float:
        values = rho[mask]
        return float(values.mean()) if values.size else float("nan")

    return mean(upper & same), mean(upper & ~same)


def message_figure(text: str, size: tuple[float, float] = (6.0, 2.0)):
    """An empty figure that says why there is nothing to draw (too few voxels or models)."""
    from matplotlib.figure import Figure

    figure = Figure(figsize=size, dpi=100)
    figure.text(0.5, 0.5, _plain(text), ha="center", va="center", wrap=True, fontsize=10)
    return figure


def _check_rho(voxels: Sequence[str], rho: np.ndarray) -> np.ndarray:
    rho = np.asarray(rho, dtype=float)
    if rho.ndim != 2 or rho.shape[0] != rho.shape[1] or rho.shape[0] != len(voxels):
        raise MedRCubeError(f"ρ has shape {rho.shape} for {len(voxels)} voxels")
    if len(voxels) < 2:
        raise MedRCubeError(f"a correlation heatmap needs at least 2 voxels, got {len(voxels)}")
    return rho


def _draw_rho(axes, rho: np.ndarray, ticks: Sequence[str] | None):
    """ρ as an image, NaN in grey, −1..1 on the diverging :data:`CMAP`."""
    from matplotlib import colormaps

    cmap = colormaps[CMAP].with_extremes(bad=NAN_COLOUR)
    image = axes.imshow(
        np.ma.masked_invalid(rho), cmap=cmap, vmin=-1.0, vmax=1.0, interpolation="nearest",
        aspect="auto",
    )  # fmt: skip
    n = rho.shape[0]
    if ticks is not None:
        size = max(3.0, min(7.0, 260.0 / n))
        axes.set_xticks(range(n), [_plain(t) for t in ticks], rotation=90, fontsize=size)
        axes.set_yticks(range(n), [_plain(t) for t in ticks], fontsize=size)
        axes.yaxis.tick_right()
    else:
        axes.set_xticks([])
        axes.set_yticks([])
    return image


def _strip(figure, spec, values: Sequence[str], kind: str, heat) -> dict[str, tuple]:
    """A one-column colour strip of ``values`` (one per heatmap row, in row order),
    sharing the heatmap's rows; returns the colour of each value
    (:func:`category_colours`)."""
    axes = figure.add_subplot(spec, sharey=heat, label=f"strip:{kind}")
    colours = category_colours(values, kind)
    rgba = np.array([colours[v] for v in values], dtype=float)[:, None, :]  # (n, 1, 4)
    axes.imshow(rgba, aspect="auto", interpolation="nearest")
    axes.set_xticks([0], [kind], rotation=90, fontsize=7)
    axes.tick_params(axis="y", left=False, labelleft=False)
    axes.tick_params(axis="x", length=0)
    for side in axes.spines.values():
        side.set_visible(False)
    return colours


def _draw_legends(axes, legends: Mapping[str, Mapping[str, tuple]]) -> None:
    """The strips' legends, stacked in one empty axes."""
    from matplotlib.patches import Patch

    axes.set_axis_off()
    top = 1.0
    for kind, colours in legends.items():
        handles = [
            Patch(facecolor=c, edgecolor="none", label=_plain(v)) for v, c in colours.items()
        ]
        ncol = 1 if len(handles) <= 8 else 2
        legend = axes.legend(
            handles=handles, title=kind.capitalize(), loc="upper left", bbox_to_anchor=(0, top),
            fontsize=6, title_fontsize=7, frameon=False, ncol=ncol, handlelength=1.0,
            borderaxespad=0.0, columnspacing=0.8, labelspacing=0.25,
        )  # fmt: skip
        legend.set_label(f"legend:{kind}")
        axes.add_artist(legend)
        rows = -(-len(handles) // ncol)
        top -= 0.05 + 0.032 * rows


def _dendrogram(axes, linkage: np.ndarray, order: np.ndarray) -> None:
    """``scipy.cluster.hierarchy.dendrogram(no_plot=True)`` drawn with its root on the
    left and leaf ``i`` (of ``order``) at row ``i`` of the heatmap."""
    from scipy.cluster.hierarchy import dendrogram

    tree = dendrogram(linkage, no_plot=True)
    if list(tree["leaves"]) != list(order):
        raise MedRCubeError("the dendrogram's leaves are not the clustering's order")
    for xs, ys in zip(tree["icoord"], tree["dcoord"], strict=True):
        axes.plot(ys, (np.asarray(xs) - 5.0) / 10.0, color="#444444", linewidth=0.6)
    top = float(np.max(linkage[:, 2])) if len(linkage) else 1.0
    axes.set_xlim(top * 1.05 if top > 0 else 1.0, 0.0)
    axes.set_xlabel("1 − ρ", fontsize=7)
    axes.tick_params(axis="x", labelsize=5)
    axes.tick_params(axis="y", left=False, labelleft=False)
    for side in ("top", "right", "left"):
        axes.spines[side].set_visible(False)


def _blocks(axes, labels_in_order: np.ndarray, names: Sequence[str] | None = None, **line):
    """Lines between consecutive blocks of equal labels and a box round each diagonal
    block; returns ``[(start, stop, label)]`` in heatmap positions."""
    from matplotlib.patches import Rectangle

    n = len(labels_in_order)
    cuts = [0, *(np.flatnonzero(labels_in_order[1:] != labels_in_order[:-1]) + 1).tolist(), n]
    spans = [(a, b, labels_in_order[a]) for a, b in zip(cuts[:-1], cuts[1:], strict=True)]
    style: dict[str, Any] = {"color": "black", "linewidth": 1.0} | line
    for a, b, _ in spans:
        axes.add_patch(
            Rectangle((a - 0.5, a - 0.5), b - a, b - a, fill=False, **style, label="block")
        )
    for cut in cuts[1:-1]:
        axes.axhline(cut - 0.5, color=style["color"], linewidth=0.4, alpha=0.6)
        axes.axvline(cut - 0.5, color=style["color"], linewidth=0.4, alpha=0.6)
    if names is not None:
        for (a, b, _), name in zip(spans, names, strict=True):
            _above(axes, (a + b - 1) / 2, name, fontweight="bold")
    return spans


def _above(axes, x: float, text: str, **style) -> None:
    """``text`` just above the axes at data x (axes-fraction y, so it hugs the top edge
    whatever the number of rows)."""
    axes.text(
        x, 1.004, _plain(text), transform=axes.get_xaxis_transform(), ha="center",
        va="bottom", fontsize=7, clip_on=False, **style,
    )  # fmt: skip


def voxel_heatmap(
    voxels: Sequence[str],
    rho: np.ndarray,
    clustering: Clustering,
    n_models: int | None = None,
    label: str = "Fig. 3a  Spearman ρ",
):
    """The paper's Fig. 3a: ρ between voxels in the clustering's leaf order.

    Left to right: the dendrogram (``scipy.cluster.hierarchy.dendrogram`` of
    ``clustering.linkage``, root on the left), task / modality / region colour strips
    (legends on the right), the heatmap ``rho[np.ix_(order, order)]`` on a diverging
    colormap fixed at −1..1 (centred at 0; NaN in grey) with a box round each cluster
    and its letter above it (A, B, … as the paper names them), and the colour bar. The
    title gives the mean ρ within clusters and between them (:func:`within_between`)
    and the cophenetic correlation. Voxel names are tick labels up to
    :data:`TICK_LABEL_LIMIT` voxels, otherwise the strips identify them.

    Parameters
    ----------
    voxels : sequence of str
        ``task|modality|region`` labels in the order of ``rho`` (``VoxelMatrix.voxels``).
    rho : ndarray of shape (n_voxels, n_voxels), float
        Spearman ρ (:func:`~.voxels.voxel_correlation`), NaN allowed.
    clustering : Clustering
        :func:`~.voxels.cluster_voxels` of ``rho``.
    n_models : int, optional
        Runs ρ is computed over, for the title.
    label : str
        The title's start (the residual view says what it shows).

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    MedRCubeError
        Fewer than 2 voxels, ``rho`` not (n_voxels, n_voxels), or a clustering of
        another number of voxels.
    """
    from matplotlib.figure import Figure

    rho = _check_rho(voxels, rho)
    n = len(voxels)
    order = np.asarray(clustering.order, dtype=np.int64)
    if len(order) != n or len(clustering.labels) != n:
        raise MedRCubeError(f"the clustering has {len(order)} voxels, ρ {n}")
    figure = Figure(figsize=(10.0, 8.0), dpi=100, layout="constrained")
    grid = figure.add_gridspec(
        1, 7, width_ratios=[1.6, 0.22, 0.22, 0.22, 9.0, 0.3, 2.4], wspace=0.01
    )
    heat = figure.add_subplot(grid[4], label="heatmap")
    ticks = [voxels[i] for i in order] if n <= TICK_LABEL_LIMIT else None
    image = _draw_rho(heat, rho[np.ix_(order, order)], ticks)
    ordered = clustering.labels[order]
    _blocks(heat, ordered, [cluster_name(int(c)) for c in dict.fromkeys(ordered.tolist())])
    _dendrogram(figure.add_subplot(grid[0], sharey=heat, label="dendrogram"), clustering.linkage,
                order)  # fmt: skip
    parts = voxel_parts(voxels)
    legends = {
        kind: _strip(figure, grid[1 + k], [parts[kind][i] for i in order], kind, heat)
        for k, kind in enumerate(STRIPS)
    }
    bar = figure.colorbar(image, cax=figure.add_subplot(grid[5], label="colorbar"))
    bar.set_label("Spearman ρ", fontsize=8)
    bar.ax.tick_params(labelsize=7)
    _draw_legends(figure.add_subplot(grid[6], label="legends"), legends)
    within, between = within_between(rho, clustering.labels)
    per = ", ".join(
        f"{cluster_name(c)} {v:.3f}" if np.isfinite(v) else f"{cluster_name(c)} — (1 voxel)"
        for c, v in enumerate(clustering.mean_rho_within)
    )
    over = f" over {n_models} models" if n_models else ""
    missing = int(np.isnan(rho[np.triu_indices(n, 1)]).sum())
    figure.suptitle(
        _plain(
            f"{label} between {n} competency voxels{over}, average linkage on "
            f"1 − ρ, {len(set(ordered.tolist()))} clusters\n"
            f"mean ρ within clusters {within:.3f} ({per}), between clusters {between:.3f}; "
            f"cophenetic r {clustering.cophenetic:.3f}"
            + (f"; {missing} pairs without ρ (grey)" if missing else "")
        ),
        fontsize=9,
    )
    return figure


def brain_region(voxels: Sequence[str]) -> str | None:
    """The region of ``voxels`` spelled "brain" in any case (paper §5.3), or None."""
    for region in sorted({voxel_region(str(v)) for v in voxels}):
        if region.lower() == "brain":
            return region
    return None


def region_heatmap(voxels: Sequence[str], rho: np.ndarray, island: str | None = None):
    """The paper's Fig. 3b: ρ with voxels ordered by region (:func:`~.voxels.region_order`).

    A box round each region's block with the region's name above it; the island region
    (``island``, by default the brain, :func:`brain_region`) boxed in black, and its
    mean ρ among its own voxels and with the other regions' voxels
    (:func:`~.voxels.region_islands`; paper §5.3: 0.089 and 0.219) in the title.

    Parameters
    ----------
    voxels : sequence of str
        ``task|modality|region`` labels in the order of ``rho``.
    rho : ndarray of shape (n_voxels, n_voxels), float
    island : str, optional
        A region as the voxels spell it; None: the brain when present.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    MedRCubeError
        Fewer than 2 voxels, ``rho`` not (n_voxels, n_voxels), or ``island`` not among
        the regions.
    """
    from matplotlib.figure import Figure

    rho = _check_rho(voxels, rho)
    n = len(voxels)
    island = island if island is not None else brain_region(voxels)
    found = region_islands(rho, list(voxels), island) if island is not None else None
    order = region_order(list(voxels))
    regions = np.array([voxel_region(str(voxels[i])) for i in order], dtype=object)
    figure = Figure(figsize=(8.6, 8.0), dpi=100, layout="constrained")
    grid = figure.add_gridspec(1, 3, width_ratios=[0.22, 9.0, 0.3], wspace=0.01)
    heat = figure.add_subplot(grid[1], label="heatmap")
    ticks = [voxels[i] for i in order] if n <= TICK_LABEL_LIMIT else None
    image = _draw_rho(heat, rho[np.ix_(order, order)], ticks)
    spans = _blocks(heat, regions, None, color="#555555", linewidth=0.8)
    for a, b, name in spans:
        _above(heat, (a + b - 1) / 2, name, rotation=30 if len(spans) > 6 else 0,
               fontweight="bold" if name == island else "normal")  # fmt: skip
        if name == island:
            from matplotlib.patches import Rectangle

            heat.add_patch(Rectangle((a - 0.5, a - 0.5), b - a, b - a, fill=False,
                                     color="black", linewidth=2.2, label="island"))  # fmt: skip
    _strip(figure, grid[0], list(regions), "region", heat)
    bar = figure.colorbar(image, cax=figure.add_subplot(grid[2], label="colorbar"))
    bar.set_label("Spearman ρ", fontsize=8)
    bar.ax.tick_params(labelsize=7)
    if found is not None:
        note = (
            f"{found.region} ({found.n_voxels} voxels): mean ρ among themselves "
            f"{found.within:.3f}, with other regions {found.with_others:.3f}"
        )
    else:
        note = "no brain voxels: no island to measure"
    figure.suptitle(
        _plain(f"Fig. 3b  Spearman ρ between {n} voxels ordered by region\n{note}"), fontsize=9
    )
    return figure


def _spread_labels(x: np.ndarray, y: np.ndarray, names: Sequence[str], span: tuple) -> np.ndarray:
    """(n, 2) float64: label positions (data units) to the right of the points, pushed
    apart vertically until no two labels and no label and another model's point overlap
    (a label is about 0.011 × its length by 0.035 of the axes: 6-point text on a 4-inch
    axes; 300 rounds at most)."""
    (x0, x1), (y0, y1) = span
    sx, sy = max(x1 - x0, 1e-9), max(y1 - y0, 1e-9)
    dots_x, dots_y = (x - x0) / sx, (y - y0) / sy
    px, py = dots_x + 0.012, dots_y.copy()
    width = np.array([0.011 * len(str(n)) for n in names])
    height, dot = 0.035, 0.012
    for _ in range(300):
        moved = False
        for i in range(len(px)):
            for j in range(len(px)):
                if i == j:
                    continue
                if j > i:  # label i against label j
                    over_x = min(px[i] + width[i], px[j] + width[j]) - max(px[i], px[j])
                    over_y = height - abs(py[i] - py[j])
                    if over_x > 0 and over_y > 0:
                        up = 1.0 if (py[i], i) >= (py[j], j) else -1.0
                        py[i] += up * (over_y / 2 + 1e-3)
                        py[j] -= up * (over_y / 2 + 1e-3)
                        moved = True
                over_x = min(px[i] + width[i], dots_x[j] + dot) - max(px[i], dots_x[j] - dot)
                over_y = (height + 2 * dot) / 2 - abs(py[i] - dots_y[j])
                if over_x > 0 and over_y > 0:  # label i over point j
                    py[i] += (1.0 if py[i] >= dots_y[j] else -1.0) * (over_y + 1e-3)
                    moved = True
        if not moved:
            break
    return np.column_stack([x0 + px * sx, y0 + py * sy])


def _labelled_scatter(axes, x, y, names, colours, span) -> None:
    axes.scatter(x, y, c=colours, s=22, edgecolors="white", linewidths=0.5, zorder=3)
    spots = _spread_labels(np.asarray(x), np.asarray(y), names, span)
    for (lx, ly), px, py, name in zip(spots, x, y, names, strict=True):
        far = abs(ly - py) > 0.02 * (span[1][1] - span[1][0])
        axes.annotate(
            _plain(name, LABEL_LENGTH), (px, py), xytext=(lx, ly), fontsize=6, va="center", ha="left",
            color="#222222", arrowprops={"arrowstyle": "-", "color": "#999999",
                                         "linewidth": 0.4} if far else None,
        )  # fmt: skip


def _span(values: np.ndarray, pad: float = 0.06) -> tuple[float, float]:
    """Axis limits round ``values`` with ``pad`` of their range (at least 0.05) each side."""
    low, high = float(np.min(values)), float(np.max(values))
    margin = max(high - low, 0.05) * pad
    return low - margin, high + margin


def credibility_figure(
    figures: Sequence[ModelCredibility],
    correlation: Correlation | None,
    groups: Mapping[str, str] | None = None,
):
    """The paper's Fig. 4: Rationality against Acc_H (left) and Shortcut Probability
    against Acc_H (right), one point per model.

    Left: x Acc_H (eq. 5), y Rationality = 1 − D/(A+D) (eq. 1), dashed quadrant lines at
    the means over the models drawn (the paper does not say where its lines are), each
    point labelled with its run. Right: x Acc_H, y Shortcut Probability D/(C+D) (eq. 2),
    the identity line y = x, which is what independence of the low- and high-level
    answers predicts (then P(H right | L wrong) = P(H right) = Acc_H; Appendix H), and
    the Pearson r with its Fisher 95 % interval and p
    (:func:`~.credibility_models.accuracy_shortcut_correlation`) in the title. All
    figures are proportions (0–1).

    Parameters
    ----------
    figures : sequence of ModelCredibility
        :func:`~.credibility_models.model_credibility`; a model lacking Acc_H and
        Rationality (left) or Shortcut Probability (right) is left out of that panel.
    correlation : Correlation or None
        Its :meth:`~.credibility_models.Correlation.summary` is the title (an undefined
        r says why).
    groups : mapping of str to str, optional
        Run → family group (:func:`~.families.model_family`), colouring the points.

    Returns
    -------
    matplotlib.figure.Figure
        :func:`message_figure` when no model has pairs.
    """
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D

    left = [f for f in figures if f.acc_h is not None and f.rationality is not None]
    right = [f for f in figures if f.acc_h is not None and f.shortcut_prob is not None]
    if not left and not right:
        return message_figure("Fig. 4: no model has paired low- and high-level answers")
    figure = Figure(figsize=(11.0, 5.0), dpi=100, layout="constrained")
    rational, shortcut = figure.subplots(1, 2)
    rational.set_label("rationality")
    shortcut.set_label("shortcut")
    kinds = sorted({(groups or {}).get(f.run, "") for f in figures})
    palette = category_colours(kinds, "task")

    def colours(models):
        return [palette[(groups or {}).get(f.run, "")] for f in models]

    if left:
        x = np.array([f.acc_h for f in left], dtype=float)
        y = np.array([f.rationality for f in left], dtype=float)
        span = (_span(x), _span(y))
        rational.axvline(x.mean(), color="#888888", linestyle="--", linewidth=0.8)
        rational.axhline(y.mean(), color="#888888", linestyle="--", linewidth=0.8)
        _labelled_scatter(rational, x, y, [f.run for f in left], colours(left), span)
        rational.set_xlim(*span[0])
        rational.set_ylim(*span[1])
    rational.set_xlabel("High-level accuracy Acc_H", fontsize=8)
    rational.set_ylabel("Rationality = 1 − D/(A+D)", fontsize=8)
    rational.set_title(f"Rationality vs accuracy\n{len(left)} models; dashed lines: the means",
                       fontsize=9)  # fmt: skip
    if right:
        x = np.array([f.acc_h for f in right], dtype=float)
        y = np.array([f.shortcut_prob for f in right], dtype=float)
        both = np.concatenate([x, y])
        span = (_span(both), _span(both))
        ends = [min(span[0][0], span[1][0]), max(span[0][1], span[1][1])]
        shortcut.plot(ends, ends, color="#c44e52", linewidth=1.0, linestyle="-",
                      label="y = x: independence (SP = Acc_H)", zorder=1)  # fmt: skip
        _labelled_scatter(shortcut, x, y, [f.run for f in right], colours(right), span)
        shortcut.set_xlim(*span[0])
        shortcut.set_ylim(*span[1])
        shortcut.set_aspect("equal", adjustable="box")
        shortcut.legend(loc="upper left", fontsize=7, frameon=False)
    shortcut.set_xlabel("High-level accuracy Acc_H", fontsize=8)
    shortcut.set_ylabel("Shortcut Probability = D/(C+D)", fontsize=8)
    shortcut.set_title(_plain(_correlation_title(correlation)), fontsize=9)
    for axes in (rational, shortcut):
        axes.tick_params(labelsize=7)
        axes.spines[["top", "right"]].set_visible(False)
    if groups and len(kinds) > 1:
        handles = [Line2D([], [], marker="o", linestyle="", color=palette[k], label=_plain(k or "?"))
                   for k in kinds]  # fmt: skip
        figure.legend(handles=handles, loc="outside lower center", ncol=len(kinds), fontsize=7,
                      frameon=False)  # fmt: skip
    figure.suptitle("Fig. 4  Credibility across models (paper §6, Appendix H)", fontsize=10)
    return figure


def _correlation_title(correlation: Correlation | None) -> str:
    """The right panel's title: the correlation as :meth:`Correlation.summary` states
    it (an undefined r says why), wrapped to the panel."""
    import textwrap

    if correlation is None:
        return "Shortcut Probability vs accuracy\n(r not computed)"
    return "Shortcut Probability vs accuracy\n" + textwrap.fill(
        f"Pearson {correlation.summary()}", 64
    )


def save_figure(figure, path: str | Path, metadata: Mapping[str, str] | None = None) -> Path:
    """Write ``figure`` to ``path`` as PNG (200 dpi) or SVG, chosen by the suffix,
    atomically (:func:`~medrcube_desktop.core.files.atomic_path`); return the path.

    The SVG has no date and a fixed hash salt for its ids (clip-path ids still depend on
    matplotlib's object ids, so two files of one figure may differ in them).

    Raises
    ------
    MedRCubeError
        A suffix other than ``.png`` or ``.svg``.
    OSError
        The file cannot be written.
    """
    from matplotlib import rc_context
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from medrcube_desktop.core.files import atomic_path

    path = Path(path)
    kind = path.suffix.lower().lstrip(".")
    if kind not in ("png", "svg"):
        raise MedRCubeError(f"{path}: a figure is written as .png or .svg, not {path.suffix!r}")
    FigureCanvasAgg(figure)
    meta = {"Title": "MedRCube comparison"} | {k: file_text(v) for k, v in (metadata or {}).items()}
    if kind == "svg":
        meta["Date"] = None  # type: ignore[assignment]
    with rc_context({"svg.hashsalt": "medrcube", "svg.fonttype": "path"}), atomic_path(path) as tmp:
        figure.savefig(tmp, format=kind, dpi=200 if kind == "png" else None, metadata=meta)
    return path
