"""Counts in words agree with the count on every surface (issue 21: "1 restricted
items")."""

import pytest

from medrcube_desktop.cli import main
from medrcube_desktop.core.words import plural, verb
from tests.conftest import dicom_file, item, write_benchmark


def test_plural_and_verb_agree_with_the_count():
    assert [plural(n, "restricted item") for n in (0, 1, 2)] == [
        "0 restricted items", "1 restricted item", "2 restricted items",
    ]  # fmt: skip
    assert plural(3, "person", "people") == "3 people"
    assert (verb(1, "has", "have"), verb(2, "has", "have")) == ("has", "have")


def _bench(tmp_path, n_restricted):
    records = [item("good")] + [
        item(f"secret{n}", image=f"images/r{n}.png", restricted=True) for n in range(n_restricted)
    ]
    return write_benchmark(tmp_path / "b", {"ds1": records},
                           {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")})  # fmt: skip


@pytest.mark.parametrize(
    ("n", "said"),
    [
        (1, "1 restricted item (image not redistributed) included"),
        (2, "2 restricted items (image not redistributed) included"),
    ],
)
def test_the_command_counts_restricted_items_in_words_that_agree(tmp_path, capsys, n, said):
    root = _bench(tmp_path, n)
    args = ["study", "--dataset", str(root), "--db", str(tmp_path / "s.db"), "--name", "s",
            "--n", "1"]  # fmt: skip
    assert main(args) == 0
    assert said in capsys.readouterr().err


def test_the_problems_box_counts_restricted_items_in_words_that_agree(qtbot):
    from medrcube_desktop.ui.dialogs import problems_box

    box = problems_box(None, ["ds1/test.json item x: bad"], restricted=["secret"])
    assert box.text().startswith("1 problem\n1 item without its image, which")
    assert box.text().endswith("; not a problem")
    box = problems_box(None, [], restricted=["a", "b"])
    assert "0 problems\n2 items without their image" in box.text()


def test_validate_counts_one_restricted_item_in_the_singular(tmp_path, capsys):
    root = _bench(tmp_path, 1)
    assert main(["validate", str(root)]) == 0
    out = capsys.readouterr().out
    assert "1 loadable item, 0 problems, 1 restricted without its image" in out
    assert "1 restricted item without its image" in out
