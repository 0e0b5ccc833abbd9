"""Migration 0010 (issue 24): an evaluation run's image mode and the image run an
ablation run is linked to. A database of v9 (without the columns) migrates; its runs
read as image runs, its text-only runs as "text-only"."""

import sqlite3

import pytest

from medrcube_desktop.evaluation.image_modes import (
    BLANK,
    IMAGE,
    TEXT_ONLY,
    run_image_mode,
    run_image_seed,
)
from medrcube_desktop.store import StudyStore, migrations
from medrcube_desktop.store.evaluation import RunRecord


def record(name, **fields):
    fields = {"params": {"image": {}}, **fields}
    return RunRecord(name=name, engine="openai", model="m", prompt_sha256="p",
                     app_version="0", created_at="2026-01-01T00:00:00+00:00", **fields)  # fmt: skip


def v9_database(path, monkeypatch):
    """A database as the app wrote it before 0010, with an image and a text-only run."""
    shipped = migrations.available_migrations()
    assert [m[1] for m in shipped][9] == "0010_image_ablation.sql"
    with monkeypatch.context() as m:
        m.setattr(migrations, "available_migrations", lambda: shipped[:9])
        store = StudyStore(path)
        columns = {r[1] for r in store.conn.execute("PRAGMA table_info(eval_runs)")}
        assert "image_mode" not in columns and "image_run" not in columns
        for name, text in (("m-openai", 0), ("m-openai-text-only", 1)):
            store.conn.execute(
                "INSERT INTO eval_runs (name, engine, model, params, prompt_sha256, text_only,"
                " app_version, created_at) VALUES (?, 'openai', 'm', '{}', 'p', ?, '0', ?)",
                [name, text, "2026-01-01T00:00:00+00:00"],
            )
        store.close()


def test_a_v9_database_migrates_and_its_old_runs_read_with_their_mode(tmp_path, monkeypatch):
    path = tmp_path / "old.db"
    v9_database(path, monkeypatch)
    store = StudyStore(path)
    assert migrations.current_version(store.conn) == len(migrations.available_migrations())
    raw = sqlite3.connect(path).execute(
        "SELECT name, image_mode, image_run FROM eval_runs ORDER BY name"
    )
    assert raw.fetchall() == [
        ("m-openai", "image", None),
        ("m-openai-text-only", "text-only", None),
    ]
    image, text = store.eval_run("m-openai"), store.eval_run("m-openai-text-only")
    assert (image.image_mode, image.image_run, image.text_only) == ("image", "", False)
    assert (text.image_mode, text.image_run, text.text_only) == ("text-only", "", True)
    assert [run_image_mode(image), run_image_mode(text)] == [IMAGE, TEXT_ONLY]
    assert (path.parent / "old.db.bak-v9").exists()


def test_a_run_keeps_its_mode_and_link_and_the_database_refuses_an_unknown_mode(tmp_path):
    store = StudyStore(tmp_path / "s.db")
    run = record("m-blank", image_mode=BLANK, image_run="m-openai",
                 params={"image": {"mode": BLANK, "seed": 7}})  # fmt: skip
    store.save_run(run)
    back = store.eval_run("m-blank")
    assert (back.image_mode, back.image_run, back.text_only) == (BLANK, "m-openai", False)
    assert run_image_seed(back) == 7 and run_image_seed(record("x")) is None
    with pytest.raises(sqlite3.IntegrityError):
        store.conn.execute("UPDATE eval_runs SET image_mode = 'sepia' WHERE name = 'm-blank'")


def test_text_only_and_the_text_only_mode_are_one():
    assert record("a", text_only=True).image_mode == TEXT_ONLY
    assert record("b", image_mode=TEXT_ONLY).text_only is True
    assert run_image_mode(record("c")) == IMAGE
    with pytest.raises(ValueError, match="text_only with image mode 'blank'"):
        record("d", text_only=True, image_mode=BLANK)
