"""The agreement study between expert and LLM raters (paper E.6, Table 5).

- :mod:`.stats`: agreement statistics of two raters (kappa, AC1, PABAK, McNemar,
  bootstrap and Wilson intervals) and of several raters (Fleiss, Krippendorff);
- :mod:`.run`: which judgments are compared, read from the database, with provenance;
- :mod:`.table`: the Table-5-style rows and how their figures are printed;
- :mod:`.figures`: the matplotlib figures (per-rule agreement, 2×2 tables);
- :mod:`.html` and :mod:`.report`: the HTML report and every exported file.

What callers use is re-exported here: ``from medrcube_desktop.review.agreement import
run_study, write_outputs, table_rows``.
"""

from medrcube_desktop.review.agreement.figures import bar_figure, confusion_figure, save_figure
from medrcube_desktop.review.agreement.html import write_html
from medrcube_desktop.review.agreement.report import write_outputs
from medrcube_desktop.review.agreement.run import StudyRun, expert_scores, run_study
from medrcube_desktop.review.agreement.stats import (
    DEFAULT_BOOTSTRAP,
    PRINCIPLES,
    AgreementResult,
    PairFigures,
    Scores,
    cohen_kappa,
    compare,
    confusion,
    gwet_ac1,
    mcnemar_exact_p,
    multi_rater,
    pabak,
    percent_agreement,
    wilson_ci,
)
from medrcube_desktop.review.agreement.table import fmt, fmt_ci, fmt_p, meta_line, table_rows

__all__ = [
    "DEFAULT_BOOTSTRAP",
    "PRINCIPLES",
    "AgreementResult",
    "PairFigures",
    "Scores",
    "StudyRun",
    "bar_figure",
    "cohen_kappa",
    "compare",
    "confusion",
    "confusion_figure",
    "expert_scores",
    "fmt",
    "fmt_ci",
    "fmt_p",
    "gwet_ac1",
    "mcnemar_exact_p",
    "meta_line",
    "multi_rater",
    "pabak",
    "percent_agreement",
    "run_study",
    "save_figure",
    "table_rows",
    "wilson_ci",
    "write_html",
    "write_outputs",
]
