"""The quality-review prompt (paper Table 10) and the structured-output request.

The system prompt and the user template are resources (``resources/prompts/``), read
with importlib.resources; their SHA-256 is stored with every judgment.
"""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass
from importlib.resources import files

from medrcube_desktop.core.items import Item
from medrcube_desktop.core.rubric import judgment_schema
from medrcube_desktop.errors import JudgeError

SYSTEM_FILE = "quality_review_system.txt"
USER_FILE = "quality_review_user.txt"


@dataclass(frozen=True)
class ReviewPrompt:
    """The Table 10 system prompt, the user-message template and their hash.

    ``sha256`` is the hex SHA-256 of ``system + "\\n---\\n" + user_template`` (UTF-8).
    """

    system: str
    user_template: str
    sha256: str

    def messages(self, item: Item) -> list[dict[str, str]]:
        """Chat messages for one item, text only (the paper's review sees no image).

        The user message carries the question, the options (``A. text`` lines), the
        ground-truth answer text, the modality and the region.
        """
        options = "\n".join(f"{letter}. {text}" for letter, text in item.options.items())
        user = self.user_template.format(
            question=item.question,
            options=options,
            gt_answer=item.answer_text,
            modality=item.modality,
            region=item.region,
        )
        return [{"role": "system", "content": self.system}, {"role": "user", "content": user}]


@functools.cache
def load_prompt() -> ReviewPrompt:
    """Read the shipped prompt files.

    Raises
    ------
    JudgeError
        A prompt file is missing or its template has a bad placeholder (a packaging error).
    """
    folder = files("medrcube_desktop.resources").joinpath("prompts")
    try:
        system = folder.joinpath(SYSTEM_FILE).read_text("utf-8").strip()
        user = folder.joinpath(USER_FILE).read_text("utf-8").strip()
        user.format(question="", options="", gt_answer="", modality="", region="")
    except (OSError, KeyError, IndexError, ValueError) as exc:
        raise JudgeError(
            f"resources/prompts: cannot read the quality-review prompt: {exc}"
        ) from exc
    digest = hashlib.sha256(f"{system}\n---\n{user}".encode()).hexdigest()
    return ReviewPrompt(system, user, digest)


def response_format() -> dict:
    """The ``response_format`` argument asking for a judgment, strict (the schema is
    :func:`medrcube_desktop.core.rubric.judgment_schema`, derived from the rubric)."""
    return {
        "type": "json_schema",
        "json_schema": {"name": "nbme_quality_review", "strict": True, "schema": judgment_schema()},
    }
