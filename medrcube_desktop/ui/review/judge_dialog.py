"""Review › Run LLM review: judge items with an LLM while the reviewer keeps working.

The run is :func:`medrcube_desktop.llm.judge.run_judge` driven by the one Qt job runner
(:class:`~medrcube_desktop.ui.widgets.job_runner.JobRunnerView`: its own thread and database
connection, the progress bar with ETA, Cancel); the dialog shows its own counts from
each record's ``JudgeSummary``. The
judgments it stores stay out of the review window until the reviewer commits each item
(blinding is the session's job, not this dialog's).
"""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from medrcube_desktop.core.items import Item
from medrcube_desktop.core.progress import Progress
from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.llm.config import JUDGE, JUDGE_MODEL
from medrcube_desktop.llm.judge import JudgeConfig, JudgeSummary, run_judge
from medrcube_desktop.llm.keys import check_base_url, find_api_key, without_secrets
from medrcube_desktop.ui.widgets.api_key_row import ApiKeyRow, remember, remembered
from medrcube_desktop.ui.widgets.job_runner import JobRunnerView
from medrcube_desktop.ui.widgets.option_fields import option_box
from medrcube_desktop.ui.widgets.screen import fit_to_screen

log = logging.getLogger(__name__)
DIALOG_OPTIONS: tuple[str, ...] = ("model", "base_url", "concurrency")
"""The settings of :data:`~medrcube_desktop.llm.config.JUDGE` the dialog has a field for
(an attribute of that name); the others keep the command's defaults."""

ENDPOINT_SETTING = "judge/endpoint"
"""Where the endpoint used last is remembered (``window.ini``; never the key)."""


class JudgeDialog(QDialog):
    """Model, endpoint, concurrency and scope; Start, Cancel, Retry failed; progress,
    ETA, running cost and the failures. Emits ``judged()`` when a run stored something,
    ``run_finished()`` once the outcome of a run is shown, and ``open_item(item_id)`` to
    ask the review window to show a failed item."""

    open_item = Signal(str)
    judged = Signal()
    run_finished = Signal()  # after the window shows the outcome of a run

    def __init__(
        self,
        parent: QWidget,
        db_path: Path | None,
        filtered: list[Item],
        everything: list[Item],
        model: str = JUDGE_MODEL,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Run LLM review")
        self.db_path, self.filtered, self.everything = db_path, filtered, everything
        self.runner = JobRunnerView(self)
        self.runner.progressed.connect(self._on_progress)
        self.runner.finished.connect(self._on_finished)
        self.failed_ids: list[str] = []
        self.model = QLineEdit(model)
        self.model.setObjectName("judgeModel")
        self.base_url = QLineEdit()
        self.base_url.setObjectName("judgeBaseUrl")
        self.base_url.setPlaceholderText("OpenAI (or e.g. http://localhost:8000/v1 for vLLM)")
        self.concurrency = option_box(JUDGE["concurrency"])  # the command's default, range
        self.scope_filtered = QRadioButton(f"Items in the current list ({len(filtered)})")
        self.scope_all = QRadioButton(f"Whole benchmark ({len(everything)})")
        self.scope_filtered.setChecked(True)
        self.key_row = ApiKeyRow()  # a key typed here goes to the OS keyring
        self.key_label = self.key_row.source
        self.status = QLabel("Items already judged by this model with this prompt are skipped.")
        self.status.setObjectName("judgeStatus")
        self.status.setTextFormat(Qt.TextFormat.PlainText)  # errors and model names as written
        self.status.setWordWrap(True)
        self.failures = QListWidget()
        self.failures.setObjectName("judgeFailures")
        self.failures.setToolTip("Double-click to open the item in the review window")
        self.failures.itemDoubleClicked.connect(self._open_failure)
        self.start_button = QPushButton("&Start")
        self.retry_button = QPushButton("&Retry failed")
        self.retry_button.setEnabled(False)
        self.start_button.clicked.connect(lambda: self.start(None))
        self.retry_button.clicked.connect(lambda: self.start(self.failed_ids))
        form = QFormLayout()
        for name in DIALOG_OPTIONS:  # the labels of the declarations, each with its mnemonic
            form.addRow(f"&{JUDGE[name].label}", getattr(self, name))
        form.addRow("Items", self.scope_filtered)
        form.addRow("", self.scope_all)
        form.addRow("API key", self.key_row)
        buttons = QDialogButtonBox()
        for button in (self.start_button, self.retry_button):
            buttons.addButton(button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.addButton(QDialogButtonBox.StandardButton.Close).clicked.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.runner)
        layout.addWidget(self.status)
        layout.addWidget(QLabel("Failures (the model's raw answer is stored with each):"))
        layout.addWidget(self.failures, 1)
        layout.addWidget(buttons)
        self.base_url.setText(remembered(ENDPOINT_SETTING))  # the endpoint used last
        self.base_url.editingFinished.connect(self._show_key_source)  # not on every key
        self._show_key_source()
        fit_to_screen(self, 640, 520)  # never taller than the screen

    def _show_key_source(self) -> None:
        endpoint = self.base_url.text().strip()
        remember(ENDPOINT_SETTING, without_secrets(endpoint))  # no password on disk
        self.key_row.set_endpoint(endpoint or None)

    def _open_failure(self, entry) -> None:
        item_id = self.failed_ids[self.failures.row(entry)]
        self.open_item.emit(item_id)

    def start(self, only_ids: list[str] | None) -> None:
        """Start a run on the chosen items (or only ``only_ids``)."""
        if self.runner.is_running():
            return
        if self.db_path is None:
            self.status.setText("This study has no database file to share with the run.")
            return
        base_url = self.base_url.text().strip() or None
        if base_url is not None:
            try:
                check_base_url(base_url)
            except ValueError as exc:
                self.status.setText(f"Endpoint: {exc}")
                return
        remember(ENDPOINT_SETTING, without_secrets(base_url or ""))
        if self.key_row.entry.text().strip():  # typed but not yet stored: store it first
            self.key_row.store_key()
        try:
            key, _ = find_api_key(base_url)
        except MedRCubeError as exc:
            self.status.setText(str(exc))
            return
        items = self.filtered if self.scope_filtered.isChecked() else self.everything
        if only_ids is not None:
            wanted = set(only_ids)
            items = [item for item in self.everything if item.id in wanted]
        config = JudgeConfig(
            model=self.model.text().strip() or JUDGE_MODEL,
            base_url=base_url,
            concurrency=self.concurrency.value(),
        )
        self.failures.clear()
        self.failed_ids = []
        self.status.setText(f"Judging with {config.model}…")
        self._judging = config.model

        def job(store, cancel, progress):
            return run_judge(items, store, config, key, progress, cancel)

        for button in (self.start_button, self.retry_button):
            button.setEnabled(False)
        self.runner.start(self.db_path, job)

    def cancel(self) -> None:
        """Stop the run; what is stored stays stored (a later run resumes)."""
        self.runner.cancel()

    def _on_progress(self, record: Progress) -> None:
        summary = record.detail
        assert isinstance(summary, JudgeSummary)
        self.status.setText(self._summary_text(summary, f"Judging with {self._judging}"))
        while len(self.failed_ids) < len(summary.failed):
            failure = summary.failed[len(self.failed_ids)]
            self.failed_ids.append(failure["item"])
            self.failures.addItem(f"{failure['item']}: {failure['error']}")

    @staticmethod
    def _summary_text(summary: JudgeSummary, head: str, tail: str = "") -> str:
        cost = "" if summary.cost_usd is None else f" · about ${summary.cost_usd:.2f}"
        parts = [
            head,
            f"{len(summary.failed)} failed",
            f"{summary.prompt_tokens + summary.completion_tokens:,} tokens{cost}",
        ]
        return " · ".join(parts + ([tail] if tail else []))

    def _on_finished(self, summary: JudgeSummary | None, error: str) -> None:
        summary = summary or JudgeSummary()
        self.start_button.setEnabled(True)
        self.retry_button.setEnabled(bool(self.failed_ids))
        if error:
            self.status.setText(f"Stopped: {error}")
        else:
            head = f"{'Cancelled' if summary.cancelled else 'Done'}: {summary.judged} judged"
            skipped = f"{summary.skipped} already done"
            self.status.setText(self._summary_text(summary, head, skipped))
        if summary.judged:
            self.judged.emit()
        self.run_finished.emit()
