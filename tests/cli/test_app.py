import json

from medrcube_desktop.cli import main
from tests.conftest import dicom_file, item, write_benchmark


def test_validate_clean_benchmark_exits_0(ct_benchmark, capsys):
    assert main(["validate", str(ct_benchmark), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"items": 2, "problems": [], "restricted": []}


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


def _guide_pages() -> dict[str, str]:
    """README.md and the user guide's pages (``docs/*.md``), by path relative to the root."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    pages = [root / "README.md", *sorted((root / "docs").glob("*.md"))]
    return {str(page.relative_to(root)): page.read_text() for page in pages}


def _readme_sections() -> dict[str, str]:
    """The command-line reference of README and the guide (``docs/*.md``): ``### `medrcube-desktop
    NAME` `` headings, each with the text up to the next heading. A command documented
    on two pages is an error (which one would a reader trust?)."""
    import re

    sections: dict[str, str] = {}
    for page, text in _guide_pages().items():
        parts = re.split(r"^### `(medrcube-desktop[^`]*)`\s*$", text, flags=re.M)
        for head, body in zip(parts[1::2], parts[2::2], strict=True):
            name = head.removeprefix("medrcube-desktop").strip()
            assert name not in sections, f"{page}: {head} is documented twice"
            sections[name] = re.split(r"^#", body, flags=re.M)[0]
    return sections


def _flags(parser) -> set[str]:
    import argparse

    return {  # the program's own --version (its version) is not an option to document
        flag
        for action in parser._actions
        for flag in action.option_strings
        if flag not in ("-h", "--help") and not isinstance(action, argparse._VersionAction)
    }


def test_each_command_documents_its_own_options_in_its_readme_section():
    # generated from the parser: a new command or option without its README entry fails,
    # and an option documented only under another command does not count
    from medrcube_desktop.cli import build_parser, commands

    sections = _readme_sections()
    found = commands()
    assert set(sections) == {"", *found}, "README sections and commands differ"
    for name, parser in found.items():
        missing = {f for f in _flags(parser) if not _mentions(sections[name], f)}
        assert not missing, (name, missing)
    window = _flags(build_parser())
    assert window and not {f for f in window if not _mentions(sections[""], f)}


def _mentions(text: str, flag: str) -> bool:
    """``flag`` as a whole word (``--revision`` is not in ``--revisions``)."""
    import re

    return re.search(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", text) is not None


def test_every_option_the_docs_name_exists_in_its_commands_parser():
    # the reverse direction: a synopsis (```text) or a quoted command line
    # (`medrcube-desktop CMD --flag ...`) naming an option the parser lacks is a stale doc
    import re

    from medrcube_desktop.cli import build_parser, commands

    found = commands()
    known = {name: _flags(parser) | {"--help"} for name, parser in found.items()}
    known[""] = _flags(build_parser()) | {"--help", "--version"}
    sections = _readme_sections()
    for name, body in sections.items():
        for synopsis in re.findall(r"```text\n(.*?)```", body, flags=re.S):
            named = set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", synopsis))
            assert named <= known[name], (name, named - known[name])
    quoted = [
        span
        for text in _guide_pages().values()
        for span in re.findall(r"`(medrcube-desktop[^`]*)`", text)
    ]
    assert len(quoted) > 20, "the quoted command lines were not found"
    for span in quoted:
        words = span.split()[1:]
        command = next((n for n in found if f"{' '.join(words)} ".startswith(f"{n} ")), "")
        if command == "" and words and not words[0].startswith("-"):
            raise AssertionError(f"`{span}` names no command")
        named = set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", span))
        allowed = known[command] | (known[""] if command == "" else set())
        assert named <= allowed, (span, named - allowed)


def test_readme_tour_names_every_command_and_links_its_page():
    # README is the front door: each command has its one line there, linking to the
    # guide page whose section documents it
    import re

    pages = _guide_pages()
    tour = pages["README.md"].split("## A short tour", 1)[1].split("\n## ", 1)[0]
    from medrcube_desktop.cli import commands

    for name in commands():
        lines = [bullet for bullet in tour.split("\n- ") if f"`{name}`" in bullet]
        assert lines, f"README's tour has no line for `{name}`"
        linked = {f"docs/{m}" for m in re.findall(r"\(docs/([\w-]+\.md)", lines[0])}
        homes = {
            page
            for page, text in pages.items()
            if re.search(rf"^### `medrcube-desktop {re.escape(name)}`\s*$", text, re.M)
        }
        assert homes and homes <= linked, (name, homes, linked)


def test_readme_sections_are_each_commands_own():
    sections = _readme_sections()
    assert _mentions(sections["evaluate"], "--chunk-size")
    assert not _mentions(sections["judge"], "--chunk-size")
    assert not _mentions("--revisions", "--revision")
    assert "--revisions" in sections["export-reviews"] and "--revisions" not in sections["merge"]


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
