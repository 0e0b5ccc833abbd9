"""File › Open Recent and the plain start's "last benchmark", in the settings (issue 21)."""

import json

from medrcube_desktop import settings
from medrcube_desktop.settings import RECENT_LIMIT, RecentStudy, Settings


def _study(tmp_path, name):
    folder = tmp_path / name
    folder.mkdir()
    db = tmp_path / f"{name}.sqlite"
    db.write_bytes(b"")
    return folder, db


def test_the_last_ten_are_kept_newest_first_without_repeats(tmp_path):
    prefs = Settings()
    studies = [_study(tmp_path, f"b{n}") for n in range(12)]
    for folder, db in studies:
        prefs.remember_study(folder, db)
    prefs.remember_study(*studies[5])  # opened again: moves to the top, once
    assert len(prefs.recent) == RECENT_LIMIT == 10
    assert [e.dataset for e in prefs.recent[:2]] == [str(studies[5][0]), str(studies[11][0])]
    assert [e.dataset for e in prefs.recent].count(str(studies[5][0])) == 1
    assert str(studies[0][0]) not in [e.dataset for e in prefs.recent]  # fell off
    assert prefs.last_dataset == str(studies[5][0])
    assert prefs.save()
    again = Settings.load()
    assert again.recent == prefs.recent
    stored = json.loads(Settings.path().read_text())["recent"][0]
    assert stored == {"dataset": str(studies[5][0]), "db": str(studies[5][1])}


def test_one_benchmark_with_two_databases_is_two_entries(tmp_path):
    folder, db = _study(tmp_path, "bench")
    other = tmp_path / "other.sqlite"
    prefs = Settings()
    prefs.remember_study(folder, db)
    prefs.remember_study(folder, other)
    assert [e.db for e in prefs.recent] == [str(other), str(db)]


def test_a_plain_start_passes_over_what_is_gone_and_says_why(tmp_path):
    kept, kept_db = _study(tmp_path, "kept")
    gone, gone_db = _study(tmp_path, "gone")
    no_db, lost_db = _study(tmp_path, "no-db")
    prefs = Settings()
    prefs.remember_study(kept, kept_db)
    prefs.remember_study(no_db, lost_db)
    prefs.remember_study(gone, gone_db)
    gone.rmdir()
    lost_db.unlink()
    entry, passed_over = prefs.last_study()
    assert entry == RecentStudy(str(kept), str(kept_db))
    assert passed_over == [
        f"the benchmark folder {gone} is missing (moved or removed)",
        f"the study database {lost_db} is missing (moved or removed)",
    ]
    kept.rmdir()
    assert prefs.last_study() == (None, passed_over + [
        f"the benchmark folder {kept} is missing (moved or removed)"
    ])  # fmt: skip


def test_an_older_settings_file_reopens_its_last_dataset_with_the_default_database(tmp_path):
    folder = tmp_path / "bench"
    folder.mkdir()
    Settings.path().parent.mkdir(parents=True, exist_ok=True)
    Settings.path().write_text(json.dumps({"last_dataset": str(folder)}))
    entry, passed_over = Settings.load().last_study()
    assert entry == RecentStudy(str(folder)) and passed_over == []
    assert entry.database() == settings.default_db_path(folder)


def test_bad_recent_entries_are_dropped_and_the_rest_is_read(tmp_path):
    folder, db = _study(tmp_path, "a")  # (an entry that is gone is dropped when read)
    Settings.path().parent.mkdir(parents=True, exist_ok=True)
    Settings.path().write_text(
        json.dumps(
            {
                "reviewer": "dr-a",
                "recent": [
                    {"dataset": str(folder), "db": str(db)},
                    {"db": "/x"},
                    "nonsense",
                    {"dataset": 3},
                ],
            }
        )
    )
    loaded, why = Settings._read(Settings.path())
    assert loaded.reviewer == "dr-a"
    assert loaded.recent == [RecentStudy(str(folder), str(db))]
    assert why == "read without recent"
