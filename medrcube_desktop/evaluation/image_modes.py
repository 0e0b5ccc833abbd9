"""What picture an evaluation run sends with each question: the one vocabulary (issue 24).

``image`` sends the item's own picture (the paper's evaluation, Appendix D.3);
``text-only`` sends none (the prior-leakage baseline, Appendix D.4, Table 4). The three
other ablations send a picture that carries no information about the item, so a model
that still answers right does it from the question and options alone:

- ``blank``: a uniform mid-grey (128) picture of the item's rendered size;
- ``swapped``: the picture of another item of the same modality and region, chosen with
  the run's seed, never the same image;
- ``noise``: uniform noise of the item's rendered size, from the run's seed.

A run in an ablation mode is linked to the image run it ablates (``RunRecord.image_run``).
No Qt, no numpy: the compare, review and CLI layers read these names.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from medrcube_desktop.store.evaluation import RunRecord

IMAGE = "image"
TEXT_ONLY = "text-only"
BLANK = "blank"
SWAPPED = "swapped"
NOISE = "noise"

IMAGE_MODES = (IMAGE, TEXT_ONLY, BLANK, SWAPPED, NOISE)
"""Every mode, the paper's own first."""

ABLATIONS = (TEXT_ONLY, BLANK, SWAPPED, NOISE)
"""The modes that withhold the item's picture (every mode but ``image``)."""

SEEDED = (SWAPPED, NOISE)
"""The modes whose picture depends on the run's seed (``params["image"]["seed"]``)."""

MODE_HELP = {
    IMAGE: "the item's own picture (the paper's evaluation)",
    TEXT_ONLY: "no picture at all (the prior-leakage baseline, paper Table 4)",
    BLANK: "a uniform mid-grey (128) picture of the item's rendered size",
    SWAPPED: "the picture of another item of the same modality and region (seeded)",
    NOISE: "uniform noise (seeded) of the item's rendered size",
}
"""One line per mode: the CLI's help, the pane's tooltip, the docs."""


def check_image_mode(mode: str) -> str:
    """``mode`` when it is one of :data:`IMAGE_MODES`.

    Raises
    ------
    ValueError
        Any other string (the message lists the modes).
    """
    if mode not in IMAGE_MODES:
        raise ValueError(f"image mode {mode!r}: not one of {', '.join(IMAGE_MODES)}")
    return mode


def run_image_mode(run: RunRecord) -> str:
    """The image mode of a stored run, right for runs stored before modes existed: a
    run with ``text_only`` set is ``"text-only"``; one without a known ``image_mode``
    is ``"image"``."""
    if getattr(run, "text_only", False):
        return TEXT_ONLY
    mode = getattr(run, "image_mode", "") or IMAGE
    return mode if mode in IMAGE_MODES else IMAGE


MODE_MARKS = {
    IMAGE: "",
    TEXT_ONLY: " (text only)",
    BLANK: " (blank ablation)",
    SWAPPED: " (swapped ablation)",
    NOISE: " (noise ablation)",
}
"""What ends a run's name wherever runs are listed (:func:`mode_mark`)."""


def mode_mark(mode: str) -> str:
    """The mark after an ablation run's name on every surface (compare's text, its
    pane, ``report.html``): ``" (text only)"``, ``" (blank ablation)"``,
    ``" (swapped ablation)"``, ``" (noise ablation)"``; "" for an image run (or an
    unknown mode). The mode comes from :func:`run_image_mode`."""
    return MODE_MARKS.get(mode, "")


def mode_words(mode: str) -> str:
    """The mode for a tooltip: ``"Text only: no picture at all (…)"``, ``"Blank: a uniform
    mid-grey (128) picture …"`` (:data:`MODE_HELP`)."""
    words = MODE_HELP.get(mode, MODE_HELP[IMAGE])
    return f"{mode[:1].upper()}{mode[1:].replace('-', ' ')}: {words}"


def sends_image(mode: str) -> bool:
    """Whether a run in ``mode`` sends a picture with each question (all but text-only)."""
    return mode != TEXT_ONLY


def is_ablation(mode: str) -> bool:
    """Whether ``mode`` withholds the item's own picture."""
    return mode in ABLATIONS


def run_image_seed(run: RunRecord) -> int | None:
    """The seed a swapped or noise run was made with (``params["image"]["seed"]``), or
    None (the other modes, or a run stored without one)."""
    image = run.params.get("image") if isinstance(run.params, dict) else None
    seed = image.get("seed") if isinstance(image, dict) else None
    return seed if isinstance(seed, int) and not isinstance(seed, bool) else None


def run_image_setting(run: RunRecord) -> dict[str, object]:
    """What decides the picture a stored run's model sees, as a resume compares it:
    ``{"mode"}`` (:func:`run_image_mode`), ``"seed"`` for a swapped or noise run
    (:func:`run_image_seed`), ``"image_run"`` (the linked image run, "" for none) for
    an ablation run, and the run's ``"min_side"`` and ``"max_pixels"`` (pixels) where it
    recorded them (``params["image"]``)."""
    mode = run_image_mode(run)
    found: dict[str, object] = {"mode": mode}
    if mode in SEEDED:
        found["seed"] = run_image_seed(run)
    if mode != IMAGE:
        found["image_run"] = getattr(run, "image_run", "") or ""
    image = run.params.get("image") if isinstance(run.params, dict) else None
    for key in ("min_side", "max_pixels"):
        if isinstance(image, dict) and key in image:
            found[key] = image[key]
    return found


def image_setting_words(setting: dict[str, object], shown: tuple[str, ...] = ()) -> str:
    """A :func:`run_image_setting` for people: ``a noise run (seed 7, image run m)``,
    ``a blank run (no image run)``, ``an image run``; the keys of ``shown``
    (``min_side``, ``max_pixels``) are said too (where two settings differ in them)."""
    mode = str(setting.get("mode", IMAGE))
    details = []
    if "seed" in setting:
        seed = setting["seed"]
        details.append("no seed recorded" if seed is None else f"seed {seed}")
    if "image_run" in setting:
        link = setting["image_run"]
        details.append(f"image run {link}" if link else "no image run")
    for key in shown:
        value = setting.get(key)
        details.append(f"{key.replace('_', ' ')} {'unset' if value is None else value}")
    article = "an" if mode == IMAGE else "a"
    return f"{article} {mode} run" + (f" ({', '.join(details)})" if details else "")


def _options():
    from medrcube_desktop.core.options import SEED_MAX, Option, options

    modes = "; ".join(f"{mode}: {words}" for mode, words in MODE_HELP.items())
    return options(
        Option("image_mode", "--image", "Image", IMAGE,
               f"what picture is sent with each question ({modes}); --text-only is "
               "--image text-only", str, choices=IMAGE_MODES, metavar="MODE"),
        Option("image_seed", "--image-seed", "Image seed", 0,
               "swapped, noise: the seed that picks the other item's picture or makes the "
               "noise (stored with the run; same seed, same pictures)", int, 0, SEED_MAX,
               kind="seed", metavar="S"),
        Option("image_run", "--image-run", "Image run", None,
               "an ablation run: the image run it is linked to (default: the run the same "
               "model and engine get with --image image, when it is stored)", str,
               kind="new_name", metavar="NAME"),
    )  # fmt: skip


IMAGE_OPTIONS = _options()
"""The image-mode rows of ``evaluate`` and the Evaluate pane, declared once (flags, the
pane's fields, ``docs/evaluate-options.md``)."""


def image_options_markdown() -> str:
    """The Markdown table of the image-mode rows (``docs/evaluate-options.md``)."""
    from medrcube_desktop.core.options import markdown_table

    return markdown_table(IMAGE_OPTIONS.values())
