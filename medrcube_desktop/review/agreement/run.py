"""Assembling an agreement study from the database: who is compared, on which items.

The expert side is always first judgments (revision 1, repeats excluded); the LLM side
the latest successful judgment of each item by the model. Everything that identifies
the computation (app, rubric, prompt hashes, model, study, seed) travels with the result
so every export can record it.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from medrcube_desktop import __version__
from medrcube_desktop.core.rubric import load_rubric
from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.review.agreement.necessity import rule_evidence
from medrcube_desktop.review.agreement.stats import (
    DEFAULT_BOOTSTRAP,
    DEFAULT_SEED,
    AgreementResult,
    compare,
    multi_rater,
)
from medrcube_desktop.review.agreement_options import AGREEMENT
from medrcube_desktop.store import StudyStore, utc_now


@dataclass
class StudyRun:
    """An agreement result and what it was computed from.

    ``meta`` holds ``app_version``, ``rubric_version``, ``prompt_sha256`` (list),
    ``judge_model``, ``first``, ``second`` (rater labels), ``study``, ``study_seed``,
    ``bootstrap``, ``seed`` and ``created_at``.
    """

    result: AgreementResult
    meta: dict[str, Any]
    multi: dict | None = None
    intra: dict[str, Any] = field(default_factory=dict)
    evidence: dict[str, Any] | None = None
    """Rule 1.4 against the ablation evidence (:func:`~.necessity.rule_evidence`), when
    asked for (``--ablation-evidence``)."""

    def to_dict(self) -> dict[str, object]:
        """The ``agreement --json`` object, with ``meta`` (and ``multi_rater`` /
        ``intra_rater`` when there is something to report)."""
        data = self.result.to_dict()
        data["meta"] = self.meta
        if self.multi is not None:
            data["multi_rater"] = self.multi
        if self.intra:
            data["intra_rater"] = self.intra
        if self.evidence is not None:
            data["rule_1_4_evidence"] = self.evidence
        return data


def expert_scores(
    store: StudyStore, reviewer: str, image_shown_only: bool = False
) -> dict[str, dict[str, int | str]]:
    """First judgments of ``reviewer``: item id → rule → 0/1 or ``CANNOT_JUDGE`` (raises
    StoreError). With
    ``image_shown_only``, those committed without the image shown are left out (those
    of unknown display, before schema v6, are kept)."""
    return {
        item: dict(r.scores)
        for item, r in store.first_reviews(reviewer).items()
        if not (image_shown_only and r.image_shown is False)
    }


def image_counts(store: StudyStore, reviewer: str, items: list[str]) -> dict[str, int]:
    """Of ``reviewer``'s first judgments of ``items``: how many were committed without
    the image shown (``text_only``: a restricted item, an image that did not load) and
    how many with it unknown (``unknown``: rows before schema v6, a CSV without the
    column)."""
    first = store.first_reviews(reviewer)
    shown = [first[i].image_shown for i in items if i in first]
    return {"text_only": shown.count(False), "unknown": shown.count(None)}


def run_study(
    store: StudyStore,
    reviewer: str,
    model: str | None = None,
    reviewer2: str | None = None,
    study: str | None = None,
    bootstrap: int = DEFAULT_BOOTSTRAP,
    seed: int = DEFAULT_SEED,
    only_items: set[str] | None = None,
    image_shown_only: bool = AGREEMENT["image_shown_only"].default,  # type: ignore[assignment]
    release: dict[str, object] | None = None,
    retired: Collection[str] = (),
    evidence: Mapping[str, Mapping[str, object]] | None = None,
    threshold: float | None = None,
) -> StudyRun:
    """Compare ``reviewer`` with ``model`` (LLM) or with ``reviewer2``.

    Over the study's items when ``study`` names one, else over every item either rater
    judged; ``only_items`` narrows that further (the review window passes the items its
    reviewer has committed, so a blind study reveals nothing through the statistics). Also reports Fleiss' kappa and Krippendorff's alpha when the study has three
    or more raters (every reviewer, plus the model), and intra-rater agreement of
    ``reviewer`` on the items shown twice. ``meta["image"]`` counts, per expert, the
    compared reviews committed without the image shown (rule 1.4, image dependence,
    cannot really be judged on the text); ``image_shown_only`` leaves those reviews out.
    With ``evidence`` (:func:`~medrcube_desktop.evaluation.compare.necessity.store_evidence`,
    computed with the answerable share ``threshold``, recorded), each expert's rule 1.4 is also compared with it over
    the compared items (``StudyRun.evidence``, :func:`~.necessity.rule_evidence`).

    On a corrected release (``agreement --release DIR``): ``retired`` items (the
    release's) drop out of both raters and the study's sample, and ``meta["release"]``
    records ``release`` (``{"version", "dir", "digest"}``); without them nothing changes.

    Raises
    ------
    MedRCubeError
        Neither or both of ``model`` and ``reviewer2``; unknown study; a rater with no
        judgment at all.
    StoreError
        The database cannot be read.
    """
    if (model is None) == (reviewer2 is None):
        raise MedRCubeError("compare the reviewer with either --model or --reviewer2")
    if reviewer2 is not None and reviewer2 == reviewer:
        raise MedRCubeError(
            f"{reviewer!r} compared with themself agrees on everything: choose another "
            "reviewer or a model (intra-rater agreement is reported from the repeats)"
        )
    sample = None
    study_seed, study_stratify = None, ""
    if study is not None:
        record = store.study(study)
        if record is None:
            known = ", ".join(store.study_names()) or "none"
            raise MedRCubeError(f"no study named {study!r} (studies: {known})")
        sample, study_seed, study_stratify = list(record.item_ids), record.seed, record.stratify
    gone = set(retired)
    if gone and sample is not None:
        sample = [i for i in sample if i not in gone]
    first = {i: s for i, s in expert_scores(store, reviewer, image_shown_only).items()
             if i not in gone}  # fmt: skip
    if not first:
        known = ", ".join(store.reviewers()) or "none"
        detail = " (only intra-rater repeats)" if reviewer in store.reviewers() else ""
        raise MedRCubeError(f"no first judgments by {reviewer!r}{detail} (reviewers: {known})")
    hashes: list[str] = []
    second: dict[str, dict[str, int | str]]
    if model is not None:
        judgments = store.judgments(model)
        if not judgments:
            known = ", ".join(store.judgment_models()) or "none"
            raise MedRCubeError(f"no judgments by model {model!r} (models: {known})")
        second = {  # an LLM judgment never abstains
            item: dict(j.scores or {}) for item, j in judgments.items() if item not in gone
        }
        hashes = sorted({j.prompt_sha256 for j in judgments.values() if j.prompt_sha256})
        label = f"LLM {model}"
    else:
        assert reviewer2 is not None
        second = {i: s for i, s in expert_scores(store, reviewer2, image_shown_only).items()
                  if i not in gone}  # fmt: skip
        if not second:
            raise MedRCubeError(f"no reviews by {reviewer2!r}")
        label = reviewer2
    universe = sample if sample is not None else sorted(set(first) | set(second))
    if only_items is not None:
        sample = [i for i in universe if i in only_items]
    result = compare(first, second, sample, bootstrap=bootstrap, seed=seed)
    # Judged by one rater only: over the whole universe, as without ``only_items`` (the
    # count names no judgment; the blinding narrows what is compared, not this count).
    result.excluded = [i for i in universe if i not in first or i not in second]
    if not result.items:
        raise MedRCubeError(
            f"no item was judged by both {reviewer} and {label}"
            + (f" among the {len(sample)} items of study {study!r}" if sample is not None else "")
        )
    meta: dict[str, Any] = {
        "app_version": __version__,
        "rubric_version": load_rubric().version,
        "prompt_sha256": hashes,
        "judge_model": model or "",
        "first": reviewer,
        "second": label,
        "judgments": "first judgment of each reviewer (revision 1, repeats excluded); "
        "latest successful judgment of the LLM",
        "study": study or "",
        "study_seed": study_seed,
        "study_stratify": study_stratify,
        "bootstrap": bootstrap,
        "seed": seed,
        "created_at": utc_now(),
    }
    experts = [reviewer] if reviewer2 is None else [reviewer, reviewer2]
    meta["image"] = {name: image_counts(store, name, result.items) for name in experts}
    if release is not None:
        meta["release"] = dict(release)
        meta["release_retired_left_out"] = len(gone)
    meta["image_shown_only"] = image_shown_only
    meta["restricted_to_committed_by_viewer"] = only_items is not None
    meta["hidden_by_blinding"] = len(universe) - len(sample or []) if only_items is not None else 0
    run = StudyRun(result, meta, _multi(store, model, sample), _intra(store, reviewer, sample))
    if evidence is not None:
        raters = {reviewer: first, **({reviewer2: second} if reviewer2 is not None else {})}
        run.evidence = rule_evidence(raters, evidence, result.items, bootstrap, seed, threshold)  # type: ignore[arg-type]
    return run


def _multi(store: StudyStore, model: str | None, sample: list[str] | None) -> dict | None:
    raters = {name: expert_scores(store, name) for name in store.reviewers()}
    if model is not None:
        raters[f"LLM {model}"] = {
            item: dict(j.scores or {}) for item, j in store.judgments(model).items()
        }
    raters = {name: scores for name, scores in raters.items() if scores}
    return multi_rater(raters, sample) if len(raters) >= 3 else None


def _intra(store: StudyStore, reviewer: str, sample: list[str] | None) -> dict[str, Any]:
    """First judgment against the intra-rater repeat, for the repeated items."""
    repeats = {item: dict(r.scores) for item, r in store.repeat_reviews(reviewer).items()}
    if sample is not None:
        repeats = {i: s for i, s in repeats.items() if i in set(sample)}
    if not repeats:
        return {}
    first = expert_scores(store, reviewer)
    result = compare(first, repeats, sorted(repeats), bootstrap=0)
    return {
        "reviewer": reviewer,
        "n_repeated": len(result.items),
        "sample_level": result.sample_level,
        "rules": {
            rule: {"agreement": f.agreement, "cohen_kappa": f.cohen_kappa, "gwet_ac1": f.gwet_ac1}
            for rule, f in result.rules.items()
        },
    }
