"""``credibility`` and ``compare`` on a corrected release (issue 23 item 5): the retired
items are not in it, and the output says which release; on a plain benchmark the output
is as before (no ``"release"``)."""

import json

from medrcube_desktop.cli import main
from tests import release_fixture as rf


def _json(capsys, *args):
    capsys.readouterr()
    assert main([*map(str, args), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_credibility_and_compare_say_which_release(tmp_path, capsys):
    source, release, db = rf.build(tmp_path)
    assert main(["rescore", "--release", str(release), "--db", str(db)]) == 0
    plain = _json(capsys, "credibility", "--db", db, "--dataset", source, "--run", "alpha")
    assert "release" not in plain
    on = _json(capsys, "credibility", "--db", db, "--dataset", release, "--run", "alpha@v2")
    assert on.pop("release")["version"] == "v2"
    assert set(on) == set(plain)  # the same figures, computed on the release's items
    assert main(["credibility", "--db", str(db), "--dataset", str(release), "--run",
                 "alpha@v2"]) == 0  # fmt: skip
    assert any(line.startswith("release") and "v2" in line
               for line in capsys.readouterr().out.splitlines())  # fmt: skip
    old = _json(capsys, "compare", "--db", db, "--dataset", source, "--run", "alpha")
    assert "release" not in old
    new = _json(capsys, "compare", "--db", db, "--dataset", release, "--run", "alpha@v2")
    assert new["release"]["version"] == "v2"
    overall = new["leaderboard"]["runs"]["alpha@v2"]["overall"]["Overall"]
    assert (overall["correct"], overall["n"]) == (6, 8)  # rt gone, qn waiting
