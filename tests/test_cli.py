import json

from medrcube_desktop.cli import main
from tests.conftest import dicom_file, item, write_benchmark


def test_validate_clean_benchmark_exits_0(ct_benchmark, capsys):
    assert main(["validate", str(ct_benchmark), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"items": 2, "problems": []}


def test_validate_with_problems_exits_1_and_lists_file_item_field(tmp_path, capsys):
    root = write_benchmark(
        tmp_path / "b",
        {"ds1": [item("ok"), item("bad", gt_answer="PET")]},
        {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")},
    )
    assert main(["validate", str(root), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["items"] == 1
    assert report["problems"] == [
        {
            "file": "ds1/test.json",
            "item": "bad",
            "field": "gt_answer",
            "message": "'PET' matches no option",
        }
    ]
    assert main(["validate", str(root)]) == 1
    assert (
        "ds1/test.json item bad field gt_answer: 'PET' matches no option" in capsys.readouterr().out
    )


def test_validate_unusable_dir_exits_2_with_one_line(tmp_path, capsys):
    assert main(["validate", str(tmp_path / "nope")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "does not exist" in err


def test_every_command_and_option_is_documented_in_the_readme():
    from pathlib import Path

    from medrcube_desktop.cli import SUBCOMMANDS, _gui_parser

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    for name in SUBCOMMANDS:
        assert f"medrcube-desktop {name}" in readme, name
    for action in _gui_parser()._actions:
        for flag in action.option_strings:
            if flag not in ("-h", "--help", "--version"):
                assert flag in readme, flag


def test_validate_with_no_loadable_item_exits_1(tmp_path, capsys):
    root = write_benchmark(tmp_path / "b", {"ds1": [], "ds2": [item("bad", image="none.dcm")]})
    assert main(["validate", str(root), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["items"] == 0
    assert [(p["file"], p["item"], p["field"]) for p in report["problems"]] == [
        ("ds2/test.json", "bad", "image_path")
    ]
    assert main(["validate", str(write_benchmark(tmp_path / "e", {"ds1": []}))]) == 1
    assert "0 loadable items, 0 problems" in capsys.readouterr().out


def test_quit_after_ms_out_of_qt_range_is_a_usage_error(capsys):
    import pytest

    with pytest.raises(SystemExit) as exit_info:
        main(["--dataset", ".", "--quit-after-ms", str(2**31)])
    assert exit_info.value.code == 2
    assert "must be between 0 and 2147483647 ms" in capsys.readouterr().err


def test_render_refuses_to_overwrite_its_source(tmp_path, capsys, monkeypatch):

    source = tmp_path / "scan.png"
    from PIL import Image

    Image.new("L", (8, 8), 100).save(source)
    before = source.read_bytes()
    monkeypatch.chdir(tmp_path)
    assert main(["render", "scan.png"]) == 2
    assert "would overwrite the source" in capsys.readouterr().err
    assert source.read_bytes() == before
