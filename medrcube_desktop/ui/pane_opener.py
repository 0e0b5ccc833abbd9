"""One way to open a pane of the review window: a table of panes by name, each built on
first open (its module imported then: pydantic and the statistics stay out of the
window's start-up), kept, and on each later open refreshed and raised.

A new pane: a feature module builds it from what it uses (the session, a store path, a
callback); one :class:`PaneSpec` in :func:`review_panes` says how; one row of the action
table (``ui/actions.py``) opens it with ``window.panes.open(name)``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QWidget

if TYPE_CHECKING:
    from medrcube_desktop.review.session import ReviewSessionState


@dataclass(frozen=True)
class PaneSpec:
    """How to build one pane (``create()``: built, its signals connected), what to do
    when it is opened again (``refresh(pane)``, or nothing) and when the window binds
    another session (``session_changed(pane)``: File › Change reviewer, an import, the
    study settings; or nothing, for a pane that shows nothing of the reviewer)."""

    name: str
    create: Callable[[], QWidget]
    refresh: Callable[[QWidget], None] | None = None
    session_changed: Callable[[QWidget], None] | None = None


class PaneOpener:
    """The panes of one window, each built on first :meth:`open` and kept."""

    def __init__(self, specs: list[PaneSpec]) -> None:
        self.specs = {spec.name: spec for spec in specs}
        self._built: dict[str, QWidget] = {}

    def open(self, name: str) -> QWidget:
        """Show pane ``name`` (built now the first time, else refreshed), raised.

        Raises
        ------
        KeyError
            No pane of that name (the names: ``specs``).
        """
        spec = self.specs[name]
        pane = self._built.get(name)
        if pane is None:
            pane = self._built[name] = spec.create()
        elif spec.refresh is not None:
            spec.refresh(pane)
        pane.show()
        pane.raise_()
        return pane

    def get(self, name: str) -> QWidget | None:
        """Pane ``name`` when it was opened once, else None."""
        return self._built.get(name)

    def session_changed(self) -> None:
        """The window bound another session: each pane built so far that shows something
        of the reviewer (its ``session_changed``) shows it for the new one."""
        for name, pane in self._built.items():
            hook = self.specs[name].session_changed
            if hook is not None:
                hook(pane)

    def close_all(self) -> None:
        """Close every pane built (a run in progress is cancelled; what it stored stays)."""
        for name in self.specs:
            if name in self._built:
                self._built[name].close()


def review_panes(
    parent: QWidget,
    session: Callable[[], ReviewSessionState],
    benchmark_root: Path,
    show_item: Callable[[str], None],
    studies_changed: Callable[[], None],
    judgments_arrived: Callable[[], None],
    proposals_decided: Callable[[str], None] | None = None,
) -> list[PaneSpec]:
    """The review window's panes: ``judge``, ``agreement``, ``adjudication``,
    ``evaluate``, ``compare``, ``proposals``. ``session()`` is the window's session when a pane is
    built; ``show_item(item_id)`` opens an item in the review; ``studies_changed()``
    after the agreement pane saved a study; ``judgments_arrived()`` after a judge run
    stored judgments; ``proposals_decided(item_id)`` after the proposals queue stored a
    decision. Each pane receives only these, never the window (``parent`` is its
    Qt parent)."""

    def judge() -> QWidget:
        from medrcube_desktop.llm.config import JUDGE_MODEL
        from medrcube_desktop.ui.review.judge_dialog import JudgeDialog

        now = session()
        dialog = JudgeDialog(
            parent,
            now.store.path,
            list(now.visible),
            list(now.items) + list(now.restricted),  # text only too
            now.llm_model or JUDGE_MODEL,
        )
        dialog.judged.connect(judgments_arrived)
        dialog.open_item.connect(show_item)
        return dialog

    def judge_again(dialog) -> None:
        dialog.filtered = list(session().visible)  # the list as it is now

    def agreement() -> QWidget:
        from medrcube_desktop.ui.agreement.pane import AgreementPane

        pane = AgreementPane(parent, session)
        pane.open_item.connect(show_item)
        pane.study_saved.connect(studies_changed)
        return pane

    def adjudication() -> QWidget:
        from medrcube_desktop.ui.agreement.adjudication_pane import AdjudicationPane

        pane = AdjudicationPane(parent, session)  # the adjudicator: the reviewer now
        pane.open_item.connect(show_item)
        return pane

    def evaluate() -> QWidget:
        from medrcube_desktop.ui.evaluate.pane import EvaluatePane

        pane = EvaluatePane(parent, session(), benchmark_root)
        pane.open_item.connect(show_item)
        pane.run_finished.connect(lambda: session().reload_evidence())  # runs changed
        return pane

    def compare() -> QWidget:
        from medrcube_desktop.ui.compare.pane import ComparePane

        pane = ComparePane(parent, session(), benchmark_root)
        pane.open_item.connect(show_item)
        return pane

    def proposals() -> QWidget:
        from medrcube_desktop.ui.corrections.proposals_pane import ProposalsPane

        pane = ProposalsPane(parent, session)  # the decider: the reviewer now
        pane.open_item.connect(show_item)
        if proposals_decided is not None:
            pane.decided.connect(proposals_decided)
        return pane

    return [
        PaneSpec("judge", judge, judge_again),
        PaneSpec("agreement", agreement),
        PaneSpec(
            "adjudication",
            adjudication,
            lambda pane: pane.refresh(),
            session_changed=lambda pane: pane.refresh(),
        ),  # fmt: skip
        PaneSpec("evaluate", evaluate),
        PaneSpec("compare", compare, lambda pane: pane.fill_runs()),  # runs stored since
        PaneSpec(
            "proposals",
            proposals,
            lambda pane: pane.refresh(),
            session_changed=lambda pane: pane.refresh(),
        ),  # fmt: skip
    ]
