"""Competitions and the ratings: results of a rated event count like any other, results of
an unrated event and every forfeit are recorded but never rated (full and catch-up replays
against a direct engine fold of the rated matches alone)."""

from __future__ import annotations

import datetime as dt

import pytest

from league import competitions
from league import services as league_services
from ratings.selectors.explanation import _period_matches
from ratings.time import current_period
from tests.integration.test_replay import START, create_and_run, record, run_queued
from tests.replay_support import KeptMatch, expected_projection, snapshot


@pytest.fixture
def players(league, make_player):
    return [make_player(league, name) for name in ("Ann", "Bob", "Cem", "Dee")]


def _event(league, organiser, players, *, rated: bool, name: str):
    competition = competitions.create_competition(
        league, name=name, planned_rounds=2, rated=rated, recorded_by=organiser
    )
    for player in players:
        competitions.enter_player(competition, player, recorded_by=organiser)
    return competition


def _round(competition, pairs, day: dt.date):
    return competitions.publish_round(
        competition, competition.rounds_paired + 1, pairs, scheduled_at=day
    ).fixtures


def test_unrated_event_results_and_forfeits_leave_the_ratings_unchanged(
    league, organiser, players, django_capture_on_commit_callbacks
):
    ann, bob, cem, dee = players
    kept: list[KeptMatch] = []
    record(league, kept, ann, bob, "1", START + dt.timedelta(days=3))
    record(league, kept, cem, dee, "0.5", START + dt.timedelta(days=10))

    unrated = _event(league, organiser, players, rated=False, name="Friendly rapid")
    day = START + dt.timedelta(days=12)
    first, second = _round(unrated, [(ann, cem), (bob, dee)], day)
    unrated_match = league_services.record_fixture_result(league, first, score_a="0")
    competitions.record_forfeit(unrated, second, winner=dee)

    rated = _event(league, organiser, players, rated=True, name="Club Swiss")
    day = START + dt.timedelta(days=20)
    game, forfeited = _round(rated, [(dee, ann), (bob, cem)], day)
    event = league_services.record_fixture_result(league, game, score_a="1")
    kept.append(KeptMatch(dee.pk, ann.pk, 1.0, day, event))
    competitions.record_forfeit(rated, forfeited, winner=bob)

    config = create_and_run(league, django_capture_on_commit_callbacks, tau=0.5)
    through = current_period(config)
    assert snapshot(config) == expected_projection(config, kept, through)
    # The projection holds the unrated game nowhere: Cem's only rated game is the draw.
    _history, standings = snapshot(config)
    games = {row[0]: row[5:] for row in standings}
    assert games[cem.pk] == (1, 0, 1, 0)

    # A later unrated result queues a catch-up that still leaves it out.
    with django_capture_on_commit_callbacks(execute=True):
        second_round = _round(unrated, [(cem, ann), (dee, bob)], START + dt.timedelta(days=25))
        league_services.record_fixture_result(league, second_round[0], score_a="1")
    run_queued()
    assert snapshot(config) == expected_projection(config, kept, current_period(config))

    # The "why did my rating move?" page reads the same matches as the replay.
    window = (
        dt.datetime(2024, 1, 1, tzinfo=dt.UTC),
        dt.datetime(2024, 3, 1, tzinfo=dt.UTC),
    )
    seqs = {match.seq for match in _period_matches(league, ann, *window)}
    assert unrated_match.seq not in seqs
    assert event.seq in seqs
