"""Several experts from the database: the ceiling beside expert–LLM, or every rater
against the adjudicated gold standard (issue 15 item 4).

Expert judgments are first judgments (revision 1, repeats excluded), as in
:func:`.run.run_study`; the LLM side is the latest successful judgment of each item.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from medrcube_desktop import __version__
from medrcube_desktop.core.rubric import load_rubric
from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.review.agreement.gold import expert_note, gold_sources, gold_standard
from medrcube_desktop.review.agreement.panel import (
    ROW_KEYS,
    Column,
    group_columns,
    rater_matrix,
)
from medrcube_desktop.review.agreement.run import expert_scores
from medrcube_desktop.review.agreement.stats import (
    DEFAULT_BOOTSTRAP,
    DEFAULT_SEED,
    Scores,
    rater_abstentions,
)
from medrcube_desktop.store import StudyStore, utc_now

GOLD = "gold"
"""The gold standard's name as a rater."""


@dataclass
class PanelRun:
    """A several-experts result.

    ``mode`` is ``"panel"`` (ceiling beside expert–LLM) or ``"gold"`` (each rater against
    the gold standard); ``items`` the items resampled; ``raters`` each rater's number of
    judged items among them; ``gold`` (gold mode) ``{"n_items", "n_adjudicated",
    "n_consensus", "n_left_out", "left_out", "panel", "self_adjudicated", "experts"}``
    (``experts``: name → :meth:`.gold.GoldSources.to_dict`); ``scores`` rater → item → rule → 0/1 (the long
    export); ``notes`` what a reader must know to read the figures (gold mode: for
    each expert, on how many items gold is their shared verdict, their own adjudication,
    or someone else's); ``abstentions`` rater → :func:`~.stats.rater_abstentions` over
    the items they judged, None when nobody said "cannot judge" (the gold standard is no
    rater here).
    """

    mode: str
    columns: list[Column]
    items: list[str]
    raters: dict[str, int]
    meta: dict[str, Any]
    gold: dict[str, Any] | None = None
    scores: dict[str, dict[str, dict[str, int]]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    abstentions: dict[str, dict[str, Any]] | None = None

    def to_dict(self) -> dict[str, object]:
        """The ``agreement --json`` object of a several-experts study."""
        data: dict[str, object] = {
            "mode": self.mode,
            "n_samples": len(self.items),
            "raters": self.raters,
            "rows": list(ROW_KEYS),
            "columns": [column.to_dict() for column in self.columns],
            "meta": self.meta,
        }
        if self.gold is not None:
            data["gold"] = self.gold
            data["notes"] = self.notes
        if self.abstentions is not None:  # only when someone abstained: else as before
            data["abstentions"] = self.abstentions
        return data

    def column(self, kind: str) -> Column | None:
        """The first column of ``kind`` (``"ceiling"``, ``"llm"``…), or ``None``."""
        return next((c for c in self.columns if c.kind == kind), None)


def _sample(store: StudyStore, study: str | None) -> tuple[list[str] | None, int | None]:
    if study is None:
        return None, None
    record = store.study(study)
    if record is None:
        known = ", ".join(store.study_names()) or "none"
        raise MedRCubeError(f"no study named {study!r} (studies: {known})")
    return list(record.item_ids), record.seed


def _raters(
    store: StudyStore, reviewers: list[str], model: str | None, least: int = 2
) -> tuple[dict[str, Scores], str | None, list[str]]:
    if len(set(reviewers)) != len(reviewers):
        raise MedRCubeError(f"a reviewer is named twice: {', '.join(reviewers)}")
    if len(reviewers) < least:
        raise MedRCubeError("several experts need at least two --reviewer")
    experts: dict[str, Scores] = {}
    for name in reviewers:
        experts[name] = expert_scores(store, name)
        if not experts[name]:
            known = ", ".join(store.reviewers()) or "none"
            raise MedRCubeError(f"no first judgments by {name!r} (reviewers: {known})")
    label, hashes = None, []
    if model is not None:
        judgments = store.judgments(model)
        if not judgments:
            known = ", ".join(store.judgment_models()) or "none"
            raise MedRCubeError(f"no judgments by model {model!r} (models: {known})")
        label = f"LLM {model}"
        experts = {**experts, label: {i: dict(j.scores or {}) for i, j in judgments.items()}}
        hashes = sorted({j.prompt_sha256 for j in judgments.values() if j.prompt_sha256})
    return experts, label, hashes


def _meta(reviewers, model, study, study_seed, bootstrap, seed, hashes, only_items) -> dict:
    return {
        "app_version": __version__,
        "rubric_version": load_rubric().version,
        "prompt_sha256": hashes,
        "judge_model": model or "",
        "reviewers": list(reviewers),
        "judgments": "first judgment of each reviewer (revision 1, repeats excluded); "
        "latest successful judgment of the LLM",
        "study": study or "",
        "study_seed": study_seed,
        "bootstrap": bootstrap,
        "seed": seed,
        "restricted_to_committed_by_viewer": only_items is not None,
        "created_at": utc_now(),
    }


def run_panel(
    store: StudyStore,
    reviewers: list[str],
    model: str | None = None,
    study: str | None = None,
    bootstrap: int = DEFAULT_BOOTSTRAP,
    seed: int = DEFAULT_SEED,
    only_items: set[str] | None = None,
) -> PanelRun:
    """Expert–expert agreement (each pair and their mean, the ceiling) beside expert–LLM
    (each expert and their mean) when ``model`` is given.

    Over the study's items when ``study`` names one, else every item someone judged;
    ``only_items`` narrows that (a blind viewer's committed items). The items resampled
    are those at least one pair judged.

    Raises
    ------
    MedRCubeError
        Fewer than two reviewers, a rater without judgments, an unknown study, or no item
        judged by any pair.
    """
    raters, llm, hashes = _raters(store, reviewers, model)
    sample, study_seed = _sample(store, study)
    expert_pairs = list(combinations(reviewers, 2))
    llm_pairs = [(name, llm) for name in reviewers] if llm else []
    universe = _universe(raters, expert_pairs + llm_pairs, sample, only_items)
    groups: list[tuple[str, str, list]] = [("expert–expert (ceiling)", "ceiling", expert_pairs)]
    if llm:
        groups.append(("expert–LLM", "llm", llm_pairs))
    groups += [(f"{a} vs {b}", "pair", [(a, b)]) for a, b in expert_pairs + llm_pairs]
    matrices = {name: rater_matrix(scores, universe) for name, scores in raters.items()}
    columns = group_columns(matrices, groups, bootstrap, seed)
    meta = _meta(reviewers, model, study, study_seed, bootstrap, seed, hashes, only_items)
    return PanelRun("panel", columns, universe, _counts(raters, universe), meta,
                    scores=_restrict(raters, universe),
                    abstentions=_abstentions(matrices, list(raters)))  # fmt: skip


def run_gold(
    store: StudyStore,
    reviewers: list[str],
    model: str | None = None,
    study: str | None = None,
    bootstrap: int = DEFAULT_BOOTSTRAP,
    seed: int = DEFAULT_SEED,
    only_items: set[str] | None = None,
) -> PanelRun:
    """The LLM (when ``model`` is given) and each of ``reviewers`` (none, one or more)
    against the gold standard (:func:`.gold.gold_standard`: adjudicated, else the agreed
    value of the *panel*: ``reviewers`` when two or more are named, else every reviewer
    in the database).

    Columns: the LLM over every gold item and over the adjudicated ones; each expert over
    every gold item they judged and over those adjudicated by someone else (the
    informative one, :func:`.gold.gold_sources`). Items without a complete gold standard
    are left out and counted (``gold["left_out"]``).

    Raises
    ------
    MedRCubeError
        Neither a reviewer nor a model, a rater without judgments, an unknown study, or
        no item has a gold standard.
    """
    if not reviewers and model is None:
        raise MedRCubeError("compare --model or a --reviewer with the gold standard")
    raters, llm, hashes = _raters(store, reviewers, model, least=0)
    sample, study_seed = _sample(store, study)
    panel = list(reviewers) if len(reviewers) >= 2 else store.reviewers()
    experts = {name: raters.get(name) or expert_scores(store, name) for name in panel}
    adjudications = store.adjudications()
    considered = sample
    if only_items is not None:
        base = sample if sample is not None else set(adjudications).union(*experts.values())
        considered = sorted(i for i in base if i in only_items)
    gold = gold_standard(experts, adjudications, considered)
    universe = sorted(gold.scores)
    if not universe:
        raise MedRCubeError(
            "no item has a gold standard: adjudicate the disagreements "
            f"({len(gold.left_out)} items have none)"
        )
    matrices = {name: rater_matrix(scores, universe) for name, scores in raters.items()}
    sources = {name: gold_sources(name, raters[name], gold, adjudications) for name in reviewers}
    groups, notes = _gold_groups(llm, sources, gold, universe, matrices)
    adjudicated = [i for i in universe if i in gold.adjudicated]
    columns = group_columns(matrices, groups, bootstrap, seed)
    meta = _meta(reviewers, model, study, study_seed, bootstrap, seed, hashes, only_items)
    meta["gold"] = ("latest adjudication where adjudicated, else the value all of "
                    f"{', '.join(panel)} gave (two or more of them judged the item)")  # fmt: skip
    summary = {
        "n_items": len(universe),
        "n_adjudicated": len(adjudicated),
        "n_consensus": len(universe) - len(adjudicated),
        "n_left_out": len(gold.left_out),
        "left_out": gold.left_out,
        "panel": panel,
        "self_adjudicated": {name: len(src.own) for name, src in sources.items() if src.own},
        "experts": {name: src.to_dict() for name, src in sources.items()},
    }
    scores = _restrict({**raters, GOLD: gold.scores}, universe)
    counts = _counts(raters, universe)
    return PanelRun("gold", columns, universe, counts, meta, summary, scores, notes,
                    _abstentions(matrices, list(raters)))  # fmt: skip


def _gold_groups(llm, sources, gold, universe, matrices) -> tuple[list[tuple], list[str]]:
    """The gold columns (``(name, kind, pairs)``) and notes of :func:`run_gold`; adds the
    gold matrices they compare with to ``matrices``."""
    matrices[GOLD] = rater_matrix(gold.scores, universe, gold.verdicts)

    def over(items: list[str], key: str) -> str:  # gold restricted to ``items``
        matrices[key] = rater_matrix({i: gold.scores[i] for i in items}, universe, gold.verdicts)
        return key

    adjudicated = [i for i in universe if i in gold.adjudicated]
    groups: list[tuple[str, str, list]] = []
    notes = []
    if llm:
        groups.append((f"{llm} vs gold", "gold", [(llm, GOLD)]))
        if adjudicated:
            label = f"{llm} vs gold, adjudicated items"
            key = over(adjudicated, f"{GOLD} (adjudicated)")
            groups.append((label, "gold_adjudicated", [(llm, key)]))
            notes.append(f"{llm} took no part in the gold standard: its agreement with gold is "
                         f"independent on all {len(universe)} gold items; '{label}' is over the "
                         f"{len(adjudicated)} the experts disputed")  # fmt: skip
    for name, src in sources.items():
        groups.append((f"{name} vs gold", "gold", [(name, GOLD)]))
        column = None
        if src.others:
            column = f"{name} vs gold, adjudicated by others"
            key = over(src.others, f"{GOLD} (adjudicated by others than {name})")
            groups.append((column, "gold_independent", [(name, key)]))
        notes.append(expert_note(name, src, column))
    if any(src.others for src in sources.values()):
        notes.append("on an adjudicated item only its adjudicated rules are informative: a rule "
                     "nobody adjudicated there is the experts' shared value too")  # fmt: skip
    return groups, notes


def _universe(raters, pairs, sample, only_items) -> list[str]:
    items = set(sample) if sample is not None else set().union(*map(set, raters.values()))
    if only_items is not None:
        items &= only_items
    covered = sorted(i for i in items if any(i in raters[a] and i in raters[b] for a, b in pairs))
    if not covered:
        raise MedRCubeError("no item was judged by two of the raters compared")
    return covered


def _abstentions(matrices: dict, names: list[str]) -> dict[str, dict[str, Any]] | None:
    """Each rater's :func:`~.stats.rater_abstentions` over the items they judged, or None
    when nobody abstained."""
    found = {
        name: rater_abstentions(matrices[name].abstained[matrices[name].judged]) for name in names
    }
    return found if any(f["items_with_any"] for f in found.values()) else None


def _counts(raters: dict[str, Scores], universe: list[str]) -> dict[str, int]:
    return {name: sum(1 for i in universe if i in scores) for name, scores in raters.items()}


def _restrict(raters, universe) -> dict[str, dict[str, dict[str, int]]]:
    return {
        name: {i: dict(scores[i]) for i in universe if i in scores}
        for name, scores in raters.items()
    }
