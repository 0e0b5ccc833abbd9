"""Reading a judgment out of a model's answer: strict, never guessed."""

from __future__ import annotations

import json
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StrictInt, ValidationError, create_model

from medrcube_desktop.core.rubric import RULE_IDS

Score = Annotated[StrictInt, Field(ge=0, le=1)]
"""0 (fail) or 1 (pass); StrictInt refuses ``true``, ``1.0`` and ``"1"``."""


class _Judgment(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid", populate_by_name=False)

    def scores(self) -> dict[str, int]:
        """Rule id → 0/1, in rubric order."""
        data = self.model_dump(by_alias=True)
        return {rule: int(data[rule]) for rule in RULE_IDS}


_FIELDS: dict[str, Any] = {
    "r" + rule.replace(".", "_"): (Score, Field(alias=rule)) for rule in RULE_IDS
}
JudgmentModel: type[_Judgment] = create_model(
    "JudgmentModel",
    __base__=_Judgment,
    __doc__=(
        "The sub-principle scores of the rubric (paper Table 10), one field per rule id "
        '(alias "1.1" …), each exactly 0 or 1; built from ``resources/rubric.json``.\n\n'
        'Extra keys, missing keys, ``true``/``false``, ``"1"`` or ``1.0`` are all refused '
        "(pydantic strict mode): an answer that does not say 0 or 1 is not a judgment."
    ),
    **_FIELDS,
)


def _no_duplicate_keys(pairs: list[tuple[str, object]]) -> dict[str, object]:
    """``json`` hook: a key given twice ({"1.1": 0, "1.1": 1}) is ambiguous, refused."""
    keys = [key for key, _ in pairs]
    repeated = sorted({key for key in keys if keys.count(key) > 1})
    if repeated:
        raise ValueError(f"key {', '.join(repeated)} given twice")
    return dict(pairs)


def format_errors(exc: ValidationError) -> str:
    """pydantic's errors as ``key: reason`` pairs."""
    return "; ".join(
        f"{'.'.join(str(p) for p in error['loc']) or 'object'}: {error['msg']}"
        for error in exc.errors()
    )


class UnusableAnswer(ValueError):
    """The answer is not a valid judgment; the message says why (without the answer)."""


def parse_judgment(text: str | None) -> dict[str, int]:
    """Scores from an answer that is exactly one JSON object (surrounding whitespace
    allowed), as Table 10 demands ("a single, minified, valid JSON object").

    Markdown fences, prose around the object, or anything else are refused rather than
    repaired: a judgment is stored only when the model gave one.

    Raises
    ------
    UnusableAnswer
        Empty answer, not JSON, not an object, a key missing or extra, a value not 0/1.
    """
    if text is None or not text.strip():
        raise UnusableAnswer("empty answer")
    try:
        value = json.loads(text.strip(), object_pairs_hook=_no_duplicate_keys)
    except (ValueError, RecursionError) as exc:
        raise UnusableAnswer(f"not a JSON object: {exc}") from None
    if not isinstance(value, dict):
        raise UnusableAnswer(f"expected a JSON object, got {type(value).__name__}")
    try:
        return JudgmentModel.model_validate(value).scores()
    except ValidationError as exc:
        raise UnusableAnswer(f"not a judgment: {format_errors(exc)}") from None
