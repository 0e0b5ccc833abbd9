"""An image-cache entry is sent only when this app prepared it from the item's sources
(issue 21: one rewritten with a matching size and checksum was sent to the model)."""

from __future__ import annotations

import hashlib
import json

import numpy as np
from PIL import Image

from medrcube_desktop.evaluation.images import SECRET_NAME, preparation_key
from medrcube_desktop.evaluation.prepare import prepare_one
from tests.evaluation.test_images import BUDGET, pictures  # noqa: F401 (a fixture)


def _forge(folder, key, data):
    """Replace the entry of ``key`` by ``data``, its size and checksum rewritten to match
    (what the cache's own integrity check compares)."""
    (folder / f"{key}.png").write_bytes(data)
    meta = folder / f"{key}.json"
    info = json.loads(meta.read_text())
    info["bytes"] = len(data)
    info["blake2b"] = hashlib.blake2b(data, digest_size=16).hexdigest()
    meta.write_text(json.dumps(info))


def test_a_rewritten_entry_with_a_matching_checksum_is_prepared_again(
    pictures,
    tmp_path,
    isolated_settings,  # noqa: F811
):
    folder = tmp_path / "cache"
    sixteen = pictures["sixteen"]
    good = prepare_one(sixteen, 28, BUDGET, str(folder))[0]
    assert prepare_one(sixteen, 28, BUDGET, str(folder))[1] == "cached"  # reused as is
    key = preparation_key(sixteen, 28, BUDGET)
    other = tmp_path / "other.png"
    Image.fromarray(np.full((40, 40), 255, np.uint8)).save(other)
    _forge(folder, key, other.read_bytes())
    image, source, _, _ = prepare_one(sixteen, 28, BUDGET, str(folder))
    assert source == "rendered" and image.data == good.data  # the forgery never sent
    assert "seal" not in image.info  # the seal stays in the cache, not in the run
    secret = isolated_settings / "config" / SECRET_NAME
    assert secret.stat().st_mode & 0o077 == 0 and len(secret.read_bytes()) == 32


def test_an_entry_copied_under_another_items_key_is_not_sent(pictures, tmp_path):  # noqa: F811
    folder = tmp_path / "cache"
    sixteen, other = pictures["sixteen"], pictures["masked"]  # both rendered, not sent as is
    prepare_one(sixteen, 28, BUDGET, str(folder))
    first = preparation_key(sixteen, 28, BUDGET)
    second = preparation_key(other, 28, BUDGET)
    for ext in ("png", "json"):
        (folder / f"{second}.{ext}").write_bytes((folder / f"{first}.{ext}").read_bytes())
    assert prepare_one(other, 28, BUDGET, str(folder))[1] == "rendered"
