"""One way to open a pane (ui/pane_opener.py): built on first open, kept, refreshed and
raised on the next; each pane is given what it uses, never the window."""

from PySide6.QtWidgets import QWidget

from medrcube_desktop.ui.main_window import MainWindow
from medrcube_desktop.ui.pane_opener import PaneOpener, PaneSpec
from tests.ui.review.test_review_binding_window import open_window


def test_a_pane_is_built_once_then_refreshed_and_raised(qtbot):
    built: list[QWidget] = []
    refreshed: list[QWidget] = []

    def create() -> QWidget:
        widget = QWidget()
        qtbot.addWidget(widget)
        built.append(widget)
        return widget

    opener = PaneOpener([PaneSpec("one", create, refreshed.append), PaneSpec("two", create)])
    assert opener.get("one") is None
    first = opener.open("one")
    assert built == [first] and refreshed == [] and first.isVisible()
    first.hide()
    assert opener.open("one") is first and refreshed == [first] and first.isVisible()
    second = opener.open("two")
    assert opener.open("two") is second and built == [first, second]
    assert refreshed == [first]  # "two" has no refresh: opened again as it is
    opener.close_all()
    assert not first.isVisible() and not second.isVisible()


def test_every_menu_pane_opens_through_the_opener_and_never_holds_the_window(
    qtbot, ct_benchmark, tmp_path
):
    window, _ = open_window(qtbot, ct_benchmark, tmp_path / "s.db")
    assert sorted(window.panes.specs) == [
        "adjudication",
        "agreement",
        "compare",
        "evaluate",
        "judge",
    ]
    for action_id, name in (
        ("review.llm", "judge"),
        ("review.agreement", "agreement"),
        ("review.adjudicate", "adjudication"),
        ("review.evaluate", "evaluate"),
        ("review.compare", "compare"),
    ):
        window.qactions[action_id].trigger()  # the menu's action
        pane = window.panes.get(name)
        assert pane is not None and pane.isVisible(), name
        assert (
            getattr(window, f"open_{name}_pane" if name != "judge" else "open_judge_dialog")()
            is pane
        )
        # the session, a store, the benchmark folder, callbacks: never the window itself
        held = [key for key, value in vars(pane).items() if isinstance(value, MainWindow)]
        assert held == [], (name, held)
        assert pane.parent() is window  # (the Qt parent only: it closes with the window)
    assert window.panes.get("judge").filtered == list(window.session.visible)
