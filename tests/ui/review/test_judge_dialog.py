"""Review › Run LLM review against a local OpenAI-compatible server."""

from medrcube_desktop.core.rubric import RULE_IDS
from tests.llm.fake_openai import ALL_PASS, FakeOpenAI, ok, text
from tests.ui.review.test_review_binding import visible_texts
from tests.ui.review.test_review_binding_window import open_window

FAIL_14 = {**ALL_PASS, "1.4": 0}


def test_a_run_shows_progress_and_failures_and_the_judgments_stay_blind(
    qtbot, ct_benchmark, tmp_path
):
    window, store = open_window(qtbot, ct_benchmark, tmp_path / "s.db")
    script = {"What is the imaging modality": [ok(FAIL_14)], "Which plane": [text("Axial.")]}
    with FakeOpenAI(script) as server:
        dialog = window.open_judge_dialog()
        dialog.model.setText("gpt-5.1-ui")
        dialog.base_url.setText(server.base_url)
        dialog.base_url.editingFinished.emit()
        assert "not needed" in dialog.key_label.text()
        with qtbot.waitSignal(dialog.run_finished, timeout=20000):
            dialog.start_button.click()
    assert "Done: 1 judged" in dialog.status.text() and "1 failed" in dialog.status.text()
    assert dialog.failures.count() == 1 and dialog.failures.item(0).text().startswith("ct-2")
    assert dialog.retry_button.isEnabled()
    assert store.judgments("gpt-5.1-ui")["ct-1"].scores == FAIL_14
    assert window.session.judgments["ct-1"].scores == FAIL_14  # read back by the window
    dialog.close()
    assert "gpt-5.1-ui" not in visible_texts(window)  # ct-1 is not committed: still hidden
    window.scoring.pass_unscored()  # the dialog had the focus: call the actions directly
    window.scoring.commit()
    assert "gpt-5.1-ui" in visible_texts(window)
    assert window.reveal_pane.table.item(list(RULE_IDS).index("1.4"), 0).text() == "≠"


def test_a_bad_endpoint_is_named_before_any_run(qtbot, ct_benchmark, tmp_path):
    window, store = open_window(qtbot, ct_benchmark, tmp_path / "s.db")
    dialog = window.open_judge_dialog()
    dialog.base_url.setText("localhost:8000/v1")
    dialog.start_button.click()
    assert dialog.status.text().startswith("Endpoint: not an http(s) URL with a host")
    assert not dialog.runner.is_running()
    pane = window.open_evaluate_pane()
    pane.base_urls.setText("http://a:8000/v1 notaurl")
    pane.model.setText("m")
    pane.start()
    assert pane.status.text().startswith(  # rich text: the quotes escaped
        "Base URLs: not an http(s) URL with a host: &#x27;notaurl&#x27;"
    )
    assert not pane.runner.is_running()
    dialog.close()
    pane.close()
