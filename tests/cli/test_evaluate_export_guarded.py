"""export-run never replaces another study (issue 21: ``export-run --out other.db``
replaced a second database with the results.json)."""

from medrcube_desktop.cli import main
from medrcube_desktop.store import StudyStore
from medrcube_desktop.store.evaluation import ResponseRecord, RunRecord


def _db_with_a_run(path):
    store = StudyStore(path)
    try:
        store.save_run(RunRecord(name="r1", engine="openai", model="m", params={},
                                 prompt_sha256="x", app_version="0", created_at="2024"))  # fmt: skip
        store.save_response(
            ResponseRecord(run="r1", item_id="q00", response="B", parsed_answer="B",
                           parse_method="letter", correct=True, official_answer="B",
                           official_correct=True, created_at="2024")
        )  # fmt: skip
    finally:
        store.close()
    return path


def test_export_run_refuses_another_study_database(bench, tmp_path, capsys):
    db = _db_with_a_run(tmp_path / "study.db")
    other = tmp_path / "other.db"
    StudyStore(other).close()
    before = other.read_bytes()
    export = ["export-run", "--db", str(db), "--run", "r1", "--dataset", str(bench)]
    assert main([*export, "--out", str(other)]) == 2
    err = capsys.readouterr().err
    assert f"{other}: is a SQLite database" in err and "not written over" in err
    assert other.read_bytes() == before
    assert main([*export, "--out", str(tmp_path / "results.json")]) == 0  # elsewhere: written
