"""The fixtures API over real HTTP: everyone reads, organisers schedule, cancel and record."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import pytest
import requests
from rest_framework.authtoken.models import Token

from league import fixtures as fixture_services
from league.models import Event, Fixture

pytestmark = pytest.mark.django_db(transaction=True)

TIMEOUT = 10


@pytest.fixture
def api(live_server, rated):
    def make(path: str = "") -> str:
        return f"{live_server.url}/api/leagues/{rated.slug}/{path}"

    return make


def token_headers(user) -> dict[str, str]:
    token, _ = Token.objects.get_or_create(user=user)
    return {"Authorization": f"Token {token.key}"}


def _soon(league, days=1):
    zone = ZoneInfo(league.time_zone)
    today = dt.datetime.now(zone).date()
    return dt.datetime.combine(today + dt.timedelta(days=days), dt.time(19), zone)


def test_anyone_reads_upcoming_fixtures_with_forecasts(api, rated, players):
    ann, bob, cat, _dan = players
    first = fixture_services.schedule_fixture(
        rated, player_a=ann, player_b=bob, scheduled_at=_soon(rated), venue="Board 1"
    )
    second = fixture_services.schedule_fixture(
        rated, player_a=cat, player_b=ann, scheduled_at=_soon(rated, 2)
    )
    fixture_services.cancel_fixture(rated, second)
    response = requests.get(api("fixtures/"), timeout=TIMEOUT)
    assert response.status_code == 200
    body = response.json()
    assert [f["id"] for f in body["results"]] == [first.pk]
    (row,) = body["results"]
    assert (row["player_a"], row["player_b_name"], row["venue"], row["status"]) == (
        ann.pk,
        "Bob",
        "Board 1",
        "upcoming",
    )
    forecast = row["forecast"]
    assert forecast["win"] + forecast["draw"] + forecast["loss"] == pytest.approx(1, abs=1e-12)
    assert forecast["win"] > forecast["loss"]  # Ann beat Bob twice
    cancelled = requests.get(api("fixtures/?status=cancelled"), timeout=TIMEOUT).json()
    assert [f["id"] for f in cancelled["results"]] == [second.pk]
    assert cancelled["results"][0]["forecast"] is None
    mine = requests.get(api(f"fixtures/?player={cat.pk}&status=cancelled"), timeout=TIMEOUT)
    assert [f["id"] for f in mine.json()["results"]] == [second.pk]
    detail = requests.get(api(f"fixtures/{first.pk}/"), timeout=TIMEOUT)
    assert detail.json()["id"] == first.pk


@pytest.mark.parametrize(
    ("query", "field"), [("status=someday", "status"), ("player=abc", "player")]
)
def test_bad_queries_are_a_400_naming_the_parameter(api, query, field):
    response = requests.get(api(f"fixtures/?{query}"), timeout=TIMEOUT)
    assert response.status_code == 400
    assert field in response.json()["errors"]


def test_an_organiser_schedules_with_a_token_and_a_retry_stores_nothing_new(
    api, rated, players, organiser
):
    ann, bob, *_ = players
    body = {
        "player_a": ann.pk,
        "player_b": bob.pk,
        "scheduled_at": _soon(rated).isoformat(),
        "venue": "Table 3",
        "label": "Round 1",
    }
    headers = {**token_headers(organiser), "Idempotency-Key": "fx-1"}
    first = requests.post(api("fixtures/"), json=body, headers=headers, timeout=TIMEOUT)
    assert first.status_code == 201, first.text
    fixture = Fixture.objects.get()
    assert first.headers["Location"].endswith(f"/fixtures/{fixture.pk}/")
    assert first.json()["label"] == "Round 1"
    again = requests.post(api("fixtures/"), json=body, headers=headers, timeout=TIMEOUT)
    assert again.status_code == 201
    assert again.json() == first.json()
    assert Fixture.objects.count() == 1
    changed = requests.post(
        api("fixtures/"), json={**body, "venue": "Hall"}, headers=headers, timeout=TIMEOUT
    )
    assert changed.status_code == 422


def test_bad_bodies_name_every_field_and_store_nothing(api, rated, players, organiser, stranger):
    ann = players[0]
    body = {
        "player_a": ann.pk,
        "player_b": stranger.pk,
        "scheduled_at": "2020-01-01T19:00:00+00:00",
        "venue": "x" * 200,
    }
    response = requests.post(
        api("fixtures/"), json=body, headers=token_headers(organiser), timeout=TIMEOUT
    )
    assert response.status_code == 400
    errors = response.json()["errors"]
    assert "venue" in errors
    response = requests.post(
        api("fixtures/"),
        json={**body, "venue": ""},
        headers=token_headers(organiser),
        timeout=TIMEOUT,
    )
    assert response.status_code == 400
    errors = response.json()["errors"]
    assert {"player_b", "deadline"} <= set(errors)
    # 31 Dec 9999 is a day of the calendar, not of a club's fixture list.
    response = requests.post(
        api("fixtures/"),
        json={
            **body,
            "venue": "",
            "player_b": players[1].pk,
            "scheduled_at": "9999-12-31T19:00:00Z",
        },
        headers=token_headers(organiser),
        timeout=TIMEOUT,
    )
    assert response.status_code == 400
    assert "years ahead" in " ".join(response.json()["errors"]["scheduled_at"])
    assert not Fixture.objects.exists()


def test_only_the_leagues_organisers_write(api, rated, players, other_organiser):
    ann, bob, *_ = players
    body = {"player_a": ann.pk, "player_b": bob.pk, "scheduled_at": _soon(rated).isoformat()}
    anonymous = requests.post(api("fixtures/"), json=body, timeout=TIMEOUT)
    assert anonymous.status_code == 401
    other = requests.post(
        api("fixtures/"), json=body, headers=token_headers(other_organiser), timeout=TIMEOUT
    )
    assert other.status_code == 403
    fixture = fixture_services.schedule_fixture(
        rated, player_a=ann, player_b=bob, scheduled_at=_soon(rated)
    )
    refused = requests.post(
        api(f"fixtures/{fixture.pk}/cancel/"),
        json={},
        headers=token_headers(other_organiser),
        timeout=TIMEOUT,
    )
    assert refused.status_code == 403
    assert not Fixture.objects.filter(cancelled=True).exists()


def test_an_organiser_cancels_and_records_results_against_fixtures(api, rated, players, organiser):
    ann, bob, cat, dan = players
    zone = ZoneInfo(rated.time_zone)
    tonight = dt.datetime.combine(dt.datetime.now(zone).date(), dt.time(0), zone)
    played = fixture_services.schedule_fixture(
        rated, player_a=cat, player_b=dan, scheduled_at=tonight
    )
    dropped = fixture_services.schedule_fixture(
        rated, player_a=ann, player_b=bob, scheduled_at=_soon(rated)
    )
    headers = token_headers(organiser)
    cancel = requests.post(
        api(f"fixtures/{dropped.pk}/cancel/"),
        json={"reason": "Bob ill"},
        headers=headers,
        timeout=TIMEOUT,
    )
    assert cancel.status_code == 200
    assert cancel.json()["status"] == "cancelled"
    twice = requests.post(
        api(f"fixtures/{dropped.pk}/cancel/"), json={}, headers=headers, timeout=TIMEOUT
    )
    assert twice.status_code == 400
    assert "fixture" in twice.json()["errors"]
    result = requests.post(
        api(f"fixtures/{played.pk}/result/"),
        json={"score_a": 0.5, "points": "1–1"},
        headers=headers,
        timeout=TIMEOUT,
    )
    assert result.status_code == 201, result.text
    match = Event.objects.get(kind=Event.Kind.MATCH_RECORDED, fixture=played)
    assert (match.player_a_id, match.player_b_id, str(match.score_a)) == (cat.pk, dan.pk, "0.5")
    detail = requests.get(api(f"fixtures/{played.pk}/"), timeout=TIMEOUT).json()
    assert (detail["status"], detail["match_seq"], detail["points"]) == (
        "played",
        match.seq,
        "1–1",
    )
    assert requests.get(api("fixtures/999999/"), timeout=TIMEOUT).status_code == 404
