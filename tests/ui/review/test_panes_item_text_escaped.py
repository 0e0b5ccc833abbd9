"""Item text from a benchmark is shown as written, never read as Qt rich text."""

from types import SimpleNamespace

from PySide6.QtCore import Qt
from PySide6.QtGui import QTextDocument

from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.evaluation.metrics import Outcome
from medrcube_desktop.ui.evaluate.pairs_view import _outcome_block
from medrcube_desktop.ui.review.item_list_model import ITEM_ID_ROLE
from tests.conftest import dicom_file, item, write_benchmark
from tests.ui.review.test_review_binding_window import open_window

QUESTION = "<b>x</b> & <script>"
OPTION = "CT & <i>contrast</i>"


def as_shown(rich: str) -> str:
    """What Qt shows for a rich-text string (its plain text once laid out)."""
    document = QTextDocument()
    document.setHtml(rich)
    return document.toPlainText()


def tricky_benchmark(tmp_path):
    record = item("<x>&1", question=QUESTION, option_B=OPTION, gt_answer=OPTION)
    return write_benchmark(
        tmp_path / "b", {"ds1": [record]}, {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")}
    )


def test_a_question_with_markup_shows_literally_in_the_review_window(qtbot, tmp_path):
    window, _ = open_window(qtbot, tricky_benchmark(tmp_path), tmp_path / "s.db")
    question = window.item_pane.question
    assert question.textFormat() == Qt.TextFormat.PlainText and question.text() == QUESTION
    options = window.item_pane.options.text()
    assert "<i>contrast" not in options and f"B. {OPTION}" in as_shown(options)
    assert "<x>&1" in as_shown(window.item_pane.meta.text())  # the id, in the bold header
    model = window.list_pane.model
    row = model.index(0, 0)
    assert row.data(ITEM_ID_ROLE) == "<x>&1"
    assert as_shown(row.data(Qt.ItemDataRole.ToolTipRole)) == QUESTION


def test_a_pair_shows_the_question_options_and_raw_answer_literally(tmp_path):
    (loaded,) = load_benchmark(tricky_benchmark(tmp_path)).items
    answer = SimpleNamespace(
        response="<script>alert(1)</script> B", parsed_answer="B", parse_method="letter"
    )
    shown = as_shown(_outcome_block("High level", Outcome(loaded, "B"), answer))
    assert QUESTION in shown and f"B. {OPTION}" in shown
    assert "<script>alert(1)</script> B" in shown and "High level: <x>&1" in shown
