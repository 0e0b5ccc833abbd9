"""Which server takes a call: the servers' state and rendezvous hashing with bounded loads.

Used by :meth:`medrcube_desktop.llm.client.ChatClient._pick` (issue 25: every question of one
image goes to the same server while it is up, so its prefix cache answers the later ones)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Endpoint:
    """One server: its SDK client, how it has fared, and until when it is set aside
    (``time.monotonic()`` seconds)."""

    url: str | None
    client: Any
    single_try: Any = None  # the client without the SDK's retries (another server is up)
    answers: int = 0
    failures: int = 0  # faults of any kind (after the SDK's tries)
    failures_in_a_row: int = 0
    strikes: int = 0  # faults in a row of any kind: sets the set-aside time
    down_until: float = 0.0
    set_asides: int = 0
    faults: dict[str, int] = field(default_factory=dict)  # kind of fault → how many
    last_error: str = ""
    refused: str = ""  # why it refused the API key: set aside for the rest of the run
    in_flight: int = 0  # requests sent and not answered yet (bounds a routed server's load)


LOAD_BOUND = 1.25
"""A routed server takes a call while it holds fewer than this many times the servers'
average of requests in flight (Mirrokni et al.'s c = 1 + epsilon; 1.25 their example)."""


def affinity_rank(affinity: bytes, position: int) -> bytes:
    """The rank of the server at ``position`` among the base URLs for ``affinity``
    (compared as bytes: the highest serves it): BLAKE2b of both, the same in every
    process and run given the same ``--base-url`` list (a server added at its end takes
    only its share of the images; its port or name does not move them)."""
    import hashlib

    return hashlib.blake2b(position.to_bytes(4, "big"), key=affinity[:64], digest_size=16).digest()


def route_by_affinity(
    pool: Sequence[Endpoint], endpoints: Sequence[Endpoint], affinity: bytes
) -> Endpoint:
    """The server of ``pool`` (those up, at least two) that takes a call of ``affinity``:
    the one ranked first by :func:`affinity_rank` at its position in ``endpoints`` (the
    ``--base-url`` list), unless it holds :data:`LOAD_BOUND` times the pool's average of
    requests in flight (at least one), when the next ranked under the bound takes it (the
    first ranked when every server is over it). Rendezvous hashing: Thaler and
    Ravishankar, IEEE/ACM ToN 1998; bounded loads: Mirrokni, Thorup and Zadimoghaddam,
    SODA 2018."""
    where = {id(e): n for n, e in enumerate(endpoints)}
    ranked = sorted(pool, key=lambda e: affinity_rank(affinity, where[id(e)]), reverse=True)
    bound = max(1, math.ceil(LOAD_BOUND * sum(e.in_flight for e in pool) / len(pool)))
    return next((e for e in ranked if e.in_flight < bound), ranked[0])
