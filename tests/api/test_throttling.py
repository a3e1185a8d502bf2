"""API throttling: anonymous clients per address, token clients per account.

The suite's settings keep the rates out of reach; these tests lower them. DRF reads the
rates into ``SimpleRateThrottle.THROTTLE_RATES`` when it is imported, so they are patched
there (``override_settings`` alone would not reach them).
"""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.urls import reverse
from rest_framework.test import APIClient
from rest_framework.throttling import SimpleRateThrottle

from tests.api.support import token_client

pytestmark = pytest.mark.django_db

ANON_RATE = 3
USER_RATE = 5


@pytest.fixture(autouse=True)
def low_rates(monkeypatch):
    monkeypatch.setattr(
        SimpleRateThrottle,
        "THROTTLE_RATES",
        {"anon": f"{ANON_RATE}/minute", "user": f"{USER_RATE}/minute"},
    )
    cache.clear()
    yield
    cache.clear()


def leagues_url() -> str:
    return reverse("api:league-list")


def test_an_anonymous_client_gets_429_in_the_api_error_format_after_the_rate(league):
    client = APIClient(REMOTE_ADDR="203.0.113.7")
    statuses = [client.get(leagues_url()).status_code for _ in range(ANON_RATE)]
    assert statuses == [200] * ANON_RATE
    refused = client.get(leagues_url())
    assert refused.status_code == 429
    body = refused.json()
    assert set(body) == {"detail", "code", "errors"}
    assert body["code"] == "throttled"
    assert body["errors"] == {}
    assert "throttled" in body["detail"]
    assert 0 < int(refused["Retry-After"]) <= 60


def test_another_address_is_counted_apart(league):
    first = APIClient(REMOTE_ADDR="203.0.113.7")
    for _ in range(ANON_RATE + 1):
        first.get(leagues_url())
    assert first.get(leagues_url()).status_code == 429
    assert APIClient(REMOTE_ADDR="198.51.100.20").get(leagues_url()).status_code == 200


def test_a_token_client_has_its_own_higher_rate(league, organiser, other_organiser):
    client = token_client(organiser)
    statuses = [client.get(leagues_url()).status_code for _ in range(USER_RATE + 1)]
    assert statuses == [200] * USER_RATE + [429]
    assert client.get(leagues_url()).json()["code"] == "throttled"
    assert token_client(other_organiser).get(leagues_url()).status_code == 200
