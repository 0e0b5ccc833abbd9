"""The agreement, compare and paired-outcome views read whole at the sizes their panes
get on a 1366 × 768 screen and on a 1024 × 700 one: no header cut or elided, no cell
text squeezed, table rows at least a line high, the 2×2 tables' labels apart."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QApplication, QTableView

from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.store import StudyStore, utc_now
from medrcube_desktop.store.evaluation import ResponseRecord, RunRecord
from medrcube_desktop.ui.compare.grid import ITEM_COLUMNS
from medrcube_desktop.ui.widgets.readable import FigureScroll, figure_size, fit_header, wrap_header
from medrcube_desktop.ui.widgets.screen import SCREEN_SHARE
from tests.conftest import dicom_file, item, write_benchmark
from tests.ui.agreement.test_pane import prepare
from tests.ui.review.test_review_binding_window import open_window

SCREENS = {"1366x768": QSize(1366, 768), "1024x700": QSize(1024, 700)}


def pane_size(wanted: QSize, screen: QSize) -> QSize:
    """What ``ui/screen.fit_to_screen`` gives a pane asking for ``wanted`` there."""
    return QSize(
        min(wanted.width(), int(screen.width() * SCREEN_SHARE)),
        min(wanted.height(), int(screen.height() * SCREEN_SHARE)),
    )


WANTED = {"AgreementPane": QSize(1100, 860), "ComparePane": QSize(1240, 860),
          "EvaluatePane": QSize(1180, 860)}  # fmt: skip
"""What each pane asks ``fit_to_screen`` for (this process's screen is 800 × 800)."""


def show_at(qtbot, pane, screen: str) -> None:
    """Show ``pane`` at the size it gets on ``screen``; it must take it (before, the
    evaluate pane's minimum was 1185 px wide and the compare pane's 984)."""
    size = pane_size(WANTED[type(pane).__name__], SCREENS[screen])
    pane.resize(size)
    pane.show()
    qtbot.waitExposed(pane)
    QApplication.processEvents()
    assert pane.size() == size, (pane.size(), size)


def unreadable(table: QTableView, lined: range = range(0)) -> list[str]:
    """Where ``table`` shows less than its text: a header section narrower than its
    text needs (Qt's own measure of it; for the ``lined`` columns, whose headers are in
    lines, the test checks each line), a column narrower than its cells, a row lower
    than a line of text."""
    header = table.horizontalHeader()
    problems = []
    for c in range(header.count()):
        title = str(table.model().headerData(c, header.orientation()))
        if c not in lined and header.sectionSize(c) < header.sectionSizeHint(c):
            problems.append(
                f"header {title!r}: {header.sectionSize(c)} < {header.sectionSizeHint(c)}"
            )
        if table.model().rowCount() and table.columnWidth(c) < table.sizeHintForColumn(c):
            problems.append(
                f"column {title!r}: {table.columnWidth(c)} < {table.sizeHintForColumn(c)}"
            )
    line = table.fontMetrics().height()
    problems += [f"row {r}: {table.rowHeight(r)} px" for r in range(table.model().rowCount())
                 if table.rowHeight(r) < line]  # fmt: skip
    return problems


@pytest.mark.parametrize("screen", SCREENS)
def test_the_agreement_table_and_its_2x2_tables(qtbot, ct_benchmark, tmp_path, screen):
    prepare(tmp_path / "s.db")
    window, _ = open_window(qtbot, ct_benchmark, tmp_path / "s.db")
    pane = window.open_agreement_pane()
    show_at(qtbot, pane, screen)
    pane.first.setCurrentIndex(pane.first.findData("dr-b"))
    pane.bootstrap.setValue(0)
    with qtbot.waitSignal(pane.computed, timeout=30000):
        pane.compute_button.click()
    QApplication.processEvents()
    # before: the stretched first column squeezed "1.4 VQA Suitability (…)" to "1.4 VQ…"
    assert unreadable(pane.table) == []
    pane.figures.setCurrentIndex(1)  # "2×2 tables"
    QApplication.processEvents()
    from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg

    tab = pane.figures.currentWidget()  # the canvas, in a scroll area
    canvas = tab if isinstance(tab, FigureCanvasQTAgg) else tab.findChild(FigureCanvasQTAgg)
    figure = canvas.figure
    pane.grab().save(str(tmp_path / f"agreement-{screen}.png"))
    canvas.draw()
    renderer = canvas.get_renderer()
    for axes in figure.axes:
        if not axes.get_visible() or not axes.get_title():
            continue  # the ninth cell of the 3 × 3 grid is empty
        for ticks in (axes.get_yticklabels(), axes.get_xticklabels()):
            fail, passed = (t.get_window_extent(renderer) for t in ticks)
            # before: 2×2 tables 25 px high, "fail" and "pass" on top of each other
            assert not fail.overlaps(passed), (axes.get_title(), fail, passed)
        line = axes.get_yticklabels()[0].get_window_extent(renderer).height
        assert axes.get_window_extent(renderer).height >= 4 * line, axes.get_title()
    assert canvas.width() >= figure_size(figure).width()  # drawn at its size, or larger
    assert canvas.height() >= figure_size(figure).height()
    assert isinstance(tab, FigureScroll)  # the pane scrolls it
    # several experts: the ceiling beside expert–LLM, headers in lines
    pane.second.setCurrentIndex(pane.second.findData("panel"))
    with qtbot.waitSignal(pane.computed, timeout=30000):
        pane.compute_button.click()
    QApplication.processEvents()
    assert pane.table.columnCount() > 2 and unreadable(pane.table) == []
    window.close()


RUNS = {  # long names, as the public evaluator writes them
    "Qwen2.5-VL-7B-Instruct": False,
    "Qwen2.5-VL-3B-Instruct": False,
    "gpt-5.1-2025-11-13-openai": False,
    "OpenGVLab/InternVL3_5-8B-text": True,
}


def store_runs(db, item_ids):
    store = StudyStore(db)
    for n, (name, text) in enumerate(RUNS.items()):
        store.save_run(RunRecord(name=name, engine="openai", model=name, params={},
                                 prompt_sha256="x", app_version="t", text_only=text,
                                 created_at=f"2026-01-0{n + 1}T00:00:00+00:00"))  # fmt: skip
        for k, item_id in enumerate(item_ids):
            letter = "B" if (k + n) % 2 else "A"
            store.save_response(ResponseRecord(
                run=name, item_id=item_id, response=letter, parsed_answer=letter,
                parse_method="letter", correct=letter == "B", official_answer=letter,
                official_correct=letter == "B", created_at=utc_now(),
            ))  # fmt: skip
    store.close()


@pytest.fixture
def bench(tmp_path):
    records = [item(f"mr-{k}", task="Modality Recognition") for k in range(4)]
    records += [item(f"dd-{k}", task="Disease Diagnosis") for k in range(4)]
    return write_benchmark(tmp_path / "bench", {"ds1": records},
                           {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")})  # fmt: skip


@pytest.mark.parametrize("screen", SCREENS)
def test_the_compare_grid_headers_read_whole(qtbot, bench, tmp_path, screen):
    store_runs(tmp_path / "s.db", [i.id for i in load_benchmark(bench).items])
    window, _ = open_window(qtbot, bench, tmp_path / "s.db")
    pane = window.open_compare_pane()
    show_at(qtbot, pane, screen)
    pane.set_checked(list(RUNS))
    with qtbot.waitSignal(pane.computed, timeout=30000):
        pane.compare_button.click()
    pane.tabs.setCurrentIndex(1)
    QApplication.processEvents()
    grid = pane.grid
    model = grid.model()
    header = grid.horizontalHeader()
    # Qt's measure of a header in lines leaves room for a sort arrow as high as all of
    # them: the run columns' lines are checked one by one below
    assert unreadable(grid, lined=range(len(ITEM_COLUMNS), model.columnCount())) == []
    grid.sortByColumn(len(ITEM_COLUMNS), Qt.SortOrder.AscendingOrder)  # its arrow shown
    grid.setCurrentIndex(model.index(0, len(ITEM_COLUMNS)))  # its header bold
    QApplication.processEvents()
    pane.grab().save(str(tmp_path / f"compare-{screen}.png"))
    from medrcube_desktop.ui.widgets.readable import bold_metrics, header_padding

    metrics, padding = bold_metrics(header), header_padding(header)
    for run, name in enumerate(RUNS):
        column = len(ITEM_COLUMNS) + run
        shown = model.headerData(column, header.orientation())
        lines = shown.split("\n")
        # every character of "n name" shown, in lines that fit the column (before: one
        # line elided in the middle, "1 Qwe…ruct")
        assert "".join(lines) == f"{run + 1} {name}" + (" (text)" if RUNS[name] else "")
        assert len(lines) <= 3
        assert all(metrics.horizontalAdvance(x.rstrip()) + padding <= grid.columnWidth(column)
                   for x in lines), (lines, grid.columnWidth(column))  # fmt: skip
        assert header.height() >= len(lines) * metrics.height()
        # and drawn so: the style elides a header's text to its room (before, a header
        # in lines was elided as one line, "1 Qwe…truct")
        room = grid.columnWidth(column) - padding
        assert metrics.elidedText(shown, header.textElideMode(), room) == shown
    assert unreadable(pane.board) == []  # the leaderboard too
    pane.tabs.setCurrentIndex(3)  # credibility: its tables
    QApplication.processEvents()
    view = pane.credibility
    assert view.credibility.rowCount() >= 3  # the runs
    assert [unreadable(t) for t in (view.credibility, view.drops)] == [[], []]
    window.close()


def test_a_header_breaks_after_a_separator_and_inside_a_part_only_when_it_must(qtbot):
    from PySide6.QtGui import QFontMetrics
    from PySide6.QtWidgets import QLabel

    label = QLabel()
    qtbot.addWidget(label)
    metrics = QFontMetrics(label.font())
    part = metrics.horizontalAdvance("Qwen2.5-VL-")
    assert wrap_header("1 Qwen2.5-VL-7B-Instruct", metrics, part) == [
        "1 Qwen2.5-", "VL-7B-", "Instruct"]  # fmt: skip
    # a part wider than a line is broken inside, and nothing is lost
    narrow = metrics.horizontalAdvance("abcd")
    lines = wrap_header("abcdefghij", metrics, narrow)
    assert "".join(lines) == "abcdefghij" and len(lines) == 3
    assert all(metrics.horizontalAdvance(x) <= narrow for x in lines)
    assert wrap_header("1 iv8", metrics, 500) == ["1 iv8"]
    # the fewest lines first: a short name on one line, never "1 " / "iv" / "8"
    wide = metrics.horizontalAdvance("M" * 12)
    one = metrics.horizontalAdvance("1 iv8") + 10
    assert fit_header("1 iv8", metrics, 10, 20, wide) == (max(20, one), "1 iv8")
    width, text = fit_header("1 Qwen2.5-VL-7B-Instruct", metrics, 10, 20, wide)
    lines = text.split("\n")  # two lines at the narrowest width that gives two
    assert len(lines) == 2 and "".join(lines) == "1 Qwen2.5-VL-7B-Instruct" and width <= wide
    assert all(metrics.horizontalAdvance(x) <= width - 10 for x in lines)
    assert len(wrap_header("1 Qwen2.5-VL-7B-Instruct", metrics, width - 10 - 20)) > 2


@pytest.mark.parametrize("screen", SCREENS)
def test_the_paired_outcomes_table_reads_whole(qtbot, bench, tmp_path, screen):
    from medrcube_desktop.evaluation.metrics import Outcome
    from medrcube_desktop.ui.evaluate.run_results import RunResults

    window, _ = open_window(qtbot, bench, tmp_path / "s.db")
    pane = window.open_evaluate_pane()
    show_at(qtbot, pane, screen)
    pane.tabs.setCurrentWidget(pane.pairs_view)
    items = load_benchmark(bench).items
    outcomes = [Outcome(i, i.answer if k % 3 else "A") for k, i in enumerate(items)]
    pane.pairs_view.show_run(RunResults("r", None, {}, outcomes, {}))
    QApplication.processEvents()
    table = pane.pairs_view.pairs_table
    assert table.rowCount() == 16  # 4 prerequisites × 4 high-level items on one image
    pane.grab().save(str(tmp_path / f"pairs-{screen}.png"))
    # before: six stretched columns in 430 px, "Prerequisite item" cut to "rerequisite iten"
    assert unreadable(table) == []
    window.close()


@pytest.mark.parametrize("screen", SCREENS)
def test_the_old_vs_new_release_tables_read_whole(qtbot, tmp_path, screen):
    """The "Old vs new release" tab on the hand-written release (tests/release_fixture.py,
    4 runs, 16 correction rows): every models column inside the pane, headers in lines
    that fit their columns; the corrections table gets the room its rows need (before:
    "right→wrong", "retired", "need a new answer" off the right edge at 1366 × 768, 3 of
    the corrections' rows shown)."""
    from medrcube_desktop.cli import main
    from medrcube_desktop.ui.widgets.readable import bold_metrics, header_padding
    from tests import release_fixture as rf

    source = rf.write_source(tmp_path / "source", images=True)
    # a long folder path (as pytest-xdist's are): it once wrapped the status to one line
    # more and took a row of the corrections table at 1024 x 700
    release = rf.write_release(tmp_path / ("long-" * 30) / "release", source, images=True)
    db = rf.write_runs(tmp_path / "study.db", source)
    assert main(["rescore", "--release", str(release), "--db", str(db)]) == 0
    window, _ = open_window(qtbot, source, db)
    pane = window.open_compare_pane()
    show_at(qtbot, pane, screen)
    pane.check_all(True)
    pane.tabs.setCurrentWidget(pane.releases)
    tab = pane.releases
    tab.folder.setText(str(release))
    tab.fields["diff_boot"].setValue(200)
    with qtbot.waitSignal(tab.computed, timeout=60000):
        tab.compare_button.click()
    assert tab.diff is not None, tab.status.text()
    assert "(release) against" in tab.status.text() and tab.status.toolTip() == str(release)
    QApplication.processEvents()
    pane.grab().save(str(tmp_path / f"releases-{screen}.png"))
    for table in (tab.models, tab.changes):
        header = table.horizontalHeader()
        metrics, padding = bold_metrics(header), header_padding(header)
        assert unreadable(table, lined=range(table.columnCount())) == []
        for column in range(table.columnCount()):
            lines = table.horizontalHeaderItem(column).text().split("\n")
            assert len(lines) <= 3 and all(
                metrics.horizontalAdvance(x.rstrip()) + padding <= table.columnWidth(column)
                for x in lines
            ), (lines, table.columnWidth(column))
            assert header.height() >= len(lines) * metrics.height()
    # every column of both tables inside the pane at 1366 × 768: no sideways scroll
    for table in (tab.models, tab.changes) if screen == "1366x768" else ():
        widths = sum(table.columnWidth(c) for c in range(table.columnCount()))
        assert widths <= table.viewport().width(), (widths, table.viewport().width())
    rows = tab.models.rowCount()
    assert rows == 4 and tab.changes.rowCount() == 16
    shown = [r for r in range(tab.changes.rowCount())
             if tab.changes.visualRect(tab.changes.model().index(r, 0)).bottom()
             <= tab.changes.viewport().height()]  # fmt: skip
    every_model = all(tab.models.visualRect(tab.models.model().index(r, 0)).bottom()
                      <= tab.models.viewport().height() for r in range(rows))  # fmt: skip
    assert every_model and len(shown) >= (8 if screen == "1366x768" else 5), len(shown)
    window.close()
