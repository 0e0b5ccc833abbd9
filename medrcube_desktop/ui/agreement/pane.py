"""Review › Agreement study: the Table-5-style table, the figures, the items behind a cell.

The statistics run through the one Qt job runner
(:class:`~medrcube_desktop.ui.widgets.job_runner.JobRunnerView`, its own thread and database
connection; :func:`~medrcube_desktop.review.agreement.run_study`); the pane only shows
results. What it may count and list follows the session's blinding rule
(:mod:`medrcube_desktop.review.blinding`): in a blind study only items the reviewer of
this window has committed, so the pane never reveals a judgment the review window would
still hide.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QFormLayout,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.review.agreement import (
    StudyRun,
    fmt,
    run_study,
    table_rows,
    write_outputs,
)
from medrcube_desktop.review.agreement.panel_run import PanelRun
from medrcube_desktop.review.agreement.table import cell as figure_cell
from medrcube_desktop.review.agreement.table import ci_cell, extra_lines, undefined_notes
from medrcube_desktop.review.agreement_options import AGREEMENT, STUDY
from medrcube_desktop.review.studies import create_or_extend_study
from medrcube_desktop.store import StudyStore
from medrcube_desktop.ui.agreement.experts_panel import (
    GOLD,
    PANEL,
    fill_panel_table,
    panel_job,
    panel_notes,
    panel_summary,
)
from medrcube_desktop.ui.widgets.folder_dialog import choose_folder
from medrcube_desktop.ui.widgets.job_runner import JobRunnerView
from medrcube_desktop.ui.widgets.option_fields import option_box
from medrcube_desktop.ui.widgets.readable import headers_fit_contents, scrolled_canvas
from medrcube_desktop.ui.widgets.screen import fit_to_screen
from medrcube_desktop.ui.widgets.text import esc

if TYPE_CHECKING:
    from medrcube_desktop.review.session import ReviewSessionState

log = logging.getLogger(__name__)

COLUMNS = (
    "",
    "Agreement [95% CI]",
    "Cohen's κ",
    "Gwet's AC1",
    "PABAK",
    "McNemar p",
    "both fail",
    "1st ✗ 2nd ✓",
    "1st ✓ 2nd ✗",
    "both pass",
)
PANE_OPTIONS: tuple[str, ...] = ("bootstrap", "seed")
"""The options of :data:`~medrcube_desktop.review.agreement_options.AGREEMENT` the pane
has a field for (an attribute of that name); the others keep the command's defaults."""

CELL_COLUMNS = {6: (0, 0), 7: (0, 1), 8: (1, 0), 9: (1, 1)}
"""Table column → (first rater's value, second rater's value) of a 2×2 cell."""


def _extra_summary(run: StudyRun) -> str:
    """Intra-rater and multi-rater figures in a sentence each, as ``agreement`` prints
    them (:func:`~medrcube_desktop.review.agreement.table.extra_lines`; details in the
    export)."""
    return "".join(f"<br>{esc(line)}" for line in extra_lines(run))


def study_job(kwargs: dict, evidence_items: list | None):
    """The worker's job: :func:`~medrcube_desktop.review.agreement.run.run_study` with
    ``kwargs``, and with the ablation evidence of ``evidence_items`` (read on the worker's
    own connection) when given, as ``agreement --ablation-evidence`` computes it."""

    def job(store, cancel, progress):
        if evidence_items is None:
            return run_study(store, **kwargs)
        from medrcube_desktop.evaluation.compare.necessity import ANSWERABLE_SHARE, store_evidence

        evidence = store_evidence(store, evidence_items)
        return run_study(store, **kwargs, evidence=evidence, threshold=ANSWERABLE_SHARE)

    return job


class AgreementPane(QDialog):
    """Choose raters, study and bootstrap; see the table, the figures and the items.

    ``open_item(item_id)`` asks the review window to show an item.
    """

    open_item = Signal(str)
    study_saved = Signal()
    computed = Signal()  # a result (or an error) is on screen

    def __init__(self, parent: QWidget, session: Callable[[], ReviewSessionState]) -> None:
        """``session()``: the window's session now (its reviewer is the viewer the
        blinding rule counts for, and changes with File › Change reviewer)."""
        super().__init__(parent)
        self.setWindowTitle("Agreement study")
        self.session = session
        self.store: StudyStore = session().store
        self.run: StudyRun | None = None
        self.panel_run: PanelRun | None = None
        self.first = QComboBox()
        self.second = QComboBox()
        self.study = QComboBox()
        self.bootstrap = option_box(AGREEMENT["bootstrap"])  # the command's default, range
        self.seed = option_box(AGREEMENT["seed"])
        self.evidence = QCheckBox(AGREEMENT["evidence"].label)  # the command's option
        self.evidence.setObjectName("agreementEvidence")
        self.evidence.setToolTip(AGREEMENT["evidence"].help_text().replace(
            "scored on this benchmark folder", "scored on the open benchmark"))  # fmt: skip
        self.compute_button = QPushButton("&Compute")
        self.compute_button.clicked.connect(self.compute)
        self.export_button = QPushButton("&Export…")
        self.export_button.setEnabled(False)
        self.export_button.clicked.connect(self.export)
        self.new_study_button = QPushButton("&New study…")
        self.new_study_button.clicked.connect(self.new_study)
        self.runner = JobRunnerView(self, hide_when_idle=True)  # busy while computing
        self.runner.finished.connect(self._on_done)
        self.summary = QLabel()
        self.summary.setObjectName("agreementSummary")
        self.summary.setTextFormat(Qt.TextFormat.RichText)  # every value in it is escaped
        self.summary.setWordWrap(True)
        self.notes = QLabel()  # several experts: below the table, what to know to read it
        self.notes.setObjectName("agreementNotes")
        self.notes.setTextFormat(Qt.TextFormat.RichText)  # every value in it is escaped
        self.notes.setWordWrap(True)
        self.notes.hide()
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setObjectName("agreementTable")
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        # every column, the rule names' too, as wide as its text (a stretched first
        # column was squeezed to "1.4 VQA Sui…"): the table scrolls sideways instead
        headers_fit_contents(self.table.horizontalHeader())
        self.table.verticalHeader().setVisible(False)
        self.table.setWordWrap(False)
        self.table.setToolTip("Click a count in the last four columns to list its items")
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.cellClicked.connect(self._cell_clicked)
        self.items = QListWidget()
        self.items.setObjectName("agreementItems")
        self.items.itemDoubleClicked.connect(self._open)
        self.items_label = QLabel("Click a count in the 2×2 columns to list its items.")
        self.items_label.setTextFormat(Qt.TextFormat.PlainText)  # names from the database
        self.items_label.setWordWrap(True)
        self.figures = QTabWidget()
        self._build_layout()
        self._fill_choices()

    def _build_layout(self) -> None:
        form = QFormLayout()
        form.addRow("&First rater (first judgments)", self.first)
        form.addRow("&Compared with", self.second)
        study_row = QHBoxLayout()
        study_row.addWidget(self.study, 1)
        study_row.addWidget(self.new_study_button)
        form.addRow("Items", study_row)
        numbers = QHBoxLayout()
        for name in PANE_OPTIONS:
            numbers.addWidget(QLabel(AGREEMENT[name].label))
            numbers.addWidget(getattr(self, name))
        numbers.addWidget(self.evidence)
        numbers.addStretch(1)
        numbers.addWidget(self.compute_button)
        numbers.addWidget(self.export_button)
        form.addRow(numbers)
        side = QWidget()
        side_layout = QVBoxLayout(side)
        side_layout.setContentsMargins(0, 0, 0, 0)
        side_layout.addWidget(self.items_label)
        side_layout.addWidget(self.items, 1)
        lower = self.lower = QSplitter()  # hidden with several experts: no figures there
        lower.addWidget(self.figures)
        lower.addWidget(side)
        lower.setSizes([700, 300])
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.runner)
        layout.addWidget(self.summary)
        layout.addWidget(self.table, 2)
        layout.addWidget(self.notes)
        layout.addWidget(lower, 3)
        fit_to_screen(self, 1100, 860)  # never taller than the screen

    def _fill_choices(self) -> None:
        reviewers = self.store.reviewers()
        self.first.clear()
        for name in reviewers:
            self.first.addItem(name, name)
        current = self.session().reviewer
        if current in reviewers:
            self.first.setCurrentIndex(reviewers.index(current))
        self.second.clear()
        for model in self.store.judgment_models():
            self.second.addItem(f"LLM: {model}", ("model", model))
        for name in reviewers:
            self.second.addItem(f"Reviewer: {name}", ("reviewer", name))
        if len(reviewers) >= 2:
            self.second.addItem("All reviewers (ceiling beside expert–LLM)", PANEL)
        if reviewers and (len(reviewers) >= 2 or self.store.adjudications()):
            self.second.addItem("Against the adjudicated gold standard (every rater)", GOLD)
        self.study.clear()
        self.study.addItem("Every item both judged", None)
        for name in self.store.study_names():
            record = self.store.study(name)
            count = len(record.item_ids) if record else 0
            self.study.addItem(f"Study {name} ({count} items)", name)

    def compute(self) -> None:
        """Start the computation on a worker thread."""
        if self.runner.is_running():
            return
        first, second = self.first.currentData(), self.second.currentData()
        if first is None or second is None:
            self.summary.setText("Needs a reviewer with reviews and someone to compare with.")
            self.computed.emit()
            return
        if self.store.path is None:
            self.summary.setText("This study has no database file to read on a worker thread.")
            self.computed.emit()
            return
        if self.session().agreement_items() == set():
            self.summary.setText(
                "This study is blind: agreement counts only the items you have committed, "
                "and you have committed none yet. Commit your scores (Enter) and compute again."
            )
            self.computed.emit()
            return
        if second in (PANEL, GOLD):
            self._compute_panel(second)
            return
        kind, name = second
        if kind == "reviewer" and name == first:
            self.summary.setText(
                f"<span style='color:#b42318'>{esc(first)} compared with themself would agree "
                "on everything: choose another reviewer or a model. (Intra-rater agreement "
                "comes from the items shown twice.)</span>"
            )
            self.computed.emit()
            return
        kwargs = {
            "reviewer": first,
            "model": name if kind == "model" else None,
            "reviewer2": name if kind == "reviewer" else None,
            "study": self.study.currentData(),
            "bootstrap": self.bootstrap.value(),
            "seed": self.seed.value(),
        }
        counted = self.session().agreement_items()  # blind: nothing it would hide
        if counted is not None:
            kwargs["only_items"] = counted
        try:
            release = self.release()
        except MedRCubeError as exc:
            self.summary.setText(f"<span style='color:#b42318'>{esc(exc)}</span>")
            self.computed.emit()
            return
        if release is not None:  # as `agreement --release DIR`: its retired items out
            kwargs["release"], kwargs["retired"] = release.describe(), release.retired
        self.compute_button.setEnabled(False)
        self.summary.setText("Computing…")
        self.runner.start(self.store.path, study_job(kwargs, self._evidence_items()))

    def _evidence_items(self) -> list | None:
        """The benchmark's items (restricted ones too) when rule 1.4 is to be compared
        with the ablation evidence, else None."""
        if not self.evidence.isChecked():
            return None
        session = self.session()
        return list(session.items) + list(session.restricted)

    def release(self):
        """The corrected release the window's benchmark is (it holds a ``release.json``),
        or None (:func:`~medrcube_desktop.evaluation.release_read.release_of`); raises
        DatasetError for a release.json that cannot be used."""
        from medrcube_desktop.evaluation.release_read import release_of

        roots = {item.root for item in self.session().items if item.root is not None}
        return release_of(next(iter(roots))) if len(roots) == 1 else None

    def _compute_panel(self, choice: str) -> None:
        """Every reviewer: the ceiling beside expert–LLM (:data:`PANEL`), or each reviewer
        and the LLM against the adjudicated gold standard (:data:`GOLD`); the study's LLM,
        if any."""
        reviewers = self.store.reviewers()
        models = self.store.judgment_models()
        model = self.session().llm_model or (models[0] if models else None)
        kwargs = {
            "reviewers": reviewers,
            "model": model or None,
            "study": self.study.currentData(),
            "bootstrap": self.bootstrap.value(),
            "seed": self.seed.value(),
            "only_items": self.session().agreement_items(),
        }
        self.compute_button.setEnabled(False)
        self.summary.setText("Computing…")
        self.runner.start(self.store.path, panel_job(choice, kwargs))

    def _on_done(self, run: StudyRun | PanelRun | None, error: str) -> None:
        if error or run is None:
            self._failed(error or "no result")
        elif isinstance(run, PanelRun):
            self._show_panel(run)
        else:
            self._show(run)

    def _show_panel(self, run: PanelRun) -> None:
        self.compute_button.setEnabled(True)
        self.export_button.setEnabled(False)  # the command writes these files
        self.run = None
        self.panel_run = run
        viewer = self.session().reviewer
        blind = viewer if run.meta.get("restricted_to_committed_by_viewer") else None
        self.summary.setText(panel_summary(run, blind))
        fill_panel_table(self.table, run)
        self.lower.hide()  # neither figures nor the items of a 2×2 cell here
        self.notes.setText(panel_notes(run))
        self.notes.setVisible(bool(self.notes.text()))
        while self.figures.count():
            widget = self.figures.widget(0)
            self.figures.removeTab(0)
            widget.deleteLater()
        self.computed.emit()

    def _failed(self, text: str) -> None:
        self.compute_button.setEnabled(True)
        self.summary.setText(f"<span style='color:#b42318'>{esc(text)}</span>")
        self.computed.emit()

    def _show(self, run: StudyRun) -> None:
        self.compute_button.setEnabled(True)
        self.export_button.setEnabled(True)
        self.run = run
        result = run.result
        hidden = int(run.meta.get("hidden_by_blinding") or 0)
        blind = (
            f"<br>Blind study: only the items {esc(self.session().reviewer)} "
            f"has committed are compared ({hidden} more not yet)."
            if run.meta.get("restricted_to_committed_by_viewer")
            else ""
        )
        self.summary.setText(
            f"<b>{esc(str(run.meta['first']))}</b> vs "
            f"<b>{esc(str(run.meta['second']))}</b>: "
            f"{len(result.items)} item{'' if len(result.items) == 1 else 's'} both judged, "
            f"{len(result.excluded)} judged by one only. "
            f"Sample level (all seven match): <b>{fmt(result.sample_level)}</b>"
            + (f" {ci}" if (ci := ci_cell(table_rows(run)[0])) else "")
            + "." + blind + _extra_summary(run)
            + (f"<br>On release <b>{esc(run.meta['release']['version'])}</b>: its "
               f"{run.meta['release_retired_left_out']} retired items are left out."
               if run.meta.get("release") else "")
            + "".join(f"<br>{esc(note)}" for note in undefined_notes(table_rows(run)))
        )  # fmt: skip
        rows = table_rows(run)
        self.table.clear()
        self.table.setColumnCount(len(COLUMNS))
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        self.table.setRowCount(len(rows))
        for r, row in enumerate(rows):
            table = row.get("confusion")
            cells = [
                str(row["label"]),
                f"{figure_cell(row, 'agreement')} {ci_cell(row)}",
                figure_cell(row, "cohen_kappa"),
                figure_cell(row, "gwet_ac1"),
                figure_cell(row, "pabak"),
                figure_cell(row, "mcnemar_p") if row["key"] != "sample" else "",
            ]
            cells += [str(table[i][j]) if table else "" for i, j in CELL_COLUMNS.values()]
            for c, text in enumerate(cells):
                cell = QTableWidgetItem(text)
                cell.setData(Qt.ItemDataRole.UserRole, row["key"])
                if c:
                    cell.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                if row["key"] == "sample" or str(row["key"]).startswith("P"):
                    font = cell.font()
                    font.setBold(True)
                    cell.setFont(font)
                self.table.setItem(r, c, cell)
        self._show_figures(run)
        self.lower.show()
        self.notes.hide()
        self.computed.emit()

    def _show_figures(self, run: StudyRun) -> None:
        from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg

        from medrcube_desktop.review.agreement import bar_figure, confusion_figure

        while self.figures.count():
            widget = self.figures.widget(0)
            self.figures.removeTab(0)
            widget.deleteLater()
        for draw, title in ((bar_figure, "Agreement per rule"), (confusion_figure, "2×2 tables")):
            figure = draw(run)
            figure.set_dpi(90)  # the export's 150 dpi would draw everything too big here
            # at its drawn size, scrolled in a short pane (squeezed, the 2×2 tables were
            # 25 px high with "fail" and "pass" on top of each other)
            self.figures.addTab(scrolled_canvas(FigureCanvasQTAgg(figure), figure), title)

    def _cell_clicked(self, row: int, column: int) -> None:
        if self.run is None or column not in CELL_COLUMNS:
            return
        key = self.table.item(row, column).data(Qt.ItemDataRole.UserRole)
        if key == "sample":
            return
        first, second = CELL_COLUMNS[column]
        judgment = key if not str(key).startswith("P") else key
        found = self.run.result.items_in_cell(judgment, first, second)
        shown = self.session().shown_item_ids(found)
        verdict = ("fails", "passes")
        self.items_label.setText(
            f"{key}: {self.run.meta['first']} {verdict[first]}, {self.run.meta['second']} "
            f"{verdict[second]}: {len(found)} item{'' if len(found) == 1 else 's'}"
            + (
                f" ({len(found) - len(shown)} hidden: not committed by you in this blind study)"
                if len(shown) < len(found)
                else ""
            )
            + ". Double-click opens one in the review window."
        )
        self.items.clear()
        for item_id in shown:
            entry = QListWidgetItem(item_id)
            entry.setData(Qt.ItemDataRole.UserRole, item_id)
            self.items.addItem(entry)

    def _open(self, entry: QListWidgetItem) -> None:
        self.open_item.emit(entry.data(Qt.ItemDataRole.UserRole))

    def export(self) -> None:
        """Write the CSV, XLSX, JSON, figures and HTML report to a chosen folder."""
        if self.run is None:
            return
        folder = choose_folder(self, "Export the agreement study to")  # new names too
        if folder is None:
            return
        try:  # never over the study database (hard links and other spellings count)
            written = write_outputs(self.run, Path(folder), [self.store.path])
        except (OSError, MedRCubeError) as exc:
            QMessageBox.critical(self, "Export failed", f"{folder}: {exc}")
            return
        self.summary.setText(f"{len(written)} files written to {esc(folder)} (open report.html).")

    def new_study(self) -> None:
        """Draw (or extend) a named, seeded random sample of the benchmark's items."""
        items = self.session().items
        name, ok = QInputDialog.getText(self, "New study", "Study name:")
        if not ok or not name.strip():
            return
        n, ok = QInputDialog.getInt(
            self, "New study", f"Items (1–{len(items)}):", min(50, len(items)), 1, len(items)
        )
        if not ok:
            return
        strata = ["none", *STUDY["stratify"].choices]
        stratify, ok = QInputDialog.getItem(self, "New study", "Stratify by:", strata, 0, False)
        if not ok:
            return
        try:
            record = create_or_extend_study(
                self.store,
                name.strip(),
                items,
                n,
                self.seed.value(),
                "" if stratify == "none" else stratify,
            )
        except MedRCubeError as exc:
            QMessageBox.critical(self, "Study not created", str(exc))
            return
        self._fill_choices()
        self.study.setCurrentIndex(self.study.findData(record.name))
        self.study_saved.emit()
        self.summary.setText(
            f"Study {esc(record.name)}: {len(record.item_ids)} items (seed {record.seed}). "
            "Review them (Study filter of the item list) and press Compute."
        )
