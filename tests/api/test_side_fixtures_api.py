"""Fixtures with sides over real HTTP: scheduled with ``sides``, read back, played, refused."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import pytest
import requests
from django.urls import reverse
from rest_framework.authtoken.models import Token

from league.models import Event, Fixture, MatchFormat
from ratings.selectors.configurations import live_config
from ratings.selectors.fixtures import side_forecasts

pytestmark = pytest.mark.django_db(transaction=True)

TIMEOUT = 10


@pytest.fixture
def doubles(rated):
    rated.match_format = MatchFormat.FIXED
    rated.side_size = 2
    rated.save()
    return rated


@pytest.fixture
def api(live_server, doubles):
    def make(path: str = "") -> str:
        return f"{live_server.url}/api/leagues/{doubles.slug}/{path}"

    return make


def _headers(user) -> dict[str, str]:
    token, _ = Token.objects.get_or_create(user=user)
    return {"Authorization": f"Token {token.key}"}


def _tonight(league):
    zone = ZoneInfo(league.time_zone)
    return dt.datetime.combine(dt.datetime.now(zone).date(), dt.time(0), zone)


def test_an_organiser_schedules_reads_and_plays_a_doubles_fixture(api, doubles, players, organiser):
    ann, bob, cat, dan = players
    headers = _headers(organiser)
    body = {
        "sides": [[ann.pk, bob.pk], [cat.pk, dan.pk]],
        "scheduled_at": _tonight(doubles).isoformat(),
        "label": "Doubles night",
    }
    created = requests.post(api("fixtures/"), json=body, headers=headers, timeout=TIMEOUT)
    assert created.status_code == 201, created.text
    row = created.json()
    assert [[p["name"] for p in side["players"]] for side in row["sides"]] == [
        ["Ann", "Bob"],
        ["Cat", "Dan"],
    ]
    assert [side["side"] for side in row["sides"]] == ["A", "B"]
    # The forecast is the team-sum model's, from the published ratings.
    expected = side_forecasts(doubles, live_config(doubles), [((ann.pk, bob.pk), (cat.pk, dan.pk))])
    forecast = next(iter(expected.values()))
    assert row["forecast"]["win"] == pytest.approx(forecast.win, abs=1e-9)
    fixture_id = row["id"]
    result = requests.post(
        api(f"fixtures/{fixture_id}/result/"),
        json={"score_a": 1, "points": "21-17"},
        headers=headers,
        timeout=TIMEOUT,
    )
    assert result.status_code == 201, result.text
    match = result.json()
    assert [[p["id"] for p in side["players"]] for side in match["sides"]] == body["sides"]
    assert result.headers["Location"].endswith(
        reverse(
            "api:side-match-detail", kwargs={"league_slug": doubles.slug, "match_id": match["id"]}
        )
    )
    event = Event.objects.get(kind=Event.Kind.SIDE_MATCH_RECORDED)
    assert event.fixture_id == fixture_id
    read = requests.get(api(f"fixtures/{fixture_id}/"), timeout=TIMEOUT).json()
    assert (read["status"], read["match_seq"], read["forecast"]) == ("played", event.seq, None)


def test_bad_side_bodies_name_the_field_and_store_nothing(
    api, doubles, players, organiser, stranger
):
    ann, bob, cat, dan = players
    headers = _headers(organiser)
    when = _tonight(doubles).isoformat()
    cases = [
        ({"sides": [[ann.pk, bob.pk], [bob.pk, cat.pk]]}, "sides"),
        ({"sides": [[ann.pk, bob.pk, cat.pk], [dan.pk]]}, "sides"),
        ({"sides": [[ann.pk, bob.pk], [cat.pk, stranger.pk]]}, "sides"),
        ({"sides": "Ann and Bob"}, "sides"),
        ({"sides": [[ann.pk, bob.pk], [cat.pk, dan.pk]], "player_a": ann.pk}, "sides"),
        ({}, "player_a"),
    ]
    before = Event.objects.count()
    for extra, field in cases:
        response = requests.post(
            api("fixtures/"), json={"scheduled_at": when, **extra}, headers=headers, timeout=TIMEOUT
        )
        assert response.status_code == 400, (extra, response.text)
        assert field in response.json()["errors"], (extra, response.json())
    assert not Fixture.objects.exists()
    assert Event.objects.count() == before


def test_a_fixture_result_without_a_score_names_the_field(api, doubles, players, organiser):
    ann, bob, cat, dan = players
    headers = _headers(organiser)
    created = requests.post(
        api("fixtures/"),
        json={
            "sides": [[ann.pk, bob.pk], [cat.pk, dan.pk]],
            "scheduled_at": _tonight(doubles).isoformat(),
        },
        headers=headers,
        timeout=TIMEOUT,
    ).json()
    response = requests.post(
        api(f"fixtures/{created['id']}/result/"), json={}, headers=headers, timeout=TIMEOUT
    )
    assert response.status_code == 400
    assert "score_a" in response.json()["errors"]
    assert not Event.objects.filter(kind=Event.Kind.SIDE_MATCH_RECORDED).exists()
