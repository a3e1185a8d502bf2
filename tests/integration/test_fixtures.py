"""Fixtures as events: scheduled, rescheduled, cancelled, and results entered against them."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from league import fixtures, services
from league.calendar import day_text
from league.event_store import facts_of
from league.event_store.vocabulary import (
    FixtureCancelled,
    FixtureRescheduled,
    FixtureScheduled,
    MatchRecorded,
)
from league.models import RATING_KINDS, Event, Fixture


@pytest.fixture
def roster(league, make_player):
    return {name: make_player(league, name) for name in ("Ann", "Bob", "Cem", "Dee")}


LONDON = ZoneInfo("Europe/London")  # the league fixture's time zone


def _soon(days=1, hour=19):
    """A naive moment (read in the league's zone) ``days`` after the league's today."""
    day = timezone.localdate(timezone=LONDON) + dt.timedelta(days=days)
    return dt.datetime.combine(day, dt.time(hour))


def _messages(error: ValidationError) -> dict[str, list[str]]:
    return error.message_dict


def test_scheduling_stores_an_event_and_creates_the_fixture(league, roster, organiser):
    fixture = fixtures.schedule_fixture(
        league,
        player_a=roster["Ann"],
        player_b=roster["Bob"].pk,
        scheduled_at=_soon(),
        venue="Board 1",
        label="Round 1",
        recorded_by=organiser,
    )
    event = Event.objects.get(fixture=fixture, kind=Event.Kind.FIXTURE_SCHEDULED)
    (fact,) = facts_of([event])
    assert fact == FixtureScheduled(
        fixture_id=fixture.pk,
        player_a_id=roster["Ann"].pk,
        player_b_id=roster["Bob"].pk,
        scheduled_at=fixture.scheduled_at,
        deadline=_soon().date(),
        venue="Board 1",
        label="Round 1",
    )
    assert event.recorded_by == organiser
    assert event.kind not in RATING_KINDS
    assert (fixture.deadline, fixture.cancelled) == (_soon().date(), False)


def test_a_retry_with_the_same_key_schedules_nothing_new(league, roster):
    kwargs = {
        "player_a": roster["Ann"],
        "player_b": roster["Bob"],
        "scheduled_at": _soon(),
        "idempotency_key": "k1",
    }
    first = fixtures.schedule_fixture(league, **kwargs)
    again = fixtures.schedule_fixture(league, **kwargs)
    assert first.pk == again.pk
    assert Fixture.objects.count() == 1
    with pytest.raises(ValidationError) as caught:
        fixtures.schedule_fixture(league, **{**kwargs, "venue": "elsewhere"})
    assert "idempotency_key" in _messages(caught.value)


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"player_b": "Ann"}, "player_b"),
        ({"player_b": 999999}, "player_b"),
        ({"scheduled_at": "next tuesday"}, "scheduled_at"),
        ({"scheduled_at": "2023-12-31"}, "scheduled_at"),
        ({"deadline": "2020-01-01"}, "deadline"),
        ({"deadline": "soon"}, "deadline"),
        ({"venue": "x" * 121}, "venue"),
        ({"venue": "Board\x001"}, "venue"),
        ({"label": "y" * 121}, "label"),
    ],
)
def test_bad_input_names_the_field_and_stores_nothing(league, roster, changes, field):
    values = {"player_a": roster["Ann"], "player_b": roster["Bob"], "scheduled_at": _soon()}
    for key, value in changes.items():
        values[key] = roster.get(value, value) if isinstance(value, str) else value
    before = Event.objects.count()
    with pytest.raises(ValidationError) as caught:
        fixtures.schedule_fixture(league, **values)
    assert field in _messages(caught.value)
    assert Event.objects.count() == before
    assert not Fixture.objects.exists()


def test_inactive_players_and_outsiders_get_no_fixture(league, roster, make_player, other_league):
    gone = make_player(league, "Gone", active=False)
    stranger = make_player(other_league, "Olga")
    with pytest.raises(ValidationError) as caught:
        fixtures.schedule_fixture(
            league, player_a=gone, player_b=roster["Bob"], scheduled_at=_soon()
        )
    assert "inactive" in _messages(caught.value)["player_a"][0]
    with pytest.raises(ValidationError) as caught:
        fixtures.schedule_fixture(
            league, player_a=roster["Ann"], player_b=stranger, scheduled_at=_soon()
        )
    assert "another league" in _messages(caught.value)["player_b"][0]
    with pytest.raises(ValidationError) as caught:
        fixtures.schedule_fixture(
            league,
            player_a=roster["Ann"],
            player_b=roster["Bob"],
            scheduled_at=_soon(),
            recorded_by=stranger.league.organisers.first(),
        )
    assert "recorded_by" in _messages(caught.value)
    assert not Fixture.objects.exists()


def test_a_round_is_scheduled_whole_or_not_at_all(league, roster):
    R = fixtures.FixtureRequest
    good = R(roster["Ann"], roster["Bob"], _soon())
    with pytest.raises(ValidationError) as caught:
        fixtures.schedule_fixtures(
            league, [good, R(roster["Cem"], roster["Ann"], _soon()), R(roster["Dee"], 0, _soon())]
        )
    messages = _messages(caught.value)
    assert "fixtures.1.player_b" in messages
    assert "fixtures.2.player_b" in messages
    assert not Fixture.objects.exists()
    made = fixtures.schedule_fixtures(league, [good, R(roster["Cem"], roster["Dee"], _soon())])
    assert [(f.player_a_id, f.player_b_id) for f in made] == [
        (roster["Ann"].pk, roster["Bob"].pk),
        (roster["Cem"].pk, roster["Dee"].pk),
    ]


def test_rescheduling_and_cancelling_are_events_that_move_the_state(league, roster, organiser):
    fixture = fixtures.schedule_fixture(
        league, player_a=roster["Ann"], player_b=roster["Bob"], scheduled_at=_soon(), venue="Hall"
    )
    later = _soon(days=3, hour=18)
    fixtures.reschedule_fixture(
        league, fixture, scheduled_at=later, deadline=later.date() + dt.timedelta(days=2),
        reason="Bob away", recorded_by=organiser,
    )  # fmt: skip
    fixture.refresh_from_db()
    assert fixture.deadline == later.date() + dt.timedelta(days=2)
    assert fixture.venue == "Hall"
    assert fixture.scheduled_at == later.replace(tzinfo=LONDON)
    fixtures.cancel_fixture(league, fixture.pk, reason="Hall closed", recorded_by=organiser)
    fixture.refresh_from_db()
    assert fixture.cancelled
    facts = facts_of(Event.objects.filter(fixture=fixture).order_by("seq"))
    assert [type(f) for f in facts] == [FixtureScheduled, FixtureRescheduled, FixtureCancelled]
    assert facts[1].reason == "Bob away"
    assert facts[2] == FixtureCancelled(fixture_id=fixture.pk, reason="Hall closed")
    with pytest.raises(ValidationError) as caught:
        fixtures.cancel_fixture(league, fixture, reason="again")
    assert "cancelled" in _messages(caught.value)["fixture"][0]
    with pytest.raises(ValidationError):
        fixtures.reschedule_fixture(league, fixture, scheduled_at=_soon(days=4))


def test_a_result_entered_against_a_fixture_records_the_fixture(league, roster, organiser):
    fixture = fixtures.schedule_fixture(
        league, player_a=roster["Ann"], player_b=roster["Bob"], scheduled_at=_soon(days=0, hour=0)
    )
    match = services.record_fixture_result(
        league, fixture, score_a="0.5", points="½–½", recorded_by=organiser
    )
    (fact,) = facts_of([match])
    assert isinstance(fact, MatchRecorded)
    assert (fact.player_a_id, fact.player_b_id, fact.score_a, fact.fixture_id) == (
        roster["Ann"].pk,
        roster["Bob"].pk,
        Decimal("0.5"),
        fixture.pk,
    )
    assert fixtures.playing_match(fixture) == match
    with pytest.raises(ValidationError) as caught:
        services.record_fixture_result(league, fixture, score_a=1)
    assert "already played" in _messages(caught.value)["fixture"][0]
    with pytest.raises(ValidationError):
        fixtures.cancel_fixture(league, fixture)
    # A correction keeps the fixture; a void opens it again.
    _void, corrected = services.correct_match(league, match, reason="typo", score_a=1)
    assert corrected.fixture_id == fixture.pk
    services.void_match(league, corrected, reason="never played")
    assert fixtures.playing_match(fixture) is None
    again = services.record_fixture_result(league, fixture.pk, score_a=0)
    assert again.fixture_id == fixture.pk


def test_a_result_against_a_fixture_must_name_its_players(league, roster):
    fixture = fixtures.schedule_fixture(
        league, player_a=roster["Ann"], player_b=roster["Bob"], scheduled_at=_soon(days=0, hour=0)
    )
    with pytest.raises(ValidationError) as caught:
        services.record_match(
            league,
            player_a=roster["Bob"],
            player_b=roster["Ann"],
            score_a=1,
            played_at=timezone.localdate(timezone=LONDON),
            fixture=fixture,
        )
    assert "Ann v Bob" in _messages(caught.value)["fixture"][0]
    with pytest.raises(ValidationError) as caught:
        services.record_fixture_result(league, 424242, score_a=1)
    assert "Unknown fixture" in _messages(caught.value)["fixture"][0]
    assert not Event.objects.filter(kind=Event.Kind.MATCH_RECORDED).exists()


def test_a_future_fixture_played_early_is_dated_now(league, roster):
    fixture = fixtures.schedule_fixture(
        league, player_a=roster["Ann"], player_b=roster["Bob"], scheduled_at=_soon(days=5)
    )
    match = services.record_fixture_result(league, fixture, score_a=1)
    assert match.played_at <= timezone.now()
    assert match.played_at > timezone.now() - dt.timedelta(minutes=1)


def test_fixture_events_are_described_in_the_event_log(league, roster):
    from league.event_log import event_log

    fixture = fixtures.schedule_fixture(
        league,
        player_a=roster["Ann"],
        player_b=roster["Bob"],
        scheduled_at=_soon(days=1, hour=19),
        venue="Hall",
        label="Round 1",
    )
    fixtures.reschedule_fixture(league, fixture, scheduled_at=_soon(days=2, hour=18))
    fixtures.cancel_fixture(league, fixture, reason="rain")
    day1, day2 = (_soon(days=d) for d in (1, 2))
    summaries = [row.summary for row in event_log(league).items[:3]]
    assert summaries == [
        "Ann v Bob cancelled",
        f"Ann v Bob moved to {day_text(day2)}, 18:00 at Hall",
        f"Ann v Bob scheduled {day_text(day1)}, 19:00 at Hall (Round 1)",
    ]


def _years_ahead(years: int) -> dt.datetime:
    today = timezone.localdate(timezone=LONDON)
    return dt.datetime.combine(today.replace(year=today.year + years, day=1), dt.time(19))


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"scheduled_at": "9999-12-31T19:00"}, "scheduled_at"),
        ({"scheduled_at": _years_ahead(fixtures.HORIZON_YEARS + 1)}, "scheduled_at"),
        ({"deadline": "9999-12-31"}, "deadline"),
        ({"deadline": _years_ahead(fixtures.HORIZON_YEARS + 1).date()}, "deadline"),
    ],
)
def test_a_fixture_beyond_the_horizon_is_refused_on_every_service(league, roster, changes, field):
    values = {"player_a": roster["Ann"], "player_b": roster["Bob"], "scheduled_at": _soon()}
    values.update(changes)
    with pytest.raises(ValidationError) as caught:
        fixtures.schedule_fixture(league, **values)
    assert field in _messages(caught.value)
    assert f"{fixtures.HORIZON_YEARS} years" in " ".join(_messages(caught.value)[field])
    with pytest.raises(ValidationError) as caught:
        fixtures.schedule_fixtures(league, [fixtures.FixtureRequest(**values)])
    assert f"fixtures.0.{field}" in _messages(caught.value)
    assert not Fixture.objects.exists()
    fixture = fixtures.schedule_fixture(
        league, player_a=roster["Ann"], player_b=roster["Bob"], scheduled_at=_soon()
    )
    moved = {"scheduled_at": values["scheduled_at"], "deadline": values.get("deadline")}
    with pytest.raises(ValidationError) as caught:
        fixtures.reschedule_fixture(league, fixture, **moved)
    assert field in _messages(caught.value)
    assert Event.objects.filter(kind=Event.Kind.FIXTURE_RESCHEDULED).count() == 0


def test_a_fixture_within_the_horizon_is_accepted(league, roster):
    fixture = fixtures.schedule_fixture(
        league,
        player_a=roster["Ann"],
        player_b=roster["Bob"],
        scheduled_at=_years_ahead(fixtures.HORIZON_YEARS - 1),
    )
    assert fixture.pk is not None
