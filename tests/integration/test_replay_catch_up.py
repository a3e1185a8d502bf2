"""Catch-up replays start where the projection's own position says, not where a writer said.

The receiver only asks whether a fact can change a rating and queues a catch-up request;
the replay reads the events newer than its projection's ``through_seq`` and starts at the
earliest period they touch, or past the stored period when only the current period moved.
"""

from __future__ import annotations

import datetime as dt

import pytest

from league import services as league_services
from ratings import services
from ratings.models import ProjectionState, Replay
from ratings.time import current_period
from tests.replay_support import KeptMatch, expected_projection, snapshot

START = dt.date(2024, 1, 1)


@pytest.fixture
def rated(league, make_player, django_capture_on_commit_callbacks):
    """A league with results in periods 0..6 (5-day periods), replayed and live."""
    players = [make_player(league, f"Player {i}") for i in range(4)]
    kept: list[KeptMatch] = []
    with django_capture_on_commit_callbacks(execute=True):
        config = services.create_config(league, tau=0.6, period_length=5, update_mode="period")
    for offset, (a, b, score) in enumerate(
        [(0, 1, "1"), (2, 3, "0.5"), (0, 2, "0"), (1, 3, "1"), (0, 3, "0.5"), (1, 2, "1")]
    ):
        record(
            league, kept, players[a], players[b], score, START + dt.timedelta(days=1 + 6 * offset)
        )
    with django_capture_on_commit_callbacks(execute=True):
        services.request_catch_up(league)
    assert snapshot(config) == expected_projection(config, kept, current_period(config))
    return config, players, kept


def record(league, kept, a, b, score, day) -> KeptMatch:
    event = league_services.record_match(
        league, player_a=a, player_b=b, score_a=score, played_at=day
    )
    match = KeptMatch(a.pk, b.pk, float(score), day, event)
    kept.append(match)
    return match


def queue_held(callbacks) -> Replay:
    """Run the receiver's held requests (their replays' tasks held back); the one replay."""
    for callback in callbacks:
        callback()
    (replay,) = Replay.objects.filter(status=Replay.Status.QUEUED)
    return replay


def test_a_catch_up_starts_at_the_earliest_period_touched_since_the_projection(
    league, rated, django_capture_on_commit_callbacks
):
    config, players, kept = rated
    with django_capture_on_commit_callbacks(execute=False) as requests:
        record(league, kept, players[0], players[1], "0", START + dt.timedelta(days=40))
        record(league, kept, players[2], players[3], "1", START + dt.timedelta(days=12))
    assert len(requests) == 2
    with django_capture_on_commit_callbacks(execute=False):
        replay = queue_held(requests)  # the second request is absorbed by the first
    services.run_replay(replay.pk)
    replay.refresh_from_db()
    assert (replay.status, replay.from_period) == (Replay.Status.COMPLETE, 2)
    assert snapshot(config) == expected_projection(config, kept, current_period(config))


def test_a_void_touches_the_period_of_the_match_it_voids(
    league, rated, django_capture_on_commit_callbacks
):
    config, _players, kept = rated
    with django_capture_on_commit_callbacks(execute=False) as requests:
        league_services.void_match(league, kept[1].event, reason="entered twice")
    kept[1].voided = True
    with django_capture_on_commit_callbacks(execute=False):
        replay = queue_held(requests)
    services.run_replay(replay.pk)
    replay.refresh_from_db()
    assert (replay.status, replay.from_period) == (Replay.Status.COMPLETE, 1)
    assert snapshot(config) == expected_projection(config, kept, current_period(config))


def test_a_catch_up_after_the_current_period_moved_folds_the_new_periods(
    league, rated, django_capture_on_commit_callbacks
):
    config, _players, kept = rated
    through = current_period(config)
    # As if the projection had been computed three periods ago (its rows end long before).
    ProjectionState.objects.filter(config=config).update(through_period=through - 3)
    with django_capture_on_commit_callbacks(execute=False):
        (replay,) = services.request_catch_up(league)
    services.run_replay(replay.pk)
    replay.refresh_from_db()
    assert replay.status == Replay.Status.COMPLETE
    assert (replay.from_period, replay.periods_total) == (through - 2, 3)
    assert ProjectionState.objects.get(config=config).through_period == through
    assert snapshot(config) == expected_projection(config, kept, through)


def test_a_catch_up_with_nothing_new_leaves_the_projection_untouched(
    league, rated, django_capture_on_commit_callbacks
):
    config, _players, kept = rated
    before = ProjectionState.objects.get(config=config)
    with django_capture_on_commit_callbacks(execute=False):
        (replay,) = services.request_catch_up(league)
    services.run_replay(replay.pk)
    replay.refresh_from_db()
    assert (replay.status, replay.periods_total) == (Replay.Status.COMPLETE, 0)
    after = ProjectionState.objects.get(config=config)
    assert (after.computed_at, after.through_seq) == (before.computed_at, before.through_seq)
    assert snapshot(config) == expected_projection(config, kept, current_period(config))


def test_only_facts_that_can_change_a_rating_queue_a_catch_up(
    league, rated, django_capture_on_commit_callbacks
):
    _config, players, kept = rated
    with django_capture_on_commit_callbacks(execute=False) as requests:
        league_services.register_player(league, "Newcomer")
    assert requests == []
    with django_capture_on_commit_callbacks(execute=False) as requests:
        record(league, kept, players[0], players[2], "1", START + dt.timedelta(days=3))
    assert len(requests) == 1
