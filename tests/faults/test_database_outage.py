"""Issue 34: while the database cannot be reached, requests are answered 503 with Retry-After.

The outage is made by every query failing the way a restarting PostgreSQL fails them
(``OperationalError`` from the cursor); a view's outage and one raised by a middleware are both
answered 503, pages as HTML and the API in its error format. Any other database error is
still a 500.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from unittest import mock

import pytest
from django.contrib.sessions.middleware import SessionMiddleware
from django.db import IntegrityError, OperationalError
from django.db.backends.utils import CursorWrapper
from django.test import Client
from rest_framework.authtoken.models import Token

pytestmark = [pytest.mark.faults, pytest.mark.django_db]

RESTARTING = "terminating connection due to administrator command"


@contextmanager
def every_query_fails(error: Exception) -> Iterator[None]:
    """Every query of this process raises ``error`` (as the server's restart makes it)."""
    with (
        mock.patch.object(CursorWrapper, "execute", side_effect=error),
        mock.patch.object(CursorWrapper, "executemany", side_effect=error),
    ):
        yield


@pytest.fixture
def client() -> Client:
    """A test client that answers an unhandled exception as a server would (no re-raise)."""
    return Client(raise_request_exception=False)


@pytest.mark.parametrize(
    "path", ["/", "/riverside/", "/riverside/matches/", "/riverside/events/"], ids=str
)
def test_a_page_is_answered_503_with_retry_after_while_the_database_restarts(
    client, league, settings, path
):
    settings.DB_RETRY_AFTER_SECONDS = 7
    with every_query_fails(OperationalError(RESTARTING)):
        response = client.get(path)

    assert response.status_code == 503
    assert response["Retry-After"] == "7"
    assert response["Content-Type"].startswith("text/html")
    assert b"try again in 7 seconds" in response.content
    assert response["Cache-Control"] == "no-store"


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", "/api/leagues/"),
        ("get", "/api/leagues/riverside/standings/"),
        ("post", "/api/leagues/riverside/matches/"),
    ],
    ids=str,
)
def test_the_api_answers_503_in_its_error_format_while_the_database_restarts(
    client, league, organiser, settings, method, path
):
    settings.DB_RETRY_AFTER_SECONDS = 5
    token = Token.objects.create(user=organiser).key
    with every_query_fails(OperationalError(RESTARTING)):
        response = getattr(client, method)(
            path, {}, content_type="application/json", HTTP_AUTHORIZATION=f"Token {token}"
        )

    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    assert response.json() == {
        "detail": "The database cannot be reached just now. Try again in 5 seconds.",
        "code": "service_unavailable",
        "errors": {},
    }


def test_an_outage_raised_by_a_middleware_is_a_503_too(client, league, settings):
    settings.DB_RETRY_AFTER_SECONDS = 3
    with mock.patch.object(
        SessionMiddleware, "process_response", side_effect=OperationalError(RESTARTING)
    ):
        page = client.get("/riverside/")
        api = client.get("/api/leagues/")

    assert (page.status_code, page["Retry-After"]) == (503, "3")
    assert b"try again in 3 seconds" in page.content
    assert (api.status_code, api["Retry-After"]) == (503, "3")
    assert api.json()["code"] == "service_unavailable"


def test_another_database_error_is_still_a_500_without_retry_after(client, league):
    with every_query_fails(IntegrityError("duplicate key value violates unique constraint")):
        response = client.get("/riverside/")

    assert response.status_code == 500
    assert not response.has_header("Retry-After")


def test_the_site_answers_as_usual_once_the_database_is_back(client, league):
    with every_query_fails(OperationalError(RESTARTING)):
        assert client.get("/riverside/").status_code == 503

    response = client.get("/riverside/")

    assert response.status_code == 200
    assert not response.has_header("Retry-After")
