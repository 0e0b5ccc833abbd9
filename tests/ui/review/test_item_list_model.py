"""The item list is a Qt model over the session: marks follow the session's changes."""

from PySide6.QtCore import Qt

from tests.ui.review.test_review_binding_window import open_window


def test_the_list_model_repaints_a_row_when_the_session_changes_it(qtbot, ct_benchmark, tmp_path):
    window, _ = open_window(qtbot, ct_benchmark, tmp_path / "s.db")
    model = window.list_pane.model
    assert model.rowCount() == 2 and model.row_of("ct-2") == 1
    assert model.text(0).startswith("·  ct-1")
    changed = []
    model.dataChanged.connect(lambda top, bottom, roles: changed.append(top.row()))
    window.scoring.toggle_flag()  # through the session: the window only hears of it
    assert changed == [0] and model.text(0).startswith("⚑  ct-1")
    window.scoring.toggle_rule("1.1")
    assert changed == [0, 0] and model.text(0).startswith("✎⚑")
    assert window.list_pane.list.currentIndex().row() == 0
    index = model.index(1, 0)
    with qtbot.waitSignal(window.list_pane.item_chosen) as chosen:
        window.list_pane.list.setCurrentIndex(index)  # a click on the second row
    assert chosen.args == ["ct-2"] and window.session.current.id == "ct-2"
    assert index.data(Qt.ItemDataRole.ToolTipRole) == "<p>Which plane is shown?</p>"
