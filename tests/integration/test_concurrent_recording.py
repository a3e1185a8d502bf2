"""Many writers at once against PostgreSQL: nothing lost, nothing duplicated, no seq gaps."""

from __future__ import annotations

import datetime as dt
import random
import threading
from collections import Counter
from decimal import Decimal

import pytest
from django.db import connection

from league import services
from league.models import Event

THREADS = 20
SUBMISSIONS = 200
DISTINCT = 120


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_twenty_threads_store_exactly_the_distinct_results(league):
    players = [services.register_player(league, f"Player {n}") for n in range(10)]
    scores = (Decimal("1"), Decimal("0.5"), Decimal("0"))

    def result(number: int) -> dict:
        # Deterministic content per key, so a repeat is a true retry of the same result.
        a, b = number % 10, (number * 7 + 3) % 10
        if a == b:
            b = (b + 1) % 10
        return {
            "player_a": players[a].pk,
            "player_b": players[b].pk,
            "score_a": scores[number % 3],
            "played_at": dt.date(2024, 1, 1) + dt.timedelta(days=number),
            "idempotency_key": f"result-{number}",
        }

    numbers = list(range(DISTINCT)) + [n % DISTINCT for n in range(SUBMISSIONS - DISTINCT)]
    random.Random(20240301).shuffle(numbers)
    batches = [numbers[i::THREADS] for i in range(THREADS)]
    barrier = threading.Barrier(THREADS)
    returned: dict[str, set[int]] = {}
    lock = threading.Lock()
    failures: list[BaseException] = []

    def submit(batch: list[int]) -> None:
        try:
            barrier.wait()
            for number in batch:
                event = services.record_match(league, **result(number))
                with lock:
                    returned.setdefault(f"result-{number}", set()).add(event.pk)
        except BaseException as error:  # reported by the main thread
            failures.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=submit, args=(batch,)) for batch in batches]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert failures == []
    matches = Event.objects.matches().filter(league=league)
    keys = Counter(matches.values_list("idempotency_key", flat=True))
    assert len(keys) == DISTINCT
    assert set(keys.values()) == {1}
    stored = {e.idempotency_key: e for e in matches}
    for key, pks in returned.items():
        assert pks == {stored[key].pk}, f"{key} answered with several events"
    for number in range(DISTINCT):
        expected = result(number)
        event = stored[f"result-{number}"]
        assert (event.player_a_id, event.player_b_id, event.score_a) == (
            expected["player_a"],
            expected["player_b"],
            expected["score_a"],
        )
    seqs = list(Event.objects.filter(league=league).values_list("seq", flat=True))
    assert sorted(seqs) == list(range(1, len(players) + DISTINCT + 1))
