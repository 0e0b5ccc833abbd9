"""``evaluate --only-changed`` (issue 23): the rescored run named by ``--run``, its
answer-relevant settings taken into the arguments, and the items of its release that
need a new answer. Apart from :mod:`.evaluate` because it is its own question: which
stored run is resumed, and with what."""

from __future__ import annotations

import argparse
from typing import Any

from medrcube_desktop.cli.common import open_database
from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.evaluation.engine_options import ENGINE

GIVEN = "given_flags"
"""The namespace attribute listing the destinations of the engine flags given on the
command line (``evaluate --only-changed`` takes the others from the rescored run)."""


def rescored_run(args: argparse.Namespace) -> Any:
    """``evaluate --only-changed``: the rescored run ``--run`` names (read-only), its
    engine settings taken into ``args`` (:func:`take_run_settings`).

    Raises
    ------
    MedRCubeError
        No ``--run``, no database, a run not made by ``rescore``, ``--dataset`` not the
        release it was rescored on (or that release changed since), or a flag given with
        another value than the run's.
    """
    from medrcube_desktop.evaluation.release_read import read_release
    from medrcube_desktop.evaluation.rescore import is_rescored

    if args.run is None:
        raise MedRCubeError("--only-changed needs --run naming a rescored run (<run>@<version>)")
    if not args.db.is_file():
        raise MedRCubeError(f"{args.db}: no such review database (--only-changed resumes a "
                            "rescored run in it)")  # fmt: skip
    with open_database(args.db, create=False) as store:
        record = store.eval_run(args.run)
    if record is None or not is_rescored(record):
        raise MedRCubeError(
            f"--only-changed: run {args.run!r} "
            + ("is not stored" if record is None else "was not made by `rescore`")
            + " (rescore --release DIR --db DB makes <run>@<version>)"
        )
    release = read_release(args.dataset, items=False)
    if str(release.root) != record.params.get("release_dir") or release.digest != record.params.get(
        "release_digest"
    ):
        raise MedRCubeError(
            f"--only-changed: run {args.run!r} was rescored on release "
            f"{record.params.get('release_dir')!r} ({record.params.get('release_version')}); "
            f"--dataset {args.dataset} is another release, or it changed since (rescore "
            "--replace makes it again)"
        )
    take_run_settings(args, record)
    return record


def run_settings(record: Any) -> dict[str, Any]:
    """The answer-relevant engine settings a stored run was made with, by
    :data:`~.evaluation.engine_options.ENGINE` row name (the operational ones left out:
    they may differ): engine, model, revision, the image budget, and each row the
    engine records under its own name (an unset one the ``vllm`` engine leaves out:
    its default). Plus ``text_only``."""
    from medrcube_desktop.evaluation.image_modes import TEXT_ONLY, run_image_mode, run_image_seed
    from medrcube_desktop.evaluation.images import DEFAULT_MAX_PIXELS

    params = record.params
    settings: dict[str, Any] = {"engine": record.engine, "model": record.model,
                                "text_only": bool(record.text_only)}  # fmt: skip
    mode = run_image_mode(record)  # an ablation run is answered again in its own mode
    if mode != TEXT_ONLY:
        settings["image"] = mode
    if run_image_seed(record) is not None:
        settings["image_seed"] = run_image_seed(record)
    if record.model_revision:
        settings["revision"] = record.model_revision
    image = params.get("image") if isinstance(params.get("image"), dict) else {}
    if image.get("max_pixels") not in (None, DEFAULT_MAX_PIXELS):
        settings["max_pixels"] = image["max_pixels"]
    for name, row in ENGINE.items():
        if row.operational or row.recorded_as or name in settings or row.required:
            continue
        if record.engine not in row.engines:
            continue
        if name in params:
            settings[name] = params[name]
        elif record.engine in row.omitted_unset:
            settings[name] = row.default
    return settings


def take_run_settings(args: argparse.Namespace, record: Any) -> None:
    """Set each engine flag of ``args`` not given to ``record``'s setting
    (:func:`run_settings`); the operational ones (concurrency, base URLs, timeouts…)
    stay as given.

    Raises
    ------
    MedRCubeError
        A flag given with another value than the run's, naming both:
        ``max_tokens: the run has 512, you gave 256``; a run no engine makes (imported).
    """
    from medrcube_desktop.evaluation.engine_options import ENGINES

    if record.engine not in ENGINES:
        raise MedRCubeError(
            f"--only-changed: run {record.name!r} has engine {record.engine!r} (imported "
            "answers): no engine here can resume it; evaluate the changed items under "
            "another --run name"
        )
    given: frozenset[str] = getattr(args, GIVEN, frozenset())
    wrong = []
    for name, value in run_settings(record).items():
        dest = name if name in ("text_only", "image", "image_seed") else ENGINE[name].dest
        if dest in given or (name == "text_only" and args.text_only):
            if getattr(args, dest) != value:
                wrong.append(f"{name}: the run has {value!r}, you gave {getattr(args, dest)!r}")
        else:
            setattr(args, dest, value)
    if wrong:
        raise MedRCubeError(
            f"--only-changed: run {record.name!r} answers with its own settings; "
            + "; ".join(wrong)
            + " (leave the flag out to take the run's)"
        )


def only_changed(args: argparse.Namespace, record: Any, items: list) -> list:
    """The items of ``items`` (the release of the rescored run ``record``) that need a
    new answer, the first ``--limit``."""
    from medrcube_desktop.evaluation.release_read import read_release

    wanted = set(read_release(args.dataset, items=False).needs_new_answer)
    chosen = [item for item in items if item.id in wanted]
    return chosen[: args.limit] if args.limit else chosen
