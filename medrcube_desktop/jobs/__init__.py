"""Long work with progress and cancel, one contract for the CLI and the GUI.

- The record, the cancel event, the summary shape and the outcome are
  :mod:`medrcube_desktop.core.progress` (the domain layers build the record, so it sits
  below them); they are re-exported here.
- :mod:`medrcube_desktop.jobs.terminal` runs a job in a terminal: a tqdm bar on stderr,
  Ctrl+C cancels and waits for what is being stored.
- ``medrcube_desktop/ui/widgets/job_runner.py`` runs one in the window: a progress bar with ETA,
  Cancel, and closing the dialog cancels and waits.

A job is a callable ``job(progress, cancel) -> summary``; it opens what it needs (a
database connection belongs to the thread that opened it) and checks ``cancel`` between
units of work.
"""

from medrcube_desktop.core.progress import (
    Cancel,
    Outcome,
    Progress,
    ProgressFn,
    Summary,
    outcome_of,
    report,
)

__all__ = ["Cancel", "Outcome", "Progress", "ProgressFn", "Summary", "outcome_of", "report"]
