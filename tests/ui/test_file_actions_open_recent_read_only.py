"""A plain start whose last study's database is read-only falls through to the next."""

import shutil

from medrcube_desktop.settings import Settings
from tests.ui.test_file_actions_open_recent import start_plainly


def test_a_read_only_database_falls_through_to_the_next_entry(ct_benchmark, tmp_path):
    archived = tmp_path / "archived"
    shutil.copytree(ct_benchmark, archived)
    prefs = Settings()
    prefs.remember_study(ct_benchmark, tmp_path / "kept.db")
    prefs.remember_study(archived, tmp_path / "archived.db")
    prefs.save()
    (tmp_path / "kept.db").write_bytes(b"")  # an empty file is a new study database
    read_only = tmp_path / "archived.db"
    read_only.write_bytes(b"")
    read_only.chmod(0o444)
    started = start_plainly("--reviewer", "dr-a")
    assert started.returncode == 0, started.stderr
    assert f"reviews are saved in {(tmp_path / 'kept.db').resolve()}" in started.stderr
    assert (
        "INFO medrcube_desktop.ui.app: Reopened the last benchmark still there, bench: "
        f"{read_only.resolve()}: the review database is read-only"
    ) in started.stderr
    assert Settings.load().recent[0].db == str((tmp_path / "kept.db").resolve())
