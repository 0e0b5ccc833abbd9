"""The Compare models pane's "Old vs new release" tab: the old release against a corrected one
(issue 23 item 4), as ``compare --release-diff DIR`` prints it.

Choose the release folder (one ``release`` wrote, after ``rescore``), press "Compare
releases": :func:`~medrcube_desktop.evaluation.compare.release_diff.release_diff_study`
runs on a worker thread (its own database connection) over the pane's benchmark (the
source) and the checked runs, and the tab shows its one
:class:`~medrcube_desktop.evaluation.compare.release_diff.ReleaseDiff`: the models table
and the corrections table, their cells made by
:mod:`~medrcube_desktop.evaluation.compare.release_diff_report` (Qt-free), as the report
writes them. The tab computes nothing itself.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.evaluation.compare.release_diff_report import (
    CHANGE_HEADER,
    MODEL_HEADER,
    change_rows,
    model_rows,
)
from medrcube_desktop.evaluation.compare_options import RELEASE_DIFF, SETTINGS
from medrcube_desktop.store import StudyStore
from medrcube_desktop.ui.widgets.file_dialogs import get_existing_directory
from medrcube_desktop.ui.widgets.job_runner import JobRunnerView
from medrcube_desktop.ui.widgets.option_fields import option_box
from medrcube_desktop.ui.widgets.readable import bold_metrics, fit_header, header_padding
from medrcube_desktop.ui.widgets.text import esc
from medrcube_desktop.ui.widgets.themes import error_colour

HEADER_LINE = 7
"""A header line is at most this many ``M`` wide: a longer title ("need a new answer",
"after − before (points)") breaks into lines over a column as wide as its cells."""


def _table(name: str, header) -> QTableWidget:
    table = QTableWidget(0, len(header))
    table.setObjectName(name)
    table.setHorizontalHeaderLabels(list(header))
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.verticalHeader().setVisible(False)
    table.horizontalHeader().setStretchLastSection(False)
    table.horizontalHeader().setTextElideMode(Qt.TextElideMode.ElideNone)
    table.setWordWrap(False)
    fit_columns(table, header)
    return table


def fit_columns(table: QTableWidget, titles) -> None:
    """Each column of ``table`` as wide as its cells need, its header ``titles`` broken
    into lines (:func:`~.widgets.readable.fit_header`) where a title is wider than its
    cells: as the Compare grid's run columns (before: one line each, the models table
    wider than the pane, "right→wrong", "retired", "need a new answer" off its edge)."""
    header = table.horizontalHeader()
    metrics, padding = bold_metrics(header), header_padding(header)
    wide = metrics.horizontalAdvance("M" * HEADER_LINE)
    for column, title in enumerate(titles):
        cells = table.sizeHintForColumn(column) if table.rowCount() else 0
        narrow = max(cells, padding + metrics.horizontalAdvance("99"))
        width, text = fit_header(title, metrics, padding, narrow, max(narrow, wide))
        table.horizontalHeaderItem(column).setText(text)
        table.setColumnWidth(column, width)


def _fill(table: QTableWidget, rows: list[list[str]], titles) -> None:
    table.setRowCount(len(rows))
    for r, row in enumerate(rows):
        for c, text in enumerate(row):
            cell = QTableWidgetItem(text)
            if c:
                cell.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            table.setItem(r, c, cell)
    table.resizeRowsToContents()
    fit_columns(table, titles)


def table_height(table: QTableWidget) -> int:
    """Pixels ``table`` needs to show its header, every row and a horizontal scroll bar."""
    rows = sum(table.rowHeight(r) for r in range(table.rowCount()))
    bar = table.horizontalScrollBar().sizeHint().height()
    return table.horizontalHeader().sizeHint().height() + rows + 2 * table.frameWidth() + bar


class CompareReleasesView(QWidget):
    """The "Old vs new release" tab. ``computed`` is emitted once a result (or an error) is shown;
    :attr:`diff` holds the last :class:`ReleaseDiff` shown."""

    computed = Signal()

    def __init__(
        self,
        dialog: QWidget,
        store: StudyStore,
        dataset: Path,
        checked_runs: Callable[[], list[str]],
    ) -> None:
        """``dataset``: the source benchmark (the pane's); ``checked_runs``: the pane's
        checked runs (rescored runs among them are the "after" of their source)."""
        super().__init__(dialog)
        self.store, self.dataset, self.checked_runs = store, dataset, checked_runs
        self.diff = None
        self.folder = QLineEdit()
        self.folder.setObjectName("releaseFolder")
        self.folder.setPlaceholderText("a release folder (release.json, changes.json)")
        browse = QPushButton("&Browse…")
        browse.setAutoDefault(False)
        browse.clicked.connect(self.browse)
        self.fields = {
            "diff_boot": option_box(RELEASE_DIFF["diff_boot"]),
            "seed": option_box(SETTINGS["seed"]),
        }
        self.compare_button = QPushButton("Compare &releases")
        self.compare_button.setAutoDefault(False)
        self.compare_button.clicked.connect(self.compare)
        self.export_button = QPushButton("Export &tables…")
        self.export_button.setAutoDefault(False)
        self.export_button.setToolTip(
            "Write release_diff.json, the two CSV tables and release_diff.html into a folder "
            "(what compare --release-diff --out writes)"
        )
        self.export_button.setEnabled(False)
        self.export_button.clicked.connect(self.export)
        self.runner = JobRunnerView(dialog, hide_when_idle=True)
        self.runner.finished.connect(self._on_done)
        self.status = QLabel()
        self.status.setObjectName("releaseStatus")
        self.status.setTextFormat(Qt.TextFormat.RichText)  # every value in it is escaped
        self.status.setWordWrap(True)
        self.models = _table("releaseModels", MODEL_HEADER)
        self.changes = _table("releaseChanges", CHANGE_HEADER)
        row = QHBoxLayout()
        row.addWidget(self.folder, 1)
        row.addWidget(browse)
        form = QFormLayout()
        form.addRow("Release:", row)
        form.addRow(f"{RELEASE_DIFF['diff_boot'].label}:", self.fields["diff_boot"])
        form.addRow(f"{SETTINGS['seed'].label}:", self.fields["seed"])
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        buttons = QHBoxLayout()
        buttons.addWidget(self.compare_button)
        buttons.addWidget(self.export_button)
        buttons.addStretch(1)
        layout.addLayout(buttons)
        layout.addWidget(self.runner)
        layout.addWidget(self.status)
        lower = QWidget()
        lower_layout = QVBoxLayout(lower)
        lower_layout.setContentsMargins(0, 0, 0, 0)
        lower_layout.addWidget(QLabel("Corrections by kind and rule (each run's answers):"))
        lower_layout.addWidget(self.changes, 1)
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.setObjectName("releaseSplitter")
        self.splitter.setChildrenCollapsible(False)
        self.splitter.addWidget(self.models)
        self.splitter.addWidget(lower)
        self.splitter.setStretchFactor(0, 0)  # its rows' height (_share_height)
        self.splitter.setStretchFactor(1, 1)  # the corrections: a row per (kind, rule, run)
        layout.addWidget(self.splitter, 1)
        hint = QLabel("Accuracy in %, Wilson 95 %; the difference over the items both runs "
                      "answered, bootstrap 95 % by image; run `rescore` first.")  # fmt: skip
        hint.setProperty("muted", True)
        hint.setWordWrap(True)
        layout.addWidget(hint)

    def browse(self) -> None:
        """Choose the release folder."""
        chosen = get_existing_directory(self, "Release folder", self.folder.text())
        if chosen:
            self.folder.setText(chosen)

    def options(self) -> dict[str, int]:
        """``{"n_boot", "seed"}`` from the fields (the command's flags' rows)."""
        return {"n_boot": self.fields["diff_boot"].value(), "seed": self.fields["seed"].value()}

    def compare(self) -> None:
        """Compute the release diff of the checked runs on a worker thread."""
        from medrcube_desktop.evaluation.compare.release_diff import release_diff_study

        if self.runner.is_running():
            return
        folder = self.folder.text().strip()
        if not folder:
            self._message("Choose a release folder first.", error=True)
            self.computed.emit()
            return
        runs, dataset, options = self.checked_runs() or None, self.dataset, self.options()

        def job(store, cancel=None, progress=None):
            return release_diff_study(store, dataset, folder, runs, **options)

        self.compare_button.setEnabled(False)
        self._message("Comparing the releases…")
        if self.store.path is None:  # an in-memory study: no file for a worker to open
            try:
                result, error = job(self.store), ""
            except MedRCubeError as exc:
                result, error = None, str(exc)
            self._on_done(result, error)
            return
        self.runner.start(self.store.path, job)

    def _on_done(self, result, error: str) -> None:
        self.compare_button.setEnabled(True)
        if error or result is None:
            self._message(f"Could not compare the releases: {esc(error or 'cancelled')}",
                          error=True)  # fmt: skip
        else:
            self.show_diff(result)
        self.computed.emit()

    def show_diff(self, diff) -> None:
        """Show ``diff`` (a :class:`ReleaseDiff`): its tables, its release and warnings."""
        self.diff = diff
        self.export_button.setEnabled(True)
        data = diff.to_dict()
        _fill(self.models, model_rows(data), MODEL_HEADER)
        _fill(self.changes, change_rows(data), CHANGE_HEADER)
        release = data["release"]
        # the folder's name: its whole path is in the Folder box above (and the tooltip);
        # a long path wrapped to more lines and took the corrections table's rows
        folder = Path(release["dir"]).name or release["dir"]
        lines = [f"Release <b>{esc(release['version'])}</b> ({esc(folder)}) against "
                 f"{esc(data['dataset'])}"]  # fmt: skip
        self.status.setToolTip(str(release["dir"]))
        lines += [esc(w) for w in data["warnings"]]
        lines += [
            f"{esc(m['run'])}: moved most by {esc(m['kind'])} (rule {esc(m['rule'] or '—')}), "
            f"{m['moved']} answers, net {m['net']:+d} right"
            for m in data["most_moved"]
        ]
        self._message("<br>".join(lines))
        self._share_height()

    def _share_height(self) -> None:
        """The models table as high as its rows need (at most half the splitter), the
        corrections table the rest (before: 3 of its 15 rows shown)."""
        total = sum(self.splitter.sizes())
        if total <= 0:
            return
        top = min(table_height(self.models), total // 2)
        self.splitter.setSizes([top, total - top])

    def _message(self, html: str, error: bool = False) -> None:
        """Show ``html`` (already escaped), red for an error (as the pane's status)."""
        colour = error_colour()
        if error:  # the tooltip is the shown release's folder
            self.status.setToolTip("")
        self.status.setText(f"<span style='color:{colour}'>{html}</span>" if error else html)

    def export(self, folder: Path | None = None) -> list[Path]:
        """Write the shown result's files into ``folder`` (asked for when None), as
        ``compare --release-diff --out`` does; the paths written ([] when cancelled or
        refused, with the reason in the status line)."""
        from medrcube_desktop import __version__
        from medrcube_desktop.evaluation.compare.release_diff_report import (
            write_release_diff_outputs,
        )
        from medrcube_desktop.store.database import utc_now

        if self.diff is None:
            return []
        if folder is None:
            chosen = get_existing_directory(self, "Folder for the release tables")
            if not chosen:
                return []
            folder = Path(chosen)
        database = str(self.store.path.resolve()) if self.store.path else ":memory:"
        meta = {"app_version": __version__, "database": database, "created_at": utc_now(),
                "written_by": "Compare models pane"}  # fmt: skip
        try:
            written = write_release_diff_outputs(folder, self.diff, meta, [self.store.path])
        except (MedRCubeError, OSError) as exc:
            self._message(f"Could not write the tables: {esc(exc)}", error=True)
            return []
        self._message(f"Wrote {len(written)} files to {esc(folder)}.")
        return written

    def stop(self) -> None:
        """Cancel and wait for a running job (the pane is closing)."""
        self.runner.stop()
