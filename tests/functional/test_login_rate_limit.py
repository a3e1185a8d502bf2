"""The admin sign-in rate limit (django-axes), through the Django test client.

Failed sign-ins are counted per client address (``REMOTE_ADDR`` here): after the limit that
address is refused, even with the right password, with a page that says why and for how
long; other addresses sign in as usual; the lockout ends after the cool-off.
"""

from __future__ import annotations

import datetime as dt

import pytest
from axes.models import AccessAttempt
from django.conf import settings
from django.db.models import F
from django.test import Client, override_settings
from django.urls import reverse

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("rate_limited")]

ATTACKER = "203.0.113.7"
ORGANISER_ADDRESS = "198.51.100.20"
LIMIT = 5


@pytest.fixture
def rate_limited():
    with override_settings(AXES_ENABLED=True, AXES_FAILURE_LIMIT=LIMIT):
        yield


def sign_in(address: str, username: str, password: str):
    client = Client(REMOTE_ADDR=address)
    response = client.post(
        reverse("admin:login"),
        {"username": username, "password": password, "next": reverse("admin:index")},
    )
    return client, response


def signed_in(client: Client) -> bool:
    return client.get(reverse("admin:index")).status_code == 200


def test_wrong_passwords_lock_the_address_and_the_right_one_is_then_refused(superuser):
    for attempt in range(1, LIMIT):
        _, response = sign_in(ATTACKER, "root", f"wrong-{attempt}")
        assert response.status_code == 200, attempt  # the form again, with its error
        assert b"Please enter the correct username and password" in response.content
    _, response = sign_in(ATTACKER, "root", "wrong-last")
    assert response.status_code == 429

    client, response = sign_in(ATTACKER, "root", "pw-root-1")
    assert response.status_code == 429
    page = response.content.decode()
    assert "Sign-in is paused: too many failed attempts (5) from your network address." in page
    assert "Try again in 5 minutes" in page
    assert response["Retry-After"] == "300"
    assert not signed_in(client)


def test_guessing_across_accounts_and_unknown_names_locks_the_address_too(superuser):
    for attempt in range(LIMIT):
        sign_in(ATTACKER, f"nobody-{attempt}", "guess")
    client, response = sign_in(ATTACKER, "root", "pw-root-1")
    assert response.status_code == 429
    assert not signed_in(client)


def test_an_organiser_elsewhere_is_not_affected(superuser):
    for attempt in range(LIMIT + 3):
        sign_in(ATTACKER, "root", f"wrong-{attempt}")
    client, response = sign_in(ORGANISER_ADDRESS, "root", "pw-root-1")
    assert response.status_code == 302
    assert signed_in(client)


def test_the_lockout_ends_after_the_cool_off(superuser):
    for attempt in range(LIMIT):
        sign_in(ATTACKER, "root", f"wrong-{attempt}")
    assert sign_in(ATTACKER, "root", "pw-root-1")[1].status_code == 429

    # Let just under the cool-off pass: still locked.
    cooloff = settings.AXES_COOLOFF_TIME
    AccessAttempt.objects.update(attempt_time=F("attempt_time") - cooloff + dt.timedelta(seconds=5))
    assert sign_in(ATTACKER, "root", "pw-root-1")[1].status_code == 429
    # And past it: the right password is accepted again.
    AccessAttempt.objects.update(attempt_time=F("attempt_time") - dt.timedelta(seconds=10))
    client, response = sign_in(ATTACKER, "root", "pw-root-1")
    assert response.status_code == 302
    assert signed_in(client)


def test_failures_below_the_limit_do_not_lock_and_a_success_clears_them(superuser):
    for attempt in range(LIMIT - 1):
        sign_in(ATTACKER, "root", f"wrong-{attempt}")
    assert sign_in(ATTACKER, "root", "pw-root-1")[1].status_code == 302
    for attempt in range(LIMIT - 1):
        assert sign_in(ATTACKER, "root", f"again-{attempt}")[1].status_code == 200
    assert sign_in(ATTACKER, "root", "pw-root-1")[1].status_code == 302


@override_settings(SECURE_PROXY_SSL_HEADER=("HTTP_X_FORWARDED_PROTO", "https"))
def test_behind_the_proxy_a_client_cannot_pick_its_address(superuser):
    client = Client(REMOTE_ADDR="10.0.0.1")  # the proxy
    for attempt in range(LIMIT):
        client.post(
            reverse("admin:login"),
            {"username": "root", "password": "wrong"},
            HTTP_X_FORWARDED_FOR=f"192.0.2.{attempt}, {ATTACKER}",
            HTTP_X_FORWARDED_PROTO="https",
            secure=True,
        )
    response = client.post(
        reverse("admin:login"),
        {"username": "root", "password": "pw-root-1"},
        HTTP_X_FORWARDED_FOR=f"192.0.2.99, {ATTACKER}",
        HTTP_X_FORWARDED_PROTO="https",
        secure=True,
    )
    assert response.status_code == 429
