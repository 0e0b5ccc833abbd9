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
        "proposals",
    ]
    for action_id, name in (
        ("review.llm", "judge"),
        ("review.agreement", "agreement"),
        ("review.adjudicate", "adjudication"),
        ("review.evaluate", "evaluate"),
        ("review.compare", "compare"),
        ("review.proposals", "proposals"),
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


def test_a_pane_opened_again_after_change_reviewer_works_for_the_new_reviewer(
    qtbot, ct_benchmark, tmp_path, monkeypatch
):
    """File › Change reviewer, then the adjudication pane opened again (or left open):
    it adjudicates, and blinds, as the new reviewer. Fails on the pane that kept the
    session it was built with (the adjudication recorded under the old name, the queue
    shown as the old reviewer may see it)."""
    from PySide6.QtWidgets import QLabel

    from medrcube_desktop.ui import main_window

    window, _ = open_window(qtbot, ct_benchmark, tmp_path / "s.db", reviewer="dr-a")
    window.qactions["review.adjudicate"].trigger()
    pane = window.panes.get("adjudication")
    assert pane.session.reviewer == "dr-a"
    monkeypatch.setattr(
        main_window.QInputDialog, "getText", staticmethod(lambda *a, **kw: ("dr-b", True))
    )
    window.qactions["app.reviewer"].trigger()
    assert window.session.reviewer == "dr-b"
    assert pane.session is window.session  # left open: already the new reviewer's
    assert pane.adjudicator.text() == "Adjudicator: dr-b"  # shown again at once
    window.qactions["review.adjudicate"].trigger()
    assert window.panes.get("adjudication") is pane and pane.session is window.session
    shown = [label.text() for label in pane.findChildren(QLabel)]
    assert "Adjudicator: dr-b" in shown and "Adjudicator: dr-a" not in shown
    pane.close()  # closed, then opened again: the same pane, the new reviewer
    window.qactions["review.adjudicate"].trigger()
    assert pane.isVisible() and pane.session.reviewer == "dr-b"
