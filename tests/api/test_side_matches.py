"""The API for matches with sides: record, read, void; refusals store nothing; the schema."""

from __future__ import annotations

import datetime as dt

import pytest
from django.urls import reverse

from league.models import Event, MatchFormat, MatchParticipant
from ratings import services as rating_services
from ratings.models import Publication
from tests.api.test_contract import STANDING_KEYS


def url(name: str, league, **kwargs) -> str:
    return reverse(f"api:{name}", kwargs={"league_slug": league.slug, **kwargs})


@pytest.fixture
def doubles(league, players):
    league.match_format = MatchFormat.FIXED
    league.side_size = 2
    league.save()
    return league


def _ids(players):
    return [p.pk for p in players]


def test_record_read_and_void_a_doubles_match(org, anon, doubles, players):
    ann, bob, cat, dan = _ids(players)
    body = {"sides": [[ann, bob], [cat, dan]], "score_a": 1, "played_on": "2024-01-03"}
    response = org.post(url("side-match-list", doubles), body, format="json")
    assert response.status_code == 201, response.json()
    data = response.json()
    assert data["score_a"] == 1
    assert [side["side"] for side in data["sides"]] == ["A", "B"]
    assert [p["name"] for p in data["sides"][0]["players"]] == ["Ann", "Bob"]
    assert [side["position"] for side in data["sides"]] == [1, 2]
    assert response["Location"].endswith(url("side-match-detail", doubles, match_id=data["id"]))

    listed = anon.get(url("side-match-list", doubles), {"player": cat}).json()
    assert [item["id"] for item in listed["results"]] == [data["id"]]
    assert anon.get(url("side-match-list", doubles), {"player": 999999}).json()["results"] == []
    detail = anon.get(url("side-match-detail", doubles, match_id=data["id"])).json()
    assert detail["recorded_by"] is None  # private to organisers
    assert detail["voided"] is False

    void = org.post(
        url("match-void", doubles, match_id=data["id"]), {"reason": "wrong pairs"}, format="json"
    )
    assert void.status_code == 201, void.json()
    assert anon.get(url("side-match-detail", doubles, match_id=data["id"])).json()["voided"]


def test_a_multi_side_game_with_ties(org, league, players):
    league.match_format = MatchFormat.ANY
    league.save()
    body = {
        "sides": [[p] for p in _ids(players)],
        "positions": [2, 1, 2, 4],
        "played_on": "2024-01-03",
    }
    response = org.post(url("side-match-list", league), body, format="json")
    assert response.status_code == 201, response.json()
    data = response.json()
    assert data["score_a"] is None
    assert [side["position"] for side in data["sides"]] == [2, 1, 2, 4]


def test_two_sides_of_one_are_a_one_vs_one_result(org, league, players):
    ann, bob, *_ = _ids(players)
    body = {"sides": [[ann], [bob]], "score_a": 0.5, "played_on": "2024-01-03"}
    response = org.post(url("side-match-list", league), body, format="json")
    assert response.status_code == 201, response.json()
    assert response.json()["player_a"] == ann
    assert Event.objects.matches().filter(league=league).count() == 1


@pytest.mark.parametrize(
    ("change", "field", "needle"),
    [
        ({"sides": [[1, 2], [1, 3]]}, "sides", "on side A and side B"),
        ({"sides": [[1, 2], []]}, "sides", "Side B is empty"),
        ({"sides": [[1, 2, 3], [4]]}, "sides", "sides of 2 players each"),
        ({"sides": [[1, 999999], [3, 4]]}, "sides", "no player with id 999999"),
        ({"score_a": None}, "score_a", ""),
        ({"score_a": 1, "positions": [1, 2]}, "positions", "not both"),
        ({"sides": "Ann and Bob"}, "sides", ""),
        ({"played_on": "2999-01-01"}, "played_on", "in the future"),
        ({"colour": "red"}, "colour", "Unknown field"),
    ],
)
def test_every_refusal_answers_400_naming_the_field_and_stores_nothing(
    org, doubles, players, change, field, needle
):
    ids = {i + 1: pk for i, pk in enumerate(_ids(players))}

    def real(value):
        if isinstance(value, list):
            return [real(v) for v in value]
        return ids.get(value, value) if isinstance(value, int) else value

    body = {"sides": [[ids[1], ids[2]], [ids[3], ids[4]]], "score_a": 1, "played_on": "2024-01-03"}
    # Small numbers in ``sides`` stand for the players (1 = Ann, …); other fields as given.
    body.update({key: real(value) if key == "sides" else value for key, value in change.items()})
    body = {key: value for key, value in body.items() if value is not None}
    before = Event.objects.count()
    response = org.post(url("side-match-list", doubles), body, format="json")
    assert response.status_code == 400, response.json()
    errors = response.json()["errors"]
    assert field in errors, errors
    assert needle in " ".join(errors[field]), errors
    assert Event.objects.count() == before
    assert not MatchParticipant.objects.exists()


def test_only_organisers_record(anon, client_for, doubles, players):
    ann, bob, cat, dan = _ids(players)
    body = {"sides": [[ann, bob], [cat, dan]], "score_a": 1, "played_on": "2024-01-03"}
    assert anon.post(url("side-match-list", doubles), body, format="json").status_code == 401
    other = client_for("other_organiser")
    assert other.post(url("side-match-list", doubles), body, format="json").status_code == 403
    assert not Event.objects.side_matches().exists()


def test_individual_standings_of_a_doubles_league_keep_their_shape(
    org, anon, doubles, players, organiser, django_capture_on_commit_callbacks
):
    ann, bob, cat, dan = _ids(players)
    for day, sides, score in [
        ("2024-01-02", [[ann, bob], [cat, dan]], 1),
        ("2024-01-03", [[ann, cat], [bob, dan]], 1),
        ("2024-01-04", [[ann, dan], [bob, cat]], 0.5),
    ]:
        body = {"sides": sides, "score_a": score, "played_on": day}
        assert org.post(url("side-match-list", doubles), body, format="json").status_code == 201
    with django_capture_on_commit_callbacks(execute=True):
        rating_services.create_config(
            doubles,
            created_by=organiser,
            period_unit="days",
            period_length=7,
            period_anchor=dt.date(2024, 1, 1),
        )
    assert Publication.objects.filter(league=doubles).exists()
    # Three games each: provisional under the default eligibility rules, so ask for everyone.
    board = anon.get(url("standings", doubles), {"everyone": "true"}).json()
    rows = board["results"]
    assert set(rows[0]) == STANDING_KEYS  # the same shape as a league of singles
    assert rows[0]["player_id"] == ann
    assert len(rows) == 4
    top = rows[0]
    assert (top["games"], top["wins"], top["draws"], top["losses"]) == (3, 2, 1, 0)


def test_the_schema_documents_the_side_match_endpoints(anon):
    schema = anon.get(reverse("api:schema"), {"format": "json"}).json()
    paths = schema["paths"]
    path = "/api/leagues/{league_slug}/side-matches/"
    assert {"get", "post"} <= set(paths[path])
    body = schema["components"]["schemas"]["RecordSideMatchRequest"]
    assert {"sides", "score_a", "positions", "played_at", "played_on"} <= set(body["properties"])
    assert "SideMatch" in schema["components"]["schemas"]


def test_head_to_head_counts_team_games_as_opponents_and_as_partners(org, anon, doubles, players):
    ann, bob, cat, dan = _ids(players)
    for sides, score in [
        ([[ann, bob], [cat, dan]], 1),  # Ann with Bob, beat Cat
        ([[ann, cat], [bob, dan]], 0),  # Ann with Cat, lost to Bob
        ([[ann, dan], [bob, cat]], 0.5),
    ]:
        body = {"sides": sides, "score_a": score, "played_on": "2024-01-03"}
        assert org.post(url("side-match-list", doubles), body, format="json").status_code == 201
    data = anon.get(url("head-to-head", doubles), {"player_a": ann, "player_b": cat}).json()
    assert data["games"] == 0  # no one-vs-one match between them
    assert data["team_opponents"] == {"results": 2, "wins": 1, "draws": 1, "losses": 0}
    assert data["team_partners"] == {"results": 1, "wins": 0, "draws": 0, "losses": 1}
