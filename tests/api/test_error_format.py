"""The API's error format has no gaps (issue 18, item 9).

Every refusal is ``{detail, code, errors}`` JSON: a body over the upload limit, JSON nested
past any request's shape, fields the body does not take; and one answer lists every problem
of a body, keyed by the field the client sent.
"""

from __future__ import annotations

import datetime as dt
import json

import pytest
from django.core.exceptions import ValidationError as DjangoValidationError
from django.urls import reverse

from api.errors import fields_renamed
from api.idempotency import client_key_of, match_key, round_row_keys, void_key
from api.parsers import MAX_DEPTH, nesting_depth
from league import services as league_services
from league.models import Event
from ratings.backtest.models import Sweep
from ratings.models import RatingConfig

pytestmark = pytest.mark.django_db

ERROR_KEYS = {"detail", "code", "errors"}
TOMORROW = (dt.date.today() + dt.timedelta(days=2)).isoformat()


def _url(name: str, league, **kwargs) -> str:
    return reverse(f"api:{name}", kwargs={"league_slug": league.slug, **kwargs})


def _result(players, **change) -> dict:
    body = {
        "player_a": players[0].pk,
        "player_b": players[1].pk,
        "score_a": 1,
        "played_on": "2024-02-01",
    }
    body.update(change)
    return body


def _stored(league) -> tuple[int, int, int]:
    """Events, configurations and sweeps of ``league``: what a refused write must not add."""
    return (
        Event.objects.filter(league=league).count(),
        RatingConfig.objects.filter(league=league).count(),
        Sweep.objects.filter(league=league).count(),
    )


# name -> (url kwargs builder, a valid body builder)
WRITES = {
    "match-list": (lambda matches: {}, lambda players: _result(players)),
    "round": (lambda matches: {}, lambda players: {"results": [_result(players)]}),
    "match-void": (lambda matches: {"match_id": matches[0].pk}, lambda players: {"reason": "x"}),
    "config-list": (lambda matches: {}, lambda players: {"tau": 0.6}),
    "backtest-sweeps": (lambda matches: {}, lambda players: {"tau": [0.5]}),
}


def _post_raw(client, path: str, raw: str):
    return client.post(path, data=raw, content_type="application/json")


# --- bodies the server will not read ---------------------------------------------------------


@pytest.mark.parametrize("name", sorted(WRITES))
def test_a_body_over_the_upload_limit_is_413_in_the_error_format(
    org, league, players, matches, settings, name
):
    kwargs, body = WRITES[name]
    payload = {**body(players), "note": "x" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1)}
    before = _stored(league)
    response = _post_raw(org, _url(name, league, **kwargs(matches)), json.dumps(payload))
    assert response.status_code == 413
    assert response["Content-Type"] == "application/json"
    body_json = response.json()
    assert set(body_json) == ERROR_KEYS
    assert body_json["code"] == "payload_too_large"
    assert f"{settings.DATA_UPLOAD_MAX_MEMORY_SIZE:,} bytes" in body_json["detail"]
    assert _stored(league) == before


@pytest.mark.parametrize("depth", [100_000, MAX_DEPTH + 1])
@pytest.mark.parametrize("name", sorted(WRITES))
def test_json_nested_too_deep_is_400_in_the_error_format(
    org, league, players, matches, name, depth
):
    kwargs, _ = WRITES[name]
    before = _stored(league)
    raw = '{"note": ' + "[" * (depth - 1) + "]" * (depth - 1) + "}"
    response = _post_raw(org, _url(name, league, **kwargs(matches)), raw)
    assert response.status_code == 400
    assert set(response.json()) == ERROR_KEYS
    assert response.json()["code"] == "parse_error"
    assert f"deeper than {MAX_DEPTH} levels" in response.json()["detail"]
    assert _stored(league) == before


def test_json_at_the_nesting_limit_is_parsed(org, league, players):
    # MAX_DEPTH levels are read; the field is then refused for what it is, not for depth.
    raw = json.dumps({**_result(players), "note": json.loads("[" * 31 + "]" * 31)})
    assert nesting_depth(json.loads(raw)) == MAX_DEPTH
    response = _post_raw(org, _url("match-list", league), raw)
    assert response.status_code == 400
    assert list(response.json()["errors"]) == ["note"]


def test_nesting_depth_counts_objects_and_arrays():
    assert nesting_depth(1) == 0
    assert nesting_depth({}) == 1
    assert nesting_depth({"a": [1, {"b": []}]}) == 4
    assert nesting_depth([[], [[[]]]]) == 4


# --- unknown fields --------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(WRITES))
def test_unknown_body_fields_are_refused_each_by_name(org, league, players, matches, name):
    kwargs, body = WRITES[name]
    before = _stored(league)
    payload = {**body(players), "notes": "typo", "colour": "white"}
    response = org.post(_url(name, league, **kwargs(matches)), payload, format="json")
    assert response.status_code == 400, response.data
    errors = response.data["errors"]
    assert set(errors) == {"notes", "colour"}
    assert errors["notes"]
    assert errors["colour"]
    assert all("Unknown field" in message for message in errors["notes"] + errors["colour"])
    assert _stored(league) == before


def test_an_unknown_field_in_a_round_row_is_named_with_its_row(org, league, players):
    before = _stored(league)
    body = {"results": [_result(players), _result(players, winner="Ann")]}
    response = org.post(_url("round", league), body, format="json")
    assert response.status_code == 400
    assert list(response.data["errors"]) == ["results.1.winner"]
    assert _stored(league) == before


def test_the_unknown_field_message_lists_the_fields_taken(org, league, players):
    response = org.post(_url("match-list", league), _result(players, scre=1), format="json")
    (message,) = response.data["errors"]["scre"]
    assert "score_a" in message
    assert response.data["code"] == "unknown_field"


def test_a_body_that_is_not_an_object_is_400(org, league):
    response = org.post(_url("match-list", league), [1, 2], format="json")
    assert response.status_code == 400
    assert list(response.data["errors"]) == ["non_field_errors"]


# --- every problem at once -------------------------------------------------------------------


def test_a_bad_score_the_same_player_twice_and_a_future_date_come_back_together(
    org, league, players
):
    body = _result(players, score_a=3, player_b=players[0].pk, played_on=TOMORROW)
    response = org.post(_url("match-list", league), body, format="json")
    assert response.status_code == 400
    errors = response.data["errors"]
    assert set(errors) == {"score_a", "player_b", "played_on"}
    assert "themselves" in errors["player_b"][0]
    assert "future" in errors["played_on"][0]
    assert not Event.objects.matches().filter(league=league).exists()


def test_field_errors_and_league_checks_together(org, league, players, stranger):
    league_services.deactivate_player(league, players[1], reason="Moved away", recorded_by=None)
    body = _result(players, player_a=stranger.pk, points=7, played_on="2023-06-01")
    response = org.post(_url("match-list", league), body, format="json")
    assert response.status_code == 400
    errors = response.data["errors"]
    assert set(errors) == {"player_a", "player_b", "points", "played_on"}
    assert "has no player with id" in errors["player_a"][0]
    assert "inactive" in errors["player_b"][0]
    assert "before the league started" in errors["played_on"][0]


def test_a_future_moment_is_keyed_played_at_when_played_at_was_sent(org, league, players):
    body = _result(players, score_a="1")
    del body["played_on"]
    body["played_at"] = f"{TOMORROW}T10:00:00+00:00"
    response = org.post(_url("match-list", league), body, format="json")
    assert response.status_code == 400
    assert set(response.data["errors"]) == {"score_a", "played_at"}


def test_every_row_of_a_round_reports_every_problem(org, league, players):
    rows = [
        _result(players),
        _result(players, score_a=2, played_on=TOMORROW),
        _result(players, player_b=players[0].pk, bonus=1),
    ]
    response = org.post(_url("round", league), {"results": rows}, format="json")
    assert response.status_code == 400
    assert set(response.data["errors"]) == {
        "results.1.score_a",
        "results.1.played_on",
        "results.2.player_b",
        "results.2.bonus",
    }
    assert not Event.objects.matches().filter(league=league).exists()


def test_giving_both_dates_or_neither_is_still_one_played_at_error(org, league, players):
    both = _result(players, played_at="2024-02-01T10:00:00+00:00")
    neither = _result(players)
    del neither["played_on"]
    for body in (both, neither):
        response = org.post(_url("match-list", league), body, format="json")
        assert response.status_code == 400
        assert list(response.data["errors"]) == ["played_at"]


def test_a_service_error_is_rekeyed_by_the_field_sent():
    with pytest.raises(DjangoValidationError) as caught, fields_renamed({"played_at": "played_on"}):
        raise DjangoValidationError({"played_at": ["In the future."], "player_b": ["Same."]})
    assert caught.value.message_dict == {"played_on": ["In the future."], "player_b": ["Same."]}


# --- idempotency keys in messages ------------------------------------------------------------


def test_store_keys_map_back_to_the_client_key():
    assert client_key_of(match_key("conf-1")) == "conf-1"
    assert client_key_of(void_key("conf-1")) == "conf-1"
    assert {client_key_of(k) for k in round_row_keys("conf-1", 3)} == {"conf-1"}
    assert client_key_of("admin-form-key") == "admin-form-key"
    assert client_key_of("other:thing") == "other:thing"
