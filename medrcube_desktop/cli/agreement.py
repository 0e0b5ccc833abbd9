"""``study`` and ``agreement``: the expert-vs-LLM agreement study (paper E.6, Table 5)."""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

from medrcube_desktop.cli import argtypes
from medrcube_desktop.cli.common import (
    add_command,
    add_dataset,
    add_db,
    add_json,
    emit,
    load_items,
    open_database,
    say,
    warn,
)
from medrcube_desktop.cli.option_flags import add_flags
from medrcube_desktop.core.progress import Outcome
from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.review.agreement_options import AGREEMENT, STUDY


def add_parsers(sub) -> None:
    """Add this group's commands to the sub-parser group ``sub``."""
    study = add_command(
        sub, "study", cmd_study,
        help="create (or extend) a named, seeded random sample of items for an agreement study",
        description="Draw N items at random (seeded; optionally stratified) and store the "
        "sample in the database; the same name, seed and stratification with a larger N "
        "extends it, keeping every item it has.",
    )  # fmt: skip
    add_dataset(study)
    add_db(study, creates=True)
    study.add_argument(
        "--name",
        required=True,
        type=argtypes.new_name,
        metavar="NAME",
        help="the study's name (its sample is stored under it)",
    )
    study.add_argument(
        "--n", type=argtypes.positive, required=True, metavar="N", help="items in the study"
    )
    add_flags(study, STUDY)
    add_json(study, '{"name", "seed", "items"}')
    agreement = add_command(
        sub, "agreement", cmd_agreement,
        help="expert-vs-LLM (or expert-vs-expert) agreement on the rubric, with intervals",
        description="Sample-level and rule-level consistency (paper Table 5) with Cohen's "
        "kappa, Gwet's AC1, PABAK, 2x2 tables, McNemar's exact test and bootstrap 95% "
        "intervals, over first judgments.",
    )  # fmt: skip
    add_db(agreement, creates=False)
    agreement.add_argument(
        "--reviewer",
        action="append",
        default=[],
        type=argtypes.existing_name,
        metavar="NAME",
        help="an expert; repeat for several (the ceiling beside expert-LLM); required "
        "unless --gold",
    )
    other = agreement.add_mutually_exclusive_group()
    other.add_argument(
        "--model", type=argtypes.existing_name, metavar="NAME", help="the LLM judge to compare with"
    )
    other.add_argument(
        "--reviewer2", type=argtypes.existing_name, metavar="NAME", help="a second reviewer"
    )
    agreement.add_argument(
        "--gold",
        choices=("adjudicated",),
        help="compare the LLM and each --reviewer (one is enough, or none with --model) "
        "with the gold standard (adjudicated, else the experts' agreed value)",
    )
    agreement.add_argument(
        "--study", type=argtypes.existing_name, metavar="NAME", help="only the items of this study"
    )
    agreement.add_argument(
        "--release", type=Path, metavar="DIR",
        help="on this corrected release: its retired items drop out, and every export "
        "records its version (one --reviewer with --model or --reviewer2)",
    )  # fmt: skip
    add_flags(agreement, AGREEMENT, ("image_shown_only", "bootstrap", "seed", "evidence"))
    agreement.add_argument(
        "--out", type=Path, metavar="DIR", help="write CSV, XLSX, JSON, figures, HTML"
    )
    add_json(agreement, "the figures")


def cmd_study(args: argparse.Namespace) -> int:
    """``study``: store the sample; print its size."""
    from medrcube_desktop.review.studies import create_or_extend_study

    # restricted items are reviewed (and judged) on their text: they may be sampled
    _, items = load_items(args.dataset, verb="sampled", restricted=True)
    with open_database(args.db, create=True) as store:
        record = create_or_extend_study(store, args.name, items, args.n, args.seed, args.stratify)
    emit(
        args.json,
        {"name": record.name, "seed": record.seed, "items": list(record.item_ids)},
        f"study {record.name!r}: {len(record.item_ids)} items (seed {record.seed})",
    )
    return Outcome.DONE


def cmd_agreement(args: argparse.Namespace) -> int:
    """``agreement``: compute, print, and write the outputs with ``--out``."""
    from medrcube_desktop.review.agreement import run_study, table_rows, write_outputs
    from medrcube_desktop.review.agreement.report import refuse_inputs
    from medrcube_desktop.review.agreement.table import (
        cell,
        ci_cell,
        extra_lines,
        undefined_notes,
    )

    if args.out is not None:  # before the work: no file written over the database
        refuse_inputs(args.out, [args.db])
    if len(args.reviewer) > 1 or args.gold:
        if args.release is not None:
            raise MedRCubeError(
                "--release compares one --reviewer with --model or --reviewer2 (not yet "
                "several experts or --gold)"
            )
        if args.image_shown_only:
            raise MedRCubeError(
                "--image-shown-only compares one --reviewer with --model or --reviewer2 "
                "(not yet several experts or --gold)"
            )
        if args.ablation_evidence:
            raise MedRCubeError(
                "--ablation-evidence compares one --reviewer (with --model or --reviewer2) "
                "with the evidence (not yet several experts or --gold)"
            )
        return _several_experts(args)
    if not args.reviewer:
        raise MedRCubeError("name a --reviewer (or compare --model with --gold adjudicated)")
    if args.model is None and args.reviewer2 is None:
        raise MedRCubeError("compare --reviewer with --model, --reviewer2 or another --reviewer")
    args.reviewer = args.reviewer[0]
    release: dict | None = None
    retired: set[str] = set()
    if args.release is not None:
        from medrcube_desktop.evaluation.release_read import read_release

        read = read_release(args.release, items=False)
        release, retired = read.describe(), read.retired
    items = None
    if args.ablation_evidence:  # the benchmark the runs are scored on (rule 1.4's evidence)
        _, items = load_items(Path(args.ablation_evidence), verb="scored", images=False,
                              restricted=True)  # fmt: skip
    with open_database(args.db, create=False) as store:
        evidence, threshold = None, None
        if items is not None:
            from medrcube_desktop.evaluation.compare.necessity import (
                ANSWERABLE_SHARE,
                store_evidence,
            )

            evidence, threshold = store_evidence(store, items), ANSWERABLE_SHARE
            if not evidence:
                warn(
                    f"--ablation-evidence {args.ablation_evidence}: no ablation run "
                    "(text-only, blank, swapped or noise) stored in "
                    f"{args.db} answered an item of that benchmark, so rule 1.4 has no "
                    "evidence to be compared with (is it the benchmark the runs are scored on?)"
                )
        run = run_study(
            store, args.reviewer, args.model, args.reviewer2, args.study, args.bootstrap,
            args.seed, image_shown_only=args.image_shown_only, release=release,
            retired=retired, evidence=evidence, threshold=threshold,
        )  # fmt: skip
    if args.out is not None:
        for path in write_outputs(run, args.out, [args.db]):
            say(f"wrote {path}")
    lines = [
        f"{run.meta['first']} vs {run.meta['second']}: {len(run.result.items)} items, "
        f"{len(run.result.excluded)} excluded"
        + (
            f", on release {release['version']} ({len(retired)} retired items left out)"
            if release is not None
            else ""
        ),
        image_line(run.meta),
        f"{'':60} {'agreement':>22} {'kappa':>9} {'AC1':>9} {'PABAK':>9} {'McNemar p':>10}",
    ]
    rows = table_rows(run)
    for row in rows:
        agreement = f"{cell(row, 'agreement')} {ci_cell(row)}"
        lines.append(
            f"{str(row['label'])[:60]:60} {agreement:>22} {cell(row, 'cohen_kappa'):>9} "
            f"{cell(row, 'gwet_ac1'):>9} {cell(row, 'pabak'):>9} "
            f"{cell(row, 'mcnemar_p') if row['key'] != 'sample' else '':>10}"
        )
    lines += undefined_notes(rows)  # the reasons of every "undefined" above
    emit(args.json, run.to_dict(), lines + extra_lines(run))  # as the pane shows them
    return Outcome.DONE


def image_line(meta: dict) -> str:
    """``reviews without the image shown: dr-a 3, dr-b 0 (unknown: dr-a 2)``, or what
    ``--image-shown-only`` left out."""
    counts = meta["image"]
    if meta["image_shown_only"]:
        unknown = sum(c["unknown"] for c in counts.values())
        return "reviews without the image shown: left out (--image-shown-only)" + (
            f"; {unknown} of unknown display kept" if unknown else ""
        )
    text = ", ".join(f"{name} {c['text_only']}" for name, c in counts.items())
    unknown = [f"{name} {c['unknown']}" for name, c in counts.items() if c["unknown"]]
    return (
        f"reviews without the image shown (text only): {text}"
        + (
            f" (not recorded: {', '.join(unknown)}; saved before v6 or imported without it)"
            if unknown
            else ""
        )
        + (
            "; --image-shown-only leaves them out"
            if any(c["text_only"] for c in counts.values())
            else ""
        )
    )


def _several_experts(args: argparse.Namespace) -> int:
    """``agreement --reviewer A --reviewer B [...] [--model M] [--gold adjudicated]``."""
    from medrcube_desktop.review.agreement.panel_report import panel_lines, write_panel_outputs
    from medrcube_desktop.review.agreement.panel_run import run_gold, run_panel

    reviewers = list(args.reviewer) + ([args.reviewer2] if args.reviewer2 else [])
    compute = run_gold if args.gold else run_panel
    with open_database(args.db, create=False) as store:
        run = compute(store, reviewers, args.model, args.study, args.bootstrap, args.seed)
    if args.out is not None:
        for path in write_panel_outputs(run, args.out, [args.db]):
            say(f"wrote {path}")
    width = max(100, shutil.get_terminal_size((120, 24)).columns)
    emit(args.json, run.to_dict(), panel_lines(run, width))
    return Outcome.DONE
