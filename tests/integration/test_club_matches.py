"""Club matches through the services: teams, rosters, board orders, a four-board match
recorded as four rated games with alternating colours, the team table, voids, the event
log's words, and every bad input refused with nothing written."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError

from league.event_log import event_log
from league.models import BoardOrder, ClubMatch, Event, RosterEntry, Team
from league.player_accounts import claim_player
from league.privacy import personal_data
from league.services import correct_match, void_match
from ratings import club_matches as clubs

DAY = dt.date(2024, 3, 5)
RATINGS = {}


def no_ratings(league, player_ids):
    """Nobody rated yet: a team without an order plays its roster by name."""
    return {pid: RATINGS.get(pid) for pid in player_ids}


@pytest.fixture
def teams(league, make_player, organiser):
    home = clubs.create_team(league, name="Riverside A", recorded_by=organiser)
    away = clubs.create_team(league, name="Hilltop A", recorded_by=organiser)
    players = {}
    for team, names in ((home, ("Ann", "Bob", "Cem", "Dee")), (away, ("Eve", "Fay", "Gus", "Hal"))):
        for name in names:
            players[name] = make_player(league, name)
            clubs.add_to_roster(league, team, players[name], recorded_by=organiser)
    return home, away, players


@pytest.fixture
def match(league, teams, organiser):
    home, away, _players = teams
    return clubs.schedule_club_match(
        league, home=home, away=away, boards=4, scheduled_at="2024-03-05", recorded_by=organiser
    )


def _errors(call, *args, **kwargs) -> dict[str, list[str]]:
    before = Event.objects.count()
    with pytest.raises(ValidationError) as caught:
        call(*args, **kwargs)
    assert Event.objects.count() == before
    return caught.value.message_dict


def test_teams_rosters_and_a_match_are_facts_with_their_rows(league, match, teams):
    home, away, _players = teams
    kinds = list(Event.objects.filter(league=league).values_list("kind", flat=True))
    assert kinds.count("team_created") == 2
    assert kinds.count("roster_player_added") == 8
    assert kinds[-1] == "club_match_scheduled"
    assert [e.player.display_name for e in RosterEntry.objects.filter(team=home)] == [
        "Ann", "Bob", "Cem", "Dee",
    ]  # fmt: skip
    assert (match.home, match.away, match.boards) == (home, away, 4)
    # A day alone is a club night's start, 19:30 in the league's time zone.
    local = match.scheduled_at.astimezone(ZoneInfo("Europe/London"))
    assert (local.date(), local.hour, local.minute) == (dt.date(2024, 3, 5), 19, 30)
    assert (match.points_win, match.points_draw, match.points_loss) == (2, 1, 0)


def test_a_submitted_order_replaces_the_rating_order_and_is_kept(league, match, teams, organiser):
    home, _away, p = teams
    RATINGS.clear()
    RATINGS.update({p["Dee"].pk: 2100.0, p["Ann"].pk: 1900.0})
    view = clubs.club_match_view(match, reader=no_ratings)
    assert [b.home.display_name for b in view.boards] == ["Dee", "Ann", "Bob", "Cem"]
    clubs.submit_board_order(
        league, match, home, [p["Cem"].pk, p["Bob"].pk, p["Ann"].pk, p["Dee"].pk],
        recorded_by=organiser,
    )  # fmt: skip
    view = clubs.club_match_view(match, reader=no_ratings)
    assert [b.home.display_name for b in view.boards] == ["Cem", "Bob", "Ann", "Dee"]
    assert view.home_submitted
    assert not view.away_submitted
    assert BoardOrder.objects.get(club_match=match, team=home).players == [
        p["Cem"].pk, p["Bob"].pk, p["Ann"].pk, p["Dee"].pk,
    ]  # fmt: skip
    RATINGS.clear()


def test_a_four_board_match_is_four_rated_games_with_alternating_colours(
    league, match, teams, organiser
):
    _home, _away, _p = teams
    event = clubs.record_club_match(
        league, match, results=["1-0", "½-½", "0-1", "1"], played_at=DAY,
        recorded_by=organiser, reader=no_ratings, idempotency_key="cm-1",
    )  # fmt: skip
    games = list(Event.objects.filter(pk__in=event.details["games"]).order_by("seq"))
    assert [g.kind for g in games] == ["match_recorded"] * 4
    # Home (Ann, Bob, Cem, Dee by name) has White on boards 1 and 3: named first there.
    pairs = [(g.player_a.display_name, g.player_b.display_name, g.score_a) for g in games]
    assert pairs == [
        ("Ann", "Eve", Decimal("1")),
        ("Fay", "Bob", Decimal("0.5")),
        ("Cem", "Gus", Decimal("0")),
        ("Hal", "Dee", Decimal("0")),
    ]
    view = clubs.club_match_view(ClubMatch.objects.get(pk=match.pk))
    assert (view.home_points, view.away_points, view.outcome) == (Decimal("2.5"), Decimal("1.5"), 1)
    table = clubs.team_table(league)
    assert [(r.team.name, r.won, r.lost, r.board_for, r.match_points) for r in table] == [
        ("Riverside A", 1, 0, Decimal("2.5"), Decimal("2")),
        ("Hilltop A", 0, 1, Decimal("1.5"), Decimal("0")),
    ]
    # A retry with the same key stores nothing new.
    count = Event.objects.count()
    again = clubs.record_club_match(
        league, match, results=["1-0", "½-½", "0-1", "1"], played_at=DAY,
        recorded_by=organiser, reader=no_ratings, idempotency_key="cm-1",
    )  # fmt: skip
    assert again.pk == event.pk
    assert Event.objects.count() == count


def test_voiding_a_club_match_voids_its_boards_and_empties_the_table(
    league, match, teams, organiser
):
    clubs.record_club_match(
        league, match, results=["1", "1", "1", "1"], played_at=DAY, recorded_by=organiser,
        reader=no_ratings,
    )  # fmt: skip
    games = list(ClubMatch.objects.get(pk=match.pk).games)
    void = clubs.void_club_match(league, match, reason="wrong night", recorded_by=organiser)
    assert void.kind == "club_match_voided"
    assert Event.objects.filter(kind="match_voided", voids_id__in=games).count() == 4
    assert ClubMatch.objects.get(pk=match.pk).games == []
    assert all(row.played == 0 for row in clubs.team_table(league))
    assert "void it" not in str(_errors(clubs.void_club_match, league, match, reason="again"))
    words = [item.summary for item in event_log(league, per_page=20).items]
    assert (
        words[0]
        == f"Result of club match {match.pk} (Riverside A v Hilltop A) voided, with its board games"
    )
    assert any(
        w.startswith(f"Club match {match.pk} (Riverside A v Hilltop A) scheduled over 4")
        for w in words
    )
    all_words = [item.summary for item in event_log(league, per_page=100).items]
    assert "Ann added to Riverside A's roster" in all_words
    assert "Team Hilltop A created" in all_words


def test_board_orders_with_bad_players_name_the_board(league, match, teams, organiser, make_player):
    home, _away, p = teams
    loner = make_player(league, "Ivy")
    errors = _errors(
        clubs.submit_board_order, league, match, home,
        [p["Ann"].pk, p["Eve"].pk, loner.pk, p["Ann"].pk], recorded_by=organiser,
    )  # fmt: skip
    assert errors["board_2"] == ["Board 2: Eve plays for Hilltop A, not Riverside A."]
    assert errors["board_3"] == ["Board 3: Ivy is not on Riverside A's roster."]
    assert errors["board_4"] == ["Board 4: Ann is already on board 1."]
    short = _errors(
        clubs.submit_board_order, league, match, home, [p["Ann"].pk], recorded_by=organiser
    )
    assert "over 4 boards: name 4 players, not 1" in short["players"][0]
    stranger = clubs.create_team(league, name="Lakeside", recorded_by=organiser)
    assert (
        "does not play"
        in _errors(clubs.submit_board_order, league, match, stranger, [], recorded_by=organiser)[
            "team"
        ][0]
    )
    assert BoardOrder.objects.count() == 0


def test_recording_refuses_missing_boards_unscheduled_matches_and_short_rosters(
    league, match, teams, organiser, make_player
):
    home, _away, _p = teams
    missing = _errors(
        clubs.record_club_match, league, match, results=["1", "", "x"], played_at=DAY,
        recorded_by=organiser, reader=no_ratings,
    )  # fmt: skip
    assert missing["board_2"] == ["Board 2: give its result (1-0, ½-½ or 0-1 for the home player)."]
    assert "Board 3: 'x' is not a result" in missing["board_3"][0]
    assert "board_4" in missing
    unknown = _errors(
        clubs.record_club_match, league, 9999, results=["1"] * 4, played_at=DAY,
        reader=no_ratings,
    )  # fmt: skip
    assert "no club match 9999: schedule the match first" in unknown["club_match"][0]
    future = _errors(
        clubs.record_club_match, league, match, results=["1"] * 4,
        played_at=dt.date.today() + dt.timedelta(days=3), reader=no_ratings,
    )  # fmt: skip
    assert "in the future" in future["played_at"][0]
    small = clubs.create_team(league, name="Small", recorded_by=organiser)
    clubs.add_to_roster(league, small, make_player(league, "Kim"), recorded_by=organiser)
    short_match = clubs.schedule_club_match(
        league, home=home, away=small, boards=2, scheduled_at="2024-03-06", recorded_by=organiser
    )
    short = _errors(
        clubs.record_club_match, league, short_match, results=["1", "0"], played_at=DAY,
        reader=no_ratings,
    )  # fmt: skip
    assert short["away"] == [
        "Small has no player for board(s) 2: add players to its roster or submit its board order."
    ]


def test_other_bad_inputs_are_refused_with_nothing_written(
    league, teams, organiser, other_organiser, other_league
):
    home, away, p = teams
    assert (
        "not an organiser"
        in _errors(clubs.create_team, league, name="X", recorded_by=other_organiser)["recorded_by"][
            0
        ]
    )
    assert _errors(clubs.create_team, league, name="Riverside A")["name"] == [
        "Riverside Chess Club already has a team called Riverside A."
    ]
    assert (
        "already plays for Riverside A"
        in _errors(clubs.add_to_roster, league, away, p["Ann"])["player"][0]
    )
    bad = _errors(
        clubs.schedule_club_match, league, home=home, away=home, boards=0, scheduled_at="soon",
        points_win="1", points_draw="2",
    )  # fmt: skip
    assert set(bad) == {"away", "boards", "scheduled_at", "points_draw"}
    foreign = Team.objects.create(league=other_league, name="Elsewhere", slug="elsewhere")
    assert (
        "another league"
        in _errors(
            clubs.schedule_club_match, league, home=home, away=foreign, boards=2, scheduled_at=DAY
        )["away"][0]
    )


@pytest.mark.parametrize(
    ("call", "kwargs"),
    [
        ("order", {"players": ["abc", "-1", 10**12, "\x00"]}),
        ("order", {"players": "Ann, Bob"}),
        ("record", {"results": ["\x00", 5, None, "1-0-1"]}),
        ("record", {"results": "1-0"}),
        ("record", {"results": ["1", "1", "1", "1"], "played_at": "9999-99-99"}),
        ("schedule", {"boards": "1e3", "points_win": "NaN", "scheduled_at": "\x00"}),
        ("schedule", {"boards": True, "points_loss": "-1", "scheduled_at": None}),
    ],
)
def test_hostile_inputs_are_messages_not_crashes(league, match, teams, organiser, call, kwargs):
    home, away, _p = teams
    if call == "order":
        errors = _errors(clubs.submit_board_order, league, match, home, kwargs["players"])
    elif call == "record":
        errors = _errors(
            clubs.record_club_match, league, match, results=kwargs["results"],
            played_at=kwargs.get("played_at", DAY), reader=no_ratings,
        )  # fmt: skip
    else:
        errors = _errors(clubs.schedule_club_match, league, home=home, away=away, **kwargs)
    assert errors
    assert all(messages for messages in errors.values())


def test_a_board_voided_or_corrected_on_its_own_counts_as_it_stands(
    league, match, teams, organiser
):
    clubs.record_club_match(
        league, match, results=["1", "1", "1", "1"], played_at=DAY, recorded_by=organiser,
        reader=no_ratings,
    )  # fmt: skip
    first, second, *_rest = ClubMatch.objects.get(pk=match.pk).games
    void_match(league, first, reason="wrong board", recorded_by=organiser)
    # Board 2: the home player (Bob) has Black, so a home loss is White's (Fay's) win.
    correct_match(league, second, reason="typo", score_a="1", recorded_by=organiser)
    view = clubs.club_match_view(ClubMatch.objects.get(pk=match.pk))
    assert [b.home_score for b in view.boards] == [None, Decimal("0"), Decimal("1"), Decimal("1")]
    assert (view.home_points, view.away_points) == (Decimal("2"), Decimal("1"))
    assert view.boards[0].game is None
    assert view.boards[1].game.replaces_id == second


def test_a_players_own_data_lists_their_team_and_boards(league, match, teams, organiser):
    home, _away, p = teams
    person = get_user_model().objects.create_user("cem", password="pw-cem-123")
    claim_player(p["Cem"], person, by=organiser)
    clubs.submit_board_order(
        league, match, home, [p["Ann"].pk, p["Cem"].pk, p["Bob"].pk, p["Dee"].pk],
        recorded_by=organiser,
    )  # fmt: skip
    data = personal_data(person)
    assert [(t["team__name"], t["player_id"]) for t in data["teams"]] == [
        ("Riverside A", p["Cem"].pk)
    ]
    assert data["board_orders"] == [
        {"league": "riverside", "club_match": match.pk, "team": "Riverside A",
         "player_id": p["Cem"].pk, "board": 2},
    ]  # fmt: skip
