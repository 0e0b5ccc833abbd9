"""The agreement study's figures: per-rule agreement with intervals, and the 2×2 tables.

Drawn with matplotlib's object API (no pyplot, no GUI backend), so the same figures go
into the export and, on a Qt canvas, into the Agreement pane.
"""

from __future__ import annotations

from pathlib import Path

from medrcube_desktop.core.names import LABEL_LENGTH, figure_text, file_text
from medrcube_desktop.core.rubric import PRINCIPLES, RULE_IDS
from medrcube_desktop.review.agreement.run import StudyRun
from medrcube_desktop.review.agreement.table import meta_line, table_rows


def _plain(text: object, limit: int | None = None) -> str:
    """Every text a figure shows: hidden characters visible, ``$`` escaped, cut at
    ``limit`` characters (:func:`~medrcube_desktop.core.names.figure_text`)."""
    return figure_text(text, limit)


def _short(name: object) -> str:
    """A rater's name cut to :data:`~medrcube_desktop.core.names.LABEL_LENGTH` (the
    title it goes into is made visible and escaped as a whole)."""
    text = str(name)
    return text if len(text) <= LABEL_LENGTH else text[: LABEL_LENGTH - 1] + "…"


def bar_figure(run: StudyRun):
    """Per-rule agreement with 95 % intervals, principle verdicts and sample level."""
    from matplotlib.figure import Figure

    rows = [r for r in table_rows(run)]
    order = [r for r in rows if r["key"] in RULE_IDS] + [
        r for r in rows if str(r["key"]).startswith("P")
    ]
    order.append(rows[0])
    labels = [str(r["key"]).replace("P", "P") if r["key"] != "sample" else "All 7" for r in order]
    values = [r["agreement"] if r["agreement"] is not None else float("nan") for r in order]
    errors: list[list[float]] = [[], []]
    for r, v in zip(order, values, strict=True):
        ci = r.get("ci95")
        errors[0].append(v - ci[0] if ci else 0)
        errors[1].append(ci[1] - v if ci else 0)
    figure = Figure(figsize=(7.2, 3.4), dpi=150, layout="constrained")
    axes = figure.add_subplot()
    colours = ["#4c72b0"] * len(RULE_IDS) + ["#dd8452"] * len(PRINCIPLES) + ["#55a868"]
    axes.bar(labels, values, color=colours, yerr=errors, capsize=3, ecolor="#333333", width=0.65)
    axes.axhline(0.9, color="#888888", linestyle="--", linewidth=0.8)
    axes.text(
        len(labels) - 0.5, 0.905, "0.90", ha="right", va="bottom", fontsize=7, color="#666666"
    )
    axes.set_ylim(0, 1.05)
    axes.set_ylabel("Agreement (share of items)")
    axes.set_title(
        _plain(
            f"{_short(run.meta['first'])} vs {_short(run.meta['second'])}: agreement per sub-principle, "
            f"principle verdict ({', '.join(f'P{pid}' for pid in PRINCIPLES)}) and all seven (n = {len(run.result.items)}, "
            "95% bootstrap CI)"
        ),
        fontsize=8,
    )
    axes.spines[["top", "right"]].set_visible(False)
    return figure


def confusion_figure(run: StudyRun):
    """2×2 tables (counts) for the seven rules and the two principle verdicts."""
    from matplotlib.figure import Figure

    panels = [(rule, run.result.rules[rule].confusion) for rule in RULE_IDS]
    panels += [(f"P{pid} verdict", run.result.verdict(pid).confusion) for pid in PRINCIPLES]
    figure = Figure(figsize=(7.2, 7.4), dpi=150, layout="constrained")
    grid = figure.subplots(3, 3)
    for axes, (title, table) in zip(grid.flat, panels, strict=True):
        axes.imshow(table, cmap="Blues", vmin=0, vmax=max(1, len(run.result.items)))
        for i in range(2):
            for j in range(2):
                count = table[i][j]
                dark = count > 0.6 * max(1, len(run.result.items))
                axes.text(j, i, str(count), ha="center", va="center",
                          color="white" if dark else "black", fontsize=11)  # fmt: skip
        axes.set_xticks([0, 1], ["fail", "pass"])
        axes.set_yticks([0, 1], ["fail", "pass"])
        axes.set_xlabel(_plain(run.meta["second"], LABEL_LENGTH), fontsize=7)
        axes.set_ylabel(_plain(run.meta["first"], LABEL_LENGTH), fontsize=7)
        axes.set_title(title, fontsize=9)
    figure.suptitle("Judgments of the two raters (counts of items)", fontsize=10)
    return figure


def save_figure(figure, path: Path, ext: str, run: StudyRun) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(figure)
    metadata = {"Title": "MedRCube agreement study", "Description": file_text(meta_line(run))}
    if ext == "png":
        metadata["Software"] = f"MedRCube Desktop {run.meta['app_version']}"
    figure.savefig(path, format=ext, metadata=metadata)
