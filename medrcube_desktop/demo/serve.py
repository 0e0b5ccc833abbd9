"""``demo serve``: the demo's scripted endpoint, to try evaluation runs and their image
ablations without a GPU or a server (issue 24).

The endpoint is the self-test's (:class:`~medrcube_desktop.demo.stub_endpoint.StubEndpoint`
on 127.0.0.1) with the examples' script (:mod:`~medrcube_desktop.demo.example_script`):

- a request that shows the item's own picture, as ``evaluate`` prepares it by default
  (``--min-side`` and ``--max-pixels`` left as they are), is answered as the model's
  scripted run answers it (``demo-strong`` right on 85 % of the items, ``demo-middling``
  60 %, ``demo-weak`` 35 %, ``demo-guesser`` 25 %);
- any other request (text only, or a blank, swapped or noise picture) is answered as the
  text-only baseline of the examples answers it (``demo-strong-text-only``, right on
  30 %), whatever the model: the items it gets right are those "the question gives
  away", and ``compare`` shows the gap between the two;
- :data:`~medrcube_desktop.demo.example_script.JUDGE` answers the judge's Table 10 prompt
  with the examples' scripted scores.

Whether a request shows the item's picture is decided by the SHA-256 of the image bytes
it carries, compared with each item's own picture prepared here at start (the cache
``evaluate`` reads is filled on the way, so its first run prepares nothing again).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections.abc import Sequence

from medrcube_desktop.core.items import Item
from medrcube_desktop.demo.example_script import (
    DEFAULT_SEED,
    JUDGE,
    PERSONALITIES,
    UNPARSED_ANSWER,
    responder,
    scripted_answers,
    scripted_scores,
)
from medrcube_desktop.demo.stub_endpoint import Responder, Sees

SERVE_MODELS: tuple[str, ...] = tuple(
    dict.fromkeys(p.model for p in PERSONALITIES if not p.text_only)
)
"""The evaluation models the endpoint answers (``GET /v1/models`` lists them and the
judge)."""
BLIND_RUN = next(p.run for p in PERSONALITIES if p.text_only)
"""The scripted run whose answers every model gives without the item's picture."""


def data_url_digest(url: str) -> str | None:
    """The SHA-256 (hex) of the bytes a ``data:…;base64,…`` URL carries, or None for
    any other URL or a payload that is not base64."""
    head, sep, payload = url.partition(",")
    if not sep or not head.startswith("data:") or not head.endswith(";base64"):
        return None
    try:
        return hashlib.sha256(base64.b64decode(payload, validate=True)).hexdigest()
    except (binascii.Error, ValueError):
        return None


def picture_digests(items: Sequence[Item], cache_folder: str | None = None) -> dict[str, set]:
    """Each item's own picture as ``evaluate`` sends it with the default image options:
    Table 9 prompt → the SHA-256 digests (hex) of the picture bytes of the items with
    that prompt. An item whose picture cannot be prepared has none (every request
    about it is then answered as without its picture).

    ``cache_folder``: the prepared-image cache to read and fill (``evaluate``'s, by
    default :func:`~medrcube_desktop.evaluation.images.default_cache_folder`).
    """
    from medrcube_desktop.evaluation.images import (
        DEFAULT_MAX_PIXELS,
        DEFAULT_MIN_SIDE,
        default_cache_folder,
    )
    from medrcube_desktop.evaluation.prepare import prepare_one
    from medrcube_desktop.evaluation.prompt import build_prompt

    folder = cache_folder if cache_folder is not None else str(default_cache_folder())
    digests: dict[str, set] = {}
    for item in items:
        image, _, _, _ = prepare_one(item, DEFAULT_MIN_SIDE, DEFAULT_MAX_PIXELS, folder)
        found = digests.setdefault(build_prompt(item), set())
        if image is not None:
            found.add(hashlib.sha256(image.data).hexdigest())
    return digests


def serve_script(
    items: Sequence[Item], seed: int = DEFAULT_SEED, cache_folder: str | None = None
) -> tuple[Responder, Sees]:
    """The endpoint's ``(responder, sees)`` for ``demo serve`` (see the module text).

    ``sees(text, image_urls)`` is True when one of the image URLs carries the picture of
    an item whose Table 9 prompt is ``text``; the responder answers a model of
    :data:`SERVE_MODELS` that sees it with its scripted run's answer, and any of them
    that does not with :data:`BLIND_RUN`'s answer.
    """
    from medrcube_desktop.evaluation.prompt import build_prompt

    answers = scripted_answers(items, seed)
    scripted = responder(list(items), answers, scripted_scores(items, seed))
    blind = {}
    for item in items:
        letter = answers[BLIND_RUN][item.id]
        blind[build_prompt(item)] = UNPARSED_ANSWER if letter is None else f"Answer: {letter}"
    digests = picture_digests(items, cache_folder)

    def sees(text: str, urls: list[str]) -> bool:
        own = digests.get(text, set())
        return any(data_url_digest(url) in own for url in urls)

    def respond(model: str, text: str, with_image: bool) -> str | None:
        if model == JUDGE or (with_image and model in SERVE_MODELS):
            return scripted(model, text, with_image)
        if model in SERVE_MODELS:
            return blind.get(text)
        return None

    return respond, sees
