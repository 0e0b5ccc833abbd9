"""The settings of the ``proposals`` commands, declared once (rows:
:class:`~medrcube_desktop.core.options.Option`): the flags are made from these rows, and
the review window's propose dialog and queue may take their labels, help and choices
from them.

- :data:`LIST`: ``proposals list``'s ``--status``.
- :data:`PROPOSE`: ``proposals propose``'s ``--kind`` and ``--rule``.
"""

from __future__ import annotations

from medrcube_desktop.core.corrections import KINDS, STATUSES
from medrcube_desktop.core.options import Option, options
from medrcube_desktop.core.rubric import RULE_IDS

ALL = "all"
"""``--status all``: every proposal, whatever its status."""

LIST: dict[str, Option] = options(
    Option("status", "--status", "Show", ALL,
           "only the proposals of this status: open (no decision yet) or the latest "
           "decision; all (default) for every one", str, choices=(*STATUSES, ALL)),
)  # fmt: skip
"""The settings of ``proposals list``."""

PROPOSE: dict[str, Option] = options(
    Option("kind", "--kind", "Correction", None,
           "what to correct: the answer key, an option's text, the question's text, the "
           "bounding box, the mask, or retire the item from the release", str,
           choices=KINDS, required=True),
    Option("rule", "--rule", "Rule", None,
           "the rubric rule (Table 10) the correction answers", str, choices=RULE_IDS,
           required=True),
)  # fmt: skip
"""The settings of ``proposals propose`` (and of the window's propose dialog)."""
