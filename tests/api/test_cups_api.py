"""A knockout cup over the API: created with its draw rule and third place, paired round by
round from its bracket, a drawn tie's replay scheduled, the bracket read with its ties,
winners, chances and forecast; bad bodies and undecided ties answered with a 400 naming the
field; the bracket documented in the OpenAPI schema."""

from __future__ import annotations

import pytest
from drf_spectacular.generators import SchemaGenerator
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from league import competitions, services
from league.models import Event


@pytest.fixture
def client_of(organiser):
    def make(user=organiser, key: str | None = None) -> APIClient:
        client = APIClient()
        if user is not None:
            token, _ = Token.objects.get_or_create(user=user)
            client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
        if key:
            client.credentials(
                HTTP_AUTHORIZATION=f"Token {Token.objects.get(user=user).key}",
                HTTP_IDEMPOTENCY_KEY=key,
            )
        return client

    return make


def test_a_four_player_cup_over_the_api(client_of, league, organiser, make_player):
    base = f"/api/leagues/{league.slug}/competitions/"
    auth = client_of()
    refused = auth.post(
        base, {"name": "Cup", "format": "knockout", "planned_rounds": 2, "draw_rule": "coin"},
        format="json",
    )  # fmt: skip
    assert refused.status_code == 400
    assert "draw_rule" in refused.json()["errors"]
    created = auth.post(
        base,
        {"name": "Cup", "format": "knockout", "planned_rounds": 2, "third_place": True},
        format="json",
    )
    assert created.status_code == 201, created.content
    assert created.json()["draw_rule"] == "replay"
    assert created.json()["third_place"] is True
    cup = f"{base}cup/"
    players = [make_player(league, name) for name in ("Ann", "Bob", "Cem", "Dee")]
    for rating, player in zip((1900, 1800, 1700, 1600), players, strict=True):
        entered = auth.post(
            f"{cup}entrants/", {"player": player.pk, "seed_rating": rating}, format="json"
        )
        assert entered.status_code == 201, entered.content
    projected = APIClient().get(f"{cup}bracket/").json()
    assert projected["projected"] is True
    assert [(t["first"]["name"], t["second"]["name"]) for t in projected["rounds"][0]["ties"]] == [
        ("Ann", "Dee"),
        ("Bob", "Cem"),
    ]
    first = client_of(key="pair-1").post(f"{cup}rounds/next/")
    assert first.status_code == 201, first.content
    bracket = APIClient().get(f"{cup}bracket/").json()
    ann_dee, bob_cem = bracket["rounds"][0]["ties"]
    assert 0.0 < ann_dee["first_wins_probability"] < 1.0
    probabilities = ann_dee["game_probabilities"]
    assert sum(probabilities.values()) == pytest.approx(1.0, abs=1e-9)
    forecast = bracket["forecast"]
    assert forecast["simulations"] == 2000
    assert sum(c["probability"] for c in forecast["chances"]) == pytest.approx(1.0, abs=1e-9)
    assert forecast["largest_standard_error"] > 0
    game, other = ann_dee["games"][0]["fixture"], bob_cem["games"][0]["fixture"]
    services.record_fixture_result(league, game, score_a="0.5", recorded_by=organiser)
    services.record_fixture_result(league, other, score_a="1", recorded_by=organiser)
    # The drawn tie holds the final back.
    before = Event.objects.count()
    held = auth.post(f"{cup}rounds/next/")
    assert held.status_code == 400
    assert "Ann v Dee" in held.json()["errors"]["round_number"][0]
    assert Event.objects.count() == before
    replay = client_of(key="replay-1").post(f"{cup}games/{game}/tie-game/")
    assert replay.status_code == 201, replay.content
    assert [g["kind"] for g in replay.json()["games"]] == ["game", "replay"]
    services.record_fixture_result(
        league, replay.json()["games"][1]["fixture"], score_a="0", recorded_by=organiser
    )
    final = auth.post(f"{cup}rounds/next/")
    assert final.status_code == 201, final.content
    bracket = APIClient().get(f"{cup}bracket/").json()
    final_tie, third = bracket["rounds"][1]["ties"]
    assert (final_tie["first"]["name"], final_tie["second"]["name"]) == ("Dee", "Bob")
    assert third["third_place"] is True
    assert (third["first"]["name"], third["second"]["name"]) == ("Ann", "Cem")
    assert bracket["champion"] is None


def test_the_bracket_is_for_cups_and_in_the_schema(client_of, league, organiser):
    competitions.create_competition(
        league, name="Open", format="swiss", planned_rounds=3, recorded_by=organiser
    )
    answer = APIClient().get(f"/api/leagues/{league.slug}/competitions/open/bracket/")
    assert answer.status_code == 404
    document = SchemaGenerator().get_schema(request=None, public=True)
    path = "/api/leagues/{league_slug}/competitions/{competition_slug}/bracket/"
    assert "get" in document["paths"][path]
    components = document["components"]["schemas"]
    assert "first_wins_probability" in components["Tie"]["properties"]
    assert "forecast" in components["Bracket"]["properties"]
