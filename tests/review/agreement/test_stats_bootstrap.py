"""The agreement bootstrap in bounded memory: draws made and used in chunks give the
figures of drawing all at once, and more draws than MAX_BOOTSTRAP are refused before
anything is drawn (10**8 once had the process killed for memory)."""

import numpy as np
import pytest

from medrcube_desktop.core.rubric import RULE_IDS
from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.review.agreement import intervals, stats
from medrcube_desktop.review.agreement.stats import MAX_BOOTSTRAP, TooManyDraws, compare


def raters(n, seed=1):
    rng = np.random.default_rng(seed)

    def one():
        return {f"i{k}": {r: int(rng.random() < 0.8) for r in RULE_IDS} for k in range(n)}

    return one(), one()


def test_chunked_draws_give_the_figures_of_drawing_all_at_once(monkeypatch):
    first, second = raters(40)
    whole = compare(first, second, bootstrap=500, seed=7).to_dict()
    sizes = []
    real = stats.Draws.chunks

    def spy(self):
        for chunk in real(self):
            sizes.append(chunk.size)
            yield chunk

    monkeypatch.setattr(intervals, "CHUNK_INDICES", 40 * 64)  # 64 draws a chunk
    monkeypatch.setattr(stats.Draws, "chunks", spy)
    chunked = compare(first, second, bootstrap=500, seed=7).to_dict()
    assert chunked == whole
    assert max(sizes) == 40 * 64 and sum(sizes) % (40 * 500) == 0  # every pass: 500 draws


def test_all_at_once_is_the_reference():
    first, second = raters(25, seed=3)
    result = compare(first, second, bootstrap=300, seed=2)
    items = sorted(first)
    a = np.array([[first[i][r] for r in RULE_IDS] for i in items])
    b = np.array([[second[i][r] for r in RULE_IDS] for i in items])
    draws = np.random.default_rng(2).integers(0, 25, size=(300, 25))
    agree = (a[:, 0] == b[:, 0]).astype(float)
    low, high = np.percentile(agree[draws].mean(axis=1), [2.5, 97.5])
    assert result.rules[RULE_IDS[0]].ci95 == (float(low), float(high))


def test_more_draws_than_the_limit_are_refused_before_any_is_made(monkeypatch):
    first, second = raters(5)
    made = []
    monkeypatch.setattr(stats.Draws, "chunks", lambda self: made.append(1) or iter(()))
    with pytest.raises(TooManyDraws) as caught:
        compare(first, second, bootstrap=10**8)
    assert str(caught.value) == (
        "--bootstrap 100,000,000: at most 1,000,000 draws (the default 2,000 gives "
        "intervals to two decimals)"
    )
    assert isinstance(caught.value, MedRCubeError) and made == []  # the CLI's one-line error
    assert MAX_BOOTSTRAP == 1_000_000
