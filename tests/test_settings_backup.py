"""A settings file the app cannot read is kept aside, never overwritten with defaults."""

import json
import logging

import pytest

from medrcube_desktop.settings import Settings


@pytest.mark.parametrize(
    "text",
    [
        '{"shortcuts": {"next_item": ["Ctrl+J"]},}',  # a trailing comma: a syntax error
        "[1, 2]",  # JSON, not an object
        '{"shortcuts": {"next_item": "Ctrl+J"}}',  # a shortcut that is not a list
        b"\xff\xfe{}",  # not UTF-8
    ],
)
def test_an_unreadable_settings_file_is_kept_before_saving(text, caplog):
    path = Settings.path()
    path.parent.mkdir(parents=True, exist_ok=True)
    data = text if isinstance(text, bytes) else text.encode()
    path.write_bytes(data)
    prefs = Settings.load()
    prefs.reviewer = "dr-a"
    with caplog.at_level(logging.WARNING):
        assert prefs.save()
    backups = sorted(path.parent.glob("settings.json.broken-*"))
    assert len(backups) == 1 and backups[0].read_bytes() == data
    assert str(backups[0]) in caplog.text
    assert json.loads(path.read_text())["reviewer"] == "dr-a"
    assert prefs.save()  # the file is readable now: no second copy
    assert sorted(path.parent.glob("settings.json.broken-*")) == backups


def test_a_readable_settings_file_gets_no_copy():
    path = Settings.path()
    Settings(reviewer="dr-a", shortcuts={"next_item": ["Ctrl+J"]}).save()
    Settings.load().save()
    assert not list(path.parent.glob("settings.json.broken-*"))
    assert Settings.load().shortcuts == {"next_item": ["Ctrl+J"]}
