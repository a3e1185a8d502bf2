"""A season's divisions over the API: each division's table with its zones, the forecast with
its simulations and error for a running season, none for an ended one; documented in the
OpenAPI schema; writes refused (the API only reads divisions)."""

from __future__ import annotations

import datetime as dt

import pytest
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

from league import seasons
from league.divisions import DivisionInput, set_divisions
from tests.divisions_support import three_divisions

pytestmark = pytest.mark.django_db


def test_an_ended_season_of_three_divisions(league, make_player):
    club = three_divisions(league, make_player)
    answer = APIClient().get(f"/api/leagues/{league.slug}/seasons/spring-2024/divisions/")
    assert answer.status_code == 200
    body = answer.json()
    assert (body["promotion"], body["fixed"], body["proposed"]) == (1, True, False)
    assert [d["name"] for d in body["divisions"]] == ["Division 1", "Division 2", "Division 3"]
    middle = body["divisions"][1]
    assert [(row["name"], row["points"], row["zone"]) for row in middle["rows"]] == [
        ("Player B1", 6.0, "promotion"),
        ("Player B2", 3.0, ""),
        ("Player B3", 0.0, "relegation"),
    ]
    assert middle["forecast"] is None
    autumn = APIClient().get(f"/api/leagues/{league.slug}/seasons/{club['autumn'].slug}/divisions/")
    assert autumn.json()["divisions"] == []
    assert autumn.json()["promotion"] is None
    missing = APIClient().get(f"/api/leagues/{league.slug}/seasons/nope/divisions/")
    assert missing.status_code == 404


def test_a_running_season_gives_the_forecast_and_its_error(league, make_player):
    today = dt.date.today()
    players = [make_player(league, name) for name in ("Ann", "Bob", "Cat", "Dan")]
    season = seasons.create_season(
        league,
        name="Now",
        start_date=today - dt.timedelta(days=2),
        end_date=today + dt.timedelta(days=20),
    )
    set_divisions(
        season,
        [
            DivisionInput("Upper", (players[0].pk, players[1].pk)),
            DivisionInput("Lower", (players[2].pk, players[3].pk)),
        ],
        promotion=1,
    )
    body = APIClient().get(f"/api/leagues/{league.slug}/seasons/now/divisions/").json()
    upper, lower = body["divisions"]
    # No game played yet: the tables stand nobody in a zone.
    assert [row["zone"] for d in body["divisions"] for row in d["rows"]] == [""] * 4
    assert upper["forecast"]["simulated"] == "round_robin"
    assert upper["forecast"]["remaining"] == 1  # Ann and Bob have not met
    assert upper["forecast"]["simulations"] == 2000
    chances = upper["forecast"]["chances"]
    # Two players of one rating on neutral ground: each first about half the time, and each
    # chance's error as stated (at most 0.5 / sqrt(2000) = 0.0112).
    assert sum(c["first"] for c in chances) == pytest.approx(1.0, abs=1e-9)
    for chance in chances:
        assert chance["promotion"] is None
        assert chance["relegation"] is not None
        assert 0 < chance["first_error"] <= 0.0112
        assert chance["first"] == pytest.approx(0.5, abs=4 * 0.0112)
    assert all(c["relegation"] is None for c in lower["forecast"]["chances"])
    assert body["divisions"][0]["forecast"]["largest_error"] <= 0.0112


def test_the_divisions_are_read_only_and_in_the_schema(league, organiser):
    seasons.create_season(league, name="S", start_date="2024-02-01", end_date="2024-02-28")
    client = APIClient()
    client.force_authenticate(organiser)
    refused = client.post(f"/api/leagues/{league.slug}/seasons/s/divisions/", {}, format="json")
    assert refused.status_code == 405
    document = SchemaGenerator().get_schema(request=None, public=True)
    path = "/api/leagues/{league_slug}/seasons/{season_slug}/divisions/"
    assert list(document["paths"][path]) == ["get"]
    components = document["components"]["schemas"]
    assert "relegation_error" in components["DivisionChance"]["properties"]
    assert "zone" in components["DivisionRow"]["properties"]
