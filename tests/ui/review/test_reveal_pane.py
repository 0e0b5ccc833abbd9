"""The reveal pane shows rule 1.4's evidence (models right without the image) once the
session hands it a reveal, and holds none of it while hidden (issue 24 item 3)."""

from medrcube_desktop.core.rubric import RULE_IDS
from medrcube_desktop.review.session import Reveal
from medrcube_desktop.ui.review.reveal_pane import RevealPane

ROW = {
    "answerable": True, "ablated_right": 3, "ablated_models": 4,
    "image_right": 4, "image_models": 4, "text-only_right": 2, "text-only_models": 3,
    "blank_right": 1, "blank_models": 1, "swapped_right": 0, "swapped_models": 0,
    "noise_right": 0, "noise_models": 0,
}  # fmt: skip


def test_the_evidence_follows_the_judgments_and_is_absent_while_hidden(qtbot):
    pane = RevealPane()
    qtbot.addWidget(pane)
    pane.show_hidden(False)
    assert "without the image" not in pane.title.text()
    mine = dict.fromkeys(RULE_IDS, 1)
    pane.show_reveal(Reveal("q0", mine, "gpt", dict(mine), {}, [], ROW))
    text = pane.title.text()
    assert "agree on every rule" in text
    assert "right by 3 of 4 models (text-only 2/3, blank 1/1)" in text
    assert "answerable without the image (rule 1.4); with it: 4 of 4" in text
    pane.show_reveal(Reveal("q0", mine, "gpt", None, {}, [], ROW))  # nothing else to show
    assert "No LLM judgment" in pane.title.text() and "3 of 4" in pane.title.text()
    pane.show_reveal(Reveal("q0", mine, "gpt", dict(mine), {}, []))
    assert "without the image" not in pane.title.text()


def test_a_rule_the_reviewer_could_not_judge_is_not_called_agreement(qtbot):
    """After Alt+5 the reveal said "you and the LLM agree on every rule" (issue 24 trial)."""
    from medrcube_desktop.core.rubric import CANNOT_JUDGE

    pane = RevealPane()
    qtbot.addWidget(pane)
    mine = {**dict.fromkeys(RULE_IDS, 1), "2.1": CANNOT_JUDGE}
    llm = {**dict.fromkeys(RULE_IDS, 1), "2.1": 0}
    pane.show_reveal(Reveal("q0", mine, "gpt", llm, {}, []))
    text = pane.title.text()
    assert "agree on every rule you judged" in text and "could not judge <b>2.1</b>" in text
    assert "agree on every rule." not in text
