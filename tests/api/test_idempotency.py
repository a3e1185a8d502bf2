"""``Idempotency-Key`` on result submission: one event per key, the original answer on retry."""

from __future__ import annotations

import threading

import pytest
from django.db import connection
from django.urls import reverse

from league import services as league_services
from league.models import Event
from tests.api.support import token_client

pytestmark = pytest.mark.django_db


def _url(name: str, league, **kwargs) -> str:
    return reverse(f"api:{name}", kwargs={"league_slug": league.slug, **kwargs})


def _result(players, score=1, day="2024-02-01", a=0, b=1) -> dict:
    return {
        "player_a": players[a].pk,
        "player_b": players[b].pk,
        "score_a": score,
        "played_on": day,
    }


def _matches(league) -> int:
    return Event.objects.matches().filter(league=league).count()


def test_same_key_same_body_returns_the_original_response(org, league, players):
    path = _url("match-list", league)
    first = org.post(path, _result(players), format="json", HTTP_IDEMPOTENCY_KEY="k-1")
    assert first.status_code == 201
    again = org.post(path, _result(players), format="json", HTTP_IDEMPOTENCY_KEY="k-1")
    assert again.status_code == first.status_code
    assert again.content == first.content
    assert again["Location"] == first["Location"]
    assert _matches(league) == 1
    assert Event.objects.get(pk=first.data["id"]).idempotency_key == "match:k-1"


def test_retry_by_another_organiser_of_the_league_returns_the_original(
    org, league, players, superuser
):
    path = _url("match-list", league)
    first = org.post(path, _result(players), format="json", HTTP_IDEMPOTENCY_KEY="k-2")
    again = token_client(superuser).post(
        path, _result(players), format="json", HTTP_IDEMPOTENCY_KEY="k-2"
    )
    assert again.status_code == 201
    assert again.content == first.content
    assert _matches(league) == 1


def test_retry_after_the_match_was_voided_still_returns_the_original(org, league, players):
    path = _url("match-list", league)
    first = org.post(path, _result(players), format="json", HTTP_IDEMPOTENCY_KEY="k-3")
    void = org.post(
        _url("match-void", league, match_id=first.data["id"]), {"reason": "x"}, format="json"
    )
    assert void.status_code == 201
    again = org.post(path, _result(players), format="json", HTTP_IDEMPOTENCY_KEY="k-3")
    assert again.status_code == 201
    assert again.content == first.content
    assert _matches(league) == 1


@pytest.mark.parametrize(
    "change",
    [{"score": 0}, {"day": "2024-02-02"}, {"b": 2}, {"points": "3-1"}],
)
def test_same_key_different_body_is_422_and_stores_nothing(org, league, players, change):
    path = _url("match-list", league)
    assert (
        org.post(path, _result(players), format="json", HTTP_IDEMPOTENCY_KEY="k-4").status_code
        == 201
    )
    points = change.pop("points", None)
    body = _result(players, **change)
    if points:
        body["points"] = points
    response = org.post(path, body, format="json", HTTP_IDEMPOTENCY_KEY="k-4")
    assert response.status_code == 422
    assert response.data["code"] == "idempotency_conflict"
    assert set(response.data) == {"detail", "code", "errors"}
    assert list(response.data["errors"]) == ["Idempotency-Key"]
    assert _matches(league) == 1


def test_keys_are_per_league(org, league, other_league, players, client_for, stranger):
    path = _url("match-list", league)
    first = org.post(path, _result(players), format="json", HTTP_IDEMPOTENCY_KEY="same")
    assert first.status_code == 201
    other = client_for("other_organiser")
    other_player = league_services.register_player(other_league, "Other")
    body = {
        "player_a": stranger.pk,
        "player_b": other_player.pk,
        "score_a": 0,
        "played_on": "2024-02-01",
    }
    response = other.post(
        _url("match-list", other_league), body, format="json", HTTP_IDEMPOTENCY_KEY="same"
    )
    assert response.status_code == 201
    assert _matches(league) == 1
    assert _matches(other_league) == 1


def test_without_a_key_every_post_stores_a_result(org, league, players):
    path = _url("match-list", league)
    for _ in range(2):
        assert org.post(path, _result(players), format="json").status_code == 201
    assert _matches(league) == 2


@pytest.mark.parametrize("key", ["has space", "a:b", "x" * 101, "é"])
def test_malformed_keys_are_400(org, league, players, key):
    response = org.post(
        _url("match-list", league), _result(players), format="json", HTTP_IDEMPOTENCY_KEY=key
    )
    assert response.status_code == 400
    assert "Idempotency-Key" in response.data["errors"]
    assert _matches(league) == 0


def test_void_retry_and_conflict(org, league, players, matches):
    path = _url("match-void", league, match_id=matches[0].pk)
    first = org.post(path, {"reason": "Wrong"}, format="json", HTTP_IDEMPOTENCY_KEY="v-1")
    assert first.status_code == 201
    again = org.post(path, {"reason": "Wrong"}, format="json", HTTP_IDEMPOTENCY_KEY="v-1")
    assert again.status_code == 201
    assert again.content == first.content
    changed = org.post(path, {"reason": "Other"}, format="json", HTTP_IDEMPOTENCY_KEY="v-1")
    assert changed.status_code == 422
    assert Event.objects.filter(league=league, voids=matches[0]).count() == 1


def test_a_result_key_and_a_void_key_do_not_collide(org, league, players, matches):
    before = Event.objects.filter(league=league).count()
    result = org.post(
        _url("match-list", league), _result(players), format="json", HTTP_IDEMPOTENCY_KEY="k"
    )
    void = org.post(
        _url("match-void", league, match_id=matches[0].pk),
        {"reason": "x"},
        format="json",
        HTTP_IDEMPOTENCY_KEY="k",
    )
    assert (result.status_code, void.status_code) == (201, 201)
    # Two distinct events were stored, each the kind asked for, under its own scoped key.
    assert result.data["id"] != void.data["id"]
    assert Event.objects.filter(league=league).count() == before + 2
    stored_result = Event.objects.get(pk=result.data["id"])
    stored_void = Event.objects.get(pk=void.data["id"])
    assert (stored_result.kind, stored_result.idempotency_key) == (
        Event.Kind.MATCH_RECORDED,
        "match:k",
    )
    assert (stored_void.kind, stored_void.idempotency_key) == (Event.Kind.MATCH_VOIDED, "void:k")
    assert stored_void.voids_id == matches[0].pk
    assert stored_result.player_a_id == players[0].pk


def test_a_conflict_names_the_key_the_client_sent(org, league, players):
    path = _url("match-list", league)
    org.post(path, _result(players), format="json", HTTP_IDEMPOTENCY_KEY="conf-7")
    conflict = org.post(
        path, _result(players, score=0), format="json", HTTP_IDEMPOTENCY_KEY="conf-7"
    )
    assert conflict.status_code == 422
    (message,) = conflict.data["errors"]["Idempotency-Key"]
    assert "'conf-7'" in message
    assert "match:" not in message


def test_a_round_row_conflict_names_the_key_the_client_sent(org, league, players):
    path = _url("round", league)
    org.post(path, _round(players, 2), format="json", HTTP_IDEMPOTENCY_KEY="conf-8")
    conflict = org.post(
        path, _round(players, 2, score=0), format="json", HTTP_IDEMPOTENCY_KEY="conf-8"
    )
    assert conflict.status_code == 422
    messages = conflict.data["errors"]["Idempotency-Key"]
    assert messages
    assert all("'conf-8'" in m and "round:" not in m for m in messages), messages


def _round(players, n: int, score=1) -> dict:
    return {
        "results": [
            _result(players, score=score, day=f"2024-02-{i + 1:02d}", a=i % 2, b=2 + i % 2)
            for i in range(n)
        ]
    }


def test_round_retry_returns_the_original_response(org, league, players):
    path = _url("round", league)
    first = org.post(path, _round(players, 3), format="json", HTTP_IDEMPOTENCY_KEY="r-1")
    assert first.status_code == 201
    again = org.post(path, _round(players, 3), format="json", HTTP_IDEMPOTENCY_KEY="r-1")
    assert again.status_code == 201
    assert again.content == first.content
    assert _matches(league) == 3
    keys = set(Event.objects.filter(league=league).values_list("idempotency_key", flat=True))
    assert {"round:r-1:3:0", "round:r-1:3:1", "round:r-1:3:2"} <= keys


@pytest.mark.parametrize(
    "body",
    [
        pytest.param(lambda p: _round(p, 3, score=0), id="changed-scores"),
        pytest.param(lambda p: _round(p, 2), id="fewer-rows"),
        pytest.param(lambda p: _round(p, 4), id="more-rows"),
    ],
)
def test_round_same_key_different_rows_is_422_and_stores_nothing(org, league, players, body):
    path = _url("round", league)
    assert (
        org.post(path, _round(players, 3), format="json", HTTP_IDEMPOTENCY_KEY="r-2").status_code
        == 201
    )
    response = org.post(path, body(players), format="json", HTTP_IDEMPOTENCY_KEY="r-2")
    assert response.status_code == 422, response.data
    assert response.data["code"] == "idempotency_conflict"
    assert _matches(league) == 3


def test_round_keys_differing_only_in_case_are_different_keys(org, league, players):
    """Keys are compared exactly, on SQLite too (whose LIKE ignores ASCII case)."""
    path = _url("round", league)
    upper = org.post(path, _round(players, 2), format="json", HTTP_IDEMPOTENCY_KEY="R-3")
    assert upper.status_code == 201
    lower = org.post(path, _round(players, 2, score=0), format="json", HTTP_IDEMPOTENCY_KEY="r-3")
    assert lower.status_code == 201, lower.data
    assert _matches(league) == 4


@pytest.mark.django_db(transaction=True)
def test_concurrent_identical_retries_store_one_event(organiser, league, players):
    """Eight clients send the same keyed result at the same moment: one event, one answer."""
    path = _url("match-list", league)
    body = _result(players)
    clients = [token_client(organiser) for _ in range(8)]
    barrier = threading.Barrier(len(clients))
    answers: list[tuple[int, bytes]] = []
    failures: list[BaseException] = []
    lock = threading.Lock()

    def send(client) -> None:
        try:
            barrier.wait(timeout=30)
            response = client.post(path, body, format="json", HTTP_IDEMPOTENCY_KEY="burst")
            with lock:
                answers.append((response.status_code, response.content))
        except BaseException as error:  # reported below
            failures.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=send, args=(c,)) for c in clients]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(thread.is_alive() for thread in threads)
    assert not failures, failures
    assert len(answers) == len(clients)
    assert {status for status, _ in answers} == {201}
    assert len({content for _, content in answers}) == 1
    assert Event.objects.filter(league=league, idempotency_key="match:burst").count() == 1
    assert _matches(league) == 1


def test_a_refused_request_does_not_use_up_its_key(org, league, players):
    path = _url("match-list", league)
    bad = org.post(path, _result(players, b=0), format="json", HTTP_IDEMPOTENCY_KEY="k-5")
    assert bad.status_code == 400
    good = org.post(path, _result(players), format="json", HTTP_IDEMPOTENCY_KEY="k-5")
    assert good.status_code == 201
    assert _matches(league) == 1
