"""Several ``--base-url``s, routed by image (issue 25 item 5): every question of one image
goes to the same server while it is up (and not loaded past the bound), the images
spread over every server, and when a server drops out only its images move (and come
back with it). Stub servers record which server saw which image."""

from __future__ import annotations

import threading
from collections import defaultdict

from medrcube_desktop.evaluation.engines.base import EvalRequest
from medrcube_desktop.evaluation.engines.openai_engine import OpenAIEngine, image_affinity
from medrcube_desktop.llm.client import ChatClient, Endpoint, affinity_rank
from medrcube_desktop.llm.keys import KeyRedactor
from tests.llm.fake_openai import FakeOpenAI, status

IMAGES = 24
QUESTIONS = 3


def _requests() -> list[EvalRequest]:
    """``QUESTIONS`` questions on each of ``IMAGES`` images (distinct PNG-like bytes), the
    questions of one image apart from each other as a benchmark's order may put them."""
    return [
        EvalRequest(f"img{i}-q{q}", f"Question {q} on image {i}?", b"\x89PNG" + bytes([i]) * 300)
        for q in range(QUESTIONS)
        for i in range(IMAGES)
    ]


def _seen(servers) -> dict[str, set[str]]:
    """Image (its data URL) → the servers whose stub received a question on it."""
    seen: dict[str, set[str]] = defaultdict(set)
    for server in servers:
        for request in server.requests:
            url = request["body"]["messages"][0]["content"][0]["image_url"]["url"]
            seen[url].add(server.base_url)
    return seen


def _run(urls, requests, concurrency=1, **kwargs) -> list:
    """Answers of ``requests``; one at a time unless said (no load bound reached)."""
    engine = OpenAIEngine("m", urls, "not-needed", concurrency=concurrency, **kwargs)
    answers = []
    engine.run(requests, answers.append, threading.Event())
    return answers


def test_every_question_of_an_image_goes_to_one_server_and_all_servers_work():
    with FakeOpenAI() as a, FakeOpenAI() as b, FakeOpenAI() as c:
        servers = (a, b, c)
        answers = _run([s.base_url for s in servers], _requests())
        seen = _seen(servers)
    assert len(answers) == IMAGES * QUESTIONS and not any(r.error for r in answers)
    assert len(seen) == IMAGES
    assert all(len(where) == 1 for where in seen.values())  # one server per image
    assert all(len(s.requests) >= QUESTIONS for s in servers)  # each server has images
    # the server is the one the ranking names: the same in every run and process
    for request in _requests()[:IMAGES]:
        best = max(range(3), key=lambda n: affinity_rank(image_affinity(request), n))
        assert seen[request.image_data_url()] == {servers[best].base_url}


def test_a_server_that_fails_gives_up_only_its_images():
    requests = _requests()
    with FakeOpenAI() as a, FakeOpenAI() as b, FakeOpenAI({"": [status(500)]}) as down:
        urls = [a.base_url, b.base_url, down.base_url]
        answers = _run(urls, requests, backoff_base_s=60.0)  # down: set aside for the run
        seen = _seen((a, b))
    assert not any(r.error for r in answers)
    for request in requests[:IMAGES]:
        key = image_affinity(request)
        ranked = sorted(range(3), key=lambda n: affinity_rank(key, n), reverse=True)
        expected = urls[ranked[1] if ranked[0] == 2 else ranked[0]]
        assert seen[request.image_data_url()] == {expected}  # moved only when it was down's


def test_the_pick_follows_a_server_out_and_back():
    """ChatClient._pick: the image's server while up; its next-ranked while set aside;
    its own again once back; requests without an image take the servers in turn."""
    urls = ["http://h1:8000/v1", "http://h2:8000/v1", "http://h3:8000/v1"]
    chat = ChatClient(urls, "k", model="m", redactor=KeyRedactor("k"))
    chat.endpoints = [Endpoint(u, None) for u in urls]
    keys = [image_affinity(r) for r in _requests()[:IMAGES]]
    first = {k: chat._pick(k)[0].url for k in keys}
    assert set(first.values()) == set(urls)
    gone = chat.endpoints[0]
    gone.down_until = float("inf")
    during = {k: chat._pick(k)[0].url for k in keys}
    for k in keys:
        if first[k] == gone.url:
            ranked = sorted(range(3), key=lambda n: affinity_rank(k, n), reverse=True)
            assert during[k] == urls[ranked[1]]
        else:
            assert during[k] == first[k]  # the others' images stay where their cache is
    gone.down_until = 0.0
    assert {k: chat._pick(k)[0].url for k in keys} == first
    turns = [chat._pick(None)[0].url for _ in range(6)]
    assert sorted(turns) == sorted(urls * 2)


def test_a_server_loaded_past_the_bound_passes_the_image_to_the_next():
    """One image asked by many calls at once: its server takes them up to 1.25 times the
    average in flight (at least one), the next-ranked takes the rest."""
    urls = ["http://h1:8000/v1", "http://h2:8000/v1"]
    chat = ChatClient(urls, "k", model="m", redactor=KeyRedactor("k"))
    chat.endpoints = [Endpoint(u, None) for u in urls]
    key = image_affinity(_requests()[0])
    order = sorted(range(2), key=lambda n: affinity_rank(key, n), reverse=True)
    ranked = [chat.endpoints[n] for n in order]
    picks = []
    for _ in range(8):  # each pick stays in flight
        endpoint = chat._pick(key)[0]
        endpoint.in_flight += 1
        picks.append(endpoint is ranked[0])
    # in flight before each pick: 0..7; bound max(1, ceil(1.25 * n / 2))
    assert picks == [True, False, True, False, True, True, False, True]
    assert (ranked[0].in_flight, ranked[1].in_flight) == (5, 3)


def test_one_image_asked_at_once_uses_every_server():
    requests = [EvalRequest(f"q{n}", f"Question {n}?", b"\x89PNG same") for n in range(12)]
    with FakeOpenAI(latency_s=0.05) as a, FakeOpenAI(latency_s=0.05) as b:
        answers = _run([a.base_url, b.base_url], requests, concurrency=4)
        assert len(a.requests) > 0 and len(b.requests) > 0
    assert len(answers) == 12 and not any(r.error for r in answers)
