"""``validate``, ``demo build``, ``demo serve``, ``render`` and ``render-batch``: the benchmark and its
pictures (paper Appendix E.1)."""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from medrcube_desktop.cli.common import (
    PROG,
    add_command,
    add_json,
    emit,
    list_failures,
    same_file,
    warn,
)
from medrcube_desktop.core.progress import Outcome, outcome_of
from medrcube_desktop.core.words import plural
from medrcube_desktop.core.words import verb as agree
from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.jobs.terminal import run_in_terminal


def add_parsers(sub) -> None:
    """Add this group's commands to the sub-parser group ``sub``."""
    from medrcube_desktop.imaging.render import CT_PRESETS

    validate = add_command(
        sub, "validate", cmd_validate,
        help="check a benchmark folder and list every problem",
        description="Check a MedRCube-layout benchmark: every */test.json and every item. "
        "Restricted items shipped without their image are listed apart, not as problems. "
        "Exit status: 0 no problems, 1 problems found (or no loadable item), 2 DIR unusable.",
    )  # fmt: skip
    validate.add_argument(
        "dir", type=Path, metavar="DIR", help="benchmark root (sub-folders hold test.json)"
    )
    validate.add_argument(
        "--deep", action="store_true",
        help="also decode every image and mask as the window renders them (a mask on "
        "another grid, too many labels, a truncated file); takes minutes on a large benchmark",
    )  # fmt: skip
    add_json(validate, '{"items": N, "problems": [...], "restricted": [...], "deep": {...}}')
    demo = sub.add_parser("demo", help="the demo benchmark built from real public images")
    demo_sub = demo.add_subparsers(dest="demo_command", required=True, metavar="build|serve")
    build = add_command(
        demo_sub, "build", cmd_demo_build, help="write the demo benchmark to OUT_DIR"
    )
    build.set_defaults(command="demo build")
    build.add_argument("out_dir", type=Path, metavar="OUT_DIR", help="a new or empty folder")
    build.add_argument(
        "--with-examples", action="store_true",
        help="also write a study database beside it, OUT_DIR-examples.sqlite: stored "
        "evaluation runs (a text-only baseline among them), two experts' reviews, LLM "
        "judgments and an adjudication, made by a scripted local endpoint (seeded)",
    )  # fmt: skip
    add_json(build, '{"root", "items", "problems", "examples": {"db", "runs", ...}}')
    serve = add_command(
        demo_sub, "serve", cmd_demo_serve,
        help="answer evaluation requests about the demo as the examples' scripted models",
        description="Start the demo's scripted OpenAI-compatible endpoint on 127.0.0.1 "
        "(no model, no GPU, no network), to try evaluate --engine openai and its image "
        "ablations: a request showing the item's own picture is answered as the model's "
        "scripted run, any other (--text-only, --image blank|swapped|noise) as the "
        "examples' text-only baseline. Prints the base URL and the model names; Ctrl+C "
        "stops it (exit 0).",
    )  # fmt: skip
    serve.set_defaults(command="demo serve")
    serve.add_argument(
        "demo_dir", type=Path, metavar="DEMO_DIR", help="a demo benchmark made by demo build"
    )
    serve.add_argument(
        "--port", type=int, default=0, metavar="N",
        help="the port on 127.0.0.1 (default: a free one, printed)",
    )  # fmt: skip

    render = add_command(
        sub, "render", cmd_render,
        help="render one slice (with mask and box) to a PNG with square pixels",
        description="Render a slice of a DICOM, NIfTI or picture file as the review window "
        "shows it (paper Appendix E.1). Exit 2 with a one-line reason for unreadable input.",
    )  # fmt: skip
    render.add_argument(
        "source",
        type=Path,
        metavar="SOURCE",
        help="an image file (DICOM, NIfTI, NRRD, MHA, PNG, JPEG) or a DICOM series folder",
    )
    render.add_argument("--mask", type=Path, metavar="MASK", help="mask on the source grid")
    render.add_argument(
        "--bbox", type=number_list(4), metavar="X0,Y0,X1,Y1",
        help="box in source pixels (x = column, y = row, inclusive)",
    )  # fmt: skip
    render.add_argument(
        "--slice", type=slice_choice, default=None, metavar="auto|N",
        help="slice or frame (default auto: largest mask area, else central)",
    )  # fmt: skip
    choice = render.add_mutually_exclusive_group()
    choice.add_argument(
        "--window", type=number_list(2), metavar="CENTER,WIDTH",
        help="window in modality units (HU for CT)",
    )  # fmt: skip
    choice.add_argument(
        "--preset", choices=sorted(CT_PRESETS), metavar="NAME",
        help=f"CT preset: {', '.join(CT_PRESETS)}",
    )  # fmt: skip
    render.add_argument(
        "--out", type=Path, metavar="PNG", help="output file (default: SOURCE name + .png here)"
    )
    add_json(render, "what was rendered")
    batch = add_command(
        sub, "render-batch", cmd_render_batch,
        help="render every item of a benchmark to PNG, past bad ones",
        description="Render each item's image with its overlay to OUT_DIR/<dataset>/<id>.png "
        "with a progress bar. Exit 1 when an item could not be rendered (all are listed).",
    )  # fmt: skip
    batch.add_argument("dir", type=Path, metavar="DIR", help="benchmark root")
    batch.add_argument(
        "--out",
        type=Path,
        required=True,
        metavar="OUT_DIR",
        help="the folder the PNGs are written to",
    )
    add_json(batch, '{"rendered", "failed", "cancelled"}')


def number_list(count: int):
    """argparse type: ``count`` comma-separated finite numbers, e.g. ``40,400``."""

    def parse(text: str) -> tuple[float, ...]:
        try:
            values = tuple(float(v) for v in text.split(","))
        except ValueError:
            values = ()
        if len(values) != count or not all(math.isfinite(v) for v in values):
            raise argparse.ArgumentTypeError(
                f"expected {count} comma-separated finite numbers, got {text!r}"
            )
        return values

    return parse


def slice_choice(text: str) -> int | None:
    """argparse type: ``auto`` or a 0-based slice number."""
    if text == "auto":
        return None
    from medrcube_desktop.cli.argtypes import whole

    try:
        value = whole(text)
    except argparse.ArgumentTypeError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected 'auto' or a slice number, got {text!r}")
    return value


def cmd_validate(args: argparse.Namespace) -> int:
    """``validate DIR``: 0 with no problems, 1 with problems, 2 when DIR is unusable."""
    from medrcube_desktop.core.dataset import RESTRICTED_NOTE, load_benchmark

    benchmark = load_benchmark(args.dir)  # every file checked now (check_files=True)
    deep = None
    if args.deep:
        from medrcube_desktop.imaging.deep_check import check_pictures

        deep = run_in_terminal(
            lambda progress, cancel: check_pictures(benchmark.items, progress, cancel),
            quiet=args.json,
            on_cancel="cancelling: the items decoded so far are reported",
        )
    problems = benchmark.problems + (deep.problems if deep is not None else [])
    restricted = [
        {
            "file": item.source_file.relative_to(benchmark.root).as_posix(),
            "item": item.id,
            "image_path": item.image_path.relative_to(benchmark.root).as_posix(),
            "message": RESTRICTED_NOTE,
        }
        for item in benchmark.restricted
    ]
    apart = []
    if restricted:
        apart = [
            f"{plural(len(restricted), 'restricted item')} without "
            f"{agree(len(restricted), 'its', 'their')} image "
            f"({RESTRICTED_NOTE}); not problems:",
            *(f"  {r['file']} item {r['item']}: {r['image_path']}" for r in restricted),
        ]
    decoded = ""
    if deep is not None:
        decoded = f", {deep.clean} of {len(benchmark.items)} decoded cleanly" + (
            " (cancelled)" if deep.cancelled else ""
        )
    emit(
        args.json,
        {
            "items": len(benchmark.items),
            "problems": [p.to_dict() for p in problems],
            "restricted": restricted,
            **({"deep": deep.to_dict()} if deep is not None else {}),
        },
        [
            *(str(problem) for problem in problems),
            *apart,
            f"{plural(len(benchmark.items), 'loadable item')}, "
            f"{plural(len(problems), 'problem')}"
            + (
                f", {len(restricted)} restricted without "
                f"{agree(len(restricted), 'its', 'their')} image"
                if restricted
                else ""
            )
            + decoded
            + f" in {benchmark.root}",
        ],
    )
    failed = problems or not benchmark.items or (deep is not None and deep.cancelled)
    return Outcome.FAILED if failed else Outcome.DONE


_EXAMPLES_CANCELLED = (
    "examples cancelled: no study database written (the demo in {root} is whole; to "
    "build both again, remove it or give another folder)"
)


def cmd_demo_build(args: argparse.Namespace) -> int:
    """``demo build OUT_DIR [--with-examples]``: write the demo benchmark (and its
    examples study), with a progress bar."""
    from medrcube_desktop.core.dataset import load_benchmark
    from medrcube_desktop.demo.build import build_demo, check_output_folder
    from medrcube_desktop.demo.examples import examples_db_path

    check_output_folder(args.out_dir)  # refuse a non-empty folder before drawing a bar
    db = examples_db_path(args.out_dir) if args.with_examples else None
    if db is not None and (db.exists() or db.is_symlink()):
        raise MedRCubeError(f"{db}: already exists; the examples go into a new database")
    stopped: list[bool] = []  # Ctrl+C while the demo was written (it finishes: ~1 s)

    def build(progress, cancel) -> Path:
        built = build_demo(args.out_dir, progress)
        stopped.append(cancel.is_set())
        return built

    root = run_in_terminal(
        build, quiet=args.json, unit="step",
        on_cancel="cancelling: the demo benchmark is finished, no examples study is built"
        if db is not None else "cancelling: the demo benchmark is finished",
    )  # fmt: skip
    benchmark = load_benchmark(root)
    data: dict[str, object] = {
        "root": str(root), "items": len(benchmark.items), "problems": len(benchmark.problems)
    }  # fmt: skip
    lines = [f"demo benchmark with {len(benchmark.items)} items written to {root}"]
    if db is not None and stopped[0]:
        data["examples"] = {"db": str(db), "cancelled": True}
        emit(args.json, data, [*lines, _EXAMPLES_CANCELLED.format(root=root)])
        return Outcome.FAILED
    if db is None or benchmark.problems:
        emit(args.json, data, lines)
        return Outcome.FAILED if benchmark.problems else Outcome.DONE
    return _demo_examples(args, root, db, data, lines)


def cmd_demo_serve(args: argparse.Namespace) -> int:
    """``demo serve DEMO_DIR [--port N]``: serve the scripted endpoint until Ctrl+C
    (or SIGTERM); exit 0 when stopped so."""
    import sys
    import threading

    from medrcube_desktop.cli.common import terminate_interrupts
    from medrcube_desktop.core.dataset import load_benchmark
    from medrcube_desktop.demo.example_script import JUDGE
    from medrcube_desktop.demo.serve import SERVE_MODELS, serve_script
    from medrcube_desktop.demo.stub_endpoint import StubEndpoint

    if not 0 <= args.port <= 65535:
        raise MedRCubeError(f"--port {args.port}: not a port (0 to 65535)")
    benchmark = load_benchmark(args.demo_dir)
    if not benchmark.items:
        raise MedRCubeError(f"{args.demo_dir}: no item to answer about; make it with demo build")
    print(f"preparing the pictures of {plural(len(benchmark.items), 'item')}…", file=sys.stderr)
    respond, sees = serve_script(benchmark.items)
    try:
        stub = StubEndpoint(respond, port=args.port, models=(*SERVE_MODELS, JUDGE), sees=sees)
    except OSError as exc:
        raise MedRCubeError(f"port {args.port} on 127.0.0.1: {exc.strerror or exc}") from exc
    with terminate_interrupts(), stub:
        print(f"serving the demo's scripted models at {stub.base_url}", flush=True)
        print(f"models: {', '.join(SERVE_MODELS)} (judge: {JUDGE})", flush=True)
        print("stop with Ctrl+C", file=sys.stderr, flush=True)
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            print("stopped", file=sys.stderr)
    return Outcome.DONE


def _demo_examples(
    args: argparse.Namespace, root: Path, db: Path, data: dict[str, object], lines: list[str]
) -> int:
    """Build the examples study of ``--with-examples`` and say where it went and what
    to try on it."""
    from medrcube_desktop.demo.examples import build_examples, try_commands

    summary = run_in_terminal(
        lambda progress, cancel: build_examples(root, db, progress=progress, cancel=cancel),
        quiet=args.json, unit="step", on_cancel="cancelling: no examples study is kept",
    )  # fmt: skip
    data["examples"] = summary.to_dict()
    if summary.cancelled:
        emit(args.json, data, [*lines, _EXAMPLES_CANCELLED.format(root=root)])
        return outcome_of(summary)
    runs = ", ".join(
        f"{name} {run['correct']}/{run['answered']}" + (" text-only" if run["text_only"] else "")
        for name, run in summary.runs.items()
    )
    lines += [
        f"examples study written to {db}: runs {runs}; reviews by "
        f"{' and '.join(summary.reviewers)} ({summary.disagreements} items they disagree "
        f"on, {summary.adjudicated_count} adjudicated); {summary.judged} judgments by "
        f"{summary.judge_model}",
        "try:",
        *(f"  {line}" for line in try_commands(root, db, PROG)),
    ]
    emit(args.json, data, lines)
    return outcome_of(summary)


def cmd_render(args: argparse.Namespace) -> int:
    """``render SOURCE``: write the PNG; 2 (via ImageLoadError) for unreadable input."""
    from medrcube_desktop.imaging.batch import render_to_png

    out = args.out or Path(args.source.name.split(".")[0] + ".png")
    for source in (args.source, args.mask):  # hard links and other spellings count
        if same_file(out, source):
            raise MedRCubeError(
                f"{out}: would overwrite the source image {source}; choose another file with --out"
            )
    facts = render_to_png(
        args.source, out, args.mask, args.bbox, args.slice, args.window, args.preset
    )
    if args.slice is not None and facts["slice_index"] != args.slice:
        warn(
            f"{args.source}: no slice {args.slice}; rendered slice {facts['slice_index']}, the last"
        )
    for note in facts["notes"]:  # as the window shows them beside the image
        warn(f"{args.source}: {note}")
    height, width = facts["shape"]
    emit(args.json, facts, f"{out}: slice {facts['slice_index']}, {width}x{height} pixels")
    return Outcome.DONE


def cmd_render_batch(args: argparse.Namespace) -> int:
    """``render-batch DIR --out OUT_DIR``: 0 all rendered, 1 some failed or cancelled."""
    from medrcube_desktop.core.dataset import load_benchmark
    from medrcube_desktop.imaging.batch import render_benchmark

    benchmark = load_benchmark(args.dir)
    summary = run_in_terminal(
        lambda progress, cancel: render_benchmark(benchmark.items, args.out, progress, cancel),
        quiet=args.json,
        on_cancel="cancelling: the pictures written stay written",
    )
    # items the loader already refused are failures of the batch too; a problem with a
    # whole test.json names that file, as validate says it
    summary.failed[:0] = [
        {
            "item": p.item or "",
            "file": p.file,
            "message": str(p) if p.item is None else f"{p.field}: {p.message}" if p.field
            else p.message,
        }
        for p in benchmark.problems
    ]  # fmt: skip
    if not args.json:
        list_failures(summary.failed)
    emit(
        args.json,
        summary.to_dict(),
        f"{summary.rendered} items rendered to {args.out}, {len(summary.failed)} failed"
        + (" (cancelled)" if summary.cancelled else ""),
    )
    return outcome_of(summary)
