"""Open Recent: entries that are gone are dropped before the list is cut to ten, and a
plain start says how many in one short line."""

import json

from medrcube_desktop.settings import RECENT_LIMIT, RecentStudy, Settings


def _write(entries):
    Settings.path().parent.mkdir(parents=True, exist_ok=True)
    Settings.path().write_text(json.dumps({"recent": entries}))


def test_ten_thousand_gone_entries_ahead_of_one_that_opens(tmp_path):
    kept = tmp_path / "kept"
    kept.mkdir()
    gone = [{"dataset": str(tmp_path / f"gone-{n}"), "db": None} for n in range(10_000)]
    _write([*gone, {"dataset": str(kept), "db": None}])
    prefs = Settings.load()
    assert prefs.recent == [RecentStudy(str(kept))]
    entry, passed_over = prefs.last_study()
    assert entry == RecentStudy(str(kept))
    assert passed_over == [
        "10000 more recent benchmarks are gone (moved or removed); the newest: the "
        f"benchmark folder {tmp_path / 'gone-0'} is missing (moved or removed)"
    ]
    assert prefs.save()  # what is gone is not written back, nor the notes
    stored = json.loads(Settings.path().read_text())
    assert stored["recent"] == [{"dataset": str(kept), "db": None}] and "recent_gone" not in stored


def test_nothing_left_is_one_short_line_and_the_list_keeps_ten(tmp_path):
    _write([{"dataset": str(tmp_path / f"gone-{n}")} for n in range(10_000)])
    entry, passed_over = Settings.load().last_study()
    assert entry is None and passed_over == [  # one line naming the newest, not 10,000
        "10000 more recent benchmarks are gone (moved or removed); the newest: the "
        f"benchmark folder {tmp_path / 'gone-0'} is missing (moved or removed)"
    ]
    folders = []
    for n in range(12):
        (tmp_path / f"b{n}").mkdir()
        folders.append({"dataset": str(tmp_path / f"b{n}")})
    _write([{"dataset": str(tmp_path / "gone")}, *folders])
    prefs = Settings.load()
    assert len(prefs.recent) == RECENT_LIMIT
    assert prefs.recent[0] == RecentStudy(str(tmp_path / "b0"))
    assert prefs.last_study()[1] == [
        f"the benchmark folder {tmp_path / 'gone'} is missing (moved or removed)"
    ]
