"""The agreement study on a corrected release (issue 23 item 5): its retired items drop
out, the export records the release, and without a release nothing changes."""

import json

from medrcube_desktop.cli import main
from medrcube_desktop.core.rubric import RULE_IDS
from medrcube_desktop.review.agreement.run import run_study
from medrcube_desktop.store import Review, StudyStore
from tests import release_fixture as rf

PASS = dict.fromkeys(RULE_IDS, 1)


def _review(reviewer, item, **fails):
    scores = {**PASS, **{rule.replace("_", "."): 0 for rule in fails}}
    return Review(reviewer, item, scores=scores, comment="", started_at="2026-01-01T10:00:00+00:00",
                  committed_at="2026-01-01T10:01:00+00:00")  # fmt: skip


def _study(tmp_path):
    source = rf.write_source(tmp_path / "source")
    release = rf.write_release(tmp_path / "release", source)
    db = tmp_path / "s.db"
    store = StudyStore(db)
    for item in ("k1", "rt", "u1"):  # they disagree on rt only (rule 1.1)
        store.save_review(_review("dr-a", item))
        store.save_review(_review("dr-b", item, **({"1_1": 1} if item == "rt" else {})))
    return release, db, store


def test_retired_items_drop_out_and_the_meta_says_which_release(tmp_path):
    release_dir, db, store = _study(tmp_path)
    plain = run_study(store, "dr-a", reviewer2="dr-b", bootstrap=0)
    assert plain.result.to_dict()["sample_level"]["agreement"] == round(2 / 3, 6)
    assert "release" not in plain.meta
    release = {"version": "v2", "dir": str(release_dir), "digest": "d"}
    on = run_study(store, "dr-a", reviewer2="dr-b", bootstrap=0, release=release,
                   retired={"rt"})  # fmt: skip
    assert (
        on.result.items == ["k1", "u1"] and on.result.to_dict()["sample_level"]["agreement"] == 1.0
    )
    assert on.meta["release"] == release and on.meta["release_retired_left_out"] == 1
    store.close()


def test_agreement_release_on_the_command_line_and_in_its_exports(tmp_path, capsys):
    release_dir, db, store = _study(tmp_path)
    store.close()
    out = tmp_path / "out"
    argv = ["agreement", "--db", str(db), "--reviewer", "dr-a", "--reviewer2", "dr-b",
            "--bootstrap", "0", "--release", str(release_dir), "--out", str(out), "--json"]  # fmt: skip
    assert main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["n_samples"] == 2 and data["meta"]["release"]["version"] == "v2"
    html = next(out.glob("*.html")).read_text()
    assert "release v2" in html
    written = [json.loads(p.read_text()) for p in out.glob("*.json")]
    assert any(doc.get("meta", {}).get("release", {}).get("version") == "v2" for doc in written)
