"""The ``judge``, ``import-judgments`` and ``export-judgments`` subcommands (argparse).

Kept beside the judge so ``medrcube_desktop/cli.py`` stays small; the CLI module wires
these in. Exit status as in the CLI: 0 success, 1 some items failed, 2 bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
from pathlib import Path

from medrcube_desktop.core import argtypes

LLM_SUBCOMMANDS = ("judge", "import-judgments", "export-judgments")


def _price(text: str) -> tuple[float, float]:
    try:
        values = tuple(float(v) for v in text.split(","))
    except ValueError:
        values = ()
    if len(values) != 2 or any(v < 0 or v != v for v in values):
        raise argparse.ArgumentTypeError(f"expected INPUT,OUTPUT USD per million tokens: {text!r}")
    return values[0], values[1]


def add_llm_parsers(sub) -> None:
    """Add the three subcommands to an argparse sub-parser group."""
    judge = sub.add_parser(
        "judge",
        help="score every item with an LLM on the Table 10 rubric (text only)",
        description="Ask an OpenAI-compatible endpoint to judge each item not judged yet by "
        "MODEL under the current prompt; every answer is stored at once, so a run resumes "
        "where it stopped. Key: OPENAI_API_KEY, MEDRCUBE_API_KEY_<HOST> or the OS keyring. "
        "Exit 1 when some items failed (listed), 2 for bad input.",
    )
    judge.add_argument("--dataset", type=Path, required=True, metavar="DIR")
    judge.add_argument("--db", type=Path, required=True, metavar="FILE")
    judge.add_argument("--model", required=True, type=argtypes.name, metavar="NAME")
    judge.add_argument("--base-url", metavar="URL", help="endpoint (default: OpenAI)")
    judge.add_argument("--concurrency", type=argtypes.positive, default=8, metavar="N")
    judge.add_argument(
        "--limit",
        type=argtypes.positive,
        metavar="N",
        help="only the first N items of the benchmark",
    )
    judge.add_argument(
        "--timeout", type=argtypes.seconds, default=60.0, metavar="S", help="per request"
    )
    judge.add_argument("--max-attempts", type=argtypes.positive, default=3, metavar="N")
    judge.add_argument("--temperature", type=float, metavar="T", help="default: not sent")
    judge.add_argument(
        "--structured",
        choices=("auto", "on", "off"),
        default="auto",
        help="ask for the JSON schema (auto: fall back when refused)",
    )
    judge.add_argument("--price", type=_price, metavar="IN,OUT", help="USD per 1M tokens")
    judge.add_argument("--api-key-env", metavar="VAR", help="read the key from this variable")
    judge.add_argument(
        "--batch-out",
        type=Path,
        metavar="FILE.jsonl",
        help="write an OpenAI Batch API request file instead of calling the endpoint",
    )
    judge.add_argument("--json", action="store_true", help="print the summary as JSON")
    imp = sub.add_parser(
        "import-judgments",
        help="store judgments from JSON Lines (or a Batch API output file)",
        description='Lines {"id": ITEM_ID, "1.1": 0|1, ..., "2.3": 0|1}; with --batch, the '
        "output file of an OpenAI batch made with judge --batch-out.",
    )
    imp.add_argument("--db", type=Path, required=True, metavar="FILE")
    imp.add_argument("--model", required=True, type=argtypes.name, metavar="NAME")
    imp.add_argument("--batch", action="store_true", help="FILE is a Batch API output file")
    imp.add_argument("file", type=Path, metavar="FILE.jsonl")
    imp.add_argument("--json", action="store_true", help="print the summary as JSON")
    exp = sub.add_parser(
        "export-judgments", help="write a model's successful judgments as JSON Lines"
    )
    exp.add_argument("--db", type=Path, required=True, metavar="FILE")
    exp.add_argument("--model", required=True, type=argtypes.name, metavar="NAME")
    exp.add_argument("--out", type=Path, required=True, metavar="FILE.jsonl")
    exp.add_argument("--json", action="store_true", help='print {"exported": N}')


def run_llm_command(args: argparse.Namespace) -> int:
    """Dispatch one of :data:`LLM_SUBCOMMANDS`."""
    if args.command == "judge":
        return cmd_judge(args)
    if args.command == "import-judgments":
        return cmd_import_judgments(args)
    return cmd_export_judgments(args)


def _open_store(db: Path, must_exist: bool):
    from medrcube_desktop.errors import StoreError
    from medrcube_desktop.store.reviews import ReviewStore

    if must_exist and not db.is_file():
        raise StoreError(f"{db}: no such review database")
    return ReviewStore(db)


def cmd_judge(args: argparse.Namespace) -> int:
    """``judge``: run (or export a batch for) the items not judged yet."""
    from tqdm import tqdm

    from medrcube_desktop.core.dataset import load_benchmark
    from medrcube_desktop.llm.batch import export_batch_requests
    from medrcube_desktop.llm.judge import JudgeConfig, run_judge
    from medrcube_desktop.llm.keys import find_api_key

    benchmark = load_benchmark(args.dataset)
    if benchmark.problems:
        print(
            f"{len(benchmark.problems)} items cannot be loaded and are not judged "
            f"(medrcube-desktop validate {args.dataset} lists them)",
            file=sys.stderr,
        )
    items = benchmark.items[: args.limit] if args.limit else benchmark.items
    config = JudgeConfig(
        model=args.model,
        base_url=args.base_url,
        concurrency=args.concurrency,
        timeout_s=args.timeout,
        max_attempts=args.max_attempts,
        temperature=args.temperature,
        structured=args.structured,
        price_per_mtok=args.price,
    )
    store = _open_store(args.db, must_exist=False)
    try:
        if args.batch_out is not None:
            count = export_batch_requests(items, store, config, args.batch_out)
            print(
                json.dumps({"batch_requests": count, "file": str(args.batch_out)})
                if args.json
                else f"{count} requests written to {args.batch_out} (upload it to the Batch API)"
            )
            return 0
        key, source = find_api_key(args.base_url, args.api_key_env)
        print(
            "no API key needed (local server)"
            if source == "none needed"
            else f"API key from {source}",
            file=sys.stderr,
        )
        cancel = threading.Event()
        with tqdm(total=0, unit="item", disable=args.json, file=sys.stderr) as bar:

            def progress(record) -> None:
                bar.total = record.total
                bar.n = record.done
                bar.set_postfix(record.counts)
                bar.refresh()

            try:
                summary = run_judge(items, store, config, key, progress, cancel)
            except KeyboardInterrupt:  # Ctrl+C: what is stored stays stored
                cancel.set()
                print("interrupted: run judge again to resume", file=sys.stderr)
                if args.json:
                    print(json.dumps({"cancelled": True, "note": "run judge again to resume"}))
                return 1
    finally:
        store.close()
    for failure in summary.failed:
        print(f"{failure['item']}: {failure['error']}", file=sys.stderr)
    if args.json:
        print(json.dumps(summary.to_dict()))
    else:
        cost = "" if summary.cost_usd is None else f", about ${summary.cost_usd:.2f}"
        print(
            f"{summary.judged} judged, {summary.skipped} already done, {len(summary.failed)} "
            f"failed; {summary.prompt_tokens} + {summary.completion_tokens} tokens{cost}"
        )
    return 1 if summary.failed or summary.cancelled else 0


def cmd_import_judgments(args: argparse.Namespace) -> int:
    """``import-judgments``: 0 all lines stored or skipped, 1 some lines refused."""
    from medrcube_desktop.llm.batch import import_batch_output
    from medrcube_desktop.llm.exchange import import_judgments

    store = _open_store(args.db, must_exist=False)
    try:
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
    finally:
        store.close()
    for problem in problems:
        print(problem, file=sys.stderr)
    if args.json:
        print(json.dumps(summary))
    else:
        print(f"{summary['imported']} judgments stored, {summary['skipped']} already there")
    return 1 if problems else 0


def cmd_export_judgments(args: argparse.Namespace) -> int:
    """``export-judgments``: write the JSON Lines file."""
    from medrcube_desktop.llm.exchange import export_judgments

    store = _open_store(args.db, must_exist=True)
    try:
        count = export_judgments(store, args.model, args.out)
        models = store.judgment_models() if count == 0 else []
    finally:
        store.close()
    if count == 0:
        print(
            f"medrcube-desktop: no successful judgments by {args.model!r} "
            f"(models: {', '.join(models) or 'none'})",
            file=sys.stderr,
        )
    print(
        json.dumps({"exported": count}) if args.json else f"{count} judgments written to {args.out}"
    )
    return 0
