"""A configuration's interval coverage on simulated leagues like the league
(``ratings.coverage`` and ``manage.py measure_coverage``)."""

from __future__ import annotations

import datetime as dt
import io
from dataclasses import replace

import numpy as np
import pytest
from django.core.management import CommandError, call_command

from engine.intervals import ConfidenceLevel
from league import services as league_services
from league.models import MatchFormat
from ratings import services as rating_services
from ratings.coverage import GRID, LeagueShape, league_shape, measure_coverage
from ratings.models import RatingConfig
from ratings.selectors.standings import DEFAULT_LEVEL
from tests.functional.conftest import record_results, run_queued_replays

pytestmark = pytest.mark.django_db

SMALL = {"leagues": 4, "players": 60, "periods": 10}


@pytest.fixture
def config(league) -> RatingConfig:
    return rating_services.create_config(league, period_length=7)


def shape(**changes: object) -> LeagueShape:
    values: dict[str, object] = {
        "sides": 2, "size": 1, "games": 3, "period_days": 7.0, "spread": 350.0,
        "spread_from_league": False,
    }  # fmt: skip
    values.update(changes)
    return LeagueShape(**values)  # type: ignore[arg-type]


def test_coverage_grows_with_the_level_and_is_the_same_on_every_run(config):
    first = measure_coverage(config, shape(), **SMALL)
    again = measure_coverage(config, shape(), **SMALL)
    assert first.coverage == again.coverage
    curve = np.array(first.coverage)
    assert curve[0] == 0.0
    assert np.all(np.diff(curve) >= 0.0)
    assert curve[-1] <= 1.0
    assert len(curve) == GRID.size
    # The 68 % and 99.9 % intervals: well apart, each near what it promises (a small league
    # rated with the defaults: within 8 points).
    low, _ = first.at(ConfidenceLevel.from_percent(68))
    high, high_error = first.at(ConfidenceLevel.from_percent(99.9))
    assert 0.60 <= low <= 0.76
    assert 0.92 <= high <= 1.0
    assert 0.0 <= high_error < 0.05
    mid, error = first.at(DEFAULT_LEVEL)
    assert low < mid < high
    assert 0.0 < error < 0.05


def test_instant_updates_cover_more_than_period_updates_at_thirty_games_a_period(league):
    # docs/intervals.md: one-vs-one at 30 games a period, 85 % (period) against 92 % (instant).
    period = rating_services.create_config(league, period_length=7, update_mode="period")
    instant = rating_services.create_config(league, update_mode="instant")
    many = shape(games=30)
    covered = {
        config.update_mode: measure_coverage(config, many, **SMALL).at(DEFAULT_LEVEL)
        for config in (period, instant)
    }
    (p, p_error), (i, i_error) = covered["period"], covered["instant"]
    assert i - p > 3 * max(p_error, i_error, 0.005)


def test_the_shape_is_the_leagues_own(league, make_player):
    league.match_format, league.side_size = MatchFormat.FIXED, 2
    league.save()
    players = [make_player(league, name) for name in ("Ann", "Bob", "Cat", "Dan")]
    ann, bob, cat, dan = players
    for day in (2, 3, 4):
        league_services.record_match(
            league, sides=[[ann, bob], [cat, dan]], score_a="1", played_at=dt.date(2024, 1, day)
        )
    config = rating_services.create_config(
        league, period_unit="months", period_length=1, period_anchor=dt.date(2024, 1, 1)
    )
    run_queued_replays(league)
    found = league_shape(league, config)
    # Doubles, three games each in the one period, calendar months; four players are too
    # few to read a spread from, so the prior's.
    assert (found.sides, found.size, found.games) == (2, 2, 3)
    assert found.period_days == pytest.approx(30.44, abs=0.01)
    assert (found.spread, found.spread_from_league) == (350.0, False)


def test_a_league_without_games_is_measured_at_two_games_a_period_one_against_one(config):
    found = league_shape(config.league, config)
    assert (found.sides, found.size, found.games, found.period_days) == (2, 1, 2, 7.0)


def test_the_command_prints_every_levels_coverage_with_its_error(league, make_player):
    players = [make_player(league, f"P{n}") for n in range(4)]
    record_results(
        league,
        [(players[0], players[1], "1", dt.date(2024, 1, 2)),
         (players[2], players[3], "0", dt.date(2024, 1, 3))],
    )  # fmt: skip
    rating_services.create_config(league, period_length=7, update_mode="period")
    run_queued_replays(league)
    out = io.StringIO()
    call_command("measure_coverage", league.slug, "--leagues", "2", stdout=out)
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("Riverside Chess Club, configuration v1 (period updates): ")
    assert "2 sides of 1, 1 game a player a period" in lines[0]
    assert [line.split(" intervals")[0] for line in lines[1:]] == [
        "68 %", "90 %", "95 %", "99 %", "99.9 %",
    ]  # fmt: skip
    for line in lines[1:]:
        assert " ± " in line


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--games", "0"], "between 1 and 30"),
        (["--games", "many"], "a whole number is needed"),
        (["--config-version", "7"], "no configuration version 7"),
    ],
)
def test_the_command_refuses_bad_options_naming_them(config, args, message):
    with pytest.raises(CommandError, match=message):
        call_command("measure_coverage", config.league.slug, *args, stdout=io.StringIO())


def test_the_command_needs_a_published_configuration(league):
    with pytest.raises(CommandError, match="no published configuration"):
        call_command("measure_coverage", league.slug, stdout=io.StringIO())


def test_a_measure_at_a_level_beyond_the_grid_reads_its_end(config):
    measure = measure_coverage(config, shape(), leagues=2, players=20, periods=3)
    beyond = replace(DEFAULT_LEVEL, z=9.0)
    assert measure.at(beyond) == (measure.coverage[-1], measure.error[-1])
