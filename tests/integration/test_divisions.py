"""Divisions of a season: their tables, promotion and relegation into the next season, the
organiser's adjustments, the facts in the log, and every refusal changing nothing."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError

from league import seasons
from league.divisions import (
    DivisionInput,
    fix_divisions,
    move_player,
    set_divisions,
    setup_of,
)
from league.event_log import event_log
from league.models import Event
from ratings.seasons.divisions import division_members, division_tables, propose_next
from tests.divisions_support import three_divisions

pytestmark = pytest.mark.django_db


@pytest.fixture
def club(league, make_player):
    return three_divisions(league, make_player)


def _names(season):
    return [
        sorted(player.display_name.removeprefix("Player ") for player in players)
        for _division, players in division_members(season)
    ]


def _refused(call, field: str) -> str:
    with pytest.raises(ValidationError) as caught:
        call()
    messages = caught.value.message_dict
    assert field in messages, messages
    return " ".join(messages[field])


def test_each_division_plays_its_own_table(club):
    tables = division_tables(club["spring"])
    assert [table.division.name for table in tables] == ["Division 1", "Division 2", "Division 3"]
    top = tables[0]
    by_name = {line.name: line for line in top.lines}
    assert [line.name for line in top.lines] == ["Player A1", "Player A2", "Player A3"]
    assert [by_name[n].points for n in ("Player A1", "Player A2", "Player A3")] == [
        Decimal(6),
        Decimal(3),
        Decimal(0),
    ]
    # A3's loss to B1 was across divisions: in neither table.
    assert by_name["Player A3"].games == 2
    assert {line.name: line.games for line in tables[1].lines}["Player B1"] == 2
    players = club["players"]
    assert top.promoted == frozenset()
    assert top.relegated == {players["A3"].pk}
    assert tables[1].promoted == {players["B1"].pk}
    assert tables[1].relegated == {players["B3"].pk}
    assert tables[2].promoted == {players["C1"].pk}
    assert tables[2].relegated == frozenset()
    # The season has ended: its tables are final, nothing is forecast.
    assert all(table.forecast is None for table in tables)


def test_promotion_and_relegation_proposed_adjusted_and_fixed(club):
    autumn = propose_next(club["spring"])
    assert autumn == club["autumn"]
    assert _names(autumn) == [
        ["A1", "A2", "B1"],
        ["A3", "B2", "C1"],
        ["B3", "C2", "C3", "Ned Newcomer"],
    ]
    setup = setup_of(autumn)
    assert setup.proposed
    assert not setup.fixed
    assert setup.promotion == 1
    move_player(autumn, player=club["players"]["Ned"].pk, division="2")
    assert _names(autumn)[1] == ["A3", "B2", "C1", "Ned Newcomer"]
    fix_divisions(autumn)
    assert setup_of(autumn).fixed
    before = Event.objects.count()
    message = _refused(
        lambda: move_player(autumn, player=club["players"]["Ned"].pk, division="3"), "__all__"
    )
    assert "fixed" in message
    assert Event.objects.count() == before
    log = [row.summary for row in event_log(club["league"]).items]
    assert log[0] == "Divisions of Autumn 2024 fixed"
    assert log[1] == "Ned Newcomer moved from division 3 to division 2 of Autumn 2024"
    assert log[2].startswith(
        "Divisions of Autumn 2024 proposed by promotion and relegation (1 up and 1 down): "
        "Division 1: Player A1, Player A2, Player B1;"
    )


def test_bad_divisions_are_refused_naming_the_field(club, other_league, make_player):
    autumn, players = club["autumn"], club["players"]
    stranger = make_player(other_league, "Stranger")
    before = Event.objects.count()

    def divisions(*groups):
        return [
            DivisionInput(f"Division {n}", tuple(p.pk for p in group))
            for n, group in enumerate(groups, start=1)
        ]

    a1, a2, b1, b2 = (players[n] for n in ("A1", "A2", "B1", "B2"))
    message = _refused(
        lambda: set_divisions(autumn, divisions([a1, a2], [a1, b1]), promotion=1), "players_2"
    )
    assert "Player A1 is in division 1 and division 2" in message
    message = _refused(
        lambda: set_divisions(autumn, divisions([a1, a2, b2], [b1]), promotion=1), "players_2"
    )
    assert "at least 2 players; this one has 1" in message
    message = _refused(
        lambda: set_divisions(autumn, divisions([a1, a2], [b1, b2]), promotion=2), "promotion"
    )
    assert "more than division 1 holds" in message
    message = _refused(
        lambda: set_divisions(autumn, divisions([a1, a2], [b1, stranger]), promotion=1),
        "players_2",
    )
    assert "not a player of this league" in message
    _refused(lambda: set_divisions(autumn, divisions([a1, a2]), promotion="x"), "promotion")
    # The spring divisions are fixed: neither set again nor adjusted.
    _refused(lambda: set_divisions(club["spring"], divisions([a1, a2]), promotion=1), "__all__")
    _refused(lambda: move_player(club["spring"], player=a1.pk, division="2"), "__all__")
    assert Event.objects.count() == before
    assert setup_of(autumn) is None


def test_moves_that_would_break_a_division_are_refused(club):
    autumn = propose_next(club["spring"])
    players = club["players"]
    before = Event.objects.count()
    assert "already in Division 1" in _refused(
        lambda: move_player(autumn, player=players["A1"].pk, division="1"), "division"
    )
    assert "from 1 to 3" in _refused(
        lambda: move_player(autumn, player=players["A1"].pk, division="4"), "division"
    )
    assert "in no division" in _refused(
        lambda: move_player(autumn, player=999999, division="2"), "player"
    )
    move_player(autumn, player=players["A1"].pk, division="2")
    assert "with one player" in _refused(
        lambda: move_player(autumn, player=players["A2"].pk, division="2"), "player"
    )
    assert Event.objects.count() == before + 1


def test_no_proposal_before_the_season_ends(league, make_player):
    today = dt.date.today()
    ann, bob = make_player(league, "Ann"), make_player(league, "Bob")
    now = seasons.create_season(
        league, name="Now", start_date=today - dt.timedelta(days=3), end_date=today
    )
    set_divisions(now, [DivisionInput("Box A", (ann.pk, bob.pk))], promotion=0)
    assert "fixed divisions" in _refused(lambda: propose_next(now), "season")
    fix_divisions(now)
    assert "has not ended" in _refused(lambda: propose_next(now), "season")


def test_a_division_with_fixtures_simulates_them_alone(league, make_player):
    """The forecast plays out the division's open fixtures in the season (not a round robin,
    and not a fixture across divisions): with one fixture left between two players level on
    points, each is first about half the time, and the others' chances are none."""
    from django.utils import timezone

    from league import fixtures

    today = dt.date.today()
    ann, bob, cat, dan = (make_player(league, name) for name in ("Ann", "Bob", "Cat", "Dan"))
    season = seasons.create_season(
        league,
        name="Now",
        start_date=today - dt.timedelta(days=3),
        end_date=today + dt.timedelta(days=30),
    )
    set_divisions(
        season,
        [DivisionInput("Upper", (ann.pk, bob.pk)), DivisionInput("Lower", (cat.pk, dan.pk))],
        promotion=1,
    )
    soon = timezone.now() + dt.timedelta(days=2)
    fixtures.schedule_fixture(league, player_a=ann, player_b=bob, scheduled_at=soon)
    fixtures.schedule_fixture(
        league, player_a=bob, player_b=cat, scheduled_at=soon + dt.timedelta(days=1)
    )
    upper, lower = division_tables(season)
    assert upper.forecast.simulated == "fixtures"
    assert upper.forecast.remaining == 1
    error = 0.5 / 2000**0.5
    for player in (ann, bob):
        first = upper.forecast.first[player.pk]
        assert first.probability == pytest.approx(0.5, abs=4 * error)
        # At most 0.5 / sqrt(2000) (times sqrt(n / (n - 1)) for the sample deviation): 0.0112.
        assert first.standard_error <= 0.0112
    # The lower division has no fixture of its own: its players' one game is simulated.
    assert lower.forecast.simulated == "round_robin"
    assert lower.forecast.remaining == 1
