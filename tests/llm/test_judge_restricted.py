"""The LLM judgment reads text only, so restricted items (no image shipped) are judged
too and can enter the agreement study (issue 21)."""

import json

from medrcube_desktop.cli import main
from medrcube_desktop.store import StudyStore
from tests.conftest import dicom_file, item, write_benchmark
from tests.llm.fake_openai import ALL_PASS, FakeOpenAI, ok


def test_judge_and_study_include_restricted_items(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-cli-abcdefgh")
    records = [item("a"), item("r", image="images/r.png", restricted=True,
                               question="Which organ is outlined [restricted]?")]  # fmt: skip
    root = write_benchmark(
        tmp_path / "bench", {"ds1": records}, {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")}
    )
    db = tmp_path / "study.db"
    with FakeOpenAI({"[restricted]": [ok({**ALL_PASS, "1.4": 0})]}) as server:
        args = ["judge", "--dataset", str(root), "--db", str(db), "--model", "m1",
                "--base-url", server.base_url, "--json"]  # fmt: skip
        assert main(args) == 0
    assert json.loads(capsys.readouterr().out)["judged"] == 2
    assert StudyStore(db).judgments("m1")["r"].scores == {**ALL_PASS, "1.4": 0}
    assert main(["study", "--dataset", str(root), "--db", str(db), "--name", "s",
                 "--n", "2", "--json"]) == 0  # fmt: skip
    assert sorted(json.loads(capsys.readouterr().out)["items"]) == ["a", "r"]
