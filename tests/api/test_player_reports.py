"""The players' API: report, confirm, dispute, withdraw, reject; every rule on the server.

Token clients as every other API test; each player is held by their own account.
"""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from league.models import Event, PlayerRules, Report, ReportPolicy
from league.player_accounts import claim_player
from tests.api.support import token_client

pytestmark = pytest.mark.django_db


@pytest.fixture
def held(league, players, organiser):
    """Token clients for the accounts holding Ann, Bob and Cat (Dan is held by no one)."""
    clients = {}
    for player in players[:3]:
        user = get_user_model().objects.create_user(
            player.display_name.lower(), password="pw-player-1"
        )
        claim_player(player, user, by=organiser)
        clients[player.display_name] = token_client(user)
    return clients


def url(league, *parts) -> str:
    tail = "".join(f"{part}/" for part in parts)
    return f"/api/leagues/{league.slug}/reports/{tail}"


def ann_beat_bob(players) -> dict:
    ann, bob = players[0], players[1]
    return {"sides": [[ann.pk], [bob.pk]], "score_a": 1, "played_on": "2024-02-03"}


def test_report_then_confirm_records_the_match(league, players, held):
    response = held["Ann"].post(
        url(league), ann_beat_bob(players), format="json", HTTP_IDEMPOTENCY_KEY="r-1"
    )
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["status"] == "pending"
    assert body["sides"] == [[players[0].pk], [players[1].pk]]
    assert body["positions"] == [1, 2]
    assert body["match"] is None
    assert response["Location"] == url(league, body["id"])
    # A retry with the same key answers the same body and stores nothing.
    again = held["Ann"].post(
        url(league), ann_beat_bob(players), format="json", HTTP_IDEMPOTENCY_KEY="r-1"
    )
    assert again.status_code == 201
    assert again.json() == body
    assert Report.objects.count() == 1
    # The same key for another result: 422.
    other = {**ann_beat_bob(players), "score_a": 0}
    conflict = held["Ann"].post(url(league), other, format="json", HTTP_IDEMPOTENCY_KEY="r-1")
    assert conflict.status_code == 422

    # Cat (not in the game) sees nothing of it; Bob does.
    assert held["Cat"].get(url(league, body["id"])).status_code == 404
    assert [r["id"] for r in held["Bob"].get(url(league)).json()["results"]] == [body["id"]]

    confirmed = held["Bob"].post(url(league, body["id"], "confirm"), {}, format="json")
    assert confirmed.status_code == 200, confirmed.json()
    assert confirmed.json()["status"] == "confirmed"
    match_id = confirmed.json()["match"]
    match = Event.objects.get(pk=match_id)
    assert (match.player_a_id, match.player_b_id, str(match.score_a)) == (
        players[0].pk,
        players[1].pk,
        "1.0",
    )
    # The match is readable as any result.
    assert APIClient().get(f"/api/leagues/{league.slug}/matches/{match_id}/").status_code == 200
    # Confirming again changes nothing and answers the same.
    repeat = held["Bob"].post(url(league, body["id"], "confirm"), {}, format="json")
    assert repeat.json() == confirmed.json()
    assert Event.objects.filter(league=league, kind="report_confirmed").count() == 1


def test_anonymous_callers_are_refused(league, players, anon):
    for response in (
        anon.get(url(league)),
        anon.post(url(league), ann_beat_bob(players), format="json"),
        anon.post(f"/api/leagues/{league.slug}/challenges/", {"challenged": 1}, format="json"),
    ):
        assert response.status_code in (401, 403)
    assert not Report.objects.exists()


def test_signed_in_callers_without_a_player_here_are_refused(league, players, held, other_league):
    report = held["Ann"].post(url(league), ann_beat_bob(players), format="json").json()
    stranger = get_user_model().objects.create_user("stranger", password="pw-stranger-1")
    outsider = token_client(stranger)
    for response in (
        outsider.get(url(league)),
        outsider.get(url(league, report["id"])),
        outsider.post(url(league, report["id"], "confirm"), {}, format="json"),
        outsider.post(url(league), ann_beat_bob(players), format="json"),
        outsider.get(f"/api/leagues/{league.slug}/challenges/"),
    ):
        assert response.status_code == 403, response.json()
    # Ann's player is in this league only: in another league she is an outsider too.
    assert held["Ann"].get(f"/api/leagues/{other_league.slug}/reports/").status_code == 403
    assert Report.objects.get().status == "pending"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"score_a": 2}, "score_a"),
        ({"played_on": "2023-12-01"}, "played_on"),
        ({"sides": [[1], [1]]}, "sides"),
        ({"surprise": 1}, "surprise"),
        ({"player": "two"}, "player"),
    ],
)
def test_bad_bodies_name_the_field_and_store_nothing(league, players, held, body, field):
    sent = {**ann_beat_bob(players), **body}
    response = held["Ann"].post(url(league), sent, format="json")
    assert response.status_code == 400, response.json()
    assert field in response.json()["errors"], response.json()
    assert not Report.objects.exists()


def test_a_player_acts_only_for_their_own_record(league, players, held):
    # Ann names Bob's player record as hers.
    response = held["Ann"].post(
        url(league), {**ann_beat_bob(players), "player": players[1].pk}, format="json"
    )
    assert response.status_code == 400
    assert "player" in response.json()["errors"]
    # Cat reports a game of Ann and Bob.
    response = held["Cat"].post(url(league), ann_beat_bob(players), format="json")
    assert response.status_code == 400
    assert "sides" in response.json()["errors"]
    report = held["Ann"].post(url(league), ann_beat_bob(players), format="json").json()
    # Ann cannot confirm her own report, nor reject it (organisers only).
    own = held["Ann"].post(url(league, report["id"], "confirm"), {}, format="json")
    assert own.status_code == 400
    rejected = held["Ann"].post(
        url(league, report["id"], "reject"), {"reason": "oops"}, format="json"
    )
    assert rejected.status_code == 400
    # Bob cannot withdraw Ann's report.
    withdrawn = held["Bob"].post(url(league, report["id"], "withdraw"), {}, format="json")
    assert withdrawn.status_code == 400
    assert "player" in withdrawn.json()["errors"]
    assert Report.objects.get().status == "pending"


def test_a_dispute_reaches_the_organiser_who_rejects(league, players, held, org):
    report = held["Ann"].post(url(league), ann_beat_bob(players), format="json").json()
    missing = held["Bob"].post(url(league, report["id"], "dispute"), {}, format="json")
    assert missing.status_code == 400
    assert "reason" in missing.json()["errors"]
    disputed = held["Bob"].post(
        url(league, report["id"], "dispute"), {"reason": "I won"}, format="json"
    )
    assert disputed.json()["status"] == "disputed"
    listed = org.get(url(league)).json()["results"]
    assert [(r["id"], r["status"]) for r in listed] == [(report["id"], "disputed")]
    no_reason = org.post(url(league, report["id"], "reject"), {}, format="json")
    assert no_reason.status_code == 400
    rejected = org.post(url(league, report["id"], "reject"), {"reason": "Bob won"}, format="json")
    assert rejected.status_code == 200
    assert rejected.json()["status"] == "rejected"
    late = held["Ann"].post(url(league, report["id"], "withdraw"), {}, format="json")
    assert late.status_code == 400
    assert "report" in late.json()["errors"]


def test_an_organiser_confirms_a_report(league, players, held, org):
    report = held["Ann"].post(url(league), ann_beat_bob(players), format="json").json()
    confirmed = org.post(url(league, report["id"], "confirm"), {}, format="json")
    assert confirmed.status_code == 200, confirmed.json()
    assert Event.objects.get(pk=confirmed.json()["match"]).kind == "match_recorded"


def test_organiser_only_leagues_refuse_reports(league, players, held):
    PlayerRules.objects.create(league=league, report_policy=ReportPolicy.ORGANISERS)
    response = held["Ann"].post(url(league), ann_beat_bob(players), format="json")
    assert response.status_code == 400
    assert "organisers record every result" in str(response.json())


def test_malformed_idempotency_key_is_refused(league, players, held):
    response = held["Ann"].post(
        url(league), ann_beat_bob(players), format="json", HTTP_IDEMPOTENCY_KEY="has:colon"
    )
    assert response.status_code == 400
    assert "Idempotency-Key" in response.json()["errors"]
