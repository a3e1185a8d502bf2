"""The standings API over real HTTP: who is ranked (the league's rules, ``everyone``,
``listed=separate``) and confidence levels (``level``), and the schema documenting both."""

from __future__ import annotations

import datetime as dt

import pytest
import requests
from django.urls import reverse

from ratings import services as rating_services
from ratings.models import Publication, RankingRules
from tests.functional.conftest import run_queued_replays

pytestmark = pytest.mark.django_db(transaction=True)

TIMEOUT = 10


@pytest.fixture
def standings(live_server, league, matches, organiser):
    """``standings(**params)``: the JSON of the league's standings under the default rules.

    Four players, a few games each in January 2024: every one of them is provisional.
    """
    rating_services.create_config(
        league, created_by=organiser, period_unit="days", period_length=7,
        period_anchor=dt.date(2024, 1, 1),
    )  # fmt: skip
    run_queued_replays(league)
    assert Publication.objects.filter(league=league).exists()

    def get(expected_status: int = 200, **params: str) -> dict:
        response = requests.get(
            f"{live_server.url}/api/leagues/{league.slug}/standings/",
            params=params,
            timeout=TIMEOUT,
        )
        assert response.status_code == expected_status, response.text
        return response.json()

    return get


def test_the_default_rules_rank_no_provisional_player(standings):
    body = standings()
    assert body["rules"]["custom"] is False
    assert body["rules"]["max_rd"] == 110.0
    assert body["ranked_count"] == 0
    assert body["count"] == 0
    assert body["separate_count"] == 3  # Dan's only match was voided: he is not rated
    separate = standings(listed="separate")
    assert separate["listed"] == "separate"
    assert [row["rank"] for row in separate["results"]] == [None, None, None]
    assert all(not row["eligible"] for row in separate["results"])
    for row in separate["results"]:
        assert any(reason.startswith("provisional: RD") for reason in row["reasons"]), row
    ratings = [row["rating"] for row in separate["results"]]
    assert ratings == sorted(ratings, reverse=True)


def test_everyone_ranks_every_rated_player(standings):
    body = standings(everyone="true")
    assert body["everyone"] is True
    assert body["ranked_count"] == body["count"] == 3
    assert body["separate_count"] == 0
    assert [row["rank"] for row in body["results"]] == [1, 2, 3]
    assert all(row["eligible"] and row["reasons"] == [] for row in body["results"])


def test_the_leagues_own_rules_decide_who_is_ranked(standings, league):
    # Ann and Bob played three counted games, Cat two (her game against Dan was voided).
    RankingRules.objects.create(league=league, min_games=3, active_periods=None, max_rd=None)
    body = standings()
    assert body["rules"] == {
        "min_games": 3, "active_periods": None, "max_rd": None, "rank_by": "rating",
        "custom": True,
    }  # fmt: skip
    assert sorted(row["name"] for row in body["results"]) == ["Ann", "Bob"]
    separate = standings(listed="separate")
    assert [(row["name"], row["reasons"]) for row in separate["results"]] == [
        ("Cat", ["2 of 3 games needed"])
    ]


@pytest.mark.parametrize(
    ("level", "z"),
    [("68", 0.994457883), ("99", 2.575829304), ("99.9%", 3.290526731), ("z2", 2.0), ("95", 1.96)],
)
def test_the_interval_level_sets_low_and_high(standings, level, z):
    body = standings(everyone="true", level=level)
    assert body["level"]["z"] == pytest.approx(z, abs=1e-8)
    assert 0 < body["level"]["percent"] < 100
    for row in body["results"]:
        assert row["low"] == pytest.approx(row["rating"] - z * row["rd"], abs=1e-6)
        assert row["high"] == pytest.approx(row["rating"] + z * row["rd"], abs=1e-6)


@pytest.mark.parametrize("level", ["0", "100", "150", "z0", "z11", "lots", "9" * 50])
def test_a_bad_level_is_a_400_naming_the_field(standings, level):
    body = standings(400, level=level)
    assert set(body["errors"]) == {"level"}


def test_bad_list_and_everyone_values_are_400s(standings):
    assert set(standings(400, listed="all")["errors"]) == {"listed"}
    assert set(standings(400, everyone="maybe")["errors"]) == {"everyone"}


def test_the_schema_documents_eligibility_and_levels(live_server, db):
    schema = requests.get(
        live_server.url + reverse("api:schema"), params={"format": "json"}, timeout=TIMEOUT
    ).json()
    operation = schema["paths"]["/api/leagues/{league_slug}/standings/"]["get"]
    parameters = {p["name"]: p for p in operation["parameters"]}
    assert "eligibility rules" in parameters["everyone"]["description"]
    assert parameters["everyone"]["schema"]["type"] == "boolean"
    assert set(parameters["listed"]["schema"]["enum"]) == {"ranked", "separate"}
    assert "Confidence level" in parameters["level"]["description"]
    assert "z2" in parameters["level"]["description"]
    row = schema["components"]["schemas"]["StandingRow"]["properties"]
    assert row["rank"]["nullable"] is True
    assert "reasons" in row
    page = schema["components"]["schemas"]["StandingsPage"]["properties"]
    assert {"ranked_count", "separate_count", "rules", "level"} <= set(page)
