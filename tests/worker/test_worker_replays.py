"""Replays run by a real Celery worker process: tau change, SIGKILL mid-replay, ten changes."""

from __future__ import annotations

import datetime as dt
import itertools
import random

import pytest
from django.db import connection

from league import services as league_services
from league.models import League
from ratings import services
from ratings.models import PlayerPeriod, Publication, RatingConfig, Replay
from ratings.replay.table_swap import NEXT, building_prefix
from ratings.time import current_period
from tests.replay_support import KeptMatch, expected_projection, explain_difference, snapshot
from tests.worker.conftest import wait_for

pytestmark = [pytest.mark.worker, pytest.mark.slow]

START = dt.date(2024, 1, 1)
ACTIVE = [Replay.Status.QUEUED, Replay.Status.RUNNING]
TABLE = PlayerPeriod._meta.db_table


def build_league(count: int = 150) -> tuple[League, list[KeptMatch]]:
    league = League.objects.create(
        name="Worker League", slug="worker-league", time_zone="Europe/Paris", start_date=START
    )
    players = [league_services.register_player(league, f"Player {i}") for i in range(8)]
    # The paper's period updates, which expected_projection folds (a new league's default,
    # instant updates, has its own replay tests: tests/integration/test_instant_replay.py).
    services.create_config(league, update_mode="period", initial_volatility=0.06)
    rng = random.Random(5)
    kept: list[KeptMatch] = []
    results = []
    for _ in range(count):
        a, b = rng.sample(players, 2)
        day = START + dt.timedelta(days=rng.randrange(0, 600))
        score = rng.choice(["1", "0.5", "0"])
        results.append({"player_a": a, "player_b": b, "score_a": score, "played_at": day})
        kept.append(KeptMatch(a.pk, b.pk, float(score), day))
    # One transaction, one signal, one catch-up replay of version 1.
    for match, event in zip(kept, league_services.record_round(league, results), strict=True):
        match.event = event
    return league, kept


def settled(league: League, version: int) -> bool:
    """The given version is live and no replay of the league is pending."""
    live = Publication.objects.filter(league=league, config__version=version).exists()
    return live and not Replay.objects.filter(config__league=league, status__in=ACTIVE).exists()


def assert_fresh(config: RatingConfig, kept: list[KeptMatch]) -> None:
    actual = snapshot(config)
    expected = expected_projection(config, kept, current_period(config))
    assert actual == expected, explain_difference(config, actual, expected)


def assert_unchanged(config: RatingConfig, before: tuple[list[tuple], list[tuple]]) -> None:
    actual = snapshot(config)
    assert actual == before, explain_difference(config, actual, before)


def kill_once_under_way(worker, replay: Replay, what: str) -> None:
    """SIGKILL ``worker`` once ``replay`` has some progress stored, and check it was left
    running part-way."""
    wait_for(lambda: Replay.objects.filter(pk=replay.pk, periods_done__gt=0).exists(), 60, what)
    worker.kill()
    replay.refresh_from_db()
    assert replay.status == Replay.Status.RUNNING
    assert 0 < replay.periods_done < replay.periods_total


def test_changing_tau_goes_live_with_a_fresh_full_replay(worker_factory):
    worker_factory()
    league, kept = build_league()
    wait_for(lambda: settled(league, 1), 60, "first version live")

    v2 = services.create_config(league, tau=1.1)
    wait_for(lambda: settled(league, 2), 60, "tau change live")
    assert Replay.objects.get(config=v2).status == Replay.Status.COMPLETE
    assert_fresh(v2, kept)
    assert snapshot(v2) != snapshot(RatingConfig.objects.get(league=league, version=1))


def test_a_replay_killed_mid_way_completes_after_restart(worker_factory):
    calm = worker_factory()
    league, kept = build_league()
    wait_for(lambda: settled(league, 1), 60, "first version live")
    calm.stop()
    v1 = RatingConfig.objects.get(league=league, version=1)
    live = snapshot(v1)

    slow = worker_factory(period_delay=0.08)  # ~100 periods: several seconds per replay
    v2 = services.create_config(league, tau=0.9)
    replay = Replay.objects.get(config=v2)
    kill_once_under_way(slow, replay, "replay under way")
    assert Publication.objects.get(league=league).config == v1
    assert_unchanged(v1, live)

    worker_factory()

    def readable_until_done() -> bool:
        # The old standings stay live and intact until the new version switches over.
        publication = Publication.objects.get(league=league)
        if publication.config == v1:
            assert_unchanged(v1, live)
            return False
        return settled(league, 2)

    wait_for(readable_until_done, 90, "killed replay completed after restart")
    replay.refresh_from_db()
    assert replay.status == Replay.Status.COMPLETE
    assert replay.attempts == 2
    assert_fresh(v2, kept)


@pytest.mark.sqlite
def test_a_large_league_s_replay_killed_while_its_fold_process_runs_completes_after_restart(
    worker_factory,
):
    """SQLite, a league at the size whose full replay computes its fold in a process of its
    own and builds the new table batch by batch (here every league is): the worker's pool
    process and the fold's process are killed mid-way; the standings stay live and intact,
    the progress committed so far was seen, and after a restart the replay completes with
    the same numbers and no half-built table."""
    streamed = {"LEAGUE_REPLAY_STREAM_MIN_MATCHES": "1"}
    calm = worker_factory(env=streamed)
    league, kept = build_league()
    wait_for(lambda: settled(league, 1), 60, "first version live")
    calm.stop()
    v1 = RatingConfig.objects.get(league=league, version=1)
    live = snapshot(v1)

    slow = worker_factory(period_delay=0.08, pool="prefork", env=streamed)
    # The same version again: its rows are the table's, so the full replay swaps it.
    replay = services.request_full_replay(league)
    kill_once_under_way(slow, replay, "replay under way, its progress committed")
    assert_unchanged(v1, live)
    (left,) = half_built_tables()
    assert left.startswith(building_prefix(TABLE, v1.pk))

    worker_factory(env=streamed)
    wait_for(
        lambda: Replay.objects.filter(pk=replay.pk, status=Replay.Status.COMPLETE).exists(),
        90,
        "killed replay completed after restart",
    )
    replay.refresh_from_db()
    assert replay.attempts == 2
    assert_fresh(v1, kept)
    assert snapshot(v1) == live
    assert half_built_tables() == []


def half_built_tables() -> list[str]:
    with connection.cursor() as cursor:
        return [n for n in connection.introspection.table_names(cursor) if NEXT in n]


def test_ten_changes_in_one_second_one_replay_at_a_time_and_the_last_wins(worker_factory):
    worker_factory(period_delay=0.003)
    worker_factory(period_delay=0.003)
    league, kept = build_league()
    wait_for(lambda: settled(league, 1), 60, "first version live")

    for step in range(10):
        services.create_config(league, tau=0.3 + 0.05 * step)
    last = RatingConfig.objects.get(league=league, version=11)
    wait_for(lambda: settled(league, 11), 120, "last version live")

    intervals = sorted(
        Replay.objects.filter(config__league=league, started_at__isnull=False).values_list(
            "started_at", "finished_at"
        )
    )
    assert len(intervals) >= 2
    for (_, end), (next_start, _) in itertools.pairwise(intervals):
        assert end <= next_start, "two replays of one league overlapped"
    assert Publication.objects.get(league=league).config == last
    assert_fresh(last, kept)
    finished = Replay.objects.filter(config__league=league, config__version__gt=1)
    assert set(finished.values_list("status", flat=True)) <= {"complete", "superseded"}
    assert finished.get(config=last).status == Replay.Status.COMPLETE
