"""Review › Evaluate a model: run it on the benchmark, see the cube, inspect each pair.

The run is :func:`~medrcube_desktop.evaluation.runner.run_evaluation` on a worker thread
with its own database connection; a vLLM model runs in a child process or a server,
never in this process. The pane shows results it reads from the database.
"""

from __future__ import annotations

import html
import logging
import threading
import time
from pathlib import Path

from PySide6.QtCore import QObject, Qt, QThread, Signal
from PySide6.QtGui import QImage, QPixmap
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.evaluation.credibility import Pair, credibility, pair_outcomes
from medrcube_desktop.evaluation.engines.factory import ENGINES, EngineOptions, build_engine
from medrcube_desktop.evaluation.metrics import GROUPINGS, grouped
from medrcube_desktop.evaluation.runner import (
    EvalProgress,
    ImageOptions,
    run_evaluation,
    run_outcomes,
    run_record,
    run_summary,
)
from medrcube_desktop.imaging.render import render_item
from medrcube_desktop.store.reviews import ReviewStore
from medrcube_desktop.ui.review_controls import format_duration

log = logging.getLogger(__name__)


class EvalWorker(QThread):
    """Runs one evaluation; emits ``progressed(state)`` and ``finished_run(error)``."""

    progressed = Signal(object)
    finished_run = Signal(str)

    def __init__(self, db_path: Path, items, options: EngineOptions, run_name: str,
                 images: ImageOptions, benchmark: str, parent: QObject) -> None:  # fmt: skip
        super().__init__(parent)
        self.db_path, self.items, self.options = db_path, items, options
        self.run_name, self.images, self.benchmark = run_name, images, benchmark
        self.cancel = threading.Event()

    def run(self) -> None:  # noqa: D401 (QThread API)
        error = ""
        try:
            engine = build_engine(self.options)
            record = run_record(
                self.run_name, engine, self.options.model, self.images, self.benchmark
            )
            store = ReviewStore(self.db_path)
            try:
                run_evaluation(
                    self.items,
                    store,
                    record,
                    engine,
                    self.images,
                    lambda state: self.progressed.emit(_copy(state)),
                    self.cancel,
                )
            finally:
                store.close()
        except MedRCubeError as exc:
            error = str(exc)
        except Exception as exc:  # noqa: BLE001 - shown in the pane, and logged
            log.exception("evaluation failed")
            error = f"{type(exc).__name__}: {exc}"
        self.finished_run.emit(error)


def _copy(state: EvalProgress) -> EvalProgress:
    return EvalProgress(state.total, state.answered, state.skipped, state.unparsed,
                        state.correct, list(state.failed), state.cancelled)  # fmt: skip


def _cell(text: object, align: bool = True) -> QTableWidgetItem:
    cell = QTableWidgetItem("—" if text is None else str(text))
    if align:
        cell.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
    return cell


class EvaluatePane(QDialog):
    """Engine, model, run; progress; results over the cube; paired outcomes per image.

    ``open_item(item_id)`` asks the review window to show an item.
    """

    open_item = Signal(str)
    run_finished = Signal()

    def __init__(self, parent: QWidget, window) -> None:
        super().__init__(parent)
        self.setWindowTitle("Evaluate a model")
        self.window_ = window
        self.store: ReviewStore = window.session.store
        self.items = list(window.session.items)
        self.worker: EvalWorker | None = None
        self.pairs: list[Pair] = []
        self._build()
        self._fill_runs()

    # -- construction -----------------------------------------------------------
    def _build(self) -> None:
        self.engine = QComboBox()
        self.engine.addItems(list(ENGINES))
        self.engine.setCurrentText("openai")
        self.model = QLineEdit()
        self.model.setPlaceholderText("e.g. Qwen/Qwen2.5-VL-7B-Instruct")
        self.base_urls = QLineEdit()
        self.base_urls.setPlaceholderText(
            "http://localhost:8000/v1 (several: separate with spaces); vllm-server: attach"
        )
        self.run_name = QComboBox()
        self.run_name.setEditable(True)
        self.run_name.setObjectName("runName")
        self.run_name.currentTextChanged.connect(self._show_results)
        self.concurrency = QSpinBox()
        self.concurrency.setRange(1, 1024)
        self.concurrency.setValue(16)
        self.max_tokens = QSpinBox()
        self.max_tokens.setRange(1, 131072)
        self.max_tokens.setValue(8192)
        self.text_only = QCheckBox("Text only (no image: the prior-leakage baseline)")
        self.start_button = QPushButton("&Start / resume")
        self.start_button.clicked.connect(self.start)
        self.cancel_button = QPushButton("Ca&ncel")
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel)
        self.progress = QProgressBar()
        self.status = QLabel("Answers are saved as they arrive; Start again resumes a run.")
        self.status.setObjectName("evalStatus")
        self.status.setWordWrap(True)
        form = QFormLayout()
        form.addRow("&Engine", self.engine)
        form.addRow("&Model", self.model)
        form.addRow("&Base URLs", self.base_urls)
        form.addRow("&Run", self.run_name)
        numbers = QHBoxLayout()
        numbers.addWidget(QLabel("Concurrent requests"))
        numbers.addWidget(self.concurrency)
        numbers.addWidget(QLabel("Max tokens"))
        numbers.addWidget(self.max_tokens)
        numbers.addWidget(self.text_only)
        numbers.addStretch(1)
        numbers.addWidget(self.start_button)
        numbers.addWidget(self.cancel_button)
        form.addRow(numbers)
        self.tabs = QTabWidget()
        self.tabs.addTab(self._results_tab(), "Results over the cube")
        self.tabs.addTab(self._pairs_tab(), "Paired outcomes (credibility)")
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.progress)
        layout.addWidget(self.status)
        layout.addWidget(self.tabs, 1)
        self.resize(1180, 860)

    def _results_tab(self) -> QWidget:
        tab = QWidget()
        self.summary = QLabel()
        self.summary.setObjectName("evalSummary")
        self.summary.setWordWrap(True)
        self.grouping = QComboBox()
        for name in GROUPINGS:
            self.grouping.addItem(f"By {name}", name)
        self.grouping.currentIndexChanged.connect(self._show_results)
        self.results = QTableWidget(0, 4)
        self.results.setObjectName("evalResults")
        self.results.setHorizontalHeaderLabels(["", "Items", "Correct", "Accuracy"])
        self.results.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.results.verticalHeader().setVisible(False)
        self.results.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        layout = QVBoxLayout(tab)
        layout.addWidget(self.summary)
        layout.addWidget(self.grouping)
        layout.addWidget(self.results, 1)
        return tab

    def _pairs_tab(self) -> QWidget:
        tab = QWidget()
        self.preset = QComboBox()
        self.preset.addItem("Paper preset (DD AD SG vs every low/mid task)", "paper")
        self.preset.addItem("Official script preset (task names as written)", "official")
        self.preset.currentIndexChanged.connect(self._show_pairs)
        self.group_filter = QComboBox()
        for value, title in (("", "All groups"), ("A", "A: both right"),
                             ("B", "B: perception right, diagnosis wrong"),
                             ("C", "C: both wrong"),
                             ("D", "D: right diagnosis, wrong perception")):  # fmt: skip
            self.group_filter.addItem(title, value)
        self.group_filter.currentIndexChanged.connect(self._fill_pairs_table)
        self.credibility_label = QLabel()
        self.credibility_label.setObjectName("credibility")
        self.credibility_label.setWordWrap(True)
        self.pairs_table = QTableWidget(0, 6)
        self.pairs_table.setObjectName("pairsTable")
        self.pairs_table.setHorizontalHeaderLabels(
            ["Image", "Prerequisite item", "Right?", "High-level item", "Right?", "Group"]
        )
        self.pairs_table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.pairs_table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.pairs_table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.pairs_table.verticalHeader().setVisible(False)
        self.pairs_table.currentCellChanged.connect(lambda row, *_: self._show_pair(row))
        self.pair_image = QLabel()
        self.pair_image.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.pair_image.setMinimumSize(260, 260)
        self.pair_text = QLabel()
        self.pair_text.setObjectName("pairDetail")
        self.pair_text.setWordWrap(True)
        self.pair_text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.review_low = QPushButton("Review the prerequisite item")
        self.review_high = QPushButton("Review the high-level item")
        self.review_low.clicked.connect(lambda: self._review(low=True))
        self.review_high.clicked.connect(lambda: self._review(low=False))
        detail = QWidget()
        detail_layout = QVBoxLayout(detail)
        detail_layout.addWidget(self.pair_image)
        detail_layout.addWidget(self.pair_text, 1)
        buttons = QHBoxLayout()
        buttons.addWidget(self.review_low)
        buttons.addWidget(self.review_high)
        detail_layout.addLayout(buttons)
        split = QSplitter()
        split.addWidget(self.pairs_table)
        split.addWidget(detail)
        split.setSizes([700, 420])
        filters = QHBoxLayout()
        filters.addWidget(self.preset, 1)
        filters.addWidget(self.group_filter, 1)
        layout = QVBoxLayout(tab)
        layout.addLayout(filters)
        layout.addWidget(self.credibility_label)
        layout.addWidget(split, 1)
        return tab

    def _fill_runs(self) -> None:
        current = self.run_name.currentText()
        self.run_name.blockSignals(True)
        self.run_name.clear()
        self.run_name.addItems(self.store.eval_run_names())
        self.run_name.setEditText(
            current or (self.run_name.itemText(0) if self.run_name.count() else "")
        )
        self.run_name.blockSignals(False)
        self._show_results()

    # -- running ----------------------------------------------------------------
    def start(self) -> None:
        """Start (or resume) the run named in the Run box."""
        if self.worker is not None and self.worker.isRunning():
            return
        model = self.model.text().strip()
        run = self.run_name.currentText().strip()
        if not model or not run:
            self.status.setText("A model and a run name are needed.")
            return
        if self.store.path is None:
            self.status.setText("This study has no database file to share with the run.")
            return
        options = EngineOptions(
            engine=self.engine.currentText(),
            model=model,
            base_urls=self.base_urls.text().split(),
            concurrency=self.concurrency.value(),
            max_tokens=self.max_tokens.value(),
        )
        images = ImageOptions(text_only=self.text_only.isChecked())
        benchmark = str(self.window_.benchmark.root)
        self.worker = EvalWorker(self.store.path, self.items, options, run, images, benchmark, self)
        self.worker.progressed.connect(self._on_progress)
        self.worker.finished_run.connect(self._on_finished)
        self._started = time.monotonic()
        self._last_state: EvalProgress | None = None
        self.progress.setRange(0, 0)
        self.status.setText(f"Starting {options.engine} with {model}…")
        self.start_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.worker.start()

    def cancel(self) -> None:
        """Stop the run; every stored answer stays (Start resumes)."""
        if self.worker is not None:
            self.worker.cancel.set()
            self.status.setText("Cancelling…")

    def _on_progress(self, state: EvalProgress) -> None:
        self._last_state = state
        done = state.answered + len(state.failed)
        self.progress.setRange(0, max(1, state.total))
        self.progress.setValue(done)
        elapsed = max(1e-6, time.monotonic() - self._started)
        rate = done / elapsed
        left = format_duration((state.total - done) / rate) + " left" if rate > 0 else ""
        self.status.setText(
            f"{done} of {state.total} ({state.skipped} answered before) · {rate:.2f} items/s · "
            f"{left} · {state.correct} right · {state.unparsed} unparsed · "
            f"{len(state.failed)} failed"
        )

    def _on_finished(self, error: str) -> None:
        self.start_button.setEnabled(True)
        self.cancel_button.setEnabled(False)
        self.progress.setRange(0, 1)
        self.progress.setValue(1)
        run = self.run_name.currentText().strip()
        if error:
            self.status.setText(f"<span style='color:#b42318'>Stopped: {error}</span>")
        elif self.worker is not None and self.worker.cancel.is_set():
            self.status.setText("Cancelled; Start resumes the run.")
        else:
            failed = len(self._last_state.failed) if self._last_state else 0
            self.status.setText(
                f"Run {run} finished"
                + (
                    f"; {failed} items failed and were not stored (Start again retries them)."
                    if failed
                    else "."
                )
            )
        self._fill_runs()
        self.run_finished.emit()

    # -- results ------------------------------------------------------------------
    def _show_results(self) -> None:
        run = self.run_name.currentText().strip()
        record = self.store.eval_run(run) if run else None
        if record is None:
            self.summary.setText("No such run yet: Start creates it.")
            self.results.setRowCount(0)
            self.pairs = []
            self._fill_pairs_table()
            return
        summary = run_summary(self.store, run, self.items)
        if not self.model.text().strip():  # an existing run: its model and endpoints
            self.model.setText(record.model)
            self.engine.setCurrentText(record.engine if record.engine in ENGINES else "openai")
            urls = record.params.get("base_urls") or []
            if urls and not self.base_urls.text().strip():
                self.base_urls.setText(" ".join(urls))

        def pct(value):
            return "—" if value is None else f"{value:.1%}"

        self.summary.setText(
            f"<b>{run}</b>: {record.engine} · {record.model}"
            f"{' · text only' if record.text_only else ''} · {summary['n']} answered. "
            f"Accuracy <b>{pct(summary['accuracy'])}</b> (the public evaluator's rule: "
            f"{pct(summary['official_accuracy'])}); unparsed {summary['unparsed']}; random "
            f"baseline {pct(summary['random_baseline'])}."
        )
        outcomes = run_outcomes(self.store, run, self.items)
        cells = grouped(outcomes, GROUPINGS[self.grouping.currentData()])
        self.results.setRowCount(len(cells))
        for row, (name, cell) in enumerate(cells.items()):
            self.results.setItem(row, 0, _cell(name, align=False))
            self.results.setItem(row, 1, _cell(cell.n))
            self.results.setItem(row, 2, _cell(cell.correct))
            self.results.setItem(row, 3, _cell(pct(cell.accuracy)))
        self._show_pairs()

    def _show_pairs(self) -> None:
        run = self.run_name.currentText().strip()
        if not run or self.store.eval_run(run) is None:
            return
        outcomes = run_outcomes(self.store, run, self.items)
        self.pairs, warnings = pair_outcomes(outcomes, self.preset.currentData())
        figures = credibility(self.pairs)

        def num(value):
            return "—" if value is None else f"{value:.3f}"

        self.credibility_label.setText(
            f"Pairs {figures['total_pairs']}: A {figures['group_a']} · B {figures['group_b']} · "
            f"C {figures['group_c']} · D {figures['group_d']}. Luck Rate {num(figures['luck_rate'])}, "
            f"Rationality {num(figures['rationality'])}, Shortcut Probability "
            f"{num(figures['shortcut_prob'])}, Acc_H {num(figures['acc_h'])}."
            + "".join(f"<br><span style='color:#9a6700'>⚠ {w}</span>" for w in warnings)
        )
        self._fill_pairs_table()

    def _fill_pairs_table(self) -> None:
        wanted = self.group_filter.currentData()
        shown = [p for p in self.pairs if not wanted or p.group == wanted]
        self.shown_pairs = shown
        self.pair_text.setText("Select a pair to see its image, questions and answers.")
        self.pair_image.clear()
        self.pairs_table.setRowCount(len(shown))
        self.pairs_table.setCurrentCell(-1, -1)
        for row, pair in enumerate(shown):
            values = [
                Path(pair.image).name,
                f"{pair.low.item.id} ({pair.low.item.task.abbreviation})",
                "✓" if pair.low.correct else "✗",
                f"{pair.high.item.id} ({pair.high.item.task.abbreviation})",
                "✓" if pair.high.correct else "✗",
                pair.group,
            ]
            for column, value in enumerate(values):
                self.pairs_table.setItem(row, column, _cell(value, align=column in (2, 4, 5)))

    def _show_pair(self, row: int) -> None:
        if row < 0 or row >= len(getattr(self, "shown_pairs", [])):
            return
        pair = self.shown_pairs[row]
        answers = self.store.responses(self.run_name.currentText().strip())
        blocks = []
        for title, outcome in (("Prerequisite", pair.low), ("High level", pair.high)):
            item = outcome.item
            answer = answers.get(item.id)
            options = "<br>".join(
                f"{'<b>' if item.answer == L else ''}{L}. {t}{'</b>' if item.answer == L else ''}"
                for L, t in item.options.items()
            )
            raw = (answer.response if answer else "").replace("<", "&lt;")[:600]
            how = f"{answer.parsed_answer or 'none'} ({answer.parse_method})" if answer else "—"
            blocks.append(
                f"<p><b>{title}: {html.escape(item.id)}</b> · {item.task.name}<br>"
                f"{html.escape(item.question)}<br>{options}"
                f"<br><i>Model answered:</i> <code>{raw}</code><br><i>Read as:</i> {how} "
                f"{'✓' if outcome.correct else '✗'}</p>"
            )
        self.pair_text.setText("".join(blocks) + f"<p>Group <b>{pair.group}</b></p>")
        try:
            rgba = render_item(pair.high.item, max_side=320).rgba
            image = QImage(rgba.data, rgba.shape[1], rgba.shape[0], rgba.strides[0],
                           QImage.Format.Format_RGBA8888).copy()  # fmt: skip
            self.pair_image.setPixmap(QPixmap.fromImage(image))
        except MedRCubeError as exc:
            self.pair_image.setText(f"Image not shown: {exc}")

    def _review(self, low: bool) -> None:
        row = self.pairs_table.currentRow()
        if 0 <= row < len(getattr(self, "shown_pairs", [])):
            pair = self.shown_pairs[row]
            self.open_item.emit((pair.low if low else pair.high).item.id)

    def closeEvent(self, event) -> None:  # noqa: N802 (Qt override)
        """Closing cancels a run in progress and waits for it (answers stay stored)."""
        if self.worker is not None and self.worker.isRunning():
            self.worker.cancel.set()
            self.worker.wait(60_000)
        event.accept()
