"""Review › Evaluate a model: run it on the benchmark, see the cube, inspect each pair.

The run is :func:`~medrcube_desktop.evaluation.runner.run_evaluation` driven by the one Qt
job runner (:class:`~medrcube_desktop.ui.widgets.job_runner.JobRunnerView`: its own thread and
database connection, progress bar with ETA, Cancel); a vLLM model runs in a child process
or a server, never in this process. The pane shows results it reads from the database,
each run's responses once per refresh (:func:`~medrcube_desktop.ui.evaluate.run_results.read_run`);
typing in the Run box refreshes once the typing pauses.
"""

from __future__ import annotations

import dataclasses
import logging
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from medrcube_desktop.core.progress import Progress
from medrcube_desktop.core.units import byte_size_text, parse_byte_size
from medrcube_desktop.evaluation.engine_options import ENGINE, ENGINES, default_run_name
from medrcube_desktop.evaluation.engines.base import SAMPLING_RANGES, WHOLE_SAMPLING
from medrcube_desktop.evaluation.engines.factory import EngineOptions, build_engine
from medrcube_desktop.evaluation.image_modes import (
    IMAGE,
    IMAGE_OPTIONS,
    run_image_mode,
)
from medrcube_desktop.evaluation.metrics import GROUPINGS, grouped
from medrcube_desktop.evaluation.runner import (
    EvalProgress,
    ImageOptions,
    linked_image_run,
    run_evaluation,
    run_record,
)
from medrcube_desktop.evaluation.scoring import items_to_evaluate, scored_items
from medrcube_desktop.llm.keys import check_base_url, without_secrets
from medrcube_desktop.store import StudyStore
from medrcube_desktop.ui.evaluate.pairs_view import PairsView, table_cell
from medrcube_desktop.ui.evaluate.run_choice import RunChoice
from medrcube_desktop.ui.evaluate.run_results import read_run, unparsed_rows
from medrcube_desktop.ui.widgets.api_key_row import ApiKeyRow, remember, remembered
from medrcube_desktop.ui.widgets.job_runner import JobRunnerView
from medrcube_desktop.ui.widgets.linked_items import LinkedItemsView
from medrcube_desktop.ui.widgets.option_fields import (
    INT_MAX,
    WideIntBox,
    option_box,
)
from medrcube_desktop.ui.widgets.screen import fit_to_screen
from medrcube_desktop.ui.widgets.text import esc, esc_lines

if TYPE_CHECKING:
    from medrcube_desktop.review.session import ReviewSessionState

SAMPLING_DECIMALS = 4
"""Decimals of the temperature and top-p fields (the default top_p is 0.0001)."""


def sampling_field(name: str) -> QSpinBox | QDoubleSpinBox:
    """The field of decoding parameter ``name``, its bounds from
    :data:`~medrcube_desktop.evaluation.engines.base.SAMPLING_RANGES` (an open low end:
    the smallest step above it), its value the row's default
    (:data:`~medrcube_desktop.evaluation.engine_options.ENGINE`).

    A seed (up to 2**32 - 1) is above a QSpinBox's int range: it is a
    :class:`~medrcube_desktop.ui.widgets.option_fields.WideIntBox`, as every option
    field of that range."""
    low, high, low_included, words = SAMPLING_RANGES[name]
    field: QSpinBox | QDoubleSpinBox
    if name in WHOLE_SAMPLING:
        field = QSpinBox() if high <= INT_MAX else WideIntBox()
        field.setRange(int(low), int(high))
    else:
        field = QDoubleSpinBox()
        decimals = 0 if name in WHOLE_SAMPLING else SAMPLING_DECIMALS
        field.setDecimals(decimals)
        field.setSingleStep(1 if decimals == 0 else 0.1)
        field.setRange(low if low_included else low + 10.0**-decimals, high)
    field.setValue(ENGINE[name].default)  # type: ignore[arg-type]
    field.setToolTip(f"{name}: {words}")
    field.setObjectName(name)
    return field


def field_decimals(field: QSpinBox | QDoubleSpinBox) -> int:
    """Decimals a number field shows (0 for a QSpinBox)."""
    return field.decimals() if isinstance(field, QDoubleSpinBox) else 0


ENDPOINTS_SETTING = "evaluate/base_urls"
"""Where the endpoints used last are remembered (``window.ini``; never the key)."""

RUN_BOX_PAUSE_MS = 300
"""Typing in the Run box refreshes the results once the keys pause this long."""

log = logging.getLogger(__name__)


class EvaluatePane(QDialog):
    """Engine, model, run; progress; results over the cube; paired outcomes per image.

    ``open_item(item_id)`` asks the review window to show an item.
    """

    open_item = Signal(str)
    run_finished = Signal()

    def __init__(self, parent: QWidget, session: ReviewSessionState, benchmark_root: Path) -> None:
        """``session``: the window's (its store, items and restricted items);
        ``benchmark_root``: the benchmark folder, recorded with each run."""
        super().__init__(parent)
        self.setWindowTitle("Evaluate a model")
        self.benchmark_root = benchmark_root
        self.store: StudyStore = session.store
        self._restricted = list(session.restricted)  # a text-only run answers them too
        # what the run's figures cover, as `credibility` and `compare` count: the
        # restricted items too (a text-only run answers them)
        self.items = scored_items(session.items, session.restricted)
        self._with_image = list(session.items)  # what an image run is sent
        self._last_state: EvalProgress | None = None
        from medrcube_desktop.demo.examples import VERSION_KEY

        # the examples study (demo --with-examples): its runs' endpoint was a scripted
        # one that ran only while they were built, never one to start a run on
        self._examples = session.store.get_state(VERSION_KEY) is not None
        self._build()
        self._fill_runs()
        if not self.base_urls.text().strip():  # no run to resume: the endpoints used last
            self.base_urls.setText(remembered(ENDPOINTS_SETTING))
        self._endpoints_edited()
        if self._examples:
            self.status.setText(esc(self.examples_note()))

    def examples_note(self) -> str:
        """What the pane says on the examples study: where its runs' answers came from
        (the endpoint as recorded), and that a new run needs an endpoint of the user's."""
        stored = self.store.eval_run(self.run_name.currentText().strip())
        urls = (stored.params.get("base_urls") or []) if stored is not None else []
        recorded = f" ({' '.join(urls)}, as recorded)" if urls else ""
        return (
            "The examples' runs were answered by a scripted endpoint that ran only while "
            f"they were built{recorded}: it is not running. To evaluate a model, give its "
            "endpoint above."
        )

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
        self.base_urls.editingFinished.connect(self._endpoints_edited)
        self.key_row = ApiKeyRow()  # a key typed here goes to the OS keyring
        # the Run box, the image mode and seed, the Image run box (--image-run)
        self.choice = RunChoice(
            self.store, lambda: self.model.text().strip(), self.engine.currentText, self
        )
        self.run_name, self.image_run = self.choice.run_name, self.choice.image_run
        self.image_mode, self.image_seed = self.choice.image_mode, self.choice.image_seed
        self.run_name.currentTextChanged.connect(self._run_name_changed)
        self._run_timer = QTimer(self)
        self._run_timer.setSingleShot(True)
        self._run_timer.setInterval(RUN_BOX_PAUSE_MS)
        self._run_timer.timeout.connect(self._show_results)
        self.concurrency = option_box(ENGINE["concurrency"])
        self.max_tokens = sampling_field("max_tokens")
        self.temperature = sampling_field("temperature")
        self.top_p = sampling_field("top_p")
        self.seed = sampling_field("seed")
        self._stored_sampling: dict[str, float] = {}  # the run's own, exact (_fill_settings)
        self.resumes = QLabel()  # that Start resumes a run with its stored settings
        self.resumes.setObjectName("evalResumes")
        self.resumes.setWordWrap(True)
        self.resumes.setVisible(False)
        # vLLM's memory settings (issue 11): 0 / blank leaves vLLM's own default
        self.max_model_len = QSpinBox()
        self.max_model_len.setRange(0, 10_000_000)
        self.max_model_len.setSpecialValueText("model's own")
        self.gpu_memory = QDoubleSpinBox()
        self.gpu_memory.setRange(0.0, 1.0)
        self.gpu_memory.setSingleStep(0.05)
        self.gpu_memory.setSpecialValueText("vLLM default")
        self.gpu_memory.setToolTip(
            "Share of GPU memory vLLM may take (its default 0.92 in vLLM 0.32). Without a GPU, vLLM "
            "reads it as the share of RAM for its KV cache: prefer a KV cache size there."
        )
        self.kv_cache = QLineEdit()
        self.kv_cache.setPlaceholderText("e.g. 2G (needed without a GPU)")
        self.kv_cache.setMinimumWidth(220)
        self.kv_cache.setToolTip("KV cache size in bytes (K, M, G suffixes), instead of a share")
        self.enforce_eager = QCheckBox(ENGINE["enforce_eager"].label)
        self.enforce_eager.setToolTip("vLLM --enforce-eager: no CUDA graphs or torch.compile")
        self.data_parallel = option_box(ENGINE["data_parallel_size"])
        self.data_parallel.setToolTip(
            "Model replicas (vllm, hf: one child each; vllm-server: passed on)"
        )
        self.start_button = QPushButton("&Start / resume")
        self.start_button.clicked.connect(self.start)
        self.runner = JobRunnerView(self)
        self.runner.progressed.connect(self._on_progress)
        self.runner.finished.connect(self._on_finished)
        self.status = QLabel("Answers are saved as they arrive; Start again resumes a run.")
        self.status.setObjectName("evalStatus")
        self.status.setTextFormat(Qt.TextFormat.RichText)  # every value in it is escaped
        self.status.setWordWrap(True)
        self.status.linkActivated.connect(self._show_linked)  # "N failed"
        self.linked = LinkedItemsView()  # the items behind "unparsed N" or "N failed"
        self.linked.open_item.connect(self.open_item)
        self.engine_fields: dict[str, QWidget] = {
            "engine": self.engine, "model": self.model, "base_urls": self.base_urls,
            "concurrency": self.concurrency, "max_tokens": self.max_tokens,
            "temperature": self.temperature, "top_p": self.top_p, "seed": self.seed,
            "max_model_len": self.max_model_len, "data_parallel_size": self.data_parallel,
            "gpu_memory_utilization": self.gpu_memory, "kv_cache_memory_bytes": self.kv_cache,
            "enforce_eager": self.enforce_eager,
        }  # fmt: skip
        """The engine options' fields, by row (each labelled by its row of ENGINE)."""
        for name, widget in self.engine_fields.items():
            widget.setObjectName(name)
        form = QFormLayout()
        for name in ("engine", "model", "base_urls"):
            form.addRow("&" + ENGINE[name].label, self.engine_fields[name])
        form.addRow("API key", self.key_row)
        run_row = QHBoxLayout()
        run_row.addWidget(self.run_name, 1)
        run_row.addWidget(QLabel(IMAGE_OPTIONS["image_run"].label))
        run_row.addWidget(self.image_run)
        form.addRow("&Run", run_row)
        numbers = QHBoxLayout()
        numbers.addWidget(QLabel(ENGINE["concurrency"].label))
        numbers.addWidget(self.concurrency)
        numbers.addWidget(QLabel(IMAGE_OPTIONS["image_mode"].label))
        numbers.addWidget(self.image_mode)
        numbers.addWidget(QLabel(IMAGE_OPTIONS["image_seed"].label))
        numbers.addWidget(self.image_seed)
        numbers.addStretch(1)
        numbers.addWidget(self.start_button)
        form.addRow(numbers)
        decoding = QHBoxLayout()  # a row of its own: the pane fits a 1024 px screen
        for name in ("max_tokens", "temperature", "top_p", "seed"):
            decoding.addWidget(QLabel(ENGINE[name].label))
            decoding.addWidget(self.engine_fields[name])
        decoding.addStretch(1)
        form.addRow("Decoding", decoding)
        form.addRow("", self.resumes)
        memory = QHBoxLayout()  # two rows: in one the pane was wider than a 1024 px screen
        for name in ("max_model_len", "gpu_memory_utilization", "kv_cache_memory_bytes"):
            memory.addWidget(QLabel(ENGINE[name].label))
            memory.addWidget(self.engine_fields[name])
        memory.addStretch(1)
        form.addRow("vLLM / hf", memory)
        parallel = QHBoxLayout()
        parallel.addWidget(QLabel(ENGINE["data_parallel_size"].label))
        parallel.addWidget(self.data_parallel)
        parallel.addWidget(self.enforce_eager)
        parallel.addStretch(1)
        form.addRow("", parallel)
        self.tabs = QTabWidget()
        self.tabs.addTab(self._results_tab(), "Results over the cube")
        self.pairs_view = PairsView()
        self.pairs_view.open_item.connect(self.open_item)
        self.tabs.addTab(self.pairs_view, "Paired outcomes (credibility)")
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.runner)
        layout.addWidget(self.status)
        layout.addWidget(self.tabs, 1)
        fit_to_screen(self, 1180, 860)  # never taller than the screen

    def _results_tab(self) -> QWidget:
        tab = QWidget()
        self.summary = QLabel()
        self.summary.setObjectName("evalSummary")
        self.summary.setTextFormat(Qt.TextFormat.RichText)  # every value in it is escaped
        self.summary.setWordWrap(True)
        self.summary.linkActivated.connect(self._show_linked)  # "unparsed N"
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
        layout.addWidget(self.linked)
        return tab

    def _fill_runs(self) -> None:
        self.choice.fill()
        self._show_results()

    def _endpoints_edited(self) -> None:
        """Remember the endpoints; say where the first one's key comes from."""
        urls = self.base_urls.text().split()
        remember(ENDPOINTS_SETTING, without_secrets(" ".join(urls)))  # no password on disk
        self.key_row.set_endpoint(urls[0] if urls else None)

    def current_image_run(self) -> str:
        """The image run an ablation of what the pane shows is linked to
        (:meth:`RunChoice.current_image_run`)."""
        return self.choice.current_image_run()

    def _run_name_changed(self, _text: str) -> None:
        """Typed: refresh once the keys pause; picked from the list or set: at once."""
        if self.run_name.lineEdit() is not None and self.run_name.lineEdit().isModified():
            self._run_timer.start()
        else:
            self._run_timer.stop()
            self._show_results()

    # -- running ----------------------------------------------------------------
    def start(self) -> None:
        """Start (or resume) the run named in the Run box."""
        if self.runner.is_running():
            return
        model = self.model.text().strip()
        if not model:
            self.status.setText("A model is needed.")
            return
        run = self.choice.name_or_default()  # as the CLI names it: model and engine
        if self.store.path is None:
            self.status.setText("This study has no database file to share with the run.")
            return
        for url in self.base_urls.text().split():
            try:
                check_base_url(url)
            except ValueError as exc:
                self.status.setText(f"Base URLs: {esc(exc)}")
                return
        self._endpoints_edited()
        if self.key_row.entry.text().strip():  # typed but not yet stored: store it first
            self.key_row.store_key()
        try:
            options = EngineOptions(**self.engine_values())
        except ValueError as exc:
            self.status.setText(f"KV cache: {esc(exc)}")
            return
        mode = self.choice.mode()
        images = ImageOptions(mode=mode, seed=self.image_seed.value())
        benchmark = str(self.benchmark_root)
        items = items_to_evaluate(  # as `evaluate` sends them (--text-only: restricted too)
            self._with_image, self._restricted, images.text_only
        )
        image_run = default_run_name(model, options.engine, IMAGE)  # linked when stored
        given = self.choice.image_run_given()  # --image-run

        def job(store, cancel, report):
            # on the worker: a key lookup or vLLM check
            engine = build_engine(options, image_mode=mode)
            record = run_record(run, engine, options.model, images, benchmark)
            link = linked_image_run(store, record, given, image_run)
            record = dataclasses.replace(record, image_run=link)
            return run_evaluation(items, store, record, engine, images, report, cancel)

        self._last_state = None
        self.status.setText(f"Starting {esc(options.engine)} with {esc(model)}…")
        self.start_button.setEnabled(False)
        self.runner.start(self.store.path, job)

    def engine_values(self) -> dict[str, object]:
        """Each engine option of :attr:`engine_fields`, by row name, as Start sends it
        (a blank or 0 where the row's default is None: None, that default).

        Raises
        ------
        ValueError
            A KV cache size that is no size (:func:`~medrcube_desktop.core.units.parse_byte_size`).
        """
        values: dict[str, object] = {}
        for name, field in self.engine_fields.items():
            row = ENGINE[name]
            value: object
            if isinstance(field, QComboBox):
                value = field.currentText()
            elif isinstance(field, QCheckBox):
                value = field.isChecked()
            elif isinstance(field, QLineEdit):
                text = field.text().strip()
                if name == "base_urls":
                    value = text.split()
                elif row.kind == "byte_size":
                    value = parse_byte_size(text) if text else None
                else:
                    value = text
            elif name in SAMPLING_RANGES:
                value = self._sampling(name)
                value = int(value) if name in WHOLE_SAMPLING else value
            else:
                value = field.value()  # type: ignore[attr-defined]
                value = value or None if row.default is None else value
            values[name] = value
        return values

    def cancel(self) -> None:
        """Stop the run; every stored answer stays (Start resumes)."""
        self.runner.cancel()

    def _on_progress(self, record: Progress) -> None:
        state = record.detail
        assert isinstance(state, EvalProgress)
        self._last_state = state
        self.status.setText(
            f"{state.skipped} answered before · {state.correct} right · "
            f"{state.unparsed} unparsed · {len(state.failed)} failed"
            + (
                f" · waited {state.images.wait_s:.1f} s for images"
                if state.images.wait_s >= 1
                else ""
            )
        )

    def _on_finished(self, _state: EvalProgress | None, error: str) -> None:
        self.start_button.setEnabled(True)
        run = self.run_name.currentText().strip()
        if error:
            shown = esc_lines(error)  # a child's log: never markup
            self.status.setText(f"<span style='color:#b42318'>Stopped: {shown}</span>")
        elif self.runner.cancelled:
            self.status.setText("Cancelled; Start resumes the run.")
        else:
            failed = len(self._last_state.failed) if self._last_state else 0
            self.status.setText(
                f"Run {esc(run)} finished"
                + (
                    f"; <a href='failed'>{failed} item{'' if failed == 1 else 's'} failed</a> and "
                    "were not stored "
                    "(Start again retries them)."
                    if failed
                    else "."
                )
                + "".join(  # a server set aside or failing: said, as the CLI says it
                    f"<br>{esc(note)}" for note in getattr(_state, "servers", None) or []
                )
            )
        self._fill_runs()
        self.run_finished.emit()

    def _fill_settings(self, params: dict) -> None:
        """The settings of an existing run, so that Start resumes it as it was run; the
        decoding ones are the run's own (a run of the CLI with ``--max-tokens 200000``
        resumes with 200000), and the pane says so."""
        sampling = []
        self._stored_sampling = {}
        for name in SAMPLING_RANGES:
            value = params.get(name)
            if isinstance(value, int | float) and not isinstance(value, bool):
                self._stored_sampling[name] = value
                sampling.append(f"{name} {value:g}")
            getattr(self, name).setValue(self._stored_sampling.get(name, ENGINE[name].default))
        self.resumes.setText(
            "Start resumes this run with its stored decoding settings ("
            + ", ".join(word for word in sampling if word)
            + ")."
            if any(sampling)
            else ""
        )
        self.resumes.setVisible(bool(self.resumes.text()))
        self.max_model_len.setValue(int(params.get("max_model_len") or 0))
        self.gpu_memory.setValue(float(params.get("gpu_memory_utilization") or 0.0))
        kv = params.get("kv_cache_memory_bytes")
        self.kv_cache.setText(byte_size_text(int(kv)) if kv else "")
        self.data_parallel.setValue(
            int(params.get("data_parallel_size") or ENGINE["data_parallel_size"].default)  # type: ignore[call-overload]
        )
        self.enforce_eager.setChecked(bool(params.get("enforce_eager")))
        self.choice.show_stored(params)  # its image mode and seed; the Run box stays

    def _sampling(self, name: str) -> float:
        """Decoding parameter ``name`` as Start sends it: the field's value, or the run's
        stored one where the field shows it unchanged (a field rounds to its decimals, a
        temperature of 0.123456 stays 0.123456)."""
        field = getattr(self, name)
        stored = self._stored_sampling.get(name)
        if stored is not None and field.value() == round(stored, field_decimals(field)):
            return stored
        return field.value()

    def _show_linked(self, which: str) -> None:
        """A click on "unparsed N" or "N failed": list those items."""
        self.tabs.setCurrentIndex(0)
        if which == "failed":
            failed = self._last_state.failed if self._last_state else []
            self.linked.show_items("Failed (not stored)", [(f["item"], f["error"]) for f in failed])
            return
        results = read_run(self.store, self.run_name.currentText().strip(), self.items)
        self.linked.show_items("Unparsed answers", unparsed_rows(results) if results else [])

    # -- results ------------------------------------------------------------------
    def _show_results(self) -> None:
        self._run_timer.stop()
        run = self.run_name.currentText().strip()
        results = read_run(self.store, run, self.items)  # every response, read once
        if results is None:
            self.summary.setText("No such run yet: Start creates it.")
            self._stored_sampling = {}
            self.resumes.setText("")
            self.resumes.setVisible(False)
            self.results.setRowCount(0)
            self.pairs_view.show_run(None)
            return
        record, summary = results.record, results.summary
        if not self.model.text().strip():  # an existing run: its model and endpoints
            self.model.setText(record.model)
            self.engine.setCurrentText(record.engine if record.engine in ENGINES else "openai")
            urls = record.params.get("base_urls") or record.params.get("attached_to") or []
            if urls and not self.base_urls.text().strip() and not self._examples:
                self.base_urls.setText(" ".join(urls))
        if not self.runner.is_running():
            self._fill_settings(record.params)  # an existing run resumes as it was run

        def pct(value):
            return "—" if value is None else f"{value:.1%}"

        mode = run_image_mode(record)

        self.summary.setText(
            f"<b>{esc(run)}</b>: {esc(record.engine)} · {esc(record.model)}"
            f"{'' if mode == IMAGE else f' · {esc(mode)}'} · {summary['n']} answered. "
            f"Accuracy <b>{pct(summary['accuracy'])}</b> (the public evaluator's rule: "
            f"{pct(summary['official_accuracy'])}); "
            + (
                f"<a href='unparsed'>unparsed {summary['unparsed']}</a>"
                if summary["unparsed"]
                else "unparsed 0"
            )  # fmt: skip
            + "; random "
            f"baseline {pct(summary['random_baseline'])}."
        )
        cells = grouped(results.outcomes, GROUPINGS[self.grouping.currentData()])
        self.results.setRowCount(len(cells))
        for row, (name, cell) in enumerate(cells.items()):
            self.results.setItem(row, 0, table_cell(name, align=False))
            self.results.setItem(row, 1, table_cell(cell.n))
            self.results.setItem(row, 2, table_cell(cell.correct))
            self.results.setItem(row, 3, table_cell(pct(cell.accuracy)))
        self.pairs_view.show_run(results)
