"""``evaluate``, ``credibility``, ``export-run`` and ``import-run``: a model on the
benchmark with the Table 9 prompt (paper Appendix D) and its paired outcomes (Section 6).

Exit status: 0 done, 1 some items failed or the run was cancelled, 2 bad input or an
engine that cannot start.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from medrcube_desktop.cli import argtypes
from medrcube_desktop.cli.common import (
    PROG,
    add_command,
    add_dataset,
    add_db,
    add_json,
    emit,
    list_failures,
    load_items,
    not_loaded,
    open_database,
    refuse_overwrite,
    say,
    warn,
)
from medrcube_desktop.cli.only_changed import GIVEN, only_changed, rescored_run
from medrcube_desktop.cli.option_flags import add_flag, add_flags, value_type
from medrcube_desktop.core.files import item_files
from medrcube_desktop.core.options import values_of
from medrcube_desktop.core.progress import Outcome, outcome_of
from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.evaluation.compare_options import CREDIBILITY_PRESETS
from medrcube_desktop.evaluation.compare_options import SETTINGS as COMPARE_SETTINGS
from medrcube_desktop.evaluation.engine_options import ENGINE, SAMPLING, default_run_name
from medrcube_desktop.evaluation.engines.factory import EngineOptions
from medrcube_desktop.evaluation.image_modes import IMAGE, IMAGE_OPTIONS, TEXT_ONLY
from medrcube_desktop.evaluation.results_import import MAX_DEPTH
from medrcube_desktop.jobs.terminal import run_in_terminal

if TYPE_CHECKING:  # the runner (images, workers) loads only when a command runs
    from medrcube_desktop.evaluation.runner import Timing


TYPES = {name: argtypes.sampling(name) for name in SAMPLING}
"""The parsers of the decoding rows (each range declared once: ``SAMPLING_RANGES``)."""


_NOTED: dict[type, type] = {}


def _noted(action: argparse.Action) -> argparse.Action:
    """``action``, that also adds its destination to the namespace's :data:`GIVEN` set
    when its flag is given."""
    base = type(action)
    if base not in _NOTED:

        def __call__(self, parser, namespace, values, option_string=None):  # noqa: N807
            setattr(namespace, GIVEN, {*getattr(namespace, GIVEN, ()), self.dest})
            base.__call__(self, parser, namespace, values, option_string)

        _NOTED[base] = type(f"Noted{base.__name__}", (base,), {"__call__": __call__})
    action.__class__ = _NOTED[base]
    return action


def add_engine_flags(parser) -> None:
    """Add every engine option's flag (:data:`~.evaluation.engine_options.ENGINE`, in its
    order) to ``parser``; ``--base-url`` may be given again (each endpoint). The
    required ones (``--engine``, ``--model``) are checked by :func:`cmd_evaluate`
    (``--only-changed`` takes the rescored run's); each given flag is noted in the
    namespace's :data:`GIVEN`."""
    parser.set_defaults(**{GIVEN: frozenset()})
    for row in ENGINE.values():
        if row.name != "base_urls":
            action = _noted(add_flag(parser, row, types=TYPES))
            if row.required:
                action.required, action.default = False, None
            continue
        _noted(parser.add_argument(
            row.flag, action="append", default=[], type=value_type(row), metavar=row.metavar,
            help=row.help,
        ))  # fmt: skip


def add_parsers(sub) -> None:
    """Add this group's commands to the sub-parser group ``sub``."""
    ev = add_command(
        sub,
        "evaluate",
        cmd_evaluate,
        help="run a model on the benchmark with the Table 9 prompt (resumable)",
        description="Ask a model every item the run has not answered; each answer is parsed "
        "and stored as it arrives, so the same --run resumes after a kill or Ctrl+C.",
    )
    add_dataset(ev)
    add_db(ev, creates=True)
    add_engine_flags(ev)
    ev.add_argument(
        "--text-only",
        action="store_true",
        help="send no image (prior-leakage baseline); includes the restricted items; "
        "the same as --image text-only",
    )
    add_flags(ev, IMAGE_OPTIONS)
    ev.add_argument(
        "--image-workers",
        type=argtypes.count,
        default=None,
        metavar="N",
        help="processes preparing images ahead of the requests (default: one per core)",
    )
    ev.add_argument(
        "--no-image-cache", action="store_true",
        help="prepare every image again instead of reusing the image cache",
    )  # fmt: skip
    ev.add_argument(
        "--run", type=argtypes.new_name, metavar="NAME", help="run name (default: model and engine)"
    )
    ev.add_argument("--limit", type=argtypes.positive, metavar="N", help="only the first N items")
    ev.add_argument(
        "--only-changed", action="store_true",
        help="answer just the items a rescored --run (one `rescore` made) lacks because "
        "their question, options or image changed; --dataset is its release and the "
        "engine settings are the source run's",
    )  # fmt: skip
    add_json(
        ev, '{"run", "image_mode", "n", "accuracy", "unparsed", "by_task", "failed", "timing"}'
    )
    cred = add_command(
        sub,
        "credibility",
        cmd_credibility,
        help="paired low/high-level outcomes: groups A-D, Luck Rate, Shortcut Probability",
    )
    source = cred.add_mutually_exclusive_group(required=True)
    source.add_argument(
        "--results", type=Path, metavar="results.json",
        help="a results.json file (ours or the public evaluator's)",
    )  # fmt: skip
    source.add_argument(
        "--run", type=argtypes.existing_name, metavar="NAME", help="a run in --db (needs --dataset)"
    )
    cred.add_argument(
        "--db", type=Path, metavar="FILE", help="with --run: review database (must exist)"
    )
    cred.add_argument("--dataset", type=Path, metavar="DIR", help="with --run: benchmark root")
    preset = add_flag(cred, COMPARE_SETTINGS["preset"], choices=CREDIBILITY_PRESETS)
    # compare's text names "both", a choice of compare only
    preset.help = "pairing of credibility (paper Section 6, or the public script's; %(default)s)"
    cred.add_argument(
        "--file-correct",
        action="store_true",
        help="with --results: use each record's own 'correct' (the public scoring) instead "
        "of parsing the response again",
    )
    add_json(cred, 'the figures, with "undefined" (figure: reason) when one is null')
    exp = add_command(
        sub, "export-run", cmd_export_run, help="write a run as the public evaluator's results.json"
    )
    add_db(exp, creates=False)
    exp.add_argument(
        "--run", required=True, type=argtypes.existing_name, metavar="NAME", help="a run in --db"
    )
    add_dataset(exp)
    exp.add_argument(
        "--out", type=Path, required=True, metavar="results.json", help="the file written"
    )
    add_json(exp, '{"records", "out"}')
    imp = add_command(
        sub, "import-run", cmd_import_run,
        help="store results.json files as runs (responses re-parsed)",
        description="Store one or many results.json files (ours or the public evaluator's; "
        f"a folder gives its *.json and every results.json up to {MAX_DEPTH} folders below "
        "it), each as a run named after the file (its folder for results.json). A bad file "
        "is reported and the others go on.",
    )  # fmt: skip
    add_db(imp, creates=True)
    imp.add_argument(
        "--run", metavar="NAME",
        help="run name (one file only; default: the file's stem, or its folder's name "
        "for results.json)",
    )  # fmt: skip
    imp.add_argument(
        "--model", metavar="NAME",
        help="the run's model (one file only; default: the run name, or for a text-only "
        "run the image run its name implies)",
    )  # fmt: skip
    imp.add_argument(
        "--text-only", action="store_true",
        help="every file is a text-only baseline (answered without the image)",
    )  # fmt: skip
    imp.add_argument(
        "--text-only-file", type=Path, action="append", default=[], metavar="FILE",
        help="this file (or folder) is a text-only baseline, the others image runs "
        "(repeatable; need not be named again among the results)",
    )  # fmt: skip
    imp.add_argument(
        "--replace", action="store_true",
        help="delete a stored run of the same name (and its answers) before importing",
    )  # fmt: skip
    add_dataset(imp)
    imp.add_argument(
        "results", type=Path, nargs="*", metavar="results.json",
        help="results files, or folders holding <model>/results.json files",
    )  # fmt: skip
    add_json(imp, '{"stored", "run", "problems", "skipped", "files"}')


def engine_options(args: argparse.Namespace) -> EngineOptions:
    """The engine the arguments describe (built by :func:`.engines.factory.build_engine`):
    each row of :data:`~.evaluation.engine_options.ENGINE` from its flag's value."""
    return EngineOptions(**values_of(args, ENGINE))


def cmd_evaluate(args: argparse.Namespace) -> int:
    """``evaluate``: run (or resume) and print the summary."""
    from medrcube_desktop.evaluation.engines.factory import build_engine
    from medrcube_desktop.evaluation.images import DEFAULT_MAX_PIXELS
    from medrcube_desktop.evaluation.runner import (
        ImageOptions,
        run_evaluation,
        run_record,
        run_summary,
    )

    rescored = rescored_run(args) if args.only_changed else None  # its settings taken
    missing = [row.flag for row in ENGINE.values() if row.required and not getattr(args, row.dest)]
    if missing:
        raise MedRCubeError(
            f"evaluate: the following arguments are required: {', '.join(missing)} "
            "(--only-changed takes the rescored run's)"
        )
    mode = image_mode_of(args)
    text_only = mode == TEXT_ONLY
    benchmark, items = load_items(
        args.dataset, None if args.only_changed else args.limit, "evaluated or counted",
        restricted=text_only, skipped_hint=" (--text-only includes them)",
    )  # fmt: skip
    scored = items  # what the summary counts: with --only-changed, the whole release
    if rescored is not None:
        items = only_changed(args, rescored, items)
    engine = build_engine(engine_options(args), image_mode=mode)
    images = ImageOptions(
        text_only, max_pixels=args.max_pixels or DEFAULT_MAX_PIXELS,
        workers=args.image_workers, cache=not args.no_image_cache, mode=mode,
        seed=args.image_seed,
    )  # fmt: skip
    name = args.run or default_run_name(args.model, args.engine, mode)
    record = run_record(name, engine, args.model, images, str(benchmark.root), args.revision)
    if rescored is not None:  # resume the rescored run: its release's marks kept
        from dataclasses import replace

        from medrcube_desktop.evaluation.rescore import RESCORE_PARAMS

        kept = {key: rescored.params[key] for key in RESCORE_PARAMS if key in rescored.params}
        record = replace(record, params={**record.params, **kept}, benchmark=rescored.benchmark)
    if (
        args.engine != "openai"
        and not args.json
        and not (args.engine == "vllm-server" and args.base_url)
    ):
        say(
            f"starting {args.engine} with {args.model}: loading a model can take minutes "
            "(its log goes to the user log folder, named in any error)"
        )

    def job(progress, cancel):
        with open_database(args.db, create=True) as store:
            run = with_image_run(store, record, args.image_run, args.model, args.engine)
            scored_ids = {item.id for item in scored}
            before = len(scored_ids & set(store.responses(name)))  # held before this run
            try:
                state = run_evaluation(items, store, run, engine, images, progress, cancel)
            finally:
                engine.close()
            return state, {**run_summary(store, name, scored), "answered_before": before}

    state, summary = run_in_terminal(
        job, quiet=args.json, on_cancel=f"cancelling: run evaluate --run {name} again to resume"
    )
    list_failures(state.failed)
    for note in state.servers:  # a server set aside or failing: said, never silent
        warn(note)
    timing = state.timing()
    if not args.json and not text_only:
        say(timing_line(timing, answered=state.answered))
    acc, base = summary["accuracy"], summary["random_baseline"]
    emit(
        args.json,
        {
            **summary,
            "failed": state.failed,
            "skipped": state.skipped,
            "cancelled": state.cancelled,
            "servers": state.servers,
            "not_loaded": not_loaded(benchmark.problems)[0],
            "restricted": len(benchmark.restricted),
            "restricted_included": text_only,
            "image_mode": mode,
            "timing": timing,
        },
        f"run {name}: {summary['n']} answered ({summary['answered_before']} before this run), "
        "accuracy "
        f"{'—' if acc is None else f'{acc:.4f}'}, unparsed {summary['unparsed']}, "
        f"random baseline {'—' if base is None else f'{base:.4f}'}"
        + (f" (cancelled: run evaluate --run {name} again to resume)" if state.cancelled else ""),
    )
    return outcome_of(state)


def image_mode_of(args: argparse.Namespace) -> str:
    """The run's image mode: ``--image``, with ``--text-only`` its alias for ``text-only``.

    Raises
    ------
    MedRCubeError
        ``--text-only`` with another ``--image`` than ``text-only`` (or ``image``, the
        default), or ``--image-run`` for an image run.
    """
    mode = args.image
    if args.text_only and mode not in (IMAGE, TEXT_ONLY):
        raise MedRCubeError(f"--text-only and --image {mode}: give one of them")
    mode = TEXT_ONLY if args.text_only else mode
    if mode == IMAGE and args.image_run:
        raise MedRCubeError("--image-run links an ablation run (--image text-only, blank, "
                            "swapped or noise) to its image run")  # fmt: skip
    return mode


def with_image_run(store, record, given: str | None, model: str, engine: str):
    """``record`` linked to its image run (:func:`~.evaluation.runner.linked_image_run`)."""
    import dataclasses

    from medrcube_desktop.evaluation.runner import linked_image_run

    link = linked_image_run(store, record, given, default_run_name(model, engine, IMAGE))
    return dataclasses.replace(record, image_run=link)


def timing_line(timing: Timing, answered: int) -> str:
    """A run's :class:`~medrcube_desktop.evaluation.runner.Timing` in one line for people;
    ``answered``: answers this run received (none: nothing to time)."""
    return (
        f"images: {timing['images']} prepared ({timing['original']} sent as stored, "
        f"{timing['rendered']} rendered, {timing['cached']} from the cache) in "
        f"{timing['prepare_s']:.2f} s over {timing['image_workers']} workers; requests waited "
        f"{timing['queue_wait_s']:.2f} s for images; endpoint time "
        + (
            f"{timing['endpoint_s']:.2f} s"
            if timing["endpoint_s"] is not None
            else "not measured (no answer in this run)"
            if not answered
            else "not measured (no answer reported one: the vllm engine answers in batches)"
        )
    )


def cmd_credibility(args: argparse.Namespace) -> int:
    """``credibility``: the paired-outcome figures of a run or a results.json."""
    from medrcube_desktop.evaluation.credibility import figure_text, undefined_figures
    from medrcube_desktop.evaluation.scoring import paired_figures

    if args.results is not None:
        from medrcube_desktop.evaluation.results_json import read_results

        outcomes, warnings = read_results(args.results, reparse=not args.file_correct)
    else:
        if args.db is None or args.dataset is None:
            raise MedRCubeError("credibility --run needs --db and --dataset")
        from medrcube_desktop.evaluation.runner import run_outcomes

        _, items = load_items(args.dataset, verb="counted", images=False)  # scored_items
        with open_database(args.db, create=False) as store:
            if store.eval_run(args.run) is None:
                stored = store.eval_run_names()
                raise MedRCubeError(
                    f"{args.db}: no run named {args.run!r} (runs: "
                    f"{', '.join(stored) if stored else 'none stored'})"
                )
            outcomes = run_outcomes(store, args.run, items)
        warnings = []
        if len(outcomes) < len(items):
            warnings.append(
                f"run {args.run} has answered {len(outcomes)} of {len(items)} items; "
                "the figures cover those"
            )
    if not outcomes:  # figures of nothing would print as a result: say why instead
        for warning in warnings:
            warn(warning)
        source = args.results if args.results is not None else f"run {args.run}"
        raise MedRCubeError(f"{source}: no usable answer to count (see the warnings above)")
    figures, _, pair_warnings = paired_figures(outcomes, args.preset)  # as the pane counts
    for warning in warnings + pair_warnings:
        warn(warning)
    undefined = undefined_figures(figures)
    data = {**figures, "undefined": undefined} if undefined else dict(figures)
    lines = [f"{key:14} {figure_text(figures, key, 4)}" for key in figures]
    release = None
    if args.results is None:  # which release the figures were computed on, if one
        from medrcube_desktop.evaluation.release_read import release_of

        release = release_of(args.dataset)
    if release is not None:
        data["release"] = release.describe()
        lines.append(f"{'release':14} {release.version} ({release.root})")
    emit(args.json, data, lines)
    return Outcome.DONE


def cmd_export_run(args: argparse.Namespace) -> int:
    """``export-run``: results.json with our extra fields."""
    from medrcube_desktop.evaluation.results_json import export_run

    benchmark, items = load_items(args.dataset, verb="exported", images=False)
    with open_database(args.db, create=False) as store:
        refuse_overwrite(args.out, args.db, sources=item_files(items))
        count = export_run(store, args.run, items, args.out, benchmark.root)
    emit(
        args.json,
        {"records": count, "out": str(args.out)},
        f"{count} records written to {args.out}",
    )
    return Outcome.DONE


def cmd_import_run(args: argparse.Namespace) -> int:
    """``import-run``: responses of results.json files stored as runs, re-parsed.

    Exit status: 0 every file stored cleanly; 1 a file was refused or had bad records
    while others were stored; 2 no file could be used (or bad usage)."""
    from medrcube_desktop.core.names import visible
    from medrcube_desktop.evaluation.results_import import (
        ResultsFile,
        import_results,
        results_files,
        run_name_of,
    )

    if not args.results and not args.text_only_file:
        raise MedRCubeError("import-run needs results files or folders (or --text-only-file)")
    for option, value in (("--run", args.run), ("--model", args.model)):
        if value is not None and not value.strip():
            raise MedRCubeError(f"{option}: an empty name")
        if value is not None:
            _check_name(value, option)
    _, items = load_items(args.dataset, verb="imported", images=False)
    text_files, text_missing, text_skipped = results_files(args.text_only_file)
    image_files, missing, skipped = results_files(args.results)
    text = {path.resolve() for path in text_files}
    files = text_files + [p for p in image_files if p.resolve() not in text]
    missing, skipped = text_missing + missing, text_skipped + skipped
    if (args.run is not None or args.model is not None) and len(files) + len(missing) > 1:
        raise MedRCubeError("--run and --model name one file's run; leave them out for many")
    if not files:  # before the database is created
        raise MedRCubeError("; ".join(visible(m, keep="") for m in missing) or "no results files")
    for problem in missing + skipped:
        warn(visible(problem, keep=""))
    plan = [
        ResultsFile(
            path, args.run if args.run is not None else run_name_of(path), args.model,
            text_only=args.text_only or path.resolve() in text,
        )
        for path in files
    ]  # fmt: skip

    def job(progress, cancel):
        with open_database(args.db, create=True, keep_empty=False) as store:
            return import_results(  # every file refused: the new database is removed
                store, plan, items, replace=args.replace, progress=progress, cancel=cancel
            )

    rows = run_in_terminal(job, quiet=args.json or len(plan) == 1, unit="file")
    lines = _import_lines(rows, as_json=args.json)
    problems = [str(p) for row in rows for p in row["problems"]]  # type: ignore[attr-defined]
    summary = {
        "stored": sum(int(row["stored"]) for row in rows),  # type: ignore[call-overload]
        "run": rows[0]["run"] if len(rows) == 1 else None,
        "problems": problems,
        "skipped": skipped,
        "files": rows,
    }
    emit(args.json, summary, lines)
    refused = sum(1 for row in rows if row["error"]) + len(missing)
    if rows and refused == len(rows) + len(missing):
        return Outcome.BAD_INPUT
    return Outcome.FAILED if problems or refused or len(rows) < len(plan) else Outcome.DONE


def _check_name(value: str, option: str) -> str:
    """``value`` as :func:`~medrcube_desktop.core.names.check_name` takes it, else a
    MedRCubeError naming ``option``."""
    from medrcube_desktop.core.names import check_name

    try:
        return check_name(value, option)
    except ValueError as exc:
        raise MedRCubeError(str(exc)) from None


def _import_lines(rows: list[dict[str, object]], as_json: bool) -> list[str]:
    """Say each file's refusal (an error, not a warning: the file is not stored), notes,
    bad records (not with ``as_json``: the JSON holds them) and warnings on stderr;
    return the stdout lines (one per run stored). Every line is one line: a tab or line
    feed in a file or run name is written out as its escape
    (:func:`~medrcube_desktop.core.names.visible`)."""
    from medrcube_desktop.core.names import visible
    from medrcube_desktop.core.words import plural

    def one_line(text: object) -> str:
        return visible(str(text), keep="")

    lines = []
    for row in rows:
        if row["error"]:
            say(f"{PROG}: {one_line(row['error'])}")
            continue
        for line in [*row["notes"], *([] if as_json else row["problems"])]:  # type: ignore[misc]
            say(one_line(line))
        for line in row["warnings"]:  # type: ignore[attr-defined]
            warn(one_line(line))
        stored, already = int(row["stored"]), int(row["already"])  # type: ignore[call-overload]
        run = one_line(row["run"])
        if not stored and already:
            lines.append(f"run {run}: already stored ({plural(already, 'answer')}): nothing to add")
        else:
            lines.append(
                f"{plural(stored, 'response')} stored in run {run}"
                + (f" ({already} already stored)" if already else "")
            )
    return lines
