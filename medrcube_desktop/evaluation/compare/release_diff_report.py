"""What ``compare --release-diff`` prints and writes (``--out DIR``): the text table, and
``release_diff.json``, ``release_diff_models.csv``, ``release_diff_changes.csv`` and
``release_diff.html``, every number taken from one
:class:`~.release_diff.ReleaseDiff` (its :meth:`~.release_diff.ReleaseDiff.to_dict`),
the one the Compare pane's "Old vs new release" tab shows."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from medrcube_desktop.core.csvfile import write_csv
from medrcube_desktop.core.files import refuse_overwrite, write_folder_all_or_nothing
from medrcube_desktop.core.names import html_text
from medrcube_desktop.core.words import plural
from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.evaluation.compare.release_diff import ReleaseDiff

OUTPUTS: tuple[str, ...] = (
    "release_diff.json", "release_diff_models.csv", "release_diff_changes.csv",
    "release_diff.html",
)  # fmt: skip
"""The files :func:`write_release_diff_outputs` writes."""

MODEL_COLUMNS: tuple[str, ...] = (
    "run", "rescored", "model", "text_only", "n_before", "correct_before", "accuracy_before",
    "low_before", "high_before", "n_after", "correct_after", "accuracy_after", "low_after",
    "high_after", "n_paired", "diff", "diff_low", "diff_high", "to_right", "to_wrong",
    "mcnemar_p", "rank_before", "rank_after", "rank_change", "retired", "pending",
)  # fmt: skip
"""The columns of ``release_diff_models.csv`` (keys of ``to_dict()["models"]``)."""

CHANGE_COLUMNS: tuple[str, ...] = (
    "kind", "rule", "run", "items", "to_right", "to_wrong", "retired_right", "retired_wrong",
    "pending", "moved",
)  # fmt: skip
"""The columns of ``release_diff_changes.csv`` (keys of ``to_dict()["changes"]``)."""


def percent(value: object) -> str:
    """A 0–1 figure in percent with one decimal ("—" for None)."""
    return "—" if value is None else f"{float(value) * 100:.1f}"  # type: ignore[arg-type]


def interval(low: object, high: object) -> str:
    """``[low, high]`` in percent, or "" without bounds."""
    return "" if low is None or high is None else f"[{percent(low)}, {percent(high)}]"


def points(value: object) -> str:
    """A difference (−1 to 1) in percentage points, signed ("—" for None)."""
    return "—" if value is None else f"{float(value) * 100:+.1f}"  # type: ignore[arg-type]


def rank_text(model: Mapping[str, object]) -> str:
    """``"2 → 1 (+1)"``; "—" for a text-only run."""
    if model["rank_before"] is None:
        return "—"
    change = model["rank_change"]
    return f"{model['rank_before']} → {model['rank_after']} ({change:+d})"


MODEL_HEADER: tuple[str, ...] = (
    "run", "before (%)", "after (%)", "after − before (points)", "McNemar p", "rank",
    "wrong→right", "right→wrong", "retired", "need a new answer",
)  # fmt: skip
"""The columns of the models table in the report and the Compare pane's "Old vs new release" tab."""

CHANGE_HEADER: tuple[str, ...] = (
    "kind", "rule", "run", "items", "wrong→right", "right→wrong", "retired right",
    "retired wrong", "need a new answer", "moved",
)  # fmt: skip
"""The columns of the corrections table (:data:`CHANGE_COLUMNS`, in words)."""


def model_rows(data: Mapping[str, object]) -> list[list[str]]:
    """The models table's cells (:data:`MODEL_HEADER`) from ``ReleaseDiff.to_dict()``:
    what the report and the pane show."""
    return [
        [
            m["run"] + (" (text only)" if m["text_only"] else ""),
            f"{percent(m['accuracy_before'])} {interval(m['low_before'], m['high_before'])}".strip(),
            f"{percent(m['accuracy_after'])} {interval(m['low_after'], m['high_after'])}".strip(),
            f"{points(m['diff'])} {interval_points(m['diff_low'], m['diff_high'])}".strip(),
            "—" if m["mcnemar_p"] is None else f"{m['mcnemar_p']:.3f}",
            rank_text(m), str(m["to_right"]), str(m["to_wrong"]), str(m["retired"]),
            str(m["pending"]),
        ]
        for m in data["models"]  # type: ignore[attr-defined]
    ]  # fmt: skip


def change_rows(data: Mapping[str, object]) -> list[list[str]]:
    """The corrections table's cells (:data:`CHANGE_HEADER`)."""
    return [[str(c[k]) for k in CHANGE_COLUMNS] for c in data["changes"]]  # type: ignore[attr-defined]


def diff_lines(data: Mapping[str, object]) -> list[str]:
    """The text ``compare --release-diff`` prints, from ``ReleaseDiff.to_dict()``."""
    release = data["release"]
    lines = [f"release {release['version']} ({release['dir']}) against {data['dataset']}: "  # type: ignore[index]
             f"accuracy in %, Wilson 95 %; difference after − before over the items both "
             f"answered, bootstrap 95 % by image ({data['n_boot']} replicates, seed "
             f"{data['seed']})"]  # fmt: skip
    head = (f"{'run':28} {'before':>20} {'after':>20} {'diff (points)':>22} "
            f"{'McNemar p':>9} {'rank':>12} {'w→r':>4} {'r→w':>4} {'ret.':>4} {'wait':>4}")  # fmt: skip
    lines.append(head)
    for m in data["models"]:  # type: ignore[attr-defined]
        before = f"{percent(m['accuracy_before'])} {interval(m['low_before'], m['high_before'])}"
        after = f"{percent(m['accuracy_after'])} {interval(m['low_after'], m['high_after'])}"
        diff = f"{points(m['diff'])} {interval_points(m['diff_low'], m['diff_high'])}"
        p = "—" if m["mcnemar_p"] is None else f"{m['mcnemar_p']:.3f}"
        name = m["run"] + (" (text only)" if m["text_only"] else "")
        lines.append(f"{name[:28]:28} {before:>20} {after:>20} {diff:>22} {p:>9} "
                     f"{rank_text(m):>12} {m['to_right']:>4} {m['to_wrong']:>4} "
                     f"{m['retired']:>4} {m['pending']:>4}")  # fmt: skip
    for row in data["most_moved"]:  # type: ignore[attr-defined]
        lines.append(f"{row['run']}: moved most by {row['kind']} (rule {row['rule'] or '—'}): "
                     f"{moved_text(row['moved'], row['net'])}")  # fmt: skip
    return lines


def interval_points(low: object, high: object) -> str:
    """``[low, high]`` in signed percentage points, or ""."""
    return "" if low is None or high is None else f"[{points(low)}, {points(high)}]"


def moved_text(moved: int, net: int) -> str:
    """``"1 answer changed its verdict, 1 more now right than wrong"``: ``moved``
    answers whose verdict the correction changed, ``net`` of them (right minus wrong)."""
    net_text = (
        "as many now right as now wrong"
        if net == 0
        else f"{abs(net)} more now {'right' if net > 0 else 'wrong'} than "
        f"{'wrong' if net > 0 else 'right'}"
    )
    return (
        f"{plural(moved, 'answer')} changed {'its' if moved == 1 else 'their'} verdict, {net_text}"
    )


def refuse_release_diff_inputs(
    out_dir: str | Path, inputs: Sequence[Path | None], sources: Iterable[Path] = ()
) -> None:
    """As :func:`~.report.refuse_inputs`, for :data:`OUTPUTS`."""
    out = Path(out_dir).expanduser()
    sources = list(sources)
    for target in (out, *(out / name for name in OUTPUTS)):
        refuse_overwrite(target, *inputs, sources=sources)
    if out.exists() and not out.is_dir():
        raise MedRCubeError(f"{out}: not a folder (the report is a folder of files)")


def _html(data: Mapping[str, object], meta: Mapping[str, object]) -> str:
    e = html_text
    release = data["release"]
    rows = ["<tr>" + "".join(f"<td>{e(v)}</td>" for v in row) + "</tr>" for row in model_rows(data)]
    changes = ["<tr>" + "".join(f"<td>{e(v)}</td>" for v in row) + "</tr>"
               for row in change_rows(data)]  # fmt: skip
    head = MODEL_HEADER
    return (
        "<!doctype html><html><head><meta charset='utf-8'><title>Release "
        f"{e(release['version'])}</title></head><body>"  # type: ignore[index]
        f"<h1>Release {e(release['version'])} against the source benchmark</h1>"  # type: ignore[index]
        f"<p>{e(release['dir'])} (digest {e(release['digest'])}) against "  # type: ignore[index]
        f"{e(data['dataset'])}. Accuracy with Wilson 95 % intervals; the difference over "
        "the items both runs answered with a 95 % bootstrap interval by image "
        f"({e(data['n_boot'])} replicates, seed {e(data['seed'])}); McNemar's exact p.</p>"
        "<table><thead><tr>" + "".join(f"<th>{e(h)}</th>" for h in head) + "</tr></thead>"
        "<tbody>" + "".join(rows) + "</tbody></table>"
        "<h2>Corrections by kind and rule</h2><table><thead><tr>"
        + "".join(f"<th>{e(h)}</th>" for h in CHANGE_HEADER)
        + "</tr></thead><tbody>"
        + "".join(changes)
        + "</tbody></table>"
        + "".join(f"<p>{e(w)}</p>" for w in data["warnings"])  # type: ignore[attr-defined]
        + "<footer>"
        + "".join(f"<div>{e(k)}: {e(v)}</div>" for k, v in meta.items())
        + "</footer></body></html>"
    )


def write_release_diff_outputs(
    out_dir: str | Path,
    diff: ReleaseDiff,
    meta: Mapping[str, object],
    inputs: Sequence[Path | None] = (),
    sources: Iterable[Path] = (),
) -> list[Path]:
    """Write :data:`OUTPUTS` to ``out_dir`` (created), all or nothing; their paths.

    Raises
    ------
    StoreError
        An output would be one of ``inputs`` (the database) or ``sources``.
    OSError
        The folder or a file cannot be written.
    """
    refuse_release_diff_inputs(out_dir, inputs, sources)
    data = diff.to_dict()

    def write(stage: Path) -> list[str]:
        (stage / "release_diff.json").write_text(
            json.dumps({**data, "meta": dict(meta)}, indent=2), encoding="utf-8"
        )
        write_csv(stage / "release_diff_models.csv", MODEL_COLUMNS,
                  [[m[k] for k in MODEL_COLUMNS] for m in data["models"]])  # type: ignore[attr-defined]  # fmt: skip
        write_csv(stage / "release_diff_changes.csv", CHANGE_COLUMNS,
                  [[c[k] for k in CHANGE_COLUMNS] for c in data["changes"]])  # type: ignore[attr-defined]  # fmt: skip
        (stage / "release_diff.html").write_text(_html(data, meta), encoding="utf-8")
        return list(OUTPUTS)

    return write_folder_all_or_nothing(Path(out_dir).expanduser(), write)
