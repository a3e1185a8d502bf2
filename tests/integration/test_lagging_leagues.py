"""The sweep for leagues left behind when a replay request was never committed."""

from __future__ import annotations

import datetime as dt

import pytest

from league import services as league_services
from ratings import services as rating_services
from ratings.models import Replay
from ratings.selectors.progress import ACTIVE
from ratings.sweeps import catch_up_lagging_leagues, lagging_leagues


@pytest.fixture
def live_league(league, organiser):
    """A league with live standings; its on-commit replay requests never run (``db`` tests
    do not commit), as when the web process dies between the two commits."""
    rating_services.create_config(league, period_unit="days", period_length=7)
    ann = league_services.register_player(league, "Ann")
    bo = league_services.register_player(league, "Bo")
    league_services.record_match(
        league, player_a=ann, player_b=bo, score_a="1", played_at=dt.date(2024, 1, 3)
    )
    for pk in Replay.objects.filter(status=Replay.Status.QUEUED).values_list("pk", flat=True):
        rating_services.run_replay(pk)
    assert not Replay.objects.filter(status__in=ACTIVE).exists()
    return league, ann, bo


def test_a_league_behind_its_events_with_nothing_queued_gets_a_catch_up(live_league, settings):
    settings.REPLAY_RESEND_SECONDS = 0
    league, ann, bo = live_league
    assert lagging_leagues() == []
    league_services.record_match(
        league, player_a=bo, player_b=ann, score_a="1", played_at=dt.date(2024, 1, 10)
    )

    assert lagging_leagues() == [league]
    assert catch_up_lagging_leagues() == 1

    queued = Replay.objects.filter(config__league=league, status=Replay.Status.QUEUED)
    assert queued.count() == 1
    # With a replay queued the league is no longer "nothing queued": the next sweep waits.
    assert catch_up_lagging_leagues() == 0
    rating_services.run_replay(queued.get().pk)
    assert lagging_leagues() == []


def test_a_fact_that_changes_no_rating_does_not_count(live_league, settings):
    settings.REPLAY_RESEND_SECONDS = 0
    league, ann, _ = live_league
    league_services.rename_player(league, ann, "Ann Lee", reason="", recorded_by=None)
    assert lagging_leagues() == []


def test_a_fresh_result_is_left_to_its_own_request(live_league, settings):
    settings.REPLAY_RESEND_SECONDS = 3600
    league, ann, bo = live_league
    league_services.record_match(
        league, player_a=bo, player_b=ann, score_a="1", played_at=dt.date(2024, 1, 10)
    )
    assert lagging_leagues() == []


def test_a_league_whose_first_result_never_queued_a_replay_gets_one(league, settings):
    settings.REPLAY_RESEND_SECONDS = 0
    ann = league_services.register_player(league, "Ann")
    bo = league_services.register_player(league, "Bo")
    league_services.record_match(
        league, player_a=ann, player_b=bo, score_a="1", played_at=dt.date(2024, 1, 3)
    )
    assert not Replay.objects.filter(config__league=league).exists()

    assert lagging_leagues() == [league]
    catch_up_lagging_leagues()

    assert Replay.objects.filter(config__league=league, status=Replay.Status.QUEUED).exists()


def test_one_failing_league_does_not_stop_the_sweep(
    live_league, other_league, settings, monkeypatch
):
    settings.REPLAY_RESEND_SECONDS = 0
    league, ann, bo = live_league
    league_services.record_match(
        league, player_a=bo, player_b=ann, score_a="1", played_at=dt.date(2024, 1, 10)
    )
    cy = league_services.register_player(other_league, "Cy")
    di = league_services.register_player(other_league, "Di")
    league_services.record_match(
        other_league, player_a=cy, player_b=di, score_a="1", played_at=dt.date(2024, 1, 10)
    )
    calls = []

    def flaky(target):
        calls.append(target)
        if len(calls) == 1:
            raise RuntimeError("database hiccup")
        return rating_services.request_catch_up(target)

    monkeypatch.setattr("ratings.sweeps.request_catch_up", flaky)
    assert catch_up_lagging_leagues() == 2
    assert len(calls) == 2
    assert Replay.objects.filter(status=Replay.Status.QUEUED).count() == 1
