"""``import-run``: a refused import leaves no database, its messages are the app's own."""

import json

from medrcube_desktop.cli import main
from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.evaluation.results_json import item_record
from tests.cli.test_compare import _bench


def _records(items, answer="B"):
    return [{**item_record(i), "model_response": answer} for i in items]


def test_a_refused_import_leaves_no_new_database_and_says_no_created(tmp_path, capsys):
    root = _bench(tmp_path)
    empty = tmp_path / "empty.json"
    empty.write_text("[]")
    db = tmp_path / "new.db"
    assert main(["import-run", "--db", str(db), "--dataset", str(root), str(empty)]) == 2
    err = capsys.readouterr().err
    assert not db.exists() and not (tmp_path / "new.db-wal").exists()
    assert "created a new review database" not in err
    assert "empty.json: empty: no record" in err and "warning:" not in err


def test_unreadable_files_are_named_in_the_apps_words(tmp_path, capsys):
    root = _bench(tmp_path)
    items = load_benchmark(root).items
    zero = tmp_path / "zero.json"
    zero.write_bytes(b"")
    utf16 = tmp_path / "utf16.json"
    utf16.write_bytes(json.dumps(_records(items)).encode("utf-16-le"))  # no BOM
    broken = tmp_path / "broken.json"
    broken.write_text("[1,")
    db = tmp_path / "s.db"
    for path, words in (
        (zero, "zero.json: an empty file (0 bytes), not a results.json"),
        (utf16, "utf16.json: cannot read results: NUL bytes, as UTF-16 text without a "
                "byte-order mark has: save it as UTF-8"),
        (broken, "broken.json: cannot read results: not valid JSON at line 1, column 4 "
                 "(a value was expected)"),
    ):  # fmt: skip
        assert main(["import-run", "--db", str(db), "--dataset", str(root), str(path)]) == 2
        err = capsys.readouterr().err
        assert words in err, err
        assert "Expecting" not in err and "char " not in err and "warning:" not in err
    assert not db.exists()


def test_one_response_a_tab_in_a_name_and_a_reformatted_copy(tmp_path, capsys):
    root = _bench(tmp_path)
    items = load_benchmark(root).items
    one = tmp_path / "one\tmodel.json"
    one.write_text(json.dumps(_records(items[:1])))
    db = tmp_path / "s.db"
    base = ["import-run", "--db", str(db), "--dataset", str(root)]
    assert main([*base, "--run", "one", str(one)]) == 0
    out, err = capsys.readouterr()
    assert out.strip() == "1 response stored in run one"
    original = tmp_path / "model-a.json"
    original.write_text(json.dumps(_records(items)))
    pretty = tmp_path / "model-b.json"  # same records, other bytes
    pretty.write_text(json.dumps(_records(items), indent=2))
    assert main([*base, str(original)]) == 0
    capsys.readouterr()
    assert main([*base, str(pretty)]) == 0
    err = capsys.readouterr().err
    assert "model-b.json: the same content (records" in err and "run 'model-a'" in err
    assert main([*base, str(pretty)]) == 0  # again: already stored, said once only
    out, err = capsys.readouterr()
    assert "already stored" in out and "the same content" not in err
    twice = tmp_path / "two\tfiles"
    twice.mkdir()
    assert main([*base, str(twice / "missing.json")]) == 2
    err = capsys.readouterr().err
    assert "two\\tfiles" in err and "\t" not in err
