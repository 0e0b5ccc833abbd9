"""The reviewer name asked at first start is checked like every other name (issue 21):
one with a control character is asked again, saying why."""

from __future__ import annotations

from medrcube_desktop.ui import app


def test_a_name_with_an_escape_sequence_is_asked_again(qapp, monkeypatch):
    answers = iter([("dr\x1b]0;x\x07", True), ("  Dr. Müller ", True)])
    prompts: list[str] = []

    def get_text(parent, title, prompt, *args, **kwargs):
        prompts.append(prompt)
        return next(answers)

    monkeypatch.setattr(app.QInputDialog, "getText", staticmethod(get_text))
    assert app.ask_reviewer(None) == "Dr. Müller"
    assert len(prompts) == 2 and "U+001B" in prompts[1] and "\x1b" not in prompts[1]
