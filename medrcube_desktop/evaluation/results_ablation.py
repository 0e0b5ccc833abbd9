"""The image-ablation fields of a ``results.json`` (issue 24): what an ablation run's
records carry when exported (``image_mode``, ``image_run``, ``image_seed``, each
record's ``image``), and the checks :func:`~.results_json.import_run` makes of them when
read back: one mode, link and seed per file, the link to a stored image run of the same
model (:func:`~medrcube_desktop.evaluation.runner.image_run_refusal`, the check of
``evaluate --image-run``), and a record's picture that cannot be its run's."""

from __future__ import annotations

import json
from pathlib import Path

from medrcube_desktop.errors import MedRCubeError


def ablation_fields(run) -> dict[str, object]:
    """The fields every record of an ablation run's ``results.json`` carries (none for
    an image run): ``image_mode``, ``image_run`` (when linked) and ``image_seed`` (when
    the run has one); :func:`~.results_json.import_run` reads them back, and each record's ``image``
    (how its picture was sent, with its hashes) beside them."""
    from medrcube_desktop.evaluation.image_modes import IMAGE, run_image_mode, run_image_seed

    mode = run_image_mode(run)
    if mode == IMAGE:
        return {}
    fields: dict[str, object] = {"image_mode": mode}
    if run.image_run:
        fields["image_run"] = run.image_run
    seed = run_image_seed(run)
    if seed is not None:
        fields["image_seed"] = seed
    return fields


def first_differing(records: list, key: str) -> str:
    """Where ``records`` first give ``key`` another value than their first record does,
    as "; record #N (id …) gives X, record #1 gives Y", for the message of
    :func:`file_image_mode` ("" where no two records can be told apart)."""
    first = None
    for number, record in enumerate(records, 1):
        value = json.dumps(record.get(key)) if isinstance(record, dict) else None
        if value is None:
            continue
        if first is None:
            first = (number, value)
        elif value != first[1]:
            item = record.get("id")
            return (f"; record #{number} (id {item!r}) gives {value[:40]}, record "
                    f"#{first[0]} gives {first[1][:40]}")  # fmt: skip
    return ""


def file_image_mode(path: Path, records: list, text_only: bool, run: str = "") -> dict[str, object]:
    """The image mode, link and seed the records of a file share (:func:`ablation_fields`;
    none given: image, or text-only with ``text_only``), as ``{"image_mode",
    "image_run", "image_seed"}``; ``run`` is the run's name, for the messages.

    Raises
    ------
    MedRCubeError
        Records of several modes, links or seeds; an unknown mode; ``text_only`` for a
        file of another ablation mode; an ``image_run`` that is not a name (a number) or
        an ``image_seed`` that is not a whole number from 0 to
        :data:`~medrcube_desktop.core.options.SEED_MAX` (what ``evaluate --image-seed``
        takes) or is missing from a swapped or noise run, the message naming the file,
        the run and the field.
    """
    from medrcube_desktop.core.options import SEED_MAX
    from medrcube_desktop.evaluation.image_modes import IMAGE, IMAGE_MODES, SEEDED, TEXT_ONLY

    found: dict[str, object] = {}
    for key in ("image_mode", "image_run", "image_seed"):
        values = json_values(records, key)
        if len(values) > 1:
            raise MedRCubeError(
                f"{path}: records of several {key} values ({', '.join(sorted(values))})"
                + first_differing(records, key)
            )
        found[key] = json.loads(values.pop()) if values else None
    mode = found["image_mode"] or (TEXT_ONLY if text_only else IMAGE)
    if mode not in IMAGE_MODES:
        raise MedRCubeError(f"{path}: image_mode {mode!r} is not one of {', '.join(IMAGE_MODES)}")
    if text_only and mode != TEXT_ONLY:
        raise MedRCubeError(f"{path}: a {mode} run (its image_mode), not text-only")
    where = f"{path}: run {run!r}" if run else str(path)
    link, seed = found["image_run"], found["image_seed"]
    if link is not None and not isinstance(link, str):
        raise MedRCubeError(f"{where}: image_run {json.dumps(link)} is not a run name "
                            "(the name of the image run, in quotes)")  # fmt: skip
    seed_ok = isinstance(seed, int) and not isinstance(seed, bool) and 0 <= seed <= SEED_MAX
    if seed is not None and not seed_ok:
        raise MedRCubeError(f"{where}: image_seed {json.dumps(seed)} is not a seed (a whole "
                            f"number from 0 to {SEED_MAX}, as --image-seed takes)")  # fmt: skip
    if seed is None and mode in SEEDED:
        raise MedRCubeError(f"{where}: a {mode} run without its image_seed (the seed its "
                            "pictures were chosen with, as export-run writes it)")  # fmt: skip
    if link and mode == IMAGE:
        raise MedRCubeError(f"{where}: image_run {link!r} in an image run (image_run links "
                            "an ablation run to its image run)")  # fmt: skip
    return {"image_mode": mode, "image_run": link or "", "image_seed": seed}


PLAIN_JSON = (str, int, bool, type(None))
"""Types whose equal values ``json.dumps`` writes alike (not float: ``0.0 == -0.0``)."""


def json_values(records: list, key: str) -> set[str]:
    """``{json.dumps(r.get(key)) for r in records if isinstance(r, dict)}``, each
    distinct text, number, boolean or null written once (not once per record: a file
    of 7,626 records without the key is one ``null``); other values (floats, lists,
    objects) written one by one, as before."""
    plain: set[tuple[type, object]] = set()
    other: set[str] = set()
    for record in records:
        if isinstance(record, dict):
            value = record.get(key)
            kind = type(value)
            if kind in PLAIN_JSON:
                plain.add((kind, value))
            else:
                other.add(json.dumps(value))
    return {json.dumps(value) for _, value in plain} | other


class ImageRunNotStored(MedRCubeError):
    """An imported ablation run names an image run the database does not hold (yet: in
    one ``import-run`` call, the file of that image run may come later)."""


def check_image_run(db, record, path: Path, model_from_link: bool):
    """``record``, its model the linked run's with ``model_from_link``; refused when its
    ``image_run`` cannot be linked: the check of ``evaluate --image-run``
    (:func:`~medrcube_desktop.evaluation.runner.image_run_refusal`), the message naming
    the file, the run and the field; :class:`ImageRunNotStored` when no run of that name
    is stored."""
    import dataclasses

    from medrcube_desktop.evaluation.image_modes import IMAGE, run_image_mode
    from medrcube_desktop.evaluation.runner import image_run_refusal
    from medrcube_desktop.store import evaluation

    if not record.image_run:
        return record
    linked = evaluation.eval_run(db, record.image_run)
    if model_from_link and linked is not None and run_image_mode(linked) == IMAGE:
        record = dataclasses.replace(record, model=linked.model)
    refusal = image_run_refusal(record, record.image_run, linked)
    if refusal:
        error = ImageRunNotStored if refusal.startswith("no run") else MedRCubeError
        raise error(
            f"{path}: run {record.name!r}: image_run {record.image_run!r}: {refusal} (import "
            "the image run first, or remove image_run from the file); nothing imported"
        )
    return record


def image_disagrees(sent: object, mode: object, item_id: str) -> str:
    """Why an ablation record's ``image`` (how the picture was sent, as export-run writes
    it, :mod:`~medrcube_desktop.evaluation.ablation`) cannot be the picture its run sent,
    or "": its ``ablation`` names another mode than the record's ``image_mode``, or a
    swapped picture's ``swapped_from`` is the item itself (a swap never sends an item its
    own picture)."""
    if not isinstance(sent, dict) or mode not in ("blank", "swapped", "noise"):
        return ""
    said = sent.get("ablation")
    if said is not None and said != mode:
        return f"image ablation {json.dumps(said)[:40]} is not the run's image_mode {mode!r}"
    if mode == "swapped" and sent.get("swapped_from") == item_id:
        return f"image swapped_from {item_id!r} is the item itself"
    return ""
