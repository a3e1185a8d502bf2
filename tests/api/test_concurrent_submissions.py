"""Fifty HTTP clients against a real server on PostgreSQL: every result stored exactly once.

pytest-django's ``live_server`` is a threaded HTTP server on localhost using the test
database. Fifty threads, each with its own ``requests`` session and an organiser's token,
submit 1,000 distinct results with an ``Idempotency-Key`` each; 200 of them (20%) are sent a
second time with the same key and body, 100 of those at the very same moment as the
original (both requests released together by a barrier). Afterwards exactly 1,000 match
events exist, one per key, with consecutive sequence numbers, and every answer for a key
is the same 201 with the same body.

The test server's listen backlog is small, so a burst of fifty connections can be reset
before a request is read. A client then does what a real one would: it sends the same
request again with the same key (at most ``ATTEMPTS`` times), which is exactly what the key
makes safe, since the first attempt may or may not have been stored.
"""

from __future__ import annotations

import datetime as dt
import random
import threading
import time
from collections import defaultdict
from urllib.parse import urlsplit

import pytest
import requests
from rest_framework.authtoken.models import Token

from league import services as league_services
from league.models import Event
from ratings import tasks

CLIENTS = 50
RESULTS = 1000
RETRIED = 200  # 20%
SIMULTANEOUS = 100  # of the retries, sent at the same moment as their original
TIMEOUT = 30  # seconds, per request and per barrier wait
ATTEMPTS = 5  # per request, on a refused or reset connection


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_fifty_clients_store_a_thousand_results_exactly_once(
    live_server, league, organiser, monkeypatch
):
    # The subject is the write path; replays of the projection (queued after every commit)
    # are tested elsewhere, so their Celery task is recorded here instead of run eagerly.
    queued: list[dict] = []
    monkeypatch.setattr(tasks.replay_league, "delay", lambda **kwargs: queued.append(kwargs))

    assert urlsplit(live_server.url).hostname in {"localhost", "127.0.0.1"}
    players = [league_services.register_player(league, f"Player {n}") for n in range(12)]
    token = Token.objects.create(user=organiser).key
    url = f"{live_server.url}/api/leagues/{league.slug}/matches/"

    def body(number: int) -> dict:
        # Deterministic content per key: a repeat is a true retry of the same result.
        a = number % len(players)
        b = (a + 1 + number // len(players)) % len(players)
        if a == b:
            b = (b + 1) % len(players)
        return {
            "player_a": players[a].pk,
            "player_b": players[b].pk,
            "score_a": (1, 0.5, 0)[number % 3],
            "played_on": (league.start_date + dt.timedelta(days=number % 300)).isoformat(),
        }

    shuffle = random.Random(20240301)
    retried = shuffle.sample(range(RESULTS), RETRIED)
    simultaneous, later = retried[:SIMULTANEOUS], retried[SIMULTANEOUS:]
    # Two rounds: in each, 25 keys are sent twice by 50 threads released together.
    rounds = [simultaneous[i : i + CLIENTS // 2] for i in range(0, SIMULTANEOUS, CLIENTS // 2)]
    paired = set(simultaneous)
    queue = [n for n in range(RESULTS) if n not in paired] + later
    shuffle.shuffle(queue)
    per_thread = [queue[i::CLIENTS] for i in range(CLIENTS)]

    answers: dict[int, list[tuple[int, bytes]]] = defaultdict(list)
    failures: list[BaseException] = []
    lock = threading.Lock()
    start = threading.Barrier(CLIENTS, timeout=TIMEOUT)

    def submit(session: requests.Session, number: int) -> None:
        for attempt in range(1, ATTEMPTS + 1):
            try:
                response = session.post(
                    url,
                    json=body(number),
                    headers={"Idempotency-Key": f"r-{number}"},
                    timeout=TIMEOUT,
                )
                break
            except requests.ConnectionError:
                if attempt == ATTEMPTS:
                    raise
                time.sleep(0.05 * attempt)
        with lock:
            answers[number].append((response.status_code, response.content))

    def client(index: int) -> None:
        try:
            with requests.Session() as session:
                session.headers["Authorization"] = f"Token {token}"
                for keys in rounds:
                    start.wait()
                    submit(session, keys[index // 2])
                for number in per_thread[index]:
                    submit(session, number)
        except BaseException as error:  # reported by the main thread
            failures.append(error)
            start.abort()

    threads = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(CLIENTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert not any(thread.is_alive() for thread in threads), "clients did not finish in time"
    assert not failures, failures[:3]

    assert sum(len(a) for a in answers.values()) == RESULTS + RETRIED
    assert set(answers) == set(range(RESULTS))
    for number, got in answers.items():
        assert {status for status, _ in got} == {201}, (number, got)
        assert len({content for _, content in got}) == 1, (number, got)
        assert len(got) == (2 if number in set(retried) else 1)

    matches = Event.objects.matches().filter(league=league)
    assert matches.count() == RESULTS
    keys = list(matches.values_list("idempotency_key", flat=True))
    assert sorted(keys) == sorted(f"match:r-{n}" for n in range(RESULTS))
    seqs = sorted(Event.objects.filter(league=league).values_list("seq", flat=True))
    assert seqs == list(range(1, len(players) + RESULTS + 1))
