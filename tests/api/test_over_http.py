"""The API over real HTTP: a threaded server on localhost and ``requests`` as the client.

The contract tests drive the views in-process; these check what only a real server shows:
headers on the wire (ETag, 304, Location), token and session authentication with CSRF, and
idempotent retries arriving as separate requests.
"""

from __future__ import annotations

import pytest
import requests
from django.conf import settings
from django.test import Client
from rest_framework.authtoken.models import Token

from league.models import Event

pytestmark = pytest.mark.django_db(transaction=True)

TIMEOUT = 10


@pytest.fixture
def api(live_server, rated):
    """``api(path)``: the absolute URL of a path under this league's API."""

    def make(path: str = "") -> str:
        return f"{live_server.url}/api/leagues/{rated.slug}/{path}"

    return make


def token_headers(user) -> dict[str, str]:
    token, _ = Token.objects.get_or_create(user=user)
    return {"Authorization": f"Token {token.key}"}


def result_body(players, day: str = "2024-02-01") -> dict:
    return {"player_a": players[0].pk, "player_b": players[1].pk, "score_a": 1, "played_on": day}


def match_count(league) -> int:
    return Event.objects.matches().filter(league=league).count()


def test_anonymous_reads_standings_and_polls_them_cheaply_with_etag(api):
    first = requests.get(api("standings/"), timeout=TIMEOUT)
    assert first.status_code == 200
    assert first.headers["Content-Type"].startswith("application/json")
    etag = first.headers["ETag"]
    assert first.json()["results"], "the published standings have rows"

    again = requests.get(api("standings/"), headers={"If-None-Match": etag}, timeout=TIMEOUT)
    assert again.status_code == 304
    assert again.content == b""


def test_anonymous_writes_are_refused_in_the_error_format_and_store_nothing(api, rated, players):
    before = match_count(rated)
    response = requests.post(api("matches/"), json=result_body(players), timeout=TIMEOUT)
    assert response.status_code == 401
    body = response.json()
    assert set(body) >= {"detail", "code", "errors"}
    assert match_count(rated) == before


def test_an_organiser_of_another_league_is_forbidden(api, rated, players, other_organiser):
    before = match_count(rated)
    response = requests.post(
        api("matches/"),
        json=result_body(players),
        headers=token_headers(other_organiser),
        timeout=TIMEOUT,
    )
    assert response.status_code == 403
    assert match_count(rated) == before


def test_a_token_retry_with_the_same_key_returns_the_original_and_stores_one_event(
    api, rated, players, organiser
):
    before = match_count(rated)
    headers = {**token_headers(organiser), "Idempotency-Key": "http-retry-1"}
    first = requests.post(api("matches/"), json=result_body(players), headers=headers, timeout=10)
    assert first.status_code == 201
    assert first.headers["Location"].endswith(f"/matches/{first.json()['id']}/")

    retry = requests.post(api("matches/"), json=result_body(players), headers=headers, timeout=10)
    assert (retry.status_code, retry.content) == (201, first.content)
    assert match_count(rated) == before + 1

    changed = requests.post(
        api("matches/"), json=result_body(players, day="2024-02-02"), headers=headers, timeout=10
    )
    assert changed.status_code == 422
    assert match_count(rated) == before + 1


def test_session_writes_need_the_csrf_token(api, rated, players, organiser, live_server):
    # Sign in as a browser would, then reuse the session cookie from ``requests``.
    django_client = Client()
    django_client.force_login(organiser)
    session = requests.Session()
    session.cookies.set(settings.SESSION_COOKIE_NAME, django_client.cookies["sessionid"].value)
    before = match_count(rated)

    without = session.post(api("matches/"), json=result_body(players), timeout=TIMEOUT)
    assert without.status_code == 403
    assert "CSRF" in without.json()["detail"]
    assert match_count(rated) == before

    # The admin's login page sets the CSRF cookie; the header must echo it, and the
    # Referer must be this origin (Django checks it for secure requests, and it is sent
    # here as a browser would send it).
    session.get(f"{live_server.url}/admin/login/", timeout=TIMEOUT)
    token = session.cookies[settings.CSRF_COOKIE_NAME]
    with_token = session.post(
        api("matches/"),
        json=result_body(players),
        headers={"X-CSRFToken": token, "Referer": live_server.url + "/"},
        timeout=TIMEOUT,
    )
    assert with_token.status_code == 201
    assert match_count(rated) == before + 1


# --- the error format on the wire (issue 18, item 9) -----------------------------------------


def assert_api_error(response: requests.Response, status: int, code: str) -> None:
    """A JSON error in the API's format, not Django's HTML error page."""
    assert response.status_code == status, response.text[:300]
    assert response.headers["Content-Type"] == "application/json"
    body = response.json()
    assert set(body) == {"detail", "code", "errors"}
    assert body["code"] == code


def test_a_body_over_the_upload_limit_is_a_413_in_the_error_format(api, rated, players, organiser):
    before = match_count(rated)
    body = {**result_body(players), "note": "x" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1)}
    response = requests.post(
        api("matches/"), json=body, headers=token_headers(organiser), timeout=TIMEOUT
    )
    assert_api_error(response, 413, "payload_too_large")
    assert match_count(rated) == before


def test_a_deeply_nested_body_is_a_400_in_the_error_format(api, rated, organiser):
    before = match_count(rated)
    response = requests.post(
        api("matches/"),
        data="[" * 100_000 + "]" * 100_000,
        headers={**token_headers(organiser), "Content-Type": "application/json"},
        timeout=TIMEOUT,
    )
    assert_api_error(response, 400, "parse_error")
    assert match_count(rated) == before


def test_every_problem_of_a_body_comes_back_in_one_answer(api, rated, players, organiser):
    before = match_count(rated)
    body = {
        **result_body(players, day="2999-01-01"),
        "score_a": 3,
        "player_b": players[0].pk,
        "notes": "typo",
    }
    response = requests.post(
        api("matches/"), json=body, headers=token_headers(organiser), timeout=TIMEOUT
    )
    assert_api_error(response, 400, "invalid")
    assert set(response.json()["errors"]) == {"score_a", "player_b", "played_on", "notes"}
    assert match_count(rated) == before


def test_an_idempotency_conflict_names_the_clients_key(api, rated, players, organiser):
    headers = {**token_headers(organiser), "Idempotency-Key": "conf-http-1"}
    first = requests.post(api("matches/"), json=result_body(players), headers=headers, timeout=10)
    assert first.status_code == 201
    changed = {**result_body(players), "score_a": 0}
    conflict = requests.post(api("matches/"), json=changed, headers=headers, timeout=TIMEOUT)
    assert_api_error(conflict, 422, "idempotency_conflict")
    (message,) = conflict.json()["errors"]["Idempotency-Key"]
    assert "'conf-http-1'" in message
    assert "match:" not in message
