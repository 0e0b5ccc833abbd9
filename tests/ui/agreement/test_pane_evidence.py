"""The Agreement pane's "Rule 1.4 vs ablation evidence": the sentence the command
prints, from the same computation, blinding kept (issue 24 item 3)."""

from html import unescape

from medrcube_desktop.evaluation.compare.necessity import store_evidence
from medrcube_desktop.review.agreement import run_study
from medrcube_desktop.review.agreement.necessity import evidence_lines
from medrcube_desktop.review.agreement_options import AGREEMENT
from medrcube_desktop.store import utc_now
from medrcube_desktop.store.evaluation import ResponseRecord, RunRecord
from tests.ui.agreement.test_pane import prepare
from tests.ui.review.test_review_binding_window import open_window


def _runs(store, items):
    """A blank run right on every item: each answerable without the image."""
    for name, mode in (("m", "image"), ("m-blank", "blank")):
        store.replace_run(
            RunRecord(name, "import", "M", {}, "", "t", utc_now(), image_mode=mode),
            [ResponseRecord(name, i.id, i.answer, i.answer, "t", True, i.answer, True,
                            utc_now()) for i in items],
        )  # fmt: skip


def test_the_pane_shows_the_commands_rule_1_4_evidence(qtbot, ct_benchmark, tmp_path):
    prepare(tmp_path / "s.db")
    window, store = open_window(qtbot, ct_benchmark, tmp_path / "s.db")
    items = list(window.session.items)
    _runs(store, items)
    pane = window.open_agreement_pane()
    assert pane.evidence.text() == AGREEMENT["evidence"].label
    pane.bootstrap.setValue(0)
    pane.evidence.setChecked(True)
    with qtbot.waitSignal(pane.computed, timeout=30000):
        pane.compute_button.click()
    evidence = store_evidence(store, items + list(window.session.restricted))
    cli = run_study(store, "dr-a", model="gpt-5.1", bootstrap=0, evidence=evidence, threshold=0.5,
                    only_items=window.session.agreement_items())  # fmt: skip
    line = evidence_lines(cli.evidence)[0]
    assert pane.run.evidence == cli.evidence
    assert line in unescape(pane.summary.text())
    f = cli.evidence["raters"]["dr-a"]
    # blind: ct-1 only (dr-a's commit), answerable, and dr-a passed 1.4: a disagreement
    assert (f["n"], f["answerable"], f["expert_fail"]) == (1, 1, 0)
    assert f["confusion"] == [[0, 0], [1, 0]]
    pane.close()
