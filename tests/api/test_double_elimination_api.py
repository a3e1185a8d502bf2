"""A double-elimination cup over the API: created with its bracket reset, paired round of
play by round of play, the bracket read with each tie's part (winners', losers', grand
final), chances and the cup's forecast; bad settings answered with a 400 naming the field."""

from __future__ import annotations

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from league import services
from league.models import Event


def _client(user) -> APIClient:
    client = APIClient()
    token, _ = Token.objects.get_or_create(user=user)
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


def test_a_four_player_double_elimination_cup_over_the_api(league, organiser, make_player):
    base = f"/api/leagues/{league.slug}/competitions/"
    auth = _client(organiser)
    before = Event.objects.count()
    refused = auth.post(
        base,
        {"name": "Cup", "format": "knockout", "planned_rounds": 2, "bracket_reset": True},
        format="json",
    )
    assert refused.status_code == 400
    assert refused.json()["errors"]["bracket_reset"] == [
        "Only a double-elimination cup plays its grand final again; leave it off."
    ]
    assert Event.objects.count() == before
    created = auth.post(
        base,
        {
            "name": "Cup", "format": "knockout", "planned_rounds": 2,
            "double_elimination": True, "bracket_reset": True,
        },
        format="json",
    )  # fmt: skip
    assert created.status_code == 201, created.content
    body = created.json()
    assert (body["double_elimination"], body["bracket_reset"], body["planned_rounds"]) == (
        True,
        True,
        5,
    )
    cup = f"{base}cup/"
    players = [make_player(league, name) for name in ("Ann", "Bob", "Cem", "Dee")]
    for rating, player in zip((1900, 1800, 1700, 1600), players, strict=True):
        entered = auth.post(
            f"{cup}entrants/", {"player": player.pk, "seed_rating": rating}, format="json"
        )
        assert entered.status_code == 201, entered.content
    assert auth.post(f"{cup}rounds/next/").status_code == 201
    bracket = APIClient().get(f"{cup}bracket/").json()
    assert bracket["double_elimination"] is True
    assert bracket["size"] == 4
    for tie in bracket["rounds"][0]["ties"]:
        services.record_fixture_result(
            league, tie["games"][0]["fixture"], score_a="1", recorded_by=organiser
        )
    assert auth.post(f"{cup}rounds/next/").status_code == 201
    bracket = APIClient().get(f"{cup}bracket/").json()
    second = bracket["rounds"][1]["ties"]
    assert [(t["part"], t["part_round"], t["tie"]) for t in second] == [
        ("winners", 2, 1),
        ("losers", 1, 2),
    ]
    assert [(t["first"]["name"], t["second"]["name"]) for t in second] == [
        ("Ann", "Bob"),
        ("Dee", "Cem"),
    ]
    assert all(0.0 < t["first_wins_probability"] < 1.0 for t in second)
    parts = [t["part"] for r in bracket["rounds"] for t in r["ties"]]
    assert parts.count("final") == 1
    assert parts.count("reset") == 1
    forecast = bracket["forecast"]
    assert sum(c["probability"] for c in forecast["chances"]) == pytest.approx(1.0, abs=1e-9)
    assert {c["name"] for c in forecast["chances"]} == {"Ann", "Bob", "Cem", "Dee"}
