"""Seasons: creation refusals, the derived table, archiving, and explicit re-derivation."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.utils import translation

from league import seasons
from league.models import Season
from ratings.models import PlayerPeriod, SeasonRow, SeasonTable, Standing
from ratings.seasons.archive import close_season, rederive_season
from ratings.seasons.read import season_table
from ratings.selectors.standings import LeaderboardQuery, leaderboard
from tests.functional.conftest import rank_everyone, rate, record_results

WEEK = dt.timedelta(days=7)
# Periods are weeks from Monday 1 Jan 2024; the autumn season is weeks 2 to 4 (periods 1-3).
ANCHOR = dt.date(2024, 1, 1)


@pytest.fixture
def club(league, make_player):
    ann, bob, cat, dan = (make_player(league, name) for name in ["Ann", "Bob", "Cat", "Dan"])
    first = dt.date(2024, 1, 2)  # a Tuesday in period 0
    record_results(
        league,
        [
            (ann, bob, "1", first),  # before the season
            (cat, dan, "0.5", first),  # before the season
            (ann, cat, "0.5", first + WEEK),
            (bob, dan, "1", first + WEEK),
            (ann, dan, "1", first + 2 * WEEK),
            (bob, cat, "0", first + 2 * WEEK),
            (ann, bob, "0", first + 3 * WEEK),
            (cat, dan, "1", first + 4 * WEEK),  # after the season
        ],
    )
    config = rate(league, period_anchor=ANCHOR, period_length=7)
    season = seasons.create_season(
        league, name="Winter 2024", start_date="2024-01-08", end_date="2024-01-28"
    )
    return {"league": league, "config": config, "season": season, "players": (ann, bob, cat, dan)}


def _messages(error: ValidationError) -> dict[str, list[str]]:
    return {field: [str(m) for m in messages] for field, messages in error.message_dict.items()}


@pytest.mark.django_db
def test_overlapping_season_is_refused_naming_the_other(club):
    league = club["league"]
    with pytest.raises(ValidationError) as caught:
        seasons.create_season(
            league, name="Late winter", start_date="2024-01-28", end_date="2024-02-10"
        )
    message = _messages(caught.value)["start_date"][0]
    assert "Winter 2024" in message
    assert "28 Jan 2024" in message
    assert Season.objects.filter(league=league).count() == 1
    # The day after the season ends is free.
    spring = seasons.create_season(
        league, name="Spring", start_date="2024-01-29", end_date="2024-03-31"
    )
    assert spring.slug == "spring"


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("fields", "field", "fragment"),
    [
        ({"name": " "}, "name", "Give the season a name"),
        ({"name": "Bad\x00name"}, "name", "control character"),
        ({"start_date": "2024-13-01"}, "start_date", "not a date"),
        ({"end_date": "2024-02-01"}, "end_date", "on or after its first day"),
        ({"start_date": "2023-12-01"}, "start_date", "before the league"),
        ({"points_win": "three"}, "points_win", "not a number"),
        ({"points_draw": "0.3"}, "points_draw", "whole or half"),
        ({"points_win": "0", "points_draw": "1"}, "points_draw", "at least a draw"),
        ({"points_loss": "1e9"}, "points_loss", "between"),
    ],
)
def test_bad_season_input_names_the_field_and_writes_nothing(league, fields, field, fragment):
    values = {"name": "Summer", "start_date": "2024-06-01", "end_date": "2024-08-31", **fields}
    with pytest.raises(ValidationError) as caught:
        seasons.create_season(league, **values)
    assert any(fragment in message for message in _messages(caught.value)[field])
    assert not Season.objects.filter(league=league).exists()


@pytest.mark.django_db
def test_season_containing_answers_which_season_and_whether_closed(club, monkeypatch):
    league, season = club["league"], club["season"]
    assert seasons.season_containing(league, dt.date(2024, 1, 7)) is None
    found = seasons.season_containing(league, dt.date(2024, 1, 8))
    assert found == season
    assert not found.closed
    assert seasons.season_containing(league, dt.date(2024, 1, 28)) == season
    assert seasons.season_containing(league, dt.date(2024, 1, 29)) is None
    close_season(season)
    assert seasons.season_containing(league, dt.date(2024, 1, 20)).closed


@pytest.mark.django_db
def test_table_counts_the_seasons_games_under_its_points_scheme(club):
    _ann, _bob, _cat, _dan = club["players"]
    view = season_table(club["season"])
    by_name = {line.name: line for line in view.lines}
    # In the season: Ann ½ v Cat, 1 v Dan, 0 v Bob; Bob 1 v Dan, 0 v Cat, 1 v Ann;
    # Cat ½ v Ann, 1 v Bob; Dan 0, 0.
    assert (
        by_name["Ann"].games,
        by_name["Ann"].wins,
        by_name["Ann"].draws,
        by_name["Ann"].losses,
    ) == (3, 1, 1, 1)
    assert by_name["Ann"].points == Decimal("4")
    assert by_name["Bob"].points == Decimal("6")
    assert by_name["Cat"].points == Decimal("4")
    assert by_name["Dan"].points == Decimal("0")
    names = [line.name for line in view.lines]
    assert (names[0], set(names[1:3]), names[3]) == ("Bob", {"Ann", "Cat"}, "Dan")
    # Level on points: the higher rating at the season's end goes first.
    assert view.lines[1].rating_end > view.lines[2].rating_end
    assert [line.position for line in view.lines] == [1, 2, 3, 4]
    assert not view.archived

    seasons.update_season(
        club["season"], name="Winter 2024", start_date="2024-01-08", end_date="2024-01-28",
        points_win="1", points_draw="0.5", points_loss="0",
    )  # fmt: skip
    halves = {
        line.name: line.points
        for line in season_table(Season.objects.get(pk=club["season"].pk)).lines
    }
    assert halves == {
        "Bob": Decimal("2"),
        "Ann": Decimal("1.5"),
        "Cat": Decimal("1.5"),
        "Dan": Decimal("0"),
    }


@pytest.mark.django_db
def test_ratings_at_start_and_end_are_read_at_the_season_boundaries(club):
    config = club["config"]
    ann = club["players"][0]
    view = season_table(club["season"])
    line = next(line for line in view.lines if line.player_id == ann.pk)
    # Ann's rating after period 0 (before the season) and after period 3 (its last week).
    before = PlayerPeriod.objects.get(config=config, player=ann, period_index=0).rating
    after = PlayerPeriod.objects.get(config=config, player=ann, period_index=3).rating
    assert line.rating_start == pytest.approx(before, abs=1e-9)
    assert line.rating_end == pytest.approx(after, abs=1e-9)
    assert line.change == pytest.approx(after - before, abs=1e-9)
    assert (view.start.index, view.end.index) == (1, 3)
    # Ann played after the season? No: her standing is her rating after period 3.
    assert Standing.objects.get(config=config, player=ann).rating == pytest.approx(after, abs=1e-9)
    # The ranks are the leaderboard's at the same boundaries, under the league's rules: after
    # three weeks of a game or two each, the default rules rank nobody (all provisional).
    assert [line.rank_end for line in view.lines] == [None, None, None, None]
    rank_everyone(club["league"])
    view = season_table(club["season"])
    board = leaderboard(club["league"], LeaderboardQuery(as_of_period=3))
    assert sorted(line.rank_end for line in view.lines) == [1, 2, 3, 4]
    assert {line.player_id: line.rank_end for line in view.lines} == {
        row.player_id: row.rank for row in board.rows
    }
    # Before the season (after period 0) only Ann, Bob, Cat and Dan had played once.
    start = leaderboard(club["league"], LeaderboardQuery(as_of_period=0))
    assert {line.player_id: line.rank_start for line in view.lines} == {
        row.player_id: row.rank for row in start.rows
    }


@pytest.mark.django_db
def test_archived_table_survives_a_backdated_result_and_a_tau_change(club, organiser):
    league, season = club["league"], club["season"]
    _ann, bob, _cat, dan = club["players"]
    table = close_season(season, by=organiser)
    archived = [
        (r.player_id, r.points, r.rating_end, r.rank_end) for r in table.rows.order_by("position")
    ]
    shown = [
        (line.player_id, line.points, line.rating_end, line.rank_end)
        for line in season_table(season).lines
    ]
    assert shown == archived

    # A backdated result inside the season, and a new τ: the live standings move...
    record_results(league, [(dan, bob, "1", dt.date(2024, 1, 17))])
    rate(league, tau=1.2)
    season.refresh_from_db()
    view = season_table(season)
    assert view.archived
    assert [
        (line.player_id, line.points, line.rating_end, line.rank_end) for line in view.lines
    ] == archived
    # ...as a fresh derivation shows: it differs from the archive.
    from ratings.seasons.derive import derive_table
    from ratings.selectors.configurations import live_config

    fresh = derive_table(season, live_config(league))
    assert [(line.player_id, line.points) for line in fresh.lines] != [row[:2] for row in archived]

    # Re-deriving is explicit, needs a reason, and is recorded with who and when.
    with pytest.raises(ValidationError) as caught:
        rederive_season(season, by=organiser, reason="  ")
    assert "reason" in caught.value.message_dict
    assert SeasonTable.objects.filter(season=season).count() == 1
    rederive_season(season, by=organiser, reason="Dan's win of 17 Jan was entered late")
    season.refresh_from_db()
    view = season_table(season)
    dan_line = next(line for line in view.lines if line.player_id == dan.pk)
    assert dan_line.points == Decimal("3")
    assert [d.kind for d in view.derivations] == ["rederived", "archived"]
    assert view.derivations[0].derived_by == "organiser"
    assert view.derivations[0].reason == "Dan's win of 17 Jan was entered late"
    assert view.derivations[0].config_version == 2
    # The first archive's rows are kept as they were.
    first = SeasonTable.objects.get(season=season, kind="archived")
    assert SeasonRow.objects.filter(table=first, player=dan).get().points == Decimal("0")


@pytest.mark.django_db
def test_closing_is_refused_while_the_season_runs_or_standings_are_behind(club, make_player):
    league = club["league"]
    running = seasons.create_season(
        league,
        name="This year",
        start_date="2024-02-01",
        end_date=dt.date.today() + dt.timedelta(days=3),
    )
    with pytest.raises(ValidationError) as caught:
        close_season(running)
    assert "still running" in str(caught.value)
    ann, bob = club["players"][:2]
    record_results(league, [(ann, bob, "1", dt.date(2024, 1, 20))])  # no replay run yet
    with pytest.raises(ValidationError) as caught:
        close_season(club["season"])
    assert "still being recomputed" in str(caught.value)
    assert not SeasonTable.objects.exists()
    assert not Season.objects.get(pk=club["season"].pk).closed


@pytest.mark.django_db
def test_a_closed_seasons_dates_are_fixed_but_its_name_is_not(club):
    season = club["season"]
    close_season(season)
    season.refresh_from_db()
    with pytest.raises(ValidationError) as caught:
        seasons.update_season(
            season, name="Winter 2024", start_date="2024-01-01", end_date="2024-01-28"
        )
    assert "closed" in str(caught.value)
    renamed = seasons.update_season(
        season, name="Winter league 2024", start_date="2024-01-08", end_date="2024-01-28"
    )
    assert renamed.slug == "winter-league-2024"


def test_best_performers_follow_the_table_and_skip_newcomers_for_the_gain():
    from ratings.seasons.derive import SeasonLine, order_lines
    from ratings.seasons.read import performers

    lines = order_lines(
        [
            SeasonLine(1, "Ann", games=4, wins=2, draws=0, losses=2, points=Decimal(6),
                       rating_start=1500.0, rating_end=1520.0, change=20.0),
            SeasonLine(2, "Bob", games=2, wins=2, points=Decimal(6),
                       rating_start=1400.0, rating_end=1560.0, change=160.0),
            SeasonLine(3, "Newt", games=2, wins=1, losses=1, points=Decimal(3),
                       rating_start=None, rating_end=1800.0, change=300.0),
            SeasonLine(4, "Cat", games=1, draws=1, points=Decimal(1),
                       rating_start=1600.0, rating_end=1590.0, change=-10.0),
        ]
    )  # fmt: skip
    assert [line.name for line in lines] == ["Bob", "Ann", "Newt", "Cat"]
    from web.public.seasons import performer_text

    best = {
        text["title"]: (p.line.name, text["figure"])
        for p in performers(lines)
        for text in [performer_text(p)]
    }
    assert best["Top of the table"] == ("Bob", "6 points, level with 1 other, ahead on rating")
    # Newt's +300 is a first rating finding its level, not a gain.
    assert best["Biggest rating gain (at least 2 games)"] == ("Bob", "+160 rating points")
    # At least half the busiest player's 4 games: Ann, Bob and Newt qualify; Bob won both.
    assert best["Best score rate (at least 2 games)"] == ("Bob", "100% of the points in 2 games")
    with translation.override("de"):
        german = [performer_text(p) for p in performers(lines)]
    assert [text["title"] for text in german] == [
        "Tabellenspitze",
        "Größter Wertungsgewinn (mindestens 2 Partien)",
        "Beste Punktquote (mindestens 2 Partien)",
    ]
    assert [text["figure"] for text in german] == [
        "6 Punkte, punktgleich mit 1 anderen, vorn nach der Wertung",
        "+160 Wertungspunkte",
        "100 % der Punkte aus 2 Partien",
    ]


@pytest.mark.django_db
def test_a_merged_players_season_games_count_as_the_surviving_players(club, organiser, make_player):
    from league import services as league_services

    league, season = club["league"], club["season"]
    ann, _bob, _cat, dan = club["players"]
    eve = make_player(league, "Eve")
    record_results(league, [(eve, ann, "1", dt.date(2024, 1, 10))])
    league_services.merge_player(league, eve, dan, reason="Same person", recorded_by=organiser)
    rate(league)
    lines = {line.name: line for line in season_table(Season.objects.get(pk=season.pk)).lines}
    assert "Eve" not in lines
    # Dan: 0 v Bob, 0 v Ann; and Eve's 1 v Ann.
    dan_line = lines["Dan"]
    assert (dan_line.games, dan_line.wins, dan_line.draws, dan_line.losses) == (3, 1, 0, 2)
    assert dan_line.points == Decimal("3")


@pytest.mark.django_db
def test_closing_waits_for_the_period_holding_the_last_day_to_end(club, monkeypatch):
    import django.utils.timezone

    # Wednesday 31 Jan 2024: weekly period 4 (29 Jan to 4 Feb) is open.
    now = dt.datetime(2024, 1, 31, 12, tzinfo=dt.UTC)
    monkeypatch.setattr(django.utils.timezone, "now", lambda: now)
    late = seasons.create_season(
        club["league"], name="Late January", start_date="2024-01-29", end_date="2024-01-30"
    )
    with pytest.raises(ValidationError) as caught:
        close_season(late)
    assert "Period 4 (29 Jan 2024 to 4 Feb 2024), is still open" in str(caught.value)
    assert not SeasonTable.objects.filter(season=late).exists()
    # The winter season ended on Sunday 28 Jan, the last day of period 3: it can close.
    table = close_season(club["season"])
    assert table.end_period == 3


@pytest.mark.django_db
def test_team_matches_count_a_game_each_and_a_result_against_each_other_side(league, make_player):
    """As in the ratings: a doubles match is one result for each of its players; fourth of
    four in a board game is three losses. Voided matches and matches outside the season's
    days do not count."""
    from league import services
    from league.models import MatchFormat
    from ratings.seasons.derive import derive_table

    league.match_format = MatchFormat.ANY
    league.save()
    ann, bob, cat, dan, eve = (make_player(league, n) for n in ["Ann", "Bob", "Cat", "Dan", "Eve"])
    in_season, after = dt.date(2024, 1, 10), dt.date(2024, 2, 10)
    services.record_match(league, sides=[[ann, bob], [cat, dan]], score_a="1", played_at=in_season)
    services.record_match(
        league, sides=[[ann], [bob], [cat], [dan]], places=[1, 2, 2, 4], played_at=in_season
    )
    services.record_match(league, player_a=eve, player_b=ann, score_a="1", played_at=in_season)
    voided = services.record_match(
        league, sides=[[cat, dan], [ann, bob]], score_a="1", played_at=in_season
    )
    services.void_match(league, voided, reason="never played")
    services.record_match(league, sides=[[cat, dan], [ann, bob]], score_a="1", played_at=after)
    season = seasons.create_season(
        league, name="Winter 2024", start_date="2024-01-08", end_date="2024-01-28"
    )

    table = derive_table(season, None)

    by_name = {line.name: line for line in table.lines}
    assert {n: (x.games, x.wins, x.draws, x.losses) for n, x in by_name.items()} == {
        "Ann": (3, 4, 0, 1),
        "Bob": (2, 2, 1, 1),
        "Cat": (2, 1, 1, 2),
        "Dan": (2, 0, 0, 4),
        "Eve": (1, 1, 0, 0),
    }
    win, draw, loss = season.points_win, season.points_draw, season.points_loss
    assert by_name["Ann"].points == 4 * win + loss
    assert by_name["Bob"].points == 2 * win + draw + loss
    assert by_name["Ann"].score_rate == pytest.approx(4 / 5, abs=1e-12)
    assert by_name["Dan"].score_rate == 0.0
