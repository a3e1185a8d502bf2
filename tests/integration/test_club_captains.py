"""Captains, season settings and generated club matches through the services: an organiser
names a team's captain; the captain, signed in, hands in their team's board order (the
fact says so) and nobody else can; a season fixes the boards and match points of its club
matches; a round robin of club matches is generated; every bad input is refused with a
message naming the field and nothing written."""

from __future__ import annotations

import dataclasses
import datetime as dt
import itertools
from collections import Counter
from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.utils import translation

from league import seasons
from league.event_log import event_log
from league.models import BoardOrder, ClubMatch, ClubSeason, Event, Team
from league.player_accounts import claim_player
from league.services import deactivate_player
from league.validation import IDEMPOTENCY_KEY_MAX, Errors
from ratings import club_fixtures
from ratings import club_matches as clubs


def nobody_rated(league, player_ids):
    return dict.fromkeys(player_ids)


@pytest.fixture
def teams(league, make_player, organiser):
    home = clubs.create_team(league, name="Riverside", recorded_by=organiser)
    away = clubs.create_team(league, name="Hilltop", recorded_by=organiser)
    players = {}
    for team, names in ((home, ("Ann", "Bob", "Cem")), (away, ("Eve", "Fay", "Gus"))):
        for name in names:
            players[name] = make_player(league, name)
            clubs.add_to_roster(league, team, players[name], recorded_by=organiser)
    return home, away, players


def account(name, player, organiser):
    person = get_user_model().objects.create_user(name, password=f"pw-{name}-123")
    claim_player(player, person, by=organiser)
    return person


@pytest.fixture
def captains(league, teams, organiser):
    """Ann captains Riverside, Eve Hilltop; Bob holds an account but captains nothing."""
    home, away, p = teams
    clubs.set_captain(league, home, p["Ann"], recorded_by=organiser)
    clubs.set_captain(league, away, p["Eve"], recorded_by=organiser)
    return {name: account(name.lower(), p[name], organiser) for name in ("Ann", "Eve", "Bob")}


@pytest.fixture
def match(league, teams, organiser):
    home, away, _p = teams
    return clubs.schedule_club_match(
        league, home=home, away=away, boards=3, scheduled_at="2024-03-05", recorded_by=organiser
    )


def _refused(call, *args, **kwargs) -> dict[str, list[str]]:
    before = Event.objects.count()
    orders = list(BoardOrder.objects.values_list("pk", "players", "submitted_by"))
    with pytest.raises(ValidationError) as caught:
        call(*args, **kwargs)
    assert Event.objects.count() == before
    assert list(BoardOrder.objects.values_list("pk", "players", "submitted_by")) == orders
    return caught.value.message_dict


def test_an_organiser_names_a_captain_from_the_roster(league, teams, organiser, make_player):
    home, _away, p = teams
    team = clubs.set_captain(league, home, p["Bob"], recorded_by=organiser)
    assert team.captain == p["Bob"]
    fact = Event.objects.filter(league=league).last()
    assert (fact.kind, fact.player_id, fact.details) == (
        "team_captain_set",
        p["Bob"].pk,
        {"team": home.pk},
    )
    # A later captain replaces the first.
    assert clubs.set_captain(league, home, p["Cem"], recorded_by=organiser).captain == p["Cem"]
    assert "Cem named captain of Riverside" in [row.summary for row in event_log(league).items]

    errors = _refused(clubs.set_captain, league, home, p["Eve"], recorded_by=organiser)
    assert errors["player"] == [
        "Eve is not on Riverside's roster: a captain is one of its players."
    ]
    errors = _refused(clubs.set_captain, league, home, "", recorded_by=organiser)
    assert errors["player"] == ["Choose the captain among the team's players."]
    errors = _refused(clubs.set_captain, league, "nowhere", p["Ann"], recorded_by=organiser)
    assert "team" in errors
    stranger = get_user_model().objects.create_user("zed", password="pw-zed-123")
    errors = _refused(clubs.set_captain, league, home, p["Ann"], recorded_by=stranger)
    assert "recorded_by" in errors
    assert Team.objects.get(pk=home.pk).captain == p["Cem"]


def test_a_captain_hands_in_their_own_teams_order_and_the_fact_says_so(
    league, teams, captains, match, organiser
):
    home, _away, p = teams
    order = clubs.submit_board_order(
        league, match, home, [p["Cem"].pk, p["Ann"].pk, p["Bob"].pk], recorded_by=captains["Ann"]
    )
    assert (order.players, order.submitted_by) == (
        [p["Cem"].pk, p["Ann"].pk, p["Bob"].pk],
        "captain",
    )
    fact = Event.objects.filter(league=league).last()
    assert fact.kind == "board_order_submitted"
    assert fact.details["by"] == "captain"
    assert fact.recorded_by == captains["Ann"]
    summaries = [row.summary for row in event_log(league).items]
    assert any(
        "board order for club match" in s and "from its captain: 1. Cem, 2. Ann, 3. Bob" in s
        for s in summaries
    )
    view = clubs.club_match_view(match, reader=nobody_rated)
    assert [b.home.display_name for b in view.boards] == ["Cem", "Ann", "Bob"]

    # The organiser can still replace it; the fact then says an organiser handed it in.
    again = clubs.submit_board_order(
        league, match, home, [p["Ann"].pk, p["Bob"].pk, p["Cem"].pk], recorded_by=organiser
    )
    assert again.submitted_by == "organiser"
    assert Event.objects.filter(league=league).last().details["by"] == "organiser"


def test_a_captains_own_data_says_which_team_they_captain(league, teams, captains):
    from league.privacy import personal_data

    _home, _away, p = teams
    assert personal_data(captains["Ann"])["captain_of"] == [
        {"league__slug": league.slug, "name": "Riverside", "captain_id": p["Ann"].pk}
    ]
    assert personal_data(captains["Bob"])["captain_of"] == []


def test_nobody_but_the_teams_captain_hands_in_its_order(league, teams, captains, match):
    home, _away, p = teams
    players = [p["Ann"].pk, p["Bob"].pk, p["Cem"].pk]
    errors = _refused(
        clubs.submit_board_order, league, match, home, players, recorded_by=captains["Eve"]
    )
    assert errors["team"] == [
        "You captain Hilltop, not Riverside: hand in your own team's board order."
    ]
    errors = _refused(
        clubs.submit_board_order, league, match, home, players, recorded_by=captains["Bob"]
    )
    assert errors["team"] == [
        "Only Riverside's captain or an organiser of Riverside Chess Club can hand in its "
        "board order."
    ]


def test_a_captains_bad_orders_name_the_board_and_change_nothing(
    league, teams, captains, match, make_player
):
    home, _away, p = teams
    ann = captains["Ann"]
    clubs.submit_board_order(
        league, match, home, [p["Ann"].pk, p["Bob"].pk, p["Cem"].pk], recorded_by=ann
    )
    errors = _refused(
        clubs.submit_board_order,
        league,
        match,
        home,
        [p["Ann"].pk, p["Eve"].pk, p["Cem"].pk],
        recorded_by=ann,
    )
    assert errors["board_2"] == ["Board 2: Eve plays for Hilltop, not Riverside."]
    errors = _refused(
        clubs.submit_board_order,
        league,
        match,
        home,
        [p["Ann"].pk, p["Bob"].pk, p["Ann"].pk],
        recorded_by=ann,
    )
    assert errors["board_3"] == ["Board 3: Ann is already on board 1."]
    errors = _refused(
        clubs.submit_board_order, league, match, home, [p["Ann"].pk, p["Bob"].pk], recorded_by=ann
    )
    assert errors["players"] == [
        "Riverside v Hilltop is played over 3 boards: name 3 players, not 2."
    ]


def test_a_captain_cannot_change_the_order_once_the_result_is_in(
    league, teams, captains, match, organiser
):
    home, _away, p = teams
    clubs.record_club_match(
        league, match, results=["1-0", "½-½", "0-1"], played_at="2024-03-05",
        recorded_by=organiser, reader=nobody_rated,
    )  # fmt: skip
    errors = _refused(
        clubs.submit_board_order, league, match, home, [p["Ann"].pk, p["Bob"].pk, p["Cem"].pk],
        recorded_by=captains["Ann"],
    )  # fmt: skip
    assert errors["club_match"] == [
        "Riverside v Hilltop is recorded already: void it first to change it."
    ]


@pytest.fixture
def season(league, organiser):
    return seasons.create_season(
        league, name="Winter 2024", start_date="2024-01-01", end_date="2024-06-30",
        created_by=organiser,
    )  # fmt: skip


def test_a_season_fixes_the_boards_and_match_points_of_its_club_matches(
    league, teams, season, organiser
):
    home, away, _p = teams
    setting = club_fixtures.set_club_season(
        league, season.slug, boards=6, points_win="3", points_draw="1.5", recorded_by=organiser
    )
    assert (setting.boards, setting.points_win, setting.points_draw, setting.points_loss) == (
        6, Decimal("3"), Decimal("1.5"), Decimal("0"),
    )  # fmt: skip
    assert "Club matches of Winter 2024 set to 6 boards, match points 3/1½/0" in [
        row.summary for row in event_log(league).items
    ]
    # A match in the season takes them without typing them; one outside needs its boards.
    inside = clubs.schedule_club_match(
        league, home=home, away=away, scheduled_at="2024-02-01", recorded_by=organiser
    )
    assert (inside.boards, inside.points_win, inside.points_draw) == (
        6,
        Decimal("3"),
        Decimal("1.5"),
    )
    same = clubs.schedule_club_match(
        league,
        home=away,
        away=home,
        boards="6",
        points_win="3",
        scheduled_at="2024-02-08",
        recorded_by=organiser,
    )
    assert same.boards == 6
    errors = _refused(
        clubs.schedule_club_match,
        league,
        home=home,
        away=away,
        boards=4,
        scheduled_at="2024-02-15",
        recorded_by=organiser,
    )
    assert errors["boards"] == [
        "Winter 2024 sets the number of boards to 6 for its club matches: leave it empty or give 6."
    ]
    errors = _refused(
        clubs.schedule_club_match,
        league,
        home=home,
        away=away,
        points_win="2",
        scheduled_at="2024-02-15",
        recorded_by=organiser,
    )
    assert errors["points_win"] == [
        "Winter 2024 sets a win's match points to 3 for its club matches: leave it empty or give 3."
    ]
    errors = _refused(
        clubs.schedule_club_match,
        league,
        home=home,
        away=away,
        scheduled_at="2024-09-01",
        recorded_by=organiser,
    )
    assert errors["boards"] == [
        "Give the number of boards (1 to 32), or set it for the season of the match's day."
    ]
    # Fixed once a match is scheduled in the season.
    errors = _refused(
        club_fixtures.set_club_season, league, season, boards=8, recorded_by=organiser
    )
    assert errors["season"] == [
        "Winter 2024 has 2 club matches scheduled already: its boards and match points are fixed."
    ]
    assert ClubSeason.objects.get(season=season).boards == 6


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"season": "no-such", "boards": 4}, "season"),
        ({"season": "", "boards": 4}, "season"),
        ({"season": "winter-2024", "boards": 0}, "boards"),
        ({"season": "winter-2024", "boards": "x"}, "boards"),
        ({"season": "winter-2024", "boards": 33}, "boards"),
        (
            {"season": "winter-2024", "boards": 4, "points_win": "1", "points_draw": "2"},
            "points_draw",
        ),
        ({"season": "winter-2024", "boards": 4, "points_loss": "0.3"}, "points_loss"),
        ({"season": "\x00", "boards": 4}, "season"),
    ],
)
def test_bad_season_settings_are_refused(league, season, organiser, kwargs, field):
    season_value = kwargs.pop("season")
    errors = _refused(
        club_fixtures.set_club_season, league, season_value, **kwargs, recorded_by=organiser
    )
    assert field in errors
    assert not ClubSeason.objects.exists()


@pytest.fixture
def four(league, organiser):
    return [
        clubs.create_team(league, name=n, recorded_by=organiser)
        for n in ("Ash", "Birch", "Cedar", "Dale")
    ]


def test_a_single_round_robin_of_club_matches(league, four, organiser):
    made = club_fixtures.generate_club_fixtures(
        league, start="2024-09-03", interval_days=14, boards=4, recorded_by=organiser,
        idempotency_key="autumn",
    )  # fmt: skip
    assert len(made) == 6
    pairs = Counter(frozenset((m.home_id, m.away_id)) for m in made)
    assert set(pairs.values()) == {1}
    assert len(pairs) == 6
    days = sorted({m.scheduled_at.date() for m in made})
    assert days == [dt.date(2024, 9, 3), dt.date(2024, 9, 17), dt.date(2024, 10, 1)]
    # Home and away alternate: three matches each, no team more than one home match apart.
    homes = Counter(m.home_id for m in made)
    assert all(1 <= homes[t.pk] <= 2 for t in four)
    assert {m.boards for m in made} == {4}
    # Each round, every team plays once.
    for _day, group in itertools.groupby(
        sorted(made, key=lambda m: m.scheduled_at), key=lambda m: m.scheduled_at
    ):
        played = [t for m in group for t in (m.home_id, m.away_id)]
        assert sorted(played) == sorted(t.pk for t in four)
    # A retry with the same key stores nothing new.
    count = Event.objects.count()
    again = club_fixtures.generate_club_fixtures(
        league, start="2024-09-03", interval_days=14, boards=4, recorded_by=organiser,
        idempotency_key="autumn",
    )  # fmt: skip
    assert [m.pk for m in again] == [m.pk for m in made]
    assert Event.objects.count() == count


def test_a_double_round_robin_swaps_home_and_away_and_takes_the_seasons_terms(
    league, four, season, organiser
):
    club_fixtures.set_club_season(league, season, boards=5, points_win="2", recorded_by=organiser)
    plan = club_fixtures.plan_club_fixtures(
        league, double=True, start="2024-01-09", interval_days=7
    )
    assert Event.objects.filter(kind="club_match_scheduled").count() == 0  # a plan writes nothing
    assert len(plan) == 12
    assert Counter((m.home.pk, m.away.pk) for m in plan) == Counter(
        {(a.pk, b.pk): 1 for a in four for b in four if a != b}
    )
    made = club_fixtures.generate_club_fixtures(
        league, double=True, start="2024-01-09", interval_days=7, recorded_by=organiser
    )
    assert {m.boards for m in made} == {5}
    assert ClubMatch.objects.filter(league=league).count() == 12
    assert Event.objects.filter(kind="club_match_scheduled").count() == 12


def test_three_teams_sit_out_in_turn(league, organiser):
    for name in ("Ash", "Birch", "Cedar"):
        clubs.create_team(league, name=name, recorded_by=organiser)
    plan = club_fixtures.plan_club_fixtures(league, start="2024-09-03", boards=2)
    assert len(plan) == 3
    assert sorted({m.round for m in plan}) == [1, 2, 3]


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"start": "2024-13-01", "boards": 4}, "start"),
        ({"start": "", "boards": 4}, "start"),
        ({"start": "9999-12-30", "boards": 4}, "start"),
        ({"start": "2024-09-03", "interval_days": 0, "boards": 4}, "interval_days"),
        ({"start": "2024-09-03", "interval_days": "week", "boards": 4}, "interval_days"),
        ({"start": "2024-09-03"}, "boards"),
        ({"start": "2024-09-03", "boards": 40}, "boards"),
        ({"start": "2024-09-03", "boards": 4, "teams": ["Ash"]}, "teams"),
        ({"start": "2024-09-03", "boards": 4, "teams": ["Ash", "Nowhere"]}, "teams"),
        ({"start": "2024-09-03", "boards": 4, "teams": "Ash"}, "teams"),
        # Every box unticked is too few teams, not every team.
        ({"start": "2024-09-03", "boards": 4, "teams": []}, "teams"),
        ({"start": "2024-09-03", "boards": 4, "venue": "x" * 121}, "venue"),
    ],
)
def test_bad_generator_inputs_are_refused(league, four, organiser, kwargs, field):
    errors = _refused(club_fixtures.generate_club_fixtures, league, **kwargs, recorded_by=organiser)
    assert field in errors
    assert not ClubMatch.objects.exists()


def test_only_organisers_generate(league, four, make_player, organiser):
    stranger = get_user_model().objects.create_user("zed", password="pw-zed-123")
    errors = _refused(
        club_fixtures.generate_club_fixtures,
        league,
        start="2024-09-03",
        boards=4,
        recorded_by=stranger,
    )
    assert "recorded_by" in errors


def test_the_new_facts_are_read_back_from_their_rows(league, teams, captains, match):
    from league import event_store
    from league.event_store import store

    home, _away, p = teams
    clubs.submit_board_order(
        league, match, home, [p["Bob"].pk, p["Ann"].pk, p["Cem"].pk], recorded_by=captains["Ann"]
    )
    autumn = seasons.create_season(
        league, name="Autumn", start_date="2024-09-01", end_date="2024-12-31"
    )
    club_fixtures.set_club_season(league, autumn, boards=4, points_draw="0.5", recorded_by=None)
    kinds = ("team_captain_set", "board_order_submitted", "club_season_set")
    stored = Event.objects.filter(league=league, kind__in=kinds).order_by("seq")
    facts = event_store.facts_of(stored)
    assert [f.kind for f in facts] == ["team_captain_set", "team_captain_set", *kinds[1:]]
    assert facts[2].by == "captain"
    assert facts[3].points == (Decimal("2"), Decimal("0.5"), Decimal("0"))
    named = stored.values_list(*store.FACT_COLUMNS, named=True)
    assert [event_store.fact_of(row) for row in named] == facts
    # A fact's stored row says what it is: a captain's order is not an organiser's.
    organisers = dataclasses.replace(facts[2], by="organiser")
    assert organisers.content_key() != facts[2].content_key()


def test_a_season_whose_address_is_all_digits_is_found_by_it(league, organiser):
    year = seasons.create_season(
        league, name="2024", start_date="2024-01-01", end_date="2024-06-30", created_by=organiser
    )
    other = seasons.create_season(
        league, name="Autumn", start_date="2024-07-01", end_date="2024-12-31",
        created_by=organiser,
    )  # fmt: skip
    assert year.slug == "2024"
    assert (
        club_fixtures.set_club_season(league, "2024", boards=4, recorded_by=organiser).season
        == year
    )
    # An int is an id; a digit string no season has as its address is one too.
    assert (
        club_fixtures.set_club_season(league, other.pk, boards=3, recorded_by=organiser).season
        == other
    )
    errors = Errors()
    assert club_fixtures.resolve_season(league, str(other.pk), errors) == other
    assert not errors


def test_one_board_is_counted_in_the_singular(league, season, organiser):
    club_fixtures.set_club_season(league, season, boards=1, recorded_by=organiser)
    assert "Club matches of Winter 2024 set to 1 board, match points 2/1/0" in [
        row.summary for row in event_log(league).items
    ]


def test_a_seasons_fixed_points_are_written_in_the_active_languages_numbers(
    league, teams, season, organiser
):
    home, away, _p = teams
    club_fixtures.set_club_season(
        league, season, boards=2, points_win="3", points_draw="1.5", recorded_by=organiser
    )
    with translation.override("de"):
        errors = _refused(
            clubs.schedule_club_match, league, home=home, away=away, scheduled_at="2024-02-01",
            points_draw="1", recorded_by=organiser,
        )  # fmt: skip
    assert "1,5" in errors["points_draw"][0]
    assert "1.5" not in errors["points_draw"][0]


def test_a_match_on_the_calendars_last_evening_is_refused_not_a_crash(league, four, organiser):
    league.time_zone = "America/New_York"  # 19:30 there on 9999-12-31 is past the end in UTC
    league.save()
    errors = _refused(
        club_fixtures.generate_club_fixtures, league, teams=[four[0].pk, four[1].pk],
        start="9999-12-31", boards=2, recorded_by=organiser,
    )  # fmt: skip
    assert errors["start"] == [
        "9999-12-31 is out of range: give a day from 0001-01-03 to 9999-12-29."
    ]
    errors = _refused(
        clubs.schedule_club_match, league, home=four[0], away=four[1], boards=2,
        scheduled_at="9999-12-31", recorded_by=organiser,
    )  # fmt: skip
    assert "out of range" in " ".join(errors["scheduled_at"])


def test_a_round_robin_takes_at_most_forty_teams(league, organiser):
    for number in range(club_fixtures.MAX_TEAMS + 1):
        clubs.create_team(league, name=f"Team {number:02}", recorded_by=organiser)
    with pytest.raises(ValidationError) as caught:
        club_fixtures.plan_club_fixtures(league, start="2024-09-03", boards=2)
    assert caught.value.message_dict["teams"] == ["A round robin takes at most 40 teams; 41 given."]


def test_the_generators_key_is_checked_against_its_longest_match_key(league, four, organiser):
    # Six matches: the longest key is "<key>/5", two characters more than the key.
    fits = "k" * (IDEMPOTENCY_KEY_MAX - 2)
    made = club_fixtures.generate_club_fixtures(
        league, start="2024-09-03", boards=2, recorded_by=organiser, idempotency_key=fits
    )
    assert len(made) == 6
    errors = _refused(
        club_fixtures.generate_club_fixtures, league, start="2025-09-03", boards=2,
        recorded_by=organiser, idempotency_key="k" * (IDEMPOTENCY_KEY_MAX - 1),
    )  # fmt: skip
    assert "idempotency_key" in errors


def test_a_deactivated_captain_cannot_hand_in_a_board_order(
    league, teams, captains, match, organiser
):
    home, _away, p = teams
    deactivate_player(league, p["Ann"], reason="left the club", recorded_by=organiser)
    errors = _refused(
        clubs.submit_board_order, league, match, home, [p["Bob"].pk, p["Cem"].pk, p["Ann"].pk],
        recorded_by=captains["Ann"],
    )  # fmt: skip
    assert errors["team"] == [
        "Ann is deactivated in Riverside Chess Club: a deactivated captain cannot hand in a "
        "board order; an organiser can."
    ]
