"""The several-experts view of the agreement pane: expert–expert (the ceiling) beside
expert–LLM and each pair, or each rater against the adjudicated gold standard, in the
pane's table (a helper of
:class:`~medrcube_desktop.ui.agreement.pane.AgreementPane`, kept apart for size)."""

from __future__ import annotations

import textwrap

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHeaderView, QTableWidget, QTableWidgetItem

from medrcube_desktop.review.agreement.panel import ROW_KEYS
from medrcube_desktop.review.agreement.panel_report import (
    cell,
    pair_counts,
    panel_abstention_lines,
    panel_undefined,
    row_labels,
    small_overlaps,
)
from medrcube_desktop.review.agreement.panel_run import PanelRun, run_gold, run_panel
from medrcube_desktop.ui.widgets.text import esc

PANEL = "panel"
"""The ``Compared with`` choice of the several-experts view."""

GOLD = "gold"
"""The ``Compared with`` choice of every rater against the adjudicated gold standard."""


def panel_job(choice: str, kwargs: dict):
    """The worker-thread job of ``choice`` (:data:`PANEL` or :data:`GOLD`): ``(store,
    cancel, progress) -> PanelRun`` with ``kwargs`` of :func:`.panel_run.run_panel`."""
    compute = run_gold if choice == GOLD else run_panel
    return lambda store, cancel, progress: compute(store, **kwargs)


def fill_panel_table(table: QTableWidget, run: PanelRun) -> None:
    """One row per judgment, one column per group: ``agreement [CI] κ``."""
    labels = row_labels()
    table.clear()
    table.setColumnCount(len(run.columns) + 1)
    table.setHorizontalHeaderLabels(
        ["", *(f"{textwrap.fill(c.name, 26)}\n{pair_counts(c)}" for c in run.columns)]
    )
    table.setRowCount(len(ROW_KEYS))
    header = table.horizontalHeader()
    # every column as wide as its text, the rule names included: the table scrolls
    # sideways rather than squeezing "1.3 Answer Uniqueness" to "1…"
    header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    for r, key in enumerate(ROW_KEYS):
        texts = [labels[key], *(cell(c.rows[key]) for c in run.columns)]
        for c, text in enumerate(texts):
            item = QTableWidgetItem(text)
            item.setData(Qt.ItemDataRole.UserRole, key)
            if c:
                item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
            if key in ("sample", "verdict") or key.startswith("P"):
                font = item.font()
                font.setBold(True)
                item.setFont(font)
            table.setItem(r, c, item)


def panel_summary(run: PanelRun, blind_viewer: str | None) -> str:
    """The rich-text sentence above the table (every name escaped); the notes go below
    it (:func:`panel_notes`)."""
    raters = ", ".join(f"{esc(name)} ({n})" for name, n in run.raters.items())
    ceiling = run.column("ceiling")
    n = len(run.items)
    items = f"{n} item{'' if n == 1 else 's'}"
    if run.gold is not None:
        g = run.gold
        text = (
            f"<b>Against the adjudicated gold standard</b> on {items} ({g['n_adjudicated']} "
            f"adjudicated, {g['n_consensus']} by consensus of "
            f"{esc(', '.join(g['panel']))}; {g['n_left_out']} left out for want of one); "
            f"raters (items judged): {raters}. Each cell: agreement [95% CI] and Cohen's κ."
        )
    else:
        text = (
            f"<b>Several experts</b> on {items}; raters (items judged): {raters}. "
            "Each cell: agreement [95% CI] and Cohen's κ; a group is the mean over its pairs."
        )
    if ceiling is not None:
        text += f" Ceiling at sample level: <b>{cell(ceiling.rows['sample'])}</b>."
    if blind_viewer:
        text += (
            f"<br>Blind study: only the items {esc(blind_viewer)} has committed are compared "
            "(the agreement command, which sees every item, can give other figures)."
        )
    text += "<br>Figures and files: the <code>agreement</code> command's <code>--out</code>."
    return text


def panel_notes(run: PanelRun) -> str:
    """The rich-text notes shown below the table (every name escaped): where each
    rater's gold values come from, and columns over too few items; "" when none."""
    lines = [esc(line) for line in panel_abstention_lines(run)]  # as the command says them
    lines += [f"<b>Note:</b> {esc(note)}." for note in run.notes]
    lines += [f"<b>Warning:</b> {esc(warning)}." for warning in small_overlaps(run)]
    undefined = panel_undefined(run)  # the command lists them all; a few fit here
    lines += [esc(line) for line in undefined[:3]]
    if len(undefined) > 3:
        lines.append(
            f"… {len(undefined) - 3} more undefined figures (the agreement command lists them)."
        )
    return "<br>".join(lines)
