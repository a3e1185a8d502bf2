"""E-mail over a real SMTP conversation: a local aiosmtpd server started by each test, the
Django SMTP mailer pointed at it, the Celery task run (eagerly, as the suite runs tasks), the
received message read back with its headers; a server that refuses the connection loses no
message and blocks no write; one-click unsubscribing by POST without signing in."""

from __future__ import annotations

import datetime as dt
import re
from urllib.parse import urlsplit

import pytest
from django.utils import timezone

from league.event_store import store as event_store
from league.fixtures import FixtureRequest, schedule_fixtures
from league.models import Event, Fixture
from notifications.models import Message, Status, Topic
from notifications.preferences import wants
from notifications.tasks import resend_waiting
from tests.messages_support import free_port, holder, smtp_mailers, smtp_server

pytestmark = pytest.mark.django_db(transaction=False)

UNSUBSCRIBE = re.compile(
    r"^<(https://league\.example/accounts/notifications/unsubscribe/[^/>]+/)>$"
)


def schedule(league, organiser, a, b, *, days: int = 3) -> Fixture:
    when = timezone.now().replace(microsecond=0) + dt.timedelta(days=days)
    (fixture,) = schedule_fixtures(
        league, [FixtureRequest(a, b, scheduled_at=when, venue="Board 4")], recorded_by=organiser
    )
    return fixture


def test_a_new_fixture_reaches_both_players_over_smtp_with_one_click_unsubscribe(
    league, organiser, settings, client, django_capture_on_commit_callbacks
):
    settings.SITE_URL = "https://league.example"
    ann = holder(league, "Ann Archer", "ann")
    bob = holder(league, "Bob Baker", "bob")
    with smtp_server() as (inbox, port):
        settings.MAILERS = smtp_mailers(port)
        with django_capture_on_commit_callbacks(execute=True):
            schedule(league, organiser, ann, bob)

    envelopes = sorted(tuple(to) for _from, to, _message in inbox.received)
    assert envelopes == [("ann@example.org",), ("bob@example.org",)]
    to_ann = next(m for m in inbox.messages() if m["To"] == "ann@example.org")
    assert to_ann["Subject"] == "New fixture in Riverside Chess Club: you play Bob Baker"
    assert to_ann["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    link = UNSUBSCRIBE.match(to_ann["List-Unsubscribe"])
    assert link is not None, to_ann["List-Unsubscribe"]
    # On the wire as the plain address, not folded into encoded words a mail program ignores.
    raw = next(raw for raw in inbox.raw if b"To: ann@example.org" in raw)
    assert f"List-Unsubscribe: <{link.group(1)}>\r\n".encode() in raw
    body = to_ann.get_content()
    assert "Against: Bob Baker" in body
    assert "Where: Board 4" in body
    assert link.group(1) in body  # the same link at the foot of the text
    assert to_ann["Auto-Submitted"] == "auto-generated"
    rows = Message.objects.filter(user=ann.account)
    assert [(row.status, row.attempts) for row in rows] == [(Status.SENT, 1)]
    assert rows[0].message_id == to_ann["Message-ID"]

    # RFC 8058: the mail program POSTs the body below to the link, without cookies or token.
    client.handler.enforce_csrf_checks = True
    answer = client.post(
        urlsplit(link.group(1)).path,
        data="List-Unsubscribe=One-Click",
        content_type="application/x-www-form-urlencoded",
    )
    assert answer.status_code == 200
    assert not wants(ann.account_id, league, Topic.FIXTURE)
    assert wants(bob.account_id, league, Topic.FIXTURE)
    assert wants(ann.account_id, league, Topic.RESULT)  # only that kind of message

    with smtp_server() as (inbox, port):
        settings.MAILERS = smtp_mailers(port)
        with django_capture_on_commit_callbacks(execute=True):
            schedule(league, organiser, ann, bob, days=10)
    assert [to for _from, to, _message in inbox.received] == [["bob@example.org"]]


def test_a_refused_connection_loses_no_message_and_blocks_no_write(
    league, organiser, settings, django_capture_on_commit_callbacks
):
    ann = holder(league, "Ann Archer", "ann")
    bob = holder(league, "Bob Baker", "bob")
    settings.MAILERS = smtp_mailers(free_port())  # nothing listens there
    with django_capture_on_commit_callbacks(execute=True):
        fixture = schedule(league, organiser, ann, bob)

    # The write went through: the fixture and its event are stored.
    assert Fixture.objects.filter(pk=fixture.pk, cancelled=False).exists()
    assert Event.objects.filter(league=league, kind="fixture_scheduled").count() == 1
    rows = list(Message.objects.order_by("user_id"))
    assert [row.status for row in rows] == [Status.PENDING, Status.PENDING]
    for row in rows:
        # One attempt: an eager task's retry is handed back to the caller, not run (a
        # worker runs it after its back-off: tests/worker/test_messages_worker.py).
        assert row.attempts == 1
        assert "ConnectionRefusedError" in row.last_error
        assert row.sent_at is None
        assert row.next_attempt_at > timezone.now()

    with smtp_server() as (inbox, port):
        settings.MAILERS = smtp_mailers(port)
        resend_waiting()  # not due yet: the back-off is running
        assert inbox.received == []
        past = timezone.now() - dt.timedelta(minutes=5)
        Message.objects.update(created_at=past, next_attempt_at=past)
        with django_capture_on_commit_callbacks(execute=True):
            resend_waiting()
    assert sorted(to for _from, (to,), _message in inbox.received) == [
        "ann@example.org",
        "bob@example.org",
    ]
    assert set(Message.objects.values_list("status", flat=True)) == {Status.SENT}
    # Both messages, each sent once, under the Message-ID chosen at the first attempt.
    ids = {message["Message-ID"] for message in inbox.messages()}
    assert ids == set(Message.objects.values_list("message_id", flat=True))


def test_a_message_older_than_the_give_up_time_is_marked_failed_not_sent(
    league, organiser, settings, django_capture_on_commit_callbacks
):
    ann = holder(league, "Ann Archer", "ann")
    bob = holder(league, "Bob Baker", "bob")
    settings.MAILERS = smtp_mailers(free_port())
    with django_capture_on_commit_callbacks(execute=True):
        schedule(league, organiser, ann, bob)
    old = timezone.now() - dt.timedelta(hours=settings.NOTIFY_GIVE_UP_HOURS + 1)
    Message.objects.update(created_at=old, next_attempt_at=old)
    with smtp_server() as (inbox, port):
        settings.MAILERS = smtp_mailers(port)
        resend_waiting()
    assert inbox.received == []
    assert set(Message.objects.values_list("status", flat=True)) == {Status.FAILED}


def test_nothing_is_written_when_the_write_is_refused(league, organiser):
    ann = holder(league, "Ann Archer", "ann")
    with pytest.raises(Exception, match="player"):
        schedule_fixtures(
            league,
            [FixtureRequest(ann, 999999, scheduled_at=timezone.now() + dt.timedelta(days=2))],
            recorded_by=organiser,
        )
    assert not Message.objects.exists()
    assert event_store.next_seq(league) == 3  # the registration and the claim only
