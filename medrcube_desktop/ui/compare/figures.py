"""The Compare models pane's Figures tab: the paper's Fig. 3a (voxel correlation,
clustered), Fig. 3b (by region: the brain island) and Fig. 4 (credibility across models)
of the comparison on screen, and Export report…, which writes every table, figure and
the HTML report (:func:`~medrcube_desktop.evaluation.compare.report.write_compare_outputs`)
to a folder, the same files ``compare --out`` writes.

The figures are drawn by :mod:`medrcube_desktop.evaluation.compare.figures` (matplotlib's
object API, no pyplot), on the worker thread that computed the comparison; here they are
only put on Qt canvases.
"""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.ui.widgets.folder_dialog import choose_folder
from medrcube_desktop.ui.widgets.job_runner import JobRunnerView
from medrcube_desktop.ui.widgets.readable import scrolled_canvas
from medrcube_desktop.ui.widgets.text import esc
from medrcube_desktop.ui.widgets.themes import error_colour

log = logging.getLogger(__name__)

TITLES: dict[str, str] = {
    "fig3_voxel_correlation": "Fig. 3a · voxel correlation",
    "fig3_region_order": "Fig. 3b · by region",
    "fig3_residual": "Fig. 3c · less overall accuracy",
    "fig4_credibility": "Fig. 4 · credibility",
}
"""The tab of each figure of :data:`~medrcube_desktop.evaluation.compare.report.FIGURES`."""

SCREEN_DPI = 90
"""The canvases' resolution: the export's 200 dpi would draw everything too big here."""


def report_meta(
    db_path: Path | None, dataset: str, result, out: Path | None = None
) -> dict[str, object]:
    """Provenance of a report written from the window: what ``compare --out`` records
    (:func:`~medrcube_desktop.evaluation.compare.inputs.report_meta`), with the command
    line that computes the same figures from a terminal (the settings ``result`` was
    computed with; the database, the benchmark and ``out``, the report's folder, as
    absolute paths, so the command writes the same files from any folder)."""
    from medrcube_desktop.evaluation.compare_options import CompareSettings
    from medrcube_desktop.evaluation.compare_options import report_meta as meta

    return meta(db_path, dataset, result.matrix.runs, CompareSettings.of(result), out,
                written_by="Compare models pane")  # fmt: skip


def runs_text(result) -> str:
    """``"runs iv8, iv2, ls"`` (``"run iv8"``; more than 6 runs: the first 5 and a count)."""
    runs = list(result.matrix.runs)
    shown = ", ".join(runs if len(runs) <= 6 else [*runs[:5], f"{len(runs) - 5} more"])
    return f"run{'' if len(runs) == 1 else 's'} {shown}"


class CompareFiguresTab(QWidget):
    """Figs. 3a, 3b and 4 of a comparison, and Export report….

    ``exported(paths)`` is emitted once a report is written (an empty list when it
    failed or was cancelled; the reason is in :attr:`status`). ``sources`` are the
    benchmark's files (:func:`~medrcube_desktop.core.files.item_files`): the report is
    never written over one of them, nor over the database. The export runs on
    :attr:`runner`; the pane holding this tab stops it (:meth:`stop`) when it closes.
    """

    exported = Signal(list)

    def __init__(
        self, db_path: Path | None, dataset: str, sources: list[Path] | None = None, parent=None
    ) -> None:
        super().__init__(parent)
        self.db_path, self.dataset = db_path, dataset
        self.sources = list(sources or [])
        self.result = None
        self._notes = ""  # the status of the result shown
        self._exporting = None  # (result, folder) of the export running
        self.figures = QTabWidget()
        self.figures.setObjectName("compareFigures")
        self.export_button = QPushButton("Export &report…")
        self.export_button.setAutoDefault(False)
        self.export_button.setToolTip(
            "Write every table (CSV, XLSX, JSON), the figures (PNG, SVG) and report.html "
            "to a folder: what the compare command's --out writes"
        )
        self.export_button.setEnabled(False)
        self.export_button.clicked.connect(self.export)
        self.runner = JobRunnerView(self, hide_when_idle=True)
        self.runner.finished.connect(self._on_written)
        self.status = QLabel("Compare runs to see the figures.")
        self.status.setObjectName("compareFiguresStatus")
        self.status.setTextFormat(Qt.TextFormat.RichText)  # every value in it is escaped
        self.status.setWordWrap(True)
        row = QHBoxLayout()
        row.addWidget(self.status, 1)
        row.addWidget(self.export_button)
        layout = QVBoxLayout(self)
        layout.addLayout(row)
        layout.addWidget(self.runner)
        layout.addWidget(self.figures, 1)

    def show_result(self, result, figures: dict[str, object]) -> None:
        """Show ``figures`` (name → matplotlib Figure) of ``result`` (a
        :class:`~medrcube_desktop.evaluation.compare.result.CompareResult`)."""
        from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg

        self.result = result
        while self.figures.count():
            widget = self.figures.widget(0)
            self.figures.removeTab(0)
            widget.deleteLater()
        for name, figure in figures.items():
            figure.set_dpi(SCREEN_DPI)
            canvas = FigureCanvasQTAgg(figure)
            canvas.setObjectName(name)
            # at its drawn size, scrolled in a short pane (not squeezed)
            self.figures.addTab(scrolled_canvas(canvas, figure), TITLES.get(name, name))
        self.export_button.setEnabled(not self.runner.is_running())  # one export at a time
        notes = [w for w in result.warnings if "voxel" in w or "correlation" in w]
        self._notes = (
            "The paper's figures for these runs. Export report… writes them at full size (PNG, SVG) with every table and report.html."
            if not notes
            else "<br>".join(f"⚠ {esc(w)}" for w in notes)
        )
        if self.runner.is_running() and self._exporting is not None:
            self.status.setText(f"{self._notes}<br>{self._progress_text()}")
        else:
            self.status.setText(self._notes)

    def export(self) -> None:
        """Ask for a folder and write the report there (on a worker thread)."""
        if self.result is None:
            return
        folder = choose_folder(self, "Export the comparison report to")  # new names too
        if folder is not None:
            self.export_to(folder)

    def export_to(self, folder: Path) -> bool:
        """Write the report's files into ``folder``; False when a job already runs or
        there is nothing to write. The outcome arrives through :attr:`exported`."""
        if self.result is None or self.runner.is_running():
            return False
        from medrcube_desktop.evaluation.compare.report import write_compare_outputs

        result, db_path, sources = self.result, self.db_path, self.sources
        meta = report_meta(db_path, self.dataset, result, folder)
        self.export_button.setEnabled(False)
        self._exporting = (result, folder)
        self.status.setText(self._progress_text())
        if db_path is None:  # an in-memory study: no file for a worker to open
            try:
                paths = write_compare_outputs(folder, result, meta, [], sources)
            except (OSError, MedRCubeError) as exc:
                self._on_written(None, str(exc))
                return True
            self._on_written(paths, "")
            return True
        self.runner.start(
            db_path,
            lambda store, cancel, progress: write_compare_outputs(
                folder, result, meta, [store.path], sources, cancel
            ),
        )
        return True

    def stop(self) -> None:
        """Cancel a running export and wait for it (the pane is closing): the report is
        all or nothing, so a cancelled one leaves no file in its folder."""
        self.runner.stop()

    def _progress_text(self) -> str:
        result, folder = self._exporting
        return f"Writing the report of {esc(runs_text(result))} to {esc(folder)}…"

    def _on_written(self, paths: list[Path] | None, error: str) -> None:
        result, folder = self._exporting or (self.result, "")
        self._exporting = None
        self.export_button.setEnabled(self.result is not None)
        earlier = result is not self.result  # Compare ran again meanwhile
        which = (
            f"{'the earlier comparison' if earlier else 'the comparison'} of {runs_text(result)}"
        )
        if self.runner.cancelled and not error:
            message = f"Export cancelled: no file of {esc(which)} written to {esc(folder)}."
        elif error or not paths:
            message = (
                f"<span style='color:{error_colour()}'>Report of {esc(which)} not written: "
                f"{esc(error or 'no files')}</span>"
            )
        else:
            report = next((p for p in paths if p.name == "report.html"), paths[-1])
            message = f"{len(paths)} files of {esc(which)} written; the report: {esc(report)}"
        self.status.setText(f"{self._notes}<br>{message}" if earlier else message)
        self.exported.emit(list(paths or []) if not self.runner.cancelled else [])
