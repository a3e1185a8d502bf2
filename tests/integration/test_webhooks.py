"""A league's webhook against a real local HTTP receiver (http.server in a thread): the body
Slack and Discord read, its HMAC-SHA256 signature and timestamp, retries when the receiver
fails, and the addresses refused so the site cannot be turned against its own network."""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import json
import time

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from league import services
from league.fixtures import FixtureRequest, schedule_fixtures
from notifications.models import Status, Webhook, WebhookDelivery
from notifications.tasks import resend_waiting
from notifications.webhooks import UnsafeAddress, check_address, set_webhook
from tests.messages_support import http_receiver

pytestmark = pytest.mark.django_db

SECRET = "a-long-enough-shared-secret"


def verify(call) -> dict:
    """What a receiver does: check the signature over the exact body, then read it."""
    expected = hmac.new(SECRET.encode(), call.body, hashlib.sha256).hexdigest()
    assert call.headers["X-League-Signature"] == f"sha256={expected}"
    payload = json.loads(call.body)
    assert call.headers["X-League-Timestamp"] == str(payload["timestamp"])
    assert abs(payload["timestamp"] - time.time()) < 60
    assert call.headers["Content-Type"] == "application/json"
    return payload


def test_new_results_are_posted_signed_in_slack_and_discord_form(
    league, make_player, django_capture_on_commit_callbacks
):
    ann, bob = make_player(league, "Ann Archer"), make_player(league, "Bob Baker")
    with http_receiver() as receiver:
        set_webhook(league, url=receiver.url, secret=SECRET, active=True)
        with django_capture_on_commit_callbacks(execute=True):
            services.record_match(
                league,
                player_a=ann,
                player_b=bob,
                score_a="1",
                points="3-1",
                played_at=dt.date(2024, 3, 1),
            )
    (call,) = receiver.calls
    assert call.path == "/hook"
    payload = verify(call)
    assert payload["text"] == payload["content"]
    assert payload["text"].splitlines() == [
        "New results in Riverside Chess Club:",
        "\u2022 Ann Archer 3-1 Bob Baker",
        "http://127.0.0.1:8000/riverside/",
    ]
    assert payload["kind"] == "results"
    assert payload["league"] == {
        "slug": "riverside",
        "name": "Riverside Chess Club",
        "url": "http://127.0.0.1:8000/riverside/",
    }
    (event,) = payload["events"]
    assert event["kind"] == "match_recorded"
    assert [side["players"] for side in event["sides"]] == [["Ann Archer"], ["Bob Baker"]]
    assert [side["score"] for side in event["sides"]] == [1.0, 0.0]
    (delivery,) = WebhookDelivery.objects.all()
    assert (delivery.status, delivery.response_status, delivery.attempts) == (Status.SENT, 200, 1)


def test_a_round_of_fixtures_is_one_call(league, make_player, django_capture_on_commit_callbacks):
    players = [make_player(league, name) for name in ("Ann", "Bob", "Cat", "Dan")]
    when = timezone.now().replace(microsecond=0) + dt.timedelta(days=3)
    with http_receiver() as receiver:
        set_webhook(league, url=receiver.url, secret=SECRET, active=True)
        with django_capture_on_commit_callbacks(execute=True):
            schedule_fixtures(
                league,
                [
                    FixtureRequest(players[0], players[1], scheduled_at=when, label="Round 1"),
                    FixtureRequest(players[2], players[3], scheduled_at=when, label="Round 1"),
                ],
            )
    (call,) = receiver.calls
    payload = verify(call)
    assert payload["kind"] == "fixtures"
    assert [event["players"] for event in payload["events"]] == [["Ann", "Bob"], ["Cat", "Dan"]]
    lines = payload["text"].splitlines()
    assert lines[0] == "New fixtures in Riverside Chess Club:"
    assert lines[1].startswith("\u2022 Ann v Bob, ")
    assert lines[1].endswith("(Round 1)")


def test_a_failing_receiver_keeps_the_call_until_it_answers(
    league, make_player, django_capture_on_commit_callbacks
):
    ann, bob = make_player(league, "Ann Archer"), make_player(league, "Bob Baker")
    with http_receiver(status=503) as receiver:
        set_webhook(league, url=receiver.url, secret=SECRET, active=True)
        with django_capture_on_commit_callbacks(execute=True):
            services.record_match(
                league, player_a=ann, player_b=bob, score_a="0", played_at=dt.date(2024, 3, 1)
            )
        (delivery,) = WebhookDelivery.objects.all()
        assert (delivery.status, delivery.response_status) == (Status.PENDING, 503)
        assert "503" in delivery.last_error
        receiver.status[0] = 200
        past = timezone.now() - dt.timedelta(minutes=5)
        WebhookDelivery.objects.update(created_at=past, next_attempt_at=past)
        with django_capture_on_commit_callbacks(execute=True):
            resend_waiting()
    assert len(receiver.calls) == 2
    first, second = (json.loads(call.body) for call in receiver.calls)
    assert first["events"] == second["events"]
    delivery.refresh_from_db()
    assert (delivery.status, delivery.response_status, delivery.attempts) == (Status.SENT, 200, 2)


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("http://127.0.0.1:9/hook", "private or local address"),
        ("http://localhost/hook", "private or local address"),
        ("https://10.1.2.3/hook", "private or local address"),
        ("http://169.254.169.254/latest/meta-data/", "private or local address"),
        ("http://[::1]/hook", "private or local address"),
        ("ftp://example.org/hook", "starting with https://"),
        ("https://user:pw@example.org/hook", "user name or password"),
        ("https://example.org:99999/hook", "port"),
        ("hooks.slack.com/services/x", "starting with https://"),
    ],
)
def test_unsafe_addresses_are_refused_by_name_and_nothing_is_stored(league, settings, url, said):
    settings.WEBHOOK_ALLOW_PRIVATE = False
    with pytest.raises(ValidationError) as raised:
        set_webhook(league, url=url, secret=SECRET, active=True)
    assert list(raised.value.message_dict) == ["url"]
    assert said in raised.value.message_dict["url"][0]
    assert not Webhook.objects.exists()


def test_a_short_secret_is_refused_and_an_empty_one_is_made(league, settings):
    settings.WEBHOOK_ALLOW_PRIVATE = True
    with pytest.raises(ValidationError) as raised:
        set_webhook(league, url="http://127.0.0.1:9/hook", secret="short", active=True)
    assert list(raised.value.message_dict) == ["secret"]
    webhook, made = set_webhook(league, url="http://127.0.0.1:9/hook", secret="", active=True)
    assert made is not None
    assert len(made) >= 40
    assert webhook.secret == made
    again, made_again = set_webhook(league, url="http://127.0.0.1:8/h", secret="", active=False)
    assert made_again is None
    assert again.secret == made  # an empty secret keeps the stored one


def test_an_address_that_became_private_is_not_called(
    league, make_player, settings, django_capture_on_commit_callbacks
):
    ann, bob = make_player(league, "Ann Archer"), make_player(league, "Bob Baker")
    with http_receiver() as receiver:
        set_webhook(league, url=receiver.url, secret=SECRET, active=True)
        settings.WEBHOOK_ALLOW_PRIVATE = False  # production rules from now on
        with django_capture_on_commit_callbacks(execute=True):
            services.record_match(
                league, player_a=ann, player_b=bob, score_a="1", played_at=dt.date(2024, 3, 1)
            )
    assert receiver.calls == []
    (delivery,) = WebhookDelivery.objects.all()
    assert delivery.status == Status.FAILED
    assert "private or local address" in delivery.last_error


def test_public_addresses_pass_the_check():
    target = check_address("https://93.184.215.14:8443/a/b?c=1", allow_private=False)
    assert (target.scheme, target.host, target.port, target.path, target.ip) == (
        "https",
        "93.184.215.14",
        8443,
        "/a/b?c=1",
        "93.184.215.14",
    )
    with pytest.raises(UnsafeAddress):
        check_address("http://0.0.0.0/", allow_private=False)


def test_a_season_from_a_file_is_one_summary_call_and_no_mail(
    league, make_player, settings, django_capture_on_commit_callbacks
):
    from league.services import record_round
    from notifications.models import Message
    from tests.messages_support import holder

    settings.NOTIFY_BULK_LIMIT = 3
    ann = holder(league, "Ann Archer", "ann")
    bob = make_player(league, "Bob Baker")
    results = [
        {"player_a": ann, "player_b": bob, "score_a": "1", "played_at": dt.date(2024, 3, day)}
        for day in range(1, 6)
    ]
    with http_receiver() as receiver:
        set_webhook(league, url=receiver.url, secret=SECRET, active=True)
        with django_capture_on_commit_callbacks(execute=True):
            record_round(league, results)
    (call,) = receiver.calls
    payload = verify(call)
    assert payload["text"].splitlines()[0] == "5 results recorded in Riverside Chess Club."
    assert payload["count"] == 5
    assert payload["events"] == []
    assert not Message.objects.exists()
