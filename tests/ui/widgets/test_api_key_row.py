"""An API key entered in the LLM review and Evaluate dialogs: kept in the OS keyring
(here an in-memory or failing backend), never shown again; the endpoint remembered."""

import pytest
from keyring.backends.fail import Keyring as FailKeyring
from PySide6.QtWidgets import QLabel, QLineEdit

from medrcube_desktop.llm.keys import KEYRING_SERVICE, find_api_key
from tests.ui.memory_keyring import MemoryKeyring, using
from tests.ui.review.test_review_binding_window import open_window

KEY = "sk-test-0123456789abcdef"
URL = "https://api.example.com/v1"


@pytest.fixture(autouse=True)
def no_key_in_the_environment(monkeypatch):
    for name in ("OPENAI_API_KEY", "MEDRCUBE_API_KEY_API_EXAMPLE_COM"):
        monkeypatch.delenv(name, raising=False)


def texts(dialog) -> str:
    shown = [w.text() for w in dialog.findChildren(QLabel)]
    shown += [w.text() for w in dialog.findChildren(QLineEdit)]
    return "\n".join(shown)


@pytest.mark.parametrize("opener", ["open_judge_dialog", "open_evaluate_pane"])
def test_a_key_typed_in_a_dialog_goes_to_the_keyring_only(qtbot, ct_benchmark, tmp_path, opener):
    window, _ = open_window(qtbot, ct_benchmark, tmp_path / "s.db")
    with using(MemoryKeyring()) as ring:
        dialog = getattr(window, opener)()
        endpoint = dialog.base_url if opener == "open_judge_dialog" else dialog.base_urls
        endpoint.setText(URL)
        endpoint.editingFinished.emit()
        assert "no key for api.example.com" in dialog.key_row.source.text()
        dialog.key_row.entry.setText(KEY)
        assert dialog.key_row.entry.echoMode() == QLineEdit.EchoMode.Password
        dialog.key_row.store_button.click()
        assert ring.passwords == {(KEYRING_SERVICE, "api.example.com"): KEY}
        assert dialog.key_row.entry.text() == ""  # never shown again
        assert "key stored for api.example.com" in dialog.key_row.source.text()
        assert KEY not in texts(dialog)
        assert find_api_key(URL) == (KEY, "keyring")  # where judge and evaluate look
        dialog.close()


def test_the_endpoints_are_remembered_per_dialog(qtbot, ct_benchmark, tmp_path):
    window, _ = open_window(qtbot, ct_benchmark, tmp_path / "s.db")
    with using(MemoryKeyring()):
        judge = window.open_judge_dialog()
        judge.base_url.setText(URL)
        judge.base_url.editingFinished.emit()
        pane = window.open_evaluate_pane()
        pane.base_urls.setText("http://localhost:8000/v1 http://localhost:8001/v1")
        pane.base_urls.editingFinished.emit()
        judge.close()
        pane.close()
        again, _ = open_window(qtbot, ct_benchmark, tmp_path / "s.db")
        # before: both boxes empty in every new window
        assert again.open_judge_dialog().base_url.text() == URL
        assert again.open_evaluate_pane().base_urls.text() == (
            "http://localhost:8000/v1 http://localhost:8001/v1"
        )
        assert "not needed" in again.panes.get("evaluate").key_row.source.text()


def test_a_keyring_that_cannot_store_says_so(qtbot, ct_benchmark, tmp_path):
    window, _ = open_window(qtbot, ct_benchmark, tmp_path / "s.db")
    with using(FailKeyring()):
        dialog = window.open_judge_dialog()
        dialog.base_url.setText(URL)
        dialog.base_url.editingFinished.emit()
        dialog.key_row.entry.setText(KEY)
        assert dialog.key_row.store_key() is False
        assert "could not store the key" in dialog.key_row.source.text()
        assert dialog.key_row.entry.text() == "" and KEY not in texts(dialog)
        dialog.close()


def test_a_password_in_an_endpoint_is_never_remembered(qtbot, ct_benchmark, tmp_path):
    """Issue 21: a password in a base URL is a credential; the window's settings file
    (window.ini) keeps the endpoints without it."""
    from medrcube_desktop import settings

    secret = "http://alice:s3cr3t-pass@localhost:8000/v1?key=abc123"
    window, _ = open_window(qtbot, ct_benchmark, tmp_path / "s.db")
    with using(MemoryKeyring()):
        judge = window.open_judge_dialog()
        judge.base_url.setText(secret)
        judge.base_url.editingFinished.emit()
        pane = window.open_evaluate_pane()
        pane.base_urls.setText(f"{secret} http://localhost:8001/v1")
        pane.base_urls.editingFinished.emit()
        judge.close()
        pane.close()
    stored = (settings.config_dir() / "window.ini").read_text()
    assert "s3cr3t" not in stored and "alice" not in stored and "abc123" not in stored
    assert "localhost:8000/v1" in stored and "localhost:8001/v1" in stored
