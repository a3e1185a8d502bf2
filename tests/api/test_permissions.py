"""Permission matrix: (anonymous, organiser, other league's organiser, superuser) x (read, write).

Every write endpoint of ``league`` is tried by every role; reads are open to all, and the
private fields (who recorded, replay errors) show only to the league's organisers.
"""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from rest_framework.test import APIClient

from league.models import Event
from ratings.models import RatingConfig, Replay

pytestmark = pytest.mark.django_db

WRITE_STATUS = {"anonymous": 401, "other_organiser": 403}


def _url(name: str, league, **kwargs) -> str:
    return reverse(f"api:{name}", kwargs={"league_slug": league.slug, **kwargs})


def _result(players, day: str = "2024-02-01") -> dict:
    return {"player_a": players[0].pk, "player_b": players[1].pk, "score_a": 1, "played_on": day}


# name -> (request builder, success status, stored-row counter)
WRITES = {
    "record_result": (
        lambda league, players, matches: ("match-list", {}, _result(players)),
        201,
        lambda league: Event.objects.filter(league=league).count(),
    ),
    "record_round": (
        lambda league, players, matches: ("round", {}, {"results": [_result(players)]}),
        201,
        lambda league: Event.objects.filter(league=league).count(),
    ),
    "void_result": (
        lambda league, players, matches: (
            "match-void",
            {"match_id": matches[0].pk},
            {"reason": "Wrong players"},
        ),
        201,
        lambda league: Event.objects.filter(league=league).count(),
    ),
    "create_configuration": (
        lambda league, players, matches: ("config-list", {}, {"tau": 0.6}),
        201,
        lambda league: RatingConfig.objects.filter(league=league).count(),
    ),
    "start_replay": (
        lambda league, players, matches: ("replay-list", {}, None),
        202,
        lambda league: Replay.objects.filter(config__league=league).count(),
    ),
}

ROLES = ["anonymous", "organiser", "other_organiser", "superuser"]


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("action", sorted(WRITES))
def test_write_matrix(client_for, league, players, matches, role, action):
    build, success, count = WRITES[action]
    name, kwargs, body = build(league, players, matches)
    before = count(league)
    response = client_for(role).post(_url(name, league, **kwargs), body, format="json")
    expected = WRITE_STATUS.get(role, success)
    assert response.status_code == expected, response.data
    if expected == success:
        assert count(league) == before + 1
    else:
        assert set(response.data) == {"detail", "code", "errors"}
        assert count(league) == before
    if role == "anonymous":
        assert response["WWW-Authenticate"].startswith("Token")


READS = [
    ("league-detail", {}),
    ("player-list", {}),
    ("match-list", {}),
    ("standings", {}),
    ("config-list", {}),
    ("replay-list", {}),
    ("progress", {}),
]


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize(("name", "kwargs"), READS)
def test_read_matrix(client_for, rated, role, name, kwargs):
    response = client_for(role).get(_url(name, rated, **kwargs))
    assert response.status_code == 200


PRIVATE_VISIBLE = {
    "anonymous": False,
    "organiser": True,
    "other_organiser": False,
    "superuser": True,
}


@pytest.mark.parametrize("role", ROLES)
def test_private_fields_matrix(client_for, rated, role):
    client = client_for(role)
    visible = PRIVATE_VISIBLE[role]
    # Each list is checked non-empty first: all() over nothing would prove nothing.
    matches = client.get(_url("match-list", rated)).data["results"]
    assert len(matches) == Event.objects.matches().filter(league=rated).count() > 0
    assert all((m["recorded_by"] is not None) == visible for m in matches)
    assert all((m["void"]["recorded_by"] is not None) == visible for m in matches if m["void"])
    assert any(m["void"] for m in matches), "the fixture voids a match"
    replays = client.get(_url("replay-list", rated)).data["results"]
    assert replays
    assert all((r["requested_by"] is not None) == visible for r in replays)
    configs = client.get(_url("config-list", rated)).data["results"]
    assert configs
    assert all((c["created_by"] is not None) == visible for c in configs)


def test_organiser_of_two_leagues_writes_to_both(client_for, league, other_league, organiser):
    other_league.organisers.add(organiser)
    client = client_for("organiser")
    for target in (league, other_league):
        response = client.post(_url("config-list", target), {}, format="json")
        assert response.status_code == 201


def test_a_plain_user_cannot_write(league, players):
    user = get_user_model().objects.create_user("fan", password="pw-fan-1")
    client = APIClient()
    client.force_authenticate(user)
    before = Event.objects.filter(league=league).count()
    response = client.post(_url("match-list", league), _result(players), format="json")
    assert response.status_code == 403
    assert set(response.data) == {"detail", "code", "errors"}
    assert Event.objects.filter(league=league).count() == before
    assert not Event.objects.matches().filter(league=league, recorded_by=user).exists()


def test_session_authentication_requires_csrf(organiser, league, players):
    client = APIClient(enforce_csrf_checks=True)
    assert client.login(username="organiser", password="pw-organiser-1")
    path = _url("match-list", league)
    refused = client.post(path, _result(players), format="json")
    assert refused.status_code == 403
    assert "CSRF" in refused.data["detail"]
    assert not Event.objects.matches().filter(league=league).exists()

    client.get(reverse("admin:login"))  # sets the CSRF cookie
    token = client.cookies["csrftoken"].value
    accepted = client.post(path, _result(players), format="json", HTTP_X_CSRFTOKEN=token)
    assert accepted.status_code == 201, accepted.data


def test_bad_token_is_401(league, players):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token not-a-real-token")
    response = client.post(_url("match-list", league), _result(players), format="json")
    assert response.status_code == 401
    assert response.data["code"] == "authentication_failed"
    # A bad token is refused even for reads: a client should learn its token is wrong.
    assert client.get(_url("match-list", league)).status_code == 401
