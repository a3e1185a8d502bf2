"""Replays against the database (tasks eager): full = engine fold, switch-over, failures."""

from __future__ import annotations

import datetime as dt
import math
import random
from zoneinfo import ZoneInfo

import pytest
from django.core.exceptions import ValidationError

from league import services as league_services
from league.models import Event
from ratings import services
from ratings.models import ProjectionState, Publication, RatingConfig, Replay, Standing
from ratings.replay import compute as replay_compute
from ratings.selectors.progress import league_progress
from ratings.time import current_period
from tests.integration.test_instant_replay import Kept
from tests.integration.test_instant_replay import expected_projection as expected_instant
from tests.replay_support import KeptMatch, expected_projection, snapshot

LONDON = ZoneInfo("Europe/London")
START = dt.date(2024, 1, 1)


@pytest.fixture
def players(league, make_player):
    return [make_player(league, f"Player {i}") for i in range(6)]


def record(league, kept: list[KeptMatch], a, b, score, day) -> KeptMatch:
    event = league_services.record_match(
        league, player_a=a, player_b=b, score_a=str(score), played_at=day
    )
    match = KeptMatch(a.pk, b.pk, float(score), day, event)
    kept.append(match)
    return match


def seeded_matches(league, players, count, seed=1) -> list[KeptMatch]:
    rng = random.Random(seed)
    kept: list[KeptMatch] = []
    for _ in range(count):
        a, b = rng.sample(players, 2)
        day = START + dt.timedelta(days=rng.randrange(0, 70))
        record(league, kept, a, b, rng.choice(["1", "0.5", "0"]), day)
    return kept


def run_queued() -> None:
    """Run every queued replay, oldest first (what workers would do)."""
    for pk in (
        Replay.objects.filter(status=Replay.Status.QUEUED)
        .order_by("pk")
        .values_list("pk", flat=True)
    ):
        services.run_replay(pk)


def create_and_run(league, django_capture_on_commit_callbacks, **params) -> RatingConfig:
    with django_capture_on_commit_callbacks(execute=True):
        config = services.create_config(league, **params, update_mode="period")
    return config


def test_full_replay_equals_a_direct_engine_fold(
    league, players, django_capture_on_commit_callbacks
):
    kept = seeded_matches(league, players, 60)
    config = create_and_run(league, django_capture_on_commit_callbacks, tau=0.7)

    replay = Replay.objects.get(config=config)
    assert replay.status == Replay.Status.COMPLETE
    assert replay.attempts == 1
    assert set(replay.timings) >= {"reading", "computing", "writing"}
    assert Publication.objects.get(league=league).config == config
    through = current_period(config)
    state = ProjectionState.objects.get(config=config)
    assert state.complete
    assert state.through_period == through
    assert state.through_seq == Event.objects.filter(league=league).count()
    assert snapshot(config) == expected_projection(config, kept, through)


def test_standings_hold_the_latest_match_moment(
    league, players, django_capture_on_commit_callbacks
):
    kept = seeded_matches(league, players, 20)
    config = create_and_run(league, django_capture_on_commit_callbacks)
    for standing in Standing.objects.filter(config=config):
        mine = [m.event.played_at for m in kept if standing.player_id in (m.a, m.b)]
        assert standing.last_played_at == max(mine)


def test_new_version_goes_live_only_when_its_replay_is_complete(
    league, players, django_capture_on_commit_callbacks
):
    seeded_matches(league, players, 30)
    v1 = create_and_run(league, django_capture_on_commit_callbacks)
    before = snapshot(v1)

    with django_capture_on_commit_callbacks(execute=False):
        v2 = services.create_config(league, tau=1.1, update_mode="period")
    queued = Replay.objects.get(config=v2)
    assert queued.status == Replay.Status.QUEUED
    assert Publication.objects.get(league=league).config == v1
    assert not ProjectionState.objects.filter(config=v2).exists()

    services.run_replay(queued.pk)
    assert Publication.objects.get(league=league).config == v2
    assert snapshot(v1) == before  # the earlier version stays viewable
    assert snapshot(v2) != before


def test_a_stale_replay_is_superseded_and_never_goes_live(
    league, players, django_capture_on_commit_callbacks
):
    seeded_matches(league, players, 30)
    v1 = create_and_run(league, django_capture_on_commit_callbacks)
    with django_capture_on_commit_callbacks(execute=False):
        v2 = services.create_config(league, tau=0.9, update_mode="period")
        stale = Replay.objects.get(config=v2)
        v3 = services.create_config(league, tau=0.4, update_mode="period")
    assert Replay.objects.get(pk=stale.pk).status == Replay.Status.SUPERSEDED

    services.run_replay(stale.pk)
    assert Publication.objects.get(league=league).config == v1
    assert not ProjectionState.objects.filter(config=v2).exists()

    run_queued()
    assert Publication.objects.get(league=league).config == v3


def test_a_version_created_during_a_replay_supersedes_it(
    league, players, django_capture_on_commit_callbacks, monkeypatch
):
    seeded_matches(league, players, 30)
    v1 = create_and_run(league, django_capture_on_commit_callbacks)
    with django_capture_on_commit_callbacks(execute=False):
        v2 = services.create_config(league, tau=0.9, update_mode="period")
    real_fold = replay_compute.fold
    created = []

    def fold_then_change(*args, **kwargs):
        if not created:
            with django_capture_on_commit_callbacks(execute=False):
                created.append(services.create_config(league, tau=0.3, update_mode="period"))
        return real_fold(*args, **kwargs)

    monkeypatch.setattr(replay_compute, "fold", fold_then_change)
    services.run_replay(Replay.objects.get(config=v2).pk)

    assert Replay.objects.get(config=v2).status == Replay.Status.SUPERSEDED
    assert not ProjectionState.objects.filter(config=v2).exists()  # stopped before writing
    # The lock holder went on with the replay queued for v3, which went live.
    assert Replay.objects.get(config=created[0]).status == Replay.Status.COMPLETE
    assert Publication.objects.get(league=league).config == created[0]
    assert v1.pk != created[0].pk


def test_a_failing_replay_records_its_error_and_leaves_live_standings(
    league, players, django_capture_on_commit_callbacks, monkeypatch, settings
):
    settings.REPLAY_MAX_ATTEMPTS = 3
    seeded_matches(league, players, 30)
    v1 = create_and_run(league, django_capture_on_commit_callbacks)
    live = snapshot(v1)
    calls = []

    def broken_fold(*args, **kwargs):
        calls.append(1)
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(replay_compute, "fold", broken_fold)
    v2 = create_and_run(league, django_capture_on_commit_callbacks, tau=1.0)

    replay = Replay.objects.get(config=v2)
    assert replay.status == Replay.Status.FAILED
    assert replay.attempts == 3
    assert len(calls) == 3
    assert "RuntimeError: disk on fire" in replay.error
    assert Publication.objects.get(league=league).config == v1
    assert snapshot(v1) == live
    progress = league_progress(league)
    assert progress["status"] == "failed"
    assert progress["attempts"] == 3
    assert "disk on fire" in progress["error"]
    assert progress["live"] is False


def test_a_replay_whose_worker_died_too_often_is_failed(league, players, settings):
    settings.REPLAY_MAX_ATTEMPTS = 2
    config = services.create_config(league, update_mode="period")
    replay = Replay.objects.get(config=config)
    # Two workers took it and died (status left at running, attempts counted at start).
    Replay.objects.filter(pk=replay.pk).update(status=Replay.Status.RUNNING, attempts=2)
    services.run_replay(replay.pk)
    replay.refresh_from_db()
    assert replay.status == Replay.Status.FAILED
    assert "Gave up after 2 attempts" in replay.error
    assert not Publication.objects.filter(league=league).exists()


def test_replays_never_change_events(league, players, django_capture_on_commit_callbacks):
    kept = seeded_matches(league, players, 25)
    with django_capture_on_commit_callbacks(execute=True):
        league_services.void_match(league, kept[3].event, reason="wrong players")
    before = list(Event.objects.filter(league=league).order_by("seq").values())
    create_and_run(league, django_capture_on_commit_callbacks, tau=0.6)
    create_and_run(league, django_capture_on_commit_callbacks, tau=0.8)
    with django_capture_on_commit_callbacks(execute=True):
        services.request_full_replay(league)
    assert list(Event.objects.filter(league=league).order_by("seq").values()) == before


def test_current_period_is_included_and_idle_rd_grows(
    league, players, django_capture_on_commit_callbacks
):
    today = dt.datetime.now(LONDON).date()
    kept: list[KeptMatch] = []
    a, b, c = players[:3]
    record(league, kept, a, b, "1", START)
    record(league, kept, a, c, "0.5", START + dt.timedelta(days=35))
    record(league, kept, b, c, "1", today)
    config = create_and_run(league, django_capture_on_commit_callbacks)

    through = current_period(config)
    assert through == (today - START).days // 7
    assert ProjectionState.objects.get(config=config).through_period == through
    history, _standings = snapshot(config)
    assert {row[1] for row in history} == {0, 5, through}
    assert snapshot(config) == expected_projection(config, kept, through)

    # Player a entered period 5 with the RD of period 0 grown over four idle periods.
    from ratings.models import PlayerPeriod

    first = PlayerPeriod.objects.get(config=config, player=a, period_index=0)
    fifth = PlayerPeriod.objects.get(config=config, player=a, period_index=5)
    phi = first.rd / 173.7178
    grown = min(173.7178 * math.sqrt(phi * phi + 4 * first.volatility**2), 350.0)
    assert fifth.rd_before == grown
    assert fifth.rd_before > first.rd


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"tau": 0}, "tau"),
        ({"tau": -1.0}, "tau"),
        ({"initial_rd": 0}, "initial_rd"),
        ({"initial_volatility": -0.1}, "initial_volatility"),
        ({"max_rd": 0}, "max_rd"),
        ({"period_length": 0}, "period_length"),
        ({"period_unit": "weeks"}, "period_unit"),
        ({"period_anchor": dt.date(2024, 1, 2)}, "period_anchor"),
        ({"period_anchor": "not a date"}, "period_anchor"),
        ({"initial_rd": 400.0}, "initial_rd"),
        ({"colour": "blue"}, "__all__"),
    ],
)
def test_bad_parameters_are_refused_and_nothing_is_stored(league, params, field):
    with pytest.raises(ValidationError) as caught:
        services.create_config(league, **params, update_mode="period")
    assert field in caught.value.message_dict
    assert not RatingConfig.objects.filter(league=league).exists()
    assert not Replay.objects.exists()


def test_anchor_after_the_first_match_is_refused(league, players, make_player):
    league.start_date = dt.date(2023, 1, 1)
    league.save()
    kept: list[KeptMatch] = []
    record(league, kept, players[0], players[1], "1", dt.date(2024, 1, 3))
    with pytest.raises(ValidationError) as caught:
        services.create_config(league, period_anchor=dt.date(2024, 1, 4), update_mode="period")
    assert "first match" in " ".join(caught.value.message_dict["period_anchor"])


def test_unspecified_parameters_are_inherited(league):
    v1 = services.create_config(league, tau=0.8, period_length=14, update_mode="period")
    v2 = services.create_config(league, initial_rd=300.0, max_rd=350.0, update_mode="period")
    assert (v1.version, v2.version) == (1, 2)
    assert (v2.tau, v2.period_length, v2.initial_rd, v2.period_anchor) == (
        0.8,
        14,
        300.0,
        START,
    )


def test_first_result_creates_the_default_configuration(
    league, players, django_capture_on_commit_callbacks
):
    kept: list[KeptMatch] = []
    with django_capture_on_commit_callbacks(execute=True):
        record(league, kept, players[0], players[1], "1", START + dt.timedelta(days=3))
    config = RatingConfig.objects.get(league=league)
    assert (config.version, config.period_unit, config.period_length, config.period_anchor) == (
        1,
        "days",
        7,
        league.start_date,
    )
    # A new league's defaults: instant updates, volatility 0.10 for weekly periods.
    assert (config.update_mode, config.initial_volatility) == ("instant", 0.1)
    assert Publication.objects.get(league=league).config == config
    as_sides = [
        Kept(
            sides=[[m.a], [m.b]],
            places=[0, 0] if m.score == 0.5 else [0, 1] if m.score == 1 else [1, 0],
            day=m.day,
            voided=m.voided,
        )
        for m in kept
    ]
    assert snapshot(config) == expected_instant(config, as_sides, current_period(config))


@pytest.mark.django_db
def test_a_progress_save_stores_the_fold_s_position(league):
    """``runner._save_progress`` (PostgreSQL: one query that commits without waiting for
    the WAL flush) stores how far the fold is, and nothing else of the row changes."""
    from ratings.replay.runner import _save_progress

    config = services.create_config(league, update_mode="period")
    replay = Replay.objects.create(config=config, kind=Replay.Kind.FULL)

    _save_progress(replay.pk, 7, 12)

    saved = Replay.objects.get(pk=replay.pk)
    assert (saved.periods_done, saved.periods_total) == (7, 12)
    assert saved.status == replay.status
