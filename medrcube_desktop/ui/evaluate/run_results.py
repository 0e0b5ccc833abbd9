"""One evaluation run as the Evaluate pane shows it, read from the database once.

The runner's ``run_summary`` and ``run_outcomes`` each read every response of the run;
the pane needs both, and the pairs view the responses themselves, so one refresh hands
them a snapshot that read the run's responses a single time (Qt-free; the widgets only
display a :class:`RunResults`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from medrcube_desktop.core.items import Item
from medrcube_desktop.evaluation.metrics import Outcome
from medrcube_desktop.evaluation.runner import run_outcomes, run_summary

if TYPE_CHECKING:  # the store's record types, named only for the reader
    from medrcube_desktop.store import StudyStore
    from medrcube_desktop.store.evaluation import ResponseRecord, RunRecord


class _ResponsesOnce:
    """Stands in for the store where the runner's summaries only read ``responses``."""

    def __init__(self, run: str, answers: dict[str, ResponseRecord]) -> None:
        self._run, self._answers = run, answers

    def responses(self, run: str) -> dict[str, ResponseRecord]:
        if run != self._run:
            raise KeyError(run)
        return self._answers


@dataclass(frozen=True)
class RunResults:
    """A run's record, its stored answers by item id, the outcomes over the benchmark's
    items (items without an answer left out) and the runner's summary of them."""

    run: str
    record: RunRecord
    answers: dict[str, ResponseRecord]
    outcomes: list[Outcome]
    summary: dict[str, Any]


def read_run(store: StudyStore, run: str, items: Sequence[Item]) -> RunResults | None:
    """The results of ``run`` over ``items``, or ``None`` when there is no such run.

    Reads the run's responses once (raises StoreError).
    """
    record = store.eval_run(run) if run else None
    if record is None:
        return None
    answers = store.responses(run)
    once: Any = _ResponsesOnce(run, answers)
    return RunResults(
        run, record, answers, run_outcomes(once, run, items), run_summary(once, run, items)
    )


def unparsed_rows(results: RunResults, width: int = 120) -> list[tuple[str, str]]:
    """(item id, the start of the model's answer) of every answer no letter was read from."""
    rows = []
    for outcome in results.outcomes:
        if outcome.letter is None:
            answer = results.answers.get(outcome.item.id)
            said = " ".join((answer.response if answer else "").split())
            rows.append((outcome.item.id, said[:width] or "(empty answer)"))
    return rows
