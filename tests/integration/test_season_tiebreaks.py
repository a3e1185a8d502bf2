"""Season tables ordered by FIDE tie-breaks, kept in the archive, and the season forecast.

The season (3/1/0, weeks 2 to 4 of 2024): Ann ½ Cat, Bob 1 Dan, Ann 1 Dan, Bob 0 Cat,
Ann 0 Bob. Points: Bob 3+0+3 = 6, Ann 1+3+0 = 4, Cat 1+3 = 4, Dan 0.
Ann and Cat are level; by hand:
  DE   they drew: 1 point each (level);
  BH   Ann: Cat 4 + Dan 0 + Bob 6 = 10; Cat: Ann 4 + Bob 6 = 10 (level);
  SB   Ann: ½·4 (Cat) + 1·0 (Dan) + 0·6 (Bob) = 2; Cat: ½·4 (Ann) + 1·6 (Bob) = 8;
  BH-C1 Ann: 10 - 0 = 10; Cat: 10 - 4 = 6.
Bob: BH Dan 0 + Cat 4 + Ann 4 = 8, SB 1·0 + 1·4 = 4; Dan: BH Bob 6 + Ann 4 = 10, SB 0.
"""

from __future__ import annotations

import datetime as dt
import math

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from league import fixtures as fixture_services
from league import seasons
from league.models import Season
from ratings.forecasts import season_forecast
from ratings.models import SeasonRow
from ratings.seasons.archive import close_season
from ratings.seasons.read import season_table
from ratings.selectors.configurations import live_config
from ratings.selectors.fixtures import forecasts
from tests.functional.conftest import rate, record_results

WEEK = dt.timedelta(days=7)
ANCHOR = dt.date(2024, 1, 1)
FIELDS = {"name": "Winter 2024", "start_date": "2024-01-08", "end_date": "2024-01-28"}


def winter_club(league, make_player) -> dict:
    """The league of the module's docstring: four players, the season, its ratings."""
    ann, bob, cat, dan = (make_player(league, name) for name in ["Ann", "Bob", "Cat", "Dan"])
    first = dt.date(2024, 1, 2)
    record_results(
        league,
        [
            (ann, bob, "1", first),  # before the season
            (ann, cat, "0.5", first + WEEK),
            (bob, dan, "1", first + WEEK),
            (ann, dan, "1", first + 2 * WEEK),
            (bob, cat, "0", first + 2 * WEEK),
            (ann, bob, "0", first + 3 * WEEK),
            (cat, dan, "1", first + 4 * WEEK),  # after the season
        ],
    )
    config = rate(league, period_anchor=ANCHOR, period_length=7)
    season = seasons.create_season(league, **FIELDS)
    return {"league": league, "config": config, "season": season, "players": (ann, bob, cat, dan)}


@pytest.fixture
def club(league, make_player):
    return winter_club(league, make_player)


def _table(season: Season) -> list[tuple[str, int, dict]]:
    view = season_table(Season.objects.get(pk=season.pk))
    return [(line.name, line.position, line.tiebreaks) for line in view.lines]


@pytest.mark.django_db
def test_the_chosen_order_decides_between_players_level_on_points(club):
    season = seasons.update_season(club["season"], **FIELDS, tiebreaks="de, BH SB")
    assert season.tiebreaks == "DE,BH,SB"
    assert _table(season) == [
        ("Bob", 1, {"DE": None, "BH": 8.0, "SB": 4.0}),
        ("Cat", 2, {"DE": 1.0, "BH": 10.0, "SB": 8.0}),
        ("Ann", 3, {"DE": 1.0, "BH": 10.0, "SB": 2.0}),
        ("Dan", 4, {"DE": None, "BH": 10.0, "SB": 0.0}),
    ]
    season = seasons.update_season(season, **FIELDS, tiebreaks="BH-C1")
    assert [(name, position) for name, position, _ in _table(season)] == [
        ("Bob", 1),
        ("Ann", 2),
        ("Cat", 3),
        ("Dan", 4),
    ]
    assert _table(season)[1][2] == {"BH-C1": 10.0}
    assert _table(season)[2][2] == {"BH-C1": 6.0}


@pytest.mark.django_db
def test_level_on_every_tie_break_shares_the_position(club):
    season = seasons.update_season(club["season"], **FIELDS, tiebreaks="DE,BH")
    assert [(name, position) for name, position, _ in _table(season)][1:3] == [
        ("Ann", 2),
        ("Cat", 2),
    ]


@pytest.mark.django_db
def test_the_default_keeps_the_rating_order(club):
    view = season_table(club["season"])
    assert view.tiebreak_order == ("RTG",)
    assert view.lines[1].rating_end > view.lines[2].rating_end
    assert [line.position for line in view.lines] == [1, 2, 3, 4]
    assert all(line.tiebreaks == {} for line in view.lines)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("typed", "fragment"),
    [
        ("BH, XYZ", "XYZ is not a season tie-break"),
        ("PS", "PS is not a season tie-break"),
        ("SB, sb", "Each tie-break may be chosen once (SB is given twice)"),
    ],
)
def test_a_bad_order_names_the_field_and_changes_nothing(club, typed, fragment):
    with pytest.raises(ValidationError) as caught:
        seasons.update_season(club["season"], **FIELDS, tiebreaks=typed)
    assert any(fragment in str(m) for m in caught.value.message_dict["tiebreaks"])
    assert Season.objects.get(pk=club["season"].pk).tiebreaks == ""
    with pytest.raises(ValidationError):
        seasons.create_season(
            club["league"], name="Spring", start_date="2024-03-01", end_date="2024-05-31",
            tiebreaks=typed,
        )  # fmt: skip
    assert Season.objects.filter(league=club["league"]).count() == 1


@pytest.mark.django_db
def test_the_archive_keeps_the_order_and_the_values(club):
    season = seasons.update_season(club["season"], **FIELDS, tiebreaks="SB")
    close_season(season)
    season.refresh_from_db()
    stored = {row.player.display_name: row.tiebreaks for row in SeasonRow.objects.all()}
    assert stored == {
        "Bob": {"SB": 4.0},
        "Cat": {"SB": 8.0},
        "Ann": {"SB": 2.0},
        "Dan": {"SB": 0.0},
    }
    view = season_table(season)
    assert view.archived
    assert view.tiebreak_order == ("SB",)
    assert [line.name for line in view.lines] == ["Bob", "Cat", "Ann", "Dan"]
    # A closed season's tie-breaks are fixed, like its dates and points.
    with pytest.raises(ValidationError) as caught:
        seasons.update_season(season, **FIELDS, tiebreaks="BH")
    assert "tie-breaks are fixed" in str(caught.value)
    assert Season.objects.get(pk=season.pk).tiebreaks == "SB"


@pytest.mark.django_db
def test_who_wins_the_season_from_its_open_fixture(club):
    league, season = club["league"], club["season"]
    ann, bob, cat, _dan = club["players"]
    assert season_forecast(season, season_table(season).lines) is None  # nothing left to play
    fixture_services.schedule_fixture(
        league,
        player_a=ann,
        player_b=bob,
        scheduled_at="2024-01-27 18:00",
        deadline=(timezone.now() + dt.timedelta(days=7)).date().isoformat(),
    )
    forecast = season_forecast(season, season_table(season).lines, simulations=4000)
    assert forecast is not None
    assert (forecast.remaining, forecast.simulations) == (1, 4000)
    # Bob leads 6 to Ann's 4: Ann takes the season only by winning (7 to 6); a draw leaves
    # Bob on 7, Ann on 5. So Ann's chance is her chance of winning the fixture.
    chance = forecasts(league, live_config(league), [(ann.pk, bob.pk)])[(ann.pk, bob.pk)]
    error = math.sqrt(chance.win * (1 - chance.win) / 4000)
    assert forecast.chances[ann.pk].probability == pytest.approx(chance.win, abs=4 * error)
    assert forecast.chances[bob.pk].probability == pytest.approx(1 - chance.win, abs=4 * error)
    assert forecast.chances[cat.pk].probability == 0
    assert forecast.chances[ann.pk].standard_error == pytest.approx(error, rel=0.2)
    # A closed season has nothing left to forecast.
    close_season(season)
    assert season_forecast(Season.objects.get(pk=season.pk), []) is None
