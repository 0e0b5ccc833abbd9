"""The Evaluate pane and the Judge dialog check their endpoints as ``--base-url`` does
(one URL each, no path parameters) and remember none of a URL's secrets in the settings
file, also when the text is refused (issue 21: a second URL joined by a comma kept its
password in ``window.ini``)."""

from medrcube_desktop import settings
from tests.ui.review.test_review_binding_window import open_window

SECRET = "secret2-of-the-second-url"
JOINED = f"http://u:secret1@127.0.0.1:18100/v1,http://u:{SECRET}@127.0.0.1:18101/v1"


def window_ini() -> str:
    path = settings.config_dir() / "window.ini"
    return path.read_text() if path.exists() else ""


def test_joined_urls_are_refused_and_no_password_is_remembered(qtbot, ct_benchmark, tmp_path):
    window, store = open_window(qtbot, ct_benchmark, tmp_path / "s.db")
    dialog = window.open_judge_dialog()
    dialog.base_url.setText(JOINED)
    dialog.base_url.editingFinished.emit()  # remembered when the field is left
    dialog.start_button.click()
    assert dialog.status.text().startswith("Endpoint: not one URL: 'http://***@127.0.0.1")
    assert SECRET not in dialog.status.text() and not dialog.runner.is_running()
    pane = window.open_evaluate_pane()
    pane.model.setText("m")
    pane.base_urls.setText(f"{JOINED} http://127.0.0.1:1/v1;key={SECRET}")
    pane.base_urls.editingFinished.emit()
    pane.start()
    assert pane.status.text().startswith("Base URLs: not one URL:")
    assert SECRET not in pane.status.text() and not pane.runner.is_running()
    ini = window_ini()
    assert "127.0.0.1:18101/v1" in ini and "secret1" not in ini and SECRET not in ini
    dialog.close()
    pane.close()
