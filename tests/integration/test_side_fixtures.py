"""Fixtures with sides: scheduled, played by a side result, reopened by its void; refusals."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from league import fixtures, services
from league.calendar import page_day_text
from league.event_log import event_log
from league.event_store import facts_of
from league.event_store.vocabulary import FixtureScheduled, SideMatchRecorded
from league.models import Event, Fixture, FixtureSide, MatchFormat
from ratings.selectors.fixtures import OVERDUE, PLAYED, UPCOMING, fixture_rows
from web.workspace.side_fixture_forms import MAX_SIDES_TEXT, SideRoundRobinForm

LONDON = ZoneInfo("Europe/London")


def _soon(days=1, hour=19):
    day = timezone.localdate(timezone=LONDON) + dt.timedelta(days=days)
    return dt.datetime.combine(day, dt.time(hour))


@pytest.fixture
def doubles(league):
    league.match_format = MatchFormat.FIXED
    league.side_size = 2
    league.save()
    return league


@pytest.fixture
def eight(doubles, make_player):
    names = ("Ana", "Ben", "Cai", "Dee", "Eli", "Fay", "Gus", "Hal")
    return [make_player(doubles, name) for name in names]


def _state(league):
    return Event.objects.filter(league=league).count(), Fixture.objects.count()


def test_a_side_fixture_is_stored_with_its_sides(doubles, eight, organiser):
    ana, ben, cai, dee, *_ = eight
    fixture = fixtures.schedule_fixture(
        doubles,
        sides=[[ana, ben.pk], [cai, dee]],
        scheduled_at=_soon(),
        label="Round 1",
        recorded_by=organiser,
    )
    event = Event.objects.get(fixture=fixture, kind=Event.Kind.FIXTURE_SCHEDULED)
    (fact,) = facts_of([event])
    assert isinstance(fact, FixtureScheduled)
    assert fact.sides == ((ana.pk, ben.pk), (cai.pk, dee.pk))
    assert (fact.player_a_id, fact.player_b_id) == (ana.pk, cai.pk)
    assert fixtures.fixture_sides(fixture) == [[ana.pk, ben.pk], [cai.pk, dee.pk]]
    assert FixtureSide.objects.filter(fixture=fixture).count() == 4
    (row,) = fixture_rows(doubles, None)
    assert row.status == UPCOMING
    assert [[p.name for p in side] for side in row.sides] == [["Ana", "Ben"], ["Cai", "Dee"]]
    # Four unrated players of equal rating: the home side is the favourite only by its
    # advantage (none by default), so side A's chances are even.
    assert row.forecast is not None
    assert row.forecast.win == pytest.approx(row.forecast.loss, abs=1e-9)


def test_a_side_result_for_the_fixture_plays_it_and_its_void_reopens_it(doubles, eight):
    ana, ben, cai, dee, *_ = eight
    fixture = fixtures.schedule_fixture(
        doubles, sides=[[ana, ben], [cai, dee]], scheduled_at=_soon(days=0, hour=0)
    )
    match = services.record_fixture_result(doubles, fixture, score_a="0", points="15-21")
    assert match.kind == Event.Kind.SIDE_MATCH_RECORDED
    assert match.fixture_id == fixture.pk
    (fact,) = facts_of([match])
    assert isinstance(fact, SideMatchRecorded)
    assert fact.fixture_id == fixture.pk
    (row,) = fixture_rows(doubles, None, statuses=(PLAYED,))
    assert (row.status, row.match_seq, row.result) == (PLAYED, match.seq, "0–1")
    # Played: a second result for the fixture is refused.
    with pytest.raises(ValidationError) as caught:
        services.record_fixture_result(doubles, fixture, score_a="1")
    assert caught.value.error_dict["fixture"][0].code == "already_played"
    services.void_match(doubles, match, reason="wrong pairs")
    (row,) = fixture_rows(doubles, None, statuses=(UPCOMING, OVERDUE, PLAYED))
    assert row.status in (UPCOMING, OVERDUE)
    again = services.record_fixture_result(doubles, fixture, score_a="1")
    assert again.fixture_id == fixture.pk


def test_record_match_with_the_fixture_accepts_its_sides_in_any_order_within_a_side(doubles, eight):
    ana, ben, cai, dee, *_ = eight
    fixture = fixtures.schedule_fixture(
        doubles, sides=[[ana, ben], [cai, dee]], scheduled_at=_soon(days=0, hour=0)
    )
    match = services.record_match(
        doubles,
        sides=[[ben, ana], [dee, cai]],
        score_a="0.5",
        played_at=timezone.now(),
        fixture=fixture,
    )
    assert match.fixture_id == fixture.pk


def test_a_result_with_other_sides_is_refused_for_the_fixture(doubles, eight):
    ana, ben, cai, dee, eli, *_ = eight
    fixture = fixtures.schedule_fixture(
        doubles, sides=[[ana, ben], [cai, dee]], scheduled_at=_soon(days=0, hour=0)
    )
    before = _state(doubles)
    with pytest.raises(ValidationError) as caught:
        services.record_match(
            doubles,
            sides=[[ana, eli], [cai, dee]],
            score_a="1",
            played_at=timezone.now(),
            fixture=fixture,
        )
    (error,) = caught.value.error_dict["fixture"]
    assert error.code == "other_players"
    assert "Ana & Ben v Cai & Dee" in error.messages[0]
    assert _state(doubles) == before


def test_a_correction_with_the_same_sides_keeps_the_fixture(doubles, eight):
    ana, ben, cai, dee, *_ = eight
    fixture = fixtures.schedule_fixture(
        doubles, sides=[[ana, ben], [cai, dee]], scheduled_at=_soon(days=0, hour=0)
    )
    match = services.record_fixture_result(doubles, fixture, score_a="1")
    _voided, corrected = services.correct_match(doubles, match, reason="typo", score_a="0")
    assert corrected.fixture_id == fixture.pk


@pytest.mark.parametrize(
    ("sides", "code"),
    [
        (lambda p: [[p[0], p[1]], [p[1], p[2]]], "player_twice"),
        (lambda p: [[p[0], p[1], p[2]], [p[3], p[4], p[5]]], "format_refused"),
        (lambda p: [[p[0], p[1]], [p[2]]], "format_refused"),
        (lambda p: [[p[0], p[1]]], "side_count"),
        (lambda p: [[p[0], p[1]], [p[2], 999_999]], "unknown_player"),
        (lambda p: "Ana and Ben", "invalid"),
    ],
)
def test_bad_sides_are_refused_on_the_sides_field_and_change_nothing(doubles, eight, sides, code):
    before = _state(doubles)
    with pytest.raises(ValidationError) as caught:
        fixtures.schedule_fixture(doubles, sides=sides(eight), scheduled_at=_soon())
    errors = caught.value.error_dict
    assert list(errors) == ["sides"]
    assert code in [error.code for error in errors["sides"]]
    assert _state(doubles) == before


def test_an_inactive_player_and_a_player_of_another_league_are_refused(
    doubles, eight, other_league, make_player
):
    ana, ben, cai, dee, *_ = eight
    services.deactivate_player(doubles, dee, reason="moved away", recorded_by=None)
    stranger = make_player(other_league, "Zoe")
    before = _state(doubles)
    with pytest.raises(ValidationError) as caught:
        fixtures.schedule_fixture(doubles, sides=[[ana, ben], [cai, dee]], scheduled_at=_soon())
    (error,) = caught.value.error_dict["sides"]
    assert (error.code, "Dee" in error.messages[0]) == ("inactive_player", True)
    with pytest.raises(ValidationError) as caught:
        fixtures.schedule_fixture(
            doubles, sides=[[ana, ben], [cai, stranger.pk]], scheduled_at=_soon()
        )
    assert "sides" in caught.value.error_dict
    assert _state(doubles) == before


def test_sides_and_two_players_together_are_refused(doubles, eight):
    ana, ben, cai, dee, *_ = eight
    with pytest.raises(ValidationError) as caught:
        fixtures.schedule_fixture(
            doubles, player_a=ana, sides=[[ana, ben], [cai, dee]], scheduled_at=_soon()
        )
    assert caught.value.error_dict["sides"][0].code == "sides_and_players"


def test_a_singles_league_refuses_sides_and_keeps_one_vs_one_fixtures(league, make_player):
    a, b, c, d = (make_player(league, name) for name in ("Ann", "Bob", "Cem", "Dan"))
    with pytest.raises(ValidationError) as caught:
        fixtures.schedule_fixture(league, sides=[[a, b], [c, d]], scheduled_at=_soon())
    assert caught.value.error_dict["sides"][0].code == "format_refused"
    # Two sides of one player are a one-vs-one fixture, however given.
    fixture = fixtures.schedule_fixture(league, sides=[[a], [b]], scheduled_at=_soon())
    assert not FixtureSide.objects.filter(fixture=fixture).exists()
    assert (fixture.player_a_id, fixture.player_b_id) == (a.pk, b.pk)


def test_a_multi_side_fixture_is_played_by_finishing_positions(league, make_player):
    league.match_format = MatchFormat.ANY
    league.save()
    players = [make_player(league, name) for name in ("Ann", "Bob", "Cem")]
    fixture = fixtures.schedule_fixture(
        league, sides=[[p] for p in players], scheduled_at=_soon(days=0, hour=0)
    )
    (open_row,) = fixture_rows(league, None)
    assert open_row.forecast is None  # no forecast for three or more sides
    match = services.record_fixture_result(league, fixture, places=[2, 1, 3])
    (row,) = fixture_rows(league, None, statuses=(PLAYED,))
    assert (row.match_seq, row.positions) == (match.seq, (2, 1, 3))


def test_a_round_of_side_fixtures_refuses_a_player_twice_at_one_time(doubles, eight):
    ana, ben, cai, dee, eli, fay, *_ = eight
    when = _soon()
    before = _state(doubles)
    with pytest.raises(ValidationError) as caught:
        fixtures.schedule_fixtures(
            doubles,
            [
                fixtures.FixtureRequest(None, None, when, sides=[[ana, ben], [cai, dee]]),
                fixtures.FixtureRequest(None, None, when, sides=[[eli, fay], [ana, dee]]),
            ],
        )
    assert caught.value.error_dict["fixtures.1.sides"][0].code == "twice_in_round"
    assert _state(doubles) == before


def test_a_players_fixture_list_includes_their_side_fixtures(doubles, eight):
    ana, ben, cai, dee, *_ = eight
    fixtures.schedule_fixture(doubles, sides=[[ana, ben], [cai, dee]], scheduled_at=_soon())
    assert len(fixture_rows(doubles, None, player=dee)) == 1


def test_the_event_log_names_a_side_fixture_by_its_sides(doubles, eight):
    ana, ben, cai, dee, *_ = eight
    fixture = fixtures.schedule_fixture(
        doubles, sides=[[ana, ben], [cai, dee]], scheduled_at=_soon(), venue="Court 1"
    )
    fixtures.cancel_fixture(doubles, fixture, reason="rain")
    texts = [item.summary for item in event_log(doubles).items]
    assert any(text.startswith("Ana & Ben v Cai & Dee scheduled") for text in texts), texts
    assert "Ana & Ben v Cai & Dee cancelled" in texts


def test_a_fixtures_name_has_the_leagues_own_day(league, make_player):
    ann, bob = make_player(league, "Ann"), make_player(league, "Bob")
    # 23:30 UTC on 1 July is already 2 July in London.
    late = dt.datetime(2024, 7, 1, 23, 30, tzinfo=dt.UTC)
    fixture = Fixture(league=league, player_a=ann, player_b=bob, scheduled_at=late)
    assert str(fixture) == f"Ann v Bob, {page_day_text(dt.date(2024, 7, 2))}"
    assert "2024-07-01" not in str(fixture)


def _robin(league, teams, **changes):
    data = {
        "robin-teams": teams,
        "robin-series": "Doubles",
        "robin-start": "2024-09-03T19:00",
        "robin-days_between": "7",
        "robin-deadline_days": "0",
        **{f"robin-{k}": v for k, v in changes.items()},
    }
    return SideRoundRobinForm(league, data, prefix="robin")


def test_too_many_sides_are_counted_before_any_name_is_looked_up(
    doubles, eight, django_assert_max_num_queries
):
    text = "\n".join(f"Nobody {n}, Noone {n}" for n in range(25))
    form = _robin(doubles, text)
    with django_assert_max_num_queries(2):
        assert not form.is_valid()
    assert form.errors["teams"] == ["Give 2 to 20 sides, one per line; 25 given."]
    long = _robin(doubles, "Ana, Ben\nCai, Dee\n" + "x" * MAX_SIDES_TEXT)
    assert not long.is_valid()
    assert "at most 10000 characters" in long.errors["teams"][0]


@pytest.mark.parametrize(
    ("start", "between", "deadline"),
    [("9999-12-20T19:00", "7", "0"), ("9999-12-30T19:00", "0", "5")],
)
def test_a_round_robin_past_the_calendars_end_is_refused_on_its_start(
    doubles, eight, start, between, deadline
):
    form = _robin(
        doubles, "Ana, Ben\nCai, Dee\nEli, Fay\nGus, Hal", start=start, days_between=between,
        deadline_days=deadline,
    )  # fmt: skip
    assert not form.is_valid()
    assert form.errors["start"] == [
        "The last round or its deadline would fall after the calendar's end: choose an "
        "earlier first day."
    ]
