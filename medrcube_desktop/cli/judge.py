"""``judge``, ``import-judgments`` and ``export-judgments``: the LLM judgment on the
Table 10 rubric."""

from __future__ import annotations

import argparse
from pathlib import Path

from medrcube_desktop.cli import argtypes
from medrcube_desktop.cli.common import (
    add_command,
    add_dataset,
    add_db,
    add_json,
    emit,
    list_failures,
    load_items,
    open_database,
    refuse_overwrite,
    say,
)
from medrcube_desktop.cli.option_flags import add_flags
from medrcube_desktop.core.file_kinds import refuse_foreign
from medrcube_desktop.core.files import item_files
from medrcube_desktop.core.options import values_of
from medrcube_desktop.core.progress import Outcome, outcome_of
from medrcube_desktop.jobs.terminal import run_in_terminal
from medrcube_desktop.llm.config import JUDGE, JudgeConfig


def price(text: str) -> tuple[float, float]:
    """argparse type: ``INPUT,OUTPUT`` USD per million tokens, both finite and >= 0."""
    try:
        values = tuple(float(v) for v in text.split(","))
    except ValueError:
        values = ()
    if len(values) != 2 or any(not 0 <= v < float("inf") for v in values):
        raise argparse.ArgumentTypeError(f"expected INPUT,OUTPUT USD per million tokens: {text!r}")
    return values[0], values[1]


TYPES = {"price": price, "temperature": argtypes.sampling("temperature")}
"""The parsers of :data:`~medrcube_desktop.llm.config.JUDGE`'s kinds that are not in
:mod:`~medrcube_desktop.cli.argtypes` by name."""


def add_parsers(sub) -> None:
    """Add this group's commands to the sub-parser group ``sub``."""
    judge = add_command(
        sub, "judge", cmd_judge,
        help="score every item with an LLM on the Table 10 rubric (text only)",
        description="Ask an OpenAI-compatible endpoint to judge each item not judged yet by "
        "MODEL under the current prompt; every answer is stored at once, so a run resumes "
        "where it stopped. Key: OPENAI_API_KEY, MEDRCUBE_API_KEY_<HOST> or the OS keyring. "
        "Exit 1 when some items failed (listed) or the run was cancelled, 2 for bad input.",
    )  # fmt: skip
    add_dataset(judge)
    add_db(judge, creates=True)
    add_flags(judge, JUDGE, ("model", "base_url", "concurrency"), types=TYPES)
    judge.add_argument(
        "--limit", type=argtypes.positive, metavar="N", help="only the first N items"
    )
    add_flags(judge, JUDGE, ("timeout_s", "max_attempts", "temperature", "structured",
                             "price_per_mtok"), types=TYPES)  # fmt: skip
    judge.add_argument("--api-key-env", metavar="VAR", help="read the key from this variable")
    judge.add_argument(
        "--batch-out",
        type=Path,
        metavar="FILE.jsonl",
        help="write an OpenAI Batch API request file instead of calling the endpoint",
    )
    add_json(judge)
    imp = add_command(
        sub, "import-judgments", cmd_import_judgments,
        help="store judgments from JSON Lines (or a Batch API output file)",
        description='Lines {"id": ITEM_ID, "1.1": 0|1, ..., "2.3": 0|1}; with --batch, the '
        "output file of an OpenAI batch made with judge --batch-out.",
    )  # fmt: skip
    add_db(imp, creates=True)
    imp.add_argument(
        "--model",
        required=True,
        type=argtypes.new_name,
        metavar="NAME",
        help="the LLM judge the judgments are stored under",
    )
    imp.add_argument("--batch", action="store_true", help="FILE is a Batch API output file")
    imp.add_argument("file", type=Path, metavar="FILE.jsonl", help="the judgments to store")
    add_json(imp, '{"imported", "skipped", "problems"}')
    exp = add_command(
        sub, "export-judgments", cmd_export_judgments,
        help="write a model's successful judgments as JSON Lines",
    )  # fmt: skip
    add_db(exp, creates=False)
    exp.add_argument(
        "--model",
        required=True,
        type=argtypes.existing_name,
        metavar="NAME",
        help="whose judgments (an LLM judge stored in the database)",
    )
    exp.add_argument(
        "--out", type=Path, required=True, metavar="FILE.jsonl", help="the file written"
    )
    add_json(exp, '{"exported": N}')


def cmd_judge(args: argparse.Namespace) -> int:
    """``judge``: run (or export a batch for) the items not judged yet."""
    from medrcube_desktop.llm.batch import export_batch_requests
    from medrcube_desktop.llm.judge import run_judge
    from medrcube_desktop.llm.keys import find_api_key

    # the judgment is text only: restricted items (no image shipped) are judged too
    _, items = load_items(args.dataset, args.limit, "judged", restricted=True)
    config = JudgeConfig(**values_of(args, JUDGE))
    if args.batch_out is not None:
        with open_database(args.db, create=True) as store:
            refuse_overwrite(args.batch_out, args.db, sources=item_files(items))
            count = export_batch_requests(items, store, config, args.batch_out)
        emit(
            args.json,
            {"batch_requests": count, "file": str(args.batch_out)},
            f"{count} requests written to {args.batch_out} (upload it to the Batch API)",
        )
        return Outcome.DONE
    key, source = find_api_key(args.base_url, args.api_key_env)
    say("no API key needed (local server)" if source == "none needed" else f"API key from {source}")

    def job(progress, cancel):
        with open_database(args.db, create=True) as store:
            return run_judge(items, store, config, key, progress, cancel)

    summary = run_in_terminal(
        job, quiet=args.json, on_cancel="cancelling: run judge again to resume"
    )
    list_failures(summary.failed)
    cost = "" if summary.cost_usd is None else f", about ${summary.cost_usd:.2f}"
    emit(
        args.json,
        summary.to_dict(),
        f"{summary.judged} judged, {summary.skipped} already done, {len(summary.failed)} "
        f"failed; {summary.prompt_tokens} + {summary.completion_tokens} tokens{cost}"
        + (" (cancelled: run judge again to resume)" if summary.cancelled else ""),
    )
    return outcome_of(summary)


def cmd_import_judgments(args: argparse.Namespace) -> int:
    """``import-judgments``: 0 all lines stored or skipped, 1 some lines refused."""
    from medrcube_desktop.llm.batch import import_batch_output
    from medrcube_desktop.llm.exchange import import_judgments

    with open_database(args.db, create=True) as store:
        if args.batch:
            batch = import_batch_output(store, args.model, args.file)
            summary: dict[str, object] = {
                "imported": batch.judged,
                "failed": batch.failed,
                "skipped": batch.skipped,
                "problems": batch.problems,
            }
            problems = batch.problems
        else:
            result = import_judgments(store, args.model, args.file)
            summary = {
                "imported": result.imported,
                "skipped": result.skipped,
                "problems": result.problems,
            }
            problems = result.problems
    for problem in problems:
        say(problem)
    emit(
        args.json,
        summary,
        f"{summary['imported']} judgments stored, {summary['skipped']} already there",
    )
    return Outcome.FAILED if problems else Outcome.DONE


def cmd_export_judgments(args: argparse.Namespace) -> int:
    """``export-judgments``: write the JSON Lines file."""
    from medrcube_desktop.llm.exchange import export_judgments

    with open_database(args.db, create=False) as store:
        refuse_overwrite(args.out, args.db)
        refuse_foreign(args.out, "judgments file")
        count = export_judgments(store, args.model, args.out)
    emit(args.json, {"exported": count}, f"{count} judgments written to {args.out}")
    return Outcome.DONE
