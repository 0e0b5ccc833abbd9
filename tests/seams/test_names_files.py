"""Names in files and at the edges (issue 21): every file ``compare --out`` and
``agreement --out`` write shows a hidden character of a stored name as its escape (SVGs
parse as XML, no control character in any text file, no warning); names that create are
checked (NFC, visible, at most 200 characters), names that select are taken as given;
settings.json's reviewer is checked; ``assign --databases`` file names serve every
script and case."""

from __future__ import annotations

import argparse
import json
import re
import unicodedata
import warnings
import xml.dom.minidom

import numpy as np
import pytest

from medrcube_desktop.cli import argtypes, build_parser, main
from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.core.names import MAX_NAME_LENGTH, check_name, file_text, html_text
from medrcube_desktop.evaluation.results_json import item_record
from medrcube_desktop.store import Review, StudyStore, utc_now
from tests.conftest import dicom_file, item, write_benchmark
from tests.evaluation.compare.test_matrix import _run
from tests.review.experts_fixture import ITEMS, fill, scores_of

EVIL = "ev\x1b]0;PWN\x07\x00x\u202e"  # ESC, BEL, NUL, RLO: what the hostile tester stored
EVIL_SHOWN = r"ev\x1b]0;PWN\x07\x00x\u202e"
FORBIDDEN = re.compile(  # C0 but tab/LF/CR, DEL, C1, bidi controls, U+FFFE/U+FFFF
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ufffe\uffff]"
)


def _status(args) -> int:
    try:
        return main(args)
    except SystemExit as exc:
        return int(exc.code)


@pytest.fixture
def bench(tmp_path):
    tasks = ("Modality Recognition", "View Identification", "Disease Diagnosis",
             "Organ Recognition")  # fmt: skip
    records = [item(f"i{n}", task=tasks[n % 4], question=f"question {n}?") for n in range(16)]
    return write_benchmark(
        tmp_path / "b", {"ds1": records}, {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")}
    )


def _check_folder(out) -> list[str]:
    """Every SVG parses; no text file holds a forbidden character. The files checked."""
    checked = []
    for path in sorted(out.rglob("*")):
        if path.suffix == ".svg":
            xml.dom.minidom.parse(str(path))  # raises ExpatError when not well-formed
        if path.suffix in (".svg", ".csv", ".html", ".json"):
            text = path.read_text(encoding="utf-8-sig")
            found = FORBIDDEN.search(text)
            assert found is None, f"{path.name}: {text[max(0, found.start() - 40) : found.end()]!r}"
            checked.append(path.name)
    return checked


def _quietly(args) -> int:
    """``main(args)``, asserting no Python warning was raised (matplotlib's "Glyph 27
    missing", a layout collapsed by a huge label)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        status = main(args)
    # ResourceWarning is left out: the garbage collector raises it, at a moment of its
    # choosing, for a pipe an earlier test's subprocess left open (seen once in a whole
    # run: "unclosed file <_io.FileIO name=87 mode='rb'>"), not for anything main() did
    said = [str(w.message) for w in caught if not issubclass(w.category, ResourceWarning)]
    assert said == []
    return status


def test_file_text_is_the_terminal_rule_and_legal_xml():
    every = "".join(map(chr, range(0x20))) + "\x7f\x85\u202e\u2066\ufffe\uffff\ud800"
    shown = file_text(every)
    assert not FORBIDDEN.search(shown) and all(c in shown for c in "\t\n\r")
    xml.dom.minidom.parseString(f"<a>{html_text(every)}</a>")  # legal XML once escaped
    assert file_text(EVIL) == EVIL_SHOWN
    assert html_text("<b>&\x1b") == r"&lt;b&gt;&amp;\x1b"
    assert file_text("Dr. Müller 山田 👩\u200d⚕️") == "Dr. Müller 山田 👩\u200d⚕️"


@pytest.mark.slow
def test_every_file_of_compare_out_copes_with_stored_names(bench, tmp_path, capsys):
    items = load_benchmark(bench).items
    db = tmp_path / "old.db"
    store = StudyStore(db)  # the store takes any name: what older versions stored
    rng = np.random.default_rng(1)
    long = "d" * 5000
    names = ("plain", EVIL, "x\uffffy", "tab\trun", long)
    for run in names:
        _run(store, run, {i.id: ("B" if rng.random() < 0.7 else "A") for i in items})
    store.close()
    out = tmp_path / "cmp"
    args = ["compare", "--db", str(db), "--dataset", str(bench), "--min-items", "1"]
    args += ["--bootstrap", "0", "--out", str(out)]
    for run in names:  # selected by name as stored: they reach the Reproduce line too
        args += ["--run", run]
    assert _quietly(args) == 0
    captured = capsys.readouterr()
    assert not FORBIDDEN.search(captured.out + captured.err)
    checked = _check_folder(out)
    assert {"leaderboard.csv", "credibility.csv", "report.html"} <= set(checked)
    assert sum(name.endswith(".svg") for name in checked) >= 2
    assert EVIL_SHOWN in (out / "leaderboard.csv").read_text(encoding="utf-8-sig")
    footer = (out / "report.html").read_text(encoding="utf-8").rsplit("<footer", 1)[1]
    assert html_text(EVIL_SHOWN) in footer  # the Reproduce command, made visible


def test_every_file_of_agreement_out_copes_with_a_stored_reviewer_name(tmp_path, capsys):
    db = tmp_path / "s.db"
    store = fill(StudyStore(db), experts=("dr-a",))
    for item_id in ITEMS:  # the store takes any name: what an older version stored
        store.save_review(Review(EVIL, item_id, scores_of("dr-b", item_id), "c", utc_now(),
                                 utc_now()))  # fmt: skip
    store.close()
    for n, other in enumerate((["--reviewer", "dr-a", "--model", "gpt-5.1"],
                               ["--reviewer2", "dr-a"])):  # fmt: skip
        out = tmp_path / f"out{n}"
        args = ["agreement", "--db", str(db), "--reviewer", EVIL, *other, "--bootstrap", "0"]
        assert _quietly([*args, "--out", str(out)]) == 0
        captured = capsys.readouterr()
        assert not FORBIDDEN.search(captured.out + captured.err)
        checked = _check_folder(out)
        assert "report.html" in checked
        assert html_text(EVIL_SHOWN) in (out / "report.html").read_text(encoding="utf-8")
    assert EVIL_SHOWN in (tmp_path / "out0" / "agreement_long.csv").read_text("utf-8-sig")


def test_check_name_normalises_and_refuses_invisible_and_huge_names():
    nfd, nfc = "cafe\u0301", "caf\u00e9"
    assert check_name(f" {nfd} ") == nfc and unicodedata.is_normalized("NFC", nfc)
    for blank in ("\u3164", "\u2800", "\u0301", "\u115f\u1160", "\u200d", "\u2800\u0301"):
        with pytest.raises(ValueError, match="no visible character"):
            check_name(blank, "run name")
    with pytest.raises(ValueError, match="5,000 characters, at most 200"):
        check_name("n" * 5000)
    assert check_name("n" * MAX_NAME_LENGTH) == "n" * MAX_NAME_LENGTH
    for good in ("李明", "한글", "Dr. Ana Lü", "👩\u200d⚕️", "ab\u3164c"):
        assert check_name(good) == good


def test_import_run_stores_the_normalised_name_and_refuses_blank_looking_ones(
    bench, tmp_path, capsys
):
    items = load_benchmark(bench).items
    path = tmp_path / "r.json"
    path.write_text(json.dumps([{**item_record(i), "model_response": "B"} for i in items]))
    db = tmp_path / "s.db"
    imp = ["import-run", "--db", str(db), "--dataset", str(bench)]
    for blank in ("\u3164", "\u2800", "\u0301", "z" * 5000):
        assert _status([*imp, "--run", blank, str(path)]) == 2
        capsys.readouterr()
    assert main([*imp, "--run", "cafe\u0301", "--model", "m", str(path)]) == 0
    capsys.readouterr()  # NFD and NFC are one name: the second import finds it stored
    assert _status([*imp, "--run", "caf\u00e9", "--model", "m", str(path)]) in (0, 1)
    store = StudyStore(db)
    try:
        assert store.eval_run_names() == ["caf\u00e9"]
    finally:
        store.close()


NAME_OPTIONS = {"reviewer", "reviewer2", "model", "run", "name", "new_reviewer", "study"}


def _subcommands(parser: argparse.ArgumentParser):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            yield from action.choices.items()


def test_every_name_option_is_a_new_name_or_an_existing_name():
    """Names that create are checked; names that select are taken as given: every name
    option of every subcommand says which (none left untyped or plain ``str``)."""
    kinds = {}
    for command, sub in _subcommands(build_parser()):
        for action in sub._actions:
            if command == "import-run" and action.dest in ("run", "model"):
                continue  # checked by the command (check_name, with the file's stem)
            if action.dest in NAME_OPTIONS and action.option_strings:
                assert action.type in (argtypes.new_name, argtypes.existing_name), (
                    f"{command} {action.option_strings[0]}: type {action.type!r}"
                )
                kinds[(command, action.option_strings[0])] = action.type
    creates = {("evaluate", "--model"), ("judge", "--model"), ("import-judgments", "--model"),
               ("import-reviews", "--reviewer"), ("assign", "--new-reviewer")}  # fmt: skip
    selects = {("export-reviews", "--reviewer"), ("export-judgments", "--model"),
               ("agreement", "--reviewer"), ("adjudicate-queue", "--reviewer"),
               ("export-run", "--run"), ("compare", "--run")}  # fmt: skip
    assert all(kinds[key] is argtypes.new_name for key in creates)
    assert all(kinds[key] is argtypes.existing_name for key in selects)


def test_names_an_older_database_holds_can_be_exported(tmp_path, capsys):
    db = tmp_path / "s.db"
    store = fill(StudyStore(db), experts=("dr-a",))
    for item_id in ITEMS:
        store.save_review(Review(EVIL, item_id, scores_of("dr-a", item_id), "c", utc_now(),
                                 utc_now()))  # fmt: skip
    store.close()
    out = tmp_path / "r.csv"
    assert main(["export-reviews", "--db", str(db), "--reviewer", EVIL, "--out", str(out)]) == 0
    text = out.read_text(encoding="utf-8-sig")
    assert EVIL_SHOWN in text and not FORBIDDEN.search(text)
    capsys.readouterr()
    new = ["import-reviews", str(out), "--db", str(tmp_path / "n.db"), "--reviewer", EVIL]
    assert _status(new) == 2  # a new reviewer name is checked
    assert "U+001B" in capsys.readouterr().err


def test_settings_reviewer_is_checked_and_normalised(tmp_path, monkeypatch, caplog):
    from medrcube_desktop import settings

    monkeypatch.setenv("MEDRCUBE_CONFIG_DIR", str(tmp_path))
    path = settings.Settings.path()
    path.write_text(json.dumps({"reviewer": "dr\u001b]0;PWN\u0007x\u202e", "theme": "dark"}))
    with caplog.at_level("WARNING"):
        loaded = settings.Settings.load()
    assert loaded.reviewer is None and loaded.theme == "dark"
    assert "U+001B" in caplog.text and "\x1b" not in caplog.text.replace("\\x1b", "")
    for stored, kept in (("  dr-a ", "dr-a"), ("cafe\u0301", "caf\u00e9"), ("\u3164", None)):
        path.write_text(json.dumps({"reviewer": stored}))
        assert settings.Settings.load().reviewer == kept


def test_ask_reviewer_asks_again_for_a_stored_name_it_refuses(monkeypatch):
    pytest.importorskip("PySide6")
    from medrcube_desktop.ui import app

    asked = []

    def get_text(parent, title, prompt):
        asked.append(prompt)
        return "dr-b", True

    monkeypatch.setattr(app.QInputDialog, "getText", staticmethod(get_text))
    assert app.ask_reviewer("dr\x1b]0;x\x07") == "dr-b" and len(asked) == 1
    assert app.ask_reviewer(" dr-a ") == "dr-a" and len(asked) == 1


def test_assign_databases_serves_every_script_and_case(bench, tmp_path, capsys):
    db, folder = tmp_path / "s.db", tmp_path / "dbs"
    long = "x" * 199
    names = ["李明", "王芳", "café", "Ab", "ab", long]
    args = ["assign", "--db", str(db), "--dataset", str(bench), "--databases", str(folder)]
    for name in names:
        args += ["--reviewer", name]
    assert main([*args, "--json"]) == 0
    files = json.loads(capsys.readouterr().out)["databases"]
    assert set(files) == set(names)
    stems = {name: files[name].rsplit("/", 1)[1] for name in names}
    assert stems["李明"] == "李明.db" and stems["王芳"] == "王芳.db" and stems["café"] == "café.db"
    assert stems["Ab"].casefold() != stems["ab"].casefold()  # apart on macOS and Windows
    assert stems["Ab"].startswith("Ab-") and stems["ab"].startswith("ab-")
    assert len(stems[long].encode()) <= 255 and re.search(r"-[0-9a-f]{8}\.db$", stems[long])
    assert sorted(p.name for p in folder.iterdir()) == sorted(stems.values())
