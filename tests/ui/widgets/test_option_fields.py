"""The panes' and the LLM review dialog's fields are the declared settings (issue 22 item
2): each number field is a row of its table, with the row's label, default and range,
and no number field is one the table lacks."""

from __future__ import annotations

from PySide6.QtWidgets import QAbstractSpinBox, QFormLayout, QLabel

from medrcube_desktop.evaluation.compare_options import RELEASE_DIFF, SETTINGS
from medrcube_desktop.llm.config import JUDGE, JUDGE_MODEL
from medrcube_desktop.review.agreement_options import AGREEMENT, STUDY
from medrcube_desktop.ui.agreement.pane import PANE_OPTIONS
from medrcube_desktop.ui.compare.pane import PANE_SETTINGS
from medrcube_desktop.ui.review.judge_dialog import DIALOG_OPTIONS
from medrcube_desktop.ui.widgets.option_fields import INT_MAX, option_range
from tests.ui.review.test_review_binding_window import open_window


def field_differences(widget, table, names, field) -> list[str]:
    """What ``widget``'s fields say otherwise than ``table``: each of ``names`` is
    ``field(name)``, a spin box with its row's default and range, and every other spin
    box of ``widget`` is a setting the table lacks."""
    wrong = []
    known = set()
    for name in names:
        if name not in table:
            wrong.append(f"{name}: not in the table")
            continue
        row, box = table[name], field(name)
        known.add(id(box))
        if not isinstance(box, QAbstractSpinBox):
            continue
        if box.value() != row.default:
            wrong.append(f"{name}: default {box.value()!r}, the table {row.default!r}")
        if (box.minimum(), box.maximum()) != option_range(row):
            wrong.append(f"{name}: range {(box.minimum(), box.maximum())}, the table "
                         f"{option_range(row)}")  # fmt: skip
        if row.flag and row.flag not in box.toolTip():
            wrong.append(f"{name}: the tooltip does not name {row.flag}")
    for box in widget.findChildren(QAbstractSpinBox):
        if id(box) not in known:
            wrong.append(f"{box.objectName() or type(box).__name__}: a field the table lacks")
    return wrong


def labels(widget) -> set[str]:
    return {label.text().replace("&", "").rstrip(":") for label in widget.findChildren(QLabel)}


def test_the_panes_fields_are_their_tables_rows(qtbot, ct_benchmark, tmp_path):
    window, _ = open_window(qtbot, ct_benchmark, tmp_path / "s.db")
    compare = window.open_compare_pane()
    fields = {**compare.setting_fields, **compare.releases.fields}  # the release tab's too
    assert field_differences(compare, {**SETTINGS, **RELEASE_DIFF},
                             (*PANE_SETTINGS, *compare.releases.fields), fields.get) == []  # fmt: skip
    assert set(compare.releases.fields) == {"diff_boot", "seed"}
    assert {SETTINGS[n].label for n in PANE_SETTINGS} <= labels(compare)
    agreement = window.open_agreement_pane()
    assert field_differences(agreement, AGREEMENT, PANE_OPTIONS,
                             lambda n: getattr(agreement, n)) == []  # fmt: skip
    assert {AGREEMENT[n].label for n in PANE_OPTIONS} <= labels(agreement)
    # the seed's range is the command's in full, past what a QSpinBox holds
    assert agreement.seed.maximum() == AGREEMENT["seed"].maximum == 2**32 - 1 > INT_MAX
    assert agreement.bootstrap.value() == 2000  # the value the command has always had
    dialog = window.open_judge_dialog()
    assert field_differences(dialog, JUDGE, DIALOG_OPTIONS, lambda n: getattr(dialog, n)) == []
    form = dialog.findChild(QFormLayout)
    rows = {form.itemAt(r, QFormLayout.ItemRole.LabelRole).widget().text(): r
            for r in range(form.rowCount())
            if form.itemAt(r, QFormLayout.ItemRole.LabelRole)}  # fmt: skip
    for name in DIALOG_OPTIONS:
        field = form.itemAt(rows[f"&{JUDGE[name].label}"], QFormLayout.ItemRole.FieldRole)
        assert field.widget() is getattr(dialog, name), name
    assert dialog.concurrency.value() == 8 and dialog.model.text() == JUDGE_MODEL
    assert STUDY["stratify"].choices == ("task", "modality", "region")  # New study… offers them
    for widget in (compare, agreement, dialog):
        widget.close()


def test_a_field_that_differs_from_its_row_is_caught(qtbot, ct_benchmark, tmp_path):
    """The wrong variants: the pane's old 100,000 draws at most, the dialog's old 256
    requests, a field of the pane's own the table lacks."""
    from PySide6.QtWidgets import QSpinBox

    window, _ = open_window(qtbot, ct_benchmark, tmp_path / "s.db")
    agreement = window.open_agreement_pane()
    agreement.bootstrap.setRange(0, 100_000)
    assert field_differences(agreement, AGREEMENT, PANE_OPTIONS,
                             lambda n: getattr(agreement, n)) == [
        f"bootstrap: range (0, 100000), the table (0, {AGREEMENT['bootstrap'].maximum})"
    ]  # fmt: skip
    dialog = window.open_judge_dialog()
    dialog.concurrency.setRange(1, 256)
    dialog.concurrency.setValue(4)
    extra = QSpinBox(dialog)
    extra.setObjectName("retries")
    assert field_differences(dialog, JUDGE, DIALOG_OPTIONS, lambda n: getattr(dialog, n)) == [
        "concurrency: default 4, the table 8",
        f"concurrency: range (1, 256), the table (1, {JUDGE['concurrency'].maximum})",
        "retries: a field the table lacks",
    ]
    for widget in (agreement, dialog):
        widget.close()


SEED = 4294967295
"""2**32 − 1: the largest seed the commands take, past a QSpinBox's C int."""


def cli_value(*args: str):
    """What the command's parser makes of ``args`` (the value its job gets)."""
    from medrcube_desktop.cli.app import build_parser

    return build_parser().parse_args(list(args))


def test_every_seed_field_takes_what_the_command_takes(qtbot, ct_benchmark, tmp_path):
    """Each seed field of the panes (the image and decoding seeds, the release diff's
    bootstrap seed, the agreement seed; compare's own seed has no field) set to 2**32 − 1 reaches the job as that number,
    the value the command's flag gives; a QSpinBox stopped at 2**31 − 1."""
    from medrcube_desktop.evaluation.image_modes import IMAGE_OPTIONS

    window, _ = open_window(qtbot, ct_benchmark, tmp_path / "s.db")
    compare, agreement = window.open_compare_pane(), window.open_agreement_pane()
    evaluate = window.open_evaluate_pane()
    fields = {
        "release diff --seed": (compare.releases.fields["seed"],
                                lambda: compare.releases.options()["seed"]),
        "agreement --seed": (agreement.seed, lambda: agreement.seed.value()),
        "evaluate --image-seed": (evaluate.image_seed, lambda: evaluate.image_seed.value()),
        "evaluate --seed": (evaluate.seed, lambda: evaluate.engine_values()["seed"]),
    }  # fmt: skip
    for name, (field, sent) in fields.items():
        field.setValue(SEED)
        assert (field.maximum(), sent()) == (SEED, SEED), name
        assert type(sent()) is int, name
    assert cli_value("compare", "--db", "x.db", "--dataset", "d", "--seed", str(SEED)).seed == SEED
    args = cli_value("evaluate", "--dataset", "d", "--db", "x.db", "--model", "m",
                     "--image", "noise", "--image-seed", str(SEED))  # fmt: skip
    assert args.image_seed == SEED == IMAGE_OPTIONS["image_seed"].maximum
    args = cli_value("evaluate", "--dataset", "d", "--db", "x.db", "--model", "m",
                     "--seed", str(SEED))  # fmt: skip
    assert args.seed == SEED
    # typed, as a user types it: every digit kept
    evaluate.image_seed.lineEdit().selectAll()
    qtbot.keyClicks(evaluate.image_seed.lineEdit(), "4294967294")
    assert evaluate.image_seed.value() == SEED - 1
    for widget in (compare, agreement, evaluate):
        widget.close()
