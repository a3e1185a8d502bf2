"""Every prediction gives the first-named side the configuration's advantage, unless on
neutral ground: the fixture odds (selector, page and API), the win-probability API and the
head-to-head page, checked against the Glicko-2 formula written out here, independently of
``engine.prediction``:

    E = 1 / (1 + exp(-g(sqrt(phi_a^2 + phi_b^2)) (mu_a + h / 173.7178 - mu_b))),
    g(phi) = 1 / sqrt(1 + 3 phi^2 / pi^2),  mu = (r - 1500) / 173.7178,  phi = RD / 173.7178.
"""

from __future__ import annotations

import datetime as dt
import math
from zoneinfo import ZoneInfo

import pytest
from django.core.cache import caches
from django.urls import reverse
from django.utils import timezone

from league import fixtures as fixture_services
from ratings.models import PlayerPeriod, Standing
from ratings.selectors.common import ReadClock, rd_now
from ratings.selectors.fixtures import draw_parameter, fixture_rows
from ratings.selectors.predictions import league_model
from tests.functional.conftest import rate, record_results

pytestmark = pytest.mark.django_db

LONDON = ZoneInfo("Europe/London")
SCALE = 173.7178
#: Probabilities computed two ways agree to this (both are double-precision logistic sums).
TOLERANCE = 1e-9


def glicko2_expected(rating_a: float, rd_a: float, rating_b: float, rd_b: float, h: float):
    """A's expected score against B with A's advantage ``h`` (rating points)."""
    phi = math.sqrt((rd_a / SCALE) ** 2 + (rd_b / SCALE) ** 2)
    g = 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / math.pi**2)
    return 1.0 / (1.0 + math.exp(-g * ((rating_a - rating_b) / SCALE + h / SCALE)))


@pytest.fixture
def derby(league, make_player):
    """Four players, a few home and neutral results with draws, rated with advantage 100."""
    # A sport with home grounds: a chess league's pages speak of White and Black instead.
    league.sport = "Football"
    league.save()
    p = {name: make_player(league, name) for name in ("Ann", "Bob", "Cem", "Dee")}
    day = dt.date(2024, 3, 5)
    record_results(
        league,
        [
            (p["Ann"], p["Bob"], "1", day),
            (p["Cem"], p["Dee"], "0.5", day),
            (p["Bob"], p["Cem"], "1", day + dt.timedelta(days=1)),
            (p["Dee"], p["Ann"], "0.5", day + dt.timedelta(days=1)),
        ],
    )
    record_results(league, [(p["Ann"], p["Cem"], "1", day)], neutral=True)
    config = rate(league, advantage=100.0)
    assert config.advantage == 100.0
    return p


def _now(player):
    """The player's published rating and RD grown to today's period."""
    standing = Standing.objects.get(player=player)
    period = ReadClock.of(standing.config).period
    config = standing.config
    return standing.rating, rd_now(
        config, standing.rd, standing.volatility, standing.last_period, period
    )


def _at(days: int) -> dt.datetime:
    day = timezone.localdate(timezone=LONDON) + dt.timedelta(days=days)
    return dt.datetime.combine(day, dt.time(19), LONDON)


def test_win_probability_api_gives_player_a_the_home_advantage(client, league, derby):
    ann, bob = derby["Ann"], derby["Bob"]
    url = f"/api/leagues/{league.slug}/win-probability/"
    (r_a, rd_a), (r_b, rd_b) = _now(ann), _now(bob)
    home = client.get(url, {"player_a": ann.pk, "player_b": bob.pk}).json()
    assert home["advantage_a"] == 100.0
    assert home["neutral"] is False
    assert home["player_a"]["rd"] == pytest.approx(rd_a, abs=TOLERANCE)
    with_advantage = glicko2_expected(r_a, rd_a, r_b, rd_b, 100.0)
    without = glicko2_expected(r_a, rd_a, r_b, rd_b, 0.0)
    assert home["probability_a"] == pytest.approx(with_advantage, abs=TOLERANCE)
    assert home["probability_b"] == pytest.approx(1.0 - with_advantage, abs=TOLERANCE)
    neutral = client.get(url, {"player_a": ann.pk, "player_b": bob.pk, "neutral": "true"}).json()
    assert neutral["advantage_a"] == 0.0
    assert neutral["neutral"] is True
    assert neutral["probability_a"] == pytest.approx(without, abs=TOLERANCE)
    # The home side's chance rises by the advantage's amount: about 0.1 near even ratings.
    rise = home["probability_a"] - neutral["probability_a"]
    assert rise == pytest.approx(with_advantage - without, abs=TOLERANCE)
    assert 0.05 < rise < 0.15
    # Bob at home: the advantage is his now.
    away = client.get(url, {"player_a": bob.pk, "player_b": ann.pk}).json()
    assert away["probability_a"] == pytest.approx(
        glicko2_expected(r_b, rd_b, r_a, rd_a, 100.0), abs=TOLERANCE
    )
    assert away["probability_a"] > 1.0 - home["probability_a"]


def test_a_bad_neutral_flag_is_refused_naming_it(client, league, derby):
    url = f"/api/leagues/{league.slug}/win-probability/"
    response = client.get(
        url, {"player_a": derby["Ann"].pk, "player_b": derby["Bob"].pk, "neutral": "maybe"}
    )
    assert response.status_code == 400
    assert "neutral" in response.text


def test_fixture_odds_give_the_first_named_side_the_advantage(client, league, derby):
    ann, bob = derby["Ann"], derby["Bob"]
    fixture_services.schedule_fixture(league, player_a=ann, player_b=bob, scheduled_at=_at(2))
    (r_a, rd_a), (r_b, rd_b) = _now(ann), _now(bob)
    config = Standing.objects.get(player=ann).config
    nu = draw_parameter(league, config)
    assert nu > 0  # the league has draws: win / draw / loss are split from E
    [row] = fixture_rows(league, config)
    expected = glicko2_expected(r_a, rd_a, r_b, rd_b, 100.0)
    assert row.forecast.expected_score == pytest.approx(expected, abs=TOLERANCE)
    assert row.forecast.expected_score - glicko2_expected(
        r_a, rd_a, r_b, rd_b, 0.0
    ) == pytest.approx(expected - glicko2_expected(r_a, rd_a, r_b, rd_b, 0.0), abs=TOLERANCE)
    # The API's odds are the same numbers.
    body = client.get(f"/api/leagues/{league.slug}/fixtures/").json()
    fixtures = body["results"] if isinstance(body, dict) else body
    [api_row] = fixtures
    forecast = api_row["forecast"]
    assert forecast["win"] + forecast["draw"] / 2 == pytest.approx(expected, abs=TOLERANCE)
    # The page says who gets the advantage, and shows the same chances.
    page = client.get(reverse("pages:fixtures", args=[league.slug])).text
    assert "advantage of 100 rating points" in page
    assert f"Ann wins <strong>{round(row.forecast.win * 100)} %" in page


def test_the_draw_model_is_fitted_on_predictions_with_the_advantage(league, derby):
    """The fitted nu moves when the same results are predicted with another advantage."""
    config = Standing.objects.get(player=derby["Ann"]).config
    with_advantage = draw_parameter(league, config)
    config.advantage = 0.0
    caches["default"].clear()  # the fit is kept per position of the projection
    without = draw_parameter(league, config)
    assert with_advantage != pytest.approx(without, abs=1e-6)


def test_head_to_head_page_predicts_the_first_named_player_at_home(client, league, derby):
    ann, bob = derby["Ann"], derby["Bob"]
    (r_a, rd_a), (r_b, rd_b) = _now(ann), _now(bob)
    response = client.get(reverse("pages:versus", args=[league.slug]), {"a": "ann", "b": "bob"})
    expected = glicko2_expected(r_a, rd_a, r_b, rd_b, 100.0)
    neutral = glicko2_expected(r_a, rd_a, r_b, rd_b, 0.0)
    assert response.context["prediction"]["expected"] == f"{round(expected * 100)} %"
    assert response.context["neutral_expected"] == f"{round(neutral * 100)} %"
    assert "advantage of 100 rating points" in response.text


def test_head_to_head_calibration_of_home_and_away_sides(client, league, derby):
    """The home and away sides' calibration: non-neutral games only, each predicted from its
    period's starting ratings with the advantage; numbers from the selector, text on the page."""
    config = Standing.objects.get(player=derby["Ann"]).config
    before = {
        row.player_id: (row.rating_before, row.rd_before)
        for row in PlayerPeriod.objects.filter(config=config)
    }
    # Each player played in one period only, so their starting state is one row.
    assert PlayerPeriod.objects.filter(config=config).count() == len(before) == 4
    home_games = [  # (home, away, home's score): the four games not on neutral ground
        ("Ann", "Bob", 1.0),
        ("Cem", "Dee", 0.5),
        ("Bob", "Cem", 1.0),
        ("Dee", "Ann", 0.5),
    ]
    expected = [
        glicko2_expected(*before[derby[h].pk], *before[derby[a].pk], 100.0)
        for h, a, _score in home_games
    ]
    model = league_model(league, config)
    assert model.games == 5  # the neutral game counts in the favourite's table
    home, away = model.sides
    assert (home.side, away.side) == ("home", "away")
    assert home.games == away.games == 4
    assert home.mean_score == pytest.approx(0.75, abs=TOLERANCE)
    assert away.mean_score == pytest.approx(0.25, abs=TOLERANCE)
    assert home.mean_expected == pytest.approx(sum(expected) / 4, abs=TOLERANCE)
    assert away.mean_expected == pytest.approx(1 - sum(expected) / 4, abs=TOLERANCE)
    for side, mine in ((home, expected), (away, [1 - e for e in expected])):
        assert sum(band.games for band in side.bands) == 4
        for band in side.bands:
            inside = [e for e in mine if band.low <= e < band.high]
            assert band.games == len(inside)
            assert band.mean_expected == pytest.approx(sum(inside) / len(inside), abs=TOLERANCE)
    response = client.get(reverse("pages:versus", args=[league.slug]), {"a": "ann", "b": "bob"})
    body = response.text
    assert 'id="calibration-home"' in body
    assert 'id="calibration-away"' in body
    assert (
        "In 4 games not on neutral ground, home sides scored 0.750 on average against an "
        f"expected {sum(expected) / 4:.3f}." in body
    )
    assert (
        f"away sides scored 0.250 on average against an expected {1 - sum(expected) / 4:.3f}"
        in body
    )


def test_a_league_of_neutral_games_shows_no_home_and_away_calibration(client, league, make_player):
    league.sport = "Football"  # a sport with home grounds (a chess game is never neutral)
    league.save()
    ann, bob = make_player(league, "Ann"), make_player(league, "Bob")
    day = dt.date(2024, 3, 5)
    record_results(league, [(ann, bob, "1", day), (bob, ann, "0.5", day)], neutral=True)
    config = rate(league, advantage=100.0)
    assert league_model(league, config).sides == ()
    response = client.get(reverse("pages:versus", args=[league.slug]), {"a": "ann", "b": "bob"})
    assert response.context["side_tables"] == []
    assert 'id="calibration-home"' not in response.text
