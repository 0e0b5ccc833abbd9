"""Command line: ``medrcube-desktop`` opens the review window; subcommands run jobs.

Exit status (DESIGN.md): 0 success, 1 a failed check or job, 2 bad usage or bad input
(with a one-line reason on stderr).
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import sys
from pathlib import Path

from medrcube_desktop import __version__
from medrcube_desktop.core import argtypes
from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.evaluation.commands import (
    EVALUATION_SUBCOMMANDS,
    add_evaluation_parsers,
    run_evaluation_command,
)
from medrcube_desktop.llm.commands import LLM_SUBCOMMANDS, add_llm_parsers, run_llm_command
from medrcube_desktop.review.commands import (
    AGREEMENT_SUBCOMMANDS,
    add_agreement_parsers,
    run_agreement_command,
)
from medrcube_desktop.store.commands import (
    EXCHANGE_SUBCOMMANDS,
    add_exchange_parsers,
    run_exchange_command,
)

SUBCOMMANDS = (
    "validate",
    "demo",
    "render",
    "render-batch",
    "import-reviews",
    "export-reviews",
    "merge",
    "judge",
    "import-judgments",
    "export-judgments",
    "study",
    "agreement",
    "evaluate",
    "credibility",
    "export-run",
    "import-run",
)
log = logging.getLogger("medrcube_desktop")


def _join_negative_values(argv: list[str]) -> list[str]:
    """``--window -600,1500`` → ``--window=-600,1500``: argparse would read the value,
    which starts with "-", as an option (CT lung windows have negative centers)."""
    joined: list[str] = []
    for arg in argv:
        if joined and joined[-1] in ("--window", "--bbox") and arg.startswith("-"):
            joined[-1] = f"{joined[-1]}={arg}"
        else:
            joined.append(arg)
    return joined


def _milliseconds(text: str) -> int:
    """argparse type: a delay in ms that Qt timers accept (0 to 2**31 - 1)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number of milliseconds: {text!r}") from None
    if not 0 <= value < 2**31:
        raise argparse.ArgumentTypeError(f"must be between 0 and {2**31 - 1} ms, got {value}")
    return value


def _gui_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="medrcube-desktop",
        description="Review MedRCube benchmark items on the NBME rubric. "
        f"Subcommands: {', '.join(SUBCOMMANDS)} (see 'medrcube-desktop SUBCOMMAND --help').",
    )
    source = parser.add_mutually_exclusive_group()
    source.add_argument(
        "--demo",
        action="store_true",
        help="open the demo benchmark (built once from real public images)",
    )
    source.add_argument(
        "--dataset", type=Path, metavar="DIR", help="benchmark root folder (MedRCube layout)"
    )
    parser.add_argument(
        "--db",
        type=Path,
        metavar="FILE",
        help="review database (default: one per benchmark in the user data folder)",
    )
    parser.add_argument(
        "--reviewer",
        type=argtypes.name,
        metavar="NAME",
        help="reviewer name (asked once if not given)",
    )
    parser.add_argument(
        "--screenshot",
        type=Path,
        metavar="PNG",
        help="save a grab of the window once the first item is shown",
    )
    parser.add_argument(
        "--quit-after-ms",
        type=_milliseconds,
        metavar="N",
        help="exit N milliseconds after the first item is shown",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    return parser


def _jobs_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="medrcube-desktop")
    sub = parser.add_subparsers(dest="command", required=True)
    validate = sub.add_parser(
        "validate",
        help="check a benchmark folder and list every problem",
        description="Check a MedRCube-layout benchmark: every */test.json and every item. "
        "Exit status: 0 no problems, 1 problems found (or no loadable item), 2 DIR unusable.",
    )
    validate.add_argument(
        "dir", type=Path, metavar="DIR", help="benchmark root (sub-folders hold test.json)"
    )
    validate.add_argument(
        "--json", action="store_true", help='print {"items": N, "problems": [...]}'
    )
    demo = sub.add_parser("demo", help="the demo benchmark built from real public images")
    demo_sub = demo.add_subparsers(dest="demo_command", required=True)
    build = demo_sub.add_parser("build", help="write the demo benchmark to OUT_DIR")
    build.add_argument("out_dir", type=Path, metavar="OUT_DIR")
    build.add_argument("--json", action="store_true", help="print a JSON summary")
    _add_render_parser(sub)
    add_exchange_parsers(sub)
    add_llm_parsers(sub)
    add_agreement_parsers(sub)
    add_evaluation_parsers(sub)
    return parser


def _number_list(count: int):
    """argparse type: ``count`` comma-separated numbers, e.g. ``40,400``."""

    def parse(text: str) -> tuple[float, ...]:
        try:
            values = tuple(float(v) for v in text.split(","))
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"expected {count} comma-separated numbers, got {text!r}"
            ) from None
        if len(values) != count or not all(math.isfinite(v) for v in values):
            raise argparse.ArgumentTypeError(
                f"expected {count} comma-separated finite numbers, got {text!r}"
            )
        return values

    return parse


def _slice_choice(text: str) -> int | None:
    """argparse type: ``auto`` or a 0-based slice number."""
    if text == "auto":
        return None
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"expected 'auto' or a slice number, got {text!r}")
    return int(text)


def _add_render_parser(sub) -> None:
    from medrcube_desktop.imaging.render import CT_PRESETS

    render = sub.add_parser(
        "render",
        help="render one slice (with mask and box) to a PNG with square pixels",
        description="Render a slice of a DICOM, NIfTI or picture file as the review window "
        "shows it (paper Appendix E.1). Exit 2 with a one-line reason for unreadable input.",
    )
    render.add_argument("source", type=Path, metavar="SOURCE")
    render.add_argument("--mask", type=Path, metavar="MASK", help="mask on the source grid")
    render.add_argument(
        "--bbox",
        type=_number_list(4),
        metavar="X0,Y0,X1,Y1",
        help="box in source pixels (x = column, y = row, inclusive)",
    )
    render.add_argument(
        "--slice",
        type=_slice_choice,
        default=None,
        metavar="auto|N",
        help="slice or frame (default auto: largest mask area, else central)",
    )
    choice = render.add_mutually_exclusive_group()
    choice.add_argument(
        "--window",
        type=_number_list(2),
        metavar="CENTER,WIDTH",
        help="window in modality units (HU for CT)",
    )
    choice.add_argument(
        "--preset",
        choices=sorted(CT_PRESETS),
        metavar="NAME",
        help=f"CT preset: {', '.join(CT_PRESETS)}",
    )
    render.add_argument(
        "--out", type=Path, metavar="PNG", help="output file (default: SOURCE name + .png here)"
    )
    render.add_argument("--json", action="store_true", help="print what was rendered as JSON")
    batch = sub.add_parser(
        "render-batch",
        help="render every item of a benchmark to PNG, past bad ones",
        description="Render each item's image with its overlay to OUT_DIR/<dataset>/<id>.png "
        "with a progress bar. Exit 1 when an item could not be rendered (all are listed).",
    )
    batch.add_argument("dir", type=Path, metavar="DIR", help="benchmark root")
    batch.add_argument("--out", type=Path, required=True, metavar="OUT_DIR")
    batch.add_argument(
        "--json", action="store_true", help='print {"rendered", "failed", "cancelled"}'
    )


def cmd_render(args: argparse.Namespace) -> int:
    """``render SOURCE``: write the PNG; 2 (via ImageLoadError) for unreadable input."""
    from medrcube_desktop.imaging.batch import render_to_png

    out = args.out or Path(args.source.name.split(".")[0] + ".png")
    if out.exists() and args.source.exists() and out.resolve() == args.source.resolve():
        raise MedRCubeError(
            f"{out}: would overwrite the source image; choose another file with --out"
        )
    facts = render_to_png(
        args.source, out, args.mask, args.bbox, args.slice, args.window, args.preset
    )
    if args.json:
        print(json.dumps(facts))
    else:
        shape: list[int] = facts["shape"]  # type: ignore[assignment]
        print(f"{out}: slice {facts['slice_index']}, {shape[1]}x{shape[0]} pixels")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``medrcube-desktop`` gui script; returns the exit status."""
    argv = _join_negative_values(list(sys.argv[1:] if argv is None else argv))
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    for chatty in ("httpx", "httpx2", "httpcore", "openai"):  # one line per request otherwise
        logging.getLogger(chatty).setLevel(logging.WARNING)
    try:
        if argv and argv[0] in SUBCOMMANDS:
            args = _jobs_parser().parse_args(argv)
            if args.command == "validate":
                return cmd_validate(args.dir, args.json)
            if args.command == "render":
                return cmd_render(args)
            if args.command == "render-batch":
                return cmd_render_batch(args.dir, args.out, args.json)
            if args.command in EXCHANGE_SUBCOMMANDS:
                return run_exchange_command(args)
            if args.command in LLM_SUBCOMMANDS:
                return run_llm_command(args)
            if args.command in AGREEMENT_SUBCOMMANDS:
                return run_agreement_command(args)
            if args.command in EVALUATION_SUBCOMMANDS:
                return run_evaluation_command(args)
            return cmd_demo_build(args.out_dir, args.json)
        args = _gui_parser().parse_args(argv)
        return run_gui(args)
    except (MedRCubeError, OSError) as exc:  # bad input or an unusable path: one line
        print(f"medrcube-desktop: {exc}", file=sys.stderr)
        return 2


def cmd_validate(root: Path, as_json: bool) -> int:
    """``validate DIR``: 0 with no problems, 1 with problems, 2 when DIR is unusable."""
    from medrcube_desktop.core.dataset import load_benchmark

    benchmark = load_benchmark(root)
    if as_json:
        print(
            json.dumps(
                {
                    "items": len(benchmark.items),
                    "problems": [p.to_dict() for p in benchmark.problems],
                },
                indent=2,
            )
        )
    else:
        for problem in benchmark.problems:
            print(problem)
        print(
            f"{len(benchmark.items)} loadable items, {len(benchmark.problems)} problems in {benchmark.root}"
        )
    return 1 if benchmark.problems or not benchmark.items else 0


def cmd_demo_build(out_dir: Path, as_json: bool) -> int:
    """``demo build OUT_DIR``: write the demo benchmark, with a progress bar."""
    from tqdm import tqdm

    from medrcube_desktop.core.dataset import load_benchmark
    from medrcube_desktop.demo.build import build_demo, check_output_folder

    check_output_folder(out_dir)  # refuse a non-empty folder before drawing a progress bar
    with tqdm(total=0, unit="image", disable=as_json, file=sys.stderr) as bar:

        def progress(record) -> None:
            bar.total = record.total
            bar.n = record.done
            bar.set_postfix_str(record.label[:40])
            bar.refresh()

        root = build_demo(out_dir, progress)
    benchmark = load_benchmark(root)
    if as_json:
        print(
            json.dumps(
                {
                    "root": str(root),
                    "items": len(benchmark.items),
                    "problems": len(benchmark.problems),
                }
            )
        )
    else:
        print(f"demo benchmark with {len(benchmark.items)} items written to {root}")
    return 1 if benchmark.problems else 0


def cmd_render_batch(root: Path, out: Path, as_json: bool) -> int:
    """``render-batch DIR --out OUT_DIR``: 0 all rendered, 1 some failed or interrupted."""
    from tqdm import tqdm

    from medrcube_desktop.core.dataset import load_benchmark
    from medrcube_desktop.imaging.batch import render_benchmark

    benchmark = load_benchmark(root)
    with tqdm(total=len(benchmark.items), unit="item", disable=as_json, file=sys.stderr) as bar:

        def progress(record) -> None:
            bar.n = record.done
            bar.set_postfix_str(record.label[:30])
            bar.refresh()

        try:
            summary = render_benchmark(benchmark.items, out, progress).to_dict()
        except KeyboardInterrupt:  # Ctrl+C: what is written stays written
            summary = {"rendered": bar.n, "failed": [], "cancelled": True}
    # items the loader already refused are failures of the batch too
    summary["failed"] = [  # type: ignore[index]
        {"item": p.item or "", "file": p.file, "message": f"{p.field}: {p.message}"}
        for p in benchmark.problems
    ] + list(summary["failed"])  # type: ignore[call-overload]
    if as_json:
        print(json.dumps(summary))
    else:
        for failure in summary["failed"]:  # type: ignore[attr-defined]
            print(f"{failure['item']}: {failure['message']}")
        print(f"{summary['rendered']} items rendered to {out}, {len(summary['failed'])} failed")  # type: ignore[arg-type]
    return 1 if summary["failed"] or summary["cancelled"] else 0


def run_gui(args: argparse.Namespace) -> int:
    """Resolve the benchmark and database, then open the review window."""
    from medrcube_desktop import settings

    root: Path | None
    if args.demo:
        from medrcube_desktop.demo.build import ensure_demo

        root = ensure_demo(settings.demo_benchmark_dir())
    elif args.dataset is not None:
        root = args.dataset
    else:
        last = settings.Settings.load().last_dataset
        root = Path(last) if last else None
    from medrcube_desktop.ui.app import run_app  # Qt is imported only here

    return run_app(
        dataset=root,
        db_path=args.db,
        reviewer=args.reviewer,
        screenshot=args.screenshot,
        quit_after_ms=args.quit_after_ms,
    )


if __name__ == "__main__":
    sys.exit(main())
