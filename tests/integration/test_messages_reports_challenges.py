"""Messages about reported results and challenges: who receives which, what it says, the
topics that silence them, and the reminder before a challenge's respond-by day. Mail goes
to Django's in-memory outbox, as in test_messages_outbox.py."""

from __future__ import annotations

import datetime as dt

import pytest
from django.core import mail
from django.urls import reverse

from league import services
from league.models import Challenge, PlayerRules
from league.services import reports
from notifications import sweeps
from notifications.models import Message as OutboxMessage
from notifications.models import Topic
from notifications.preferences import set_choices
from notifications.tasks import queue_messages
from ratings import challenges
from tests.functional.conftest import rank_everyone, rate
from tests.messages_support import holder

pytestmark = pytest.mark.django_db

DAY = dt.datetime(2026, 3, 2, 19, 0, tzinfo=dt.UTC)


@pytest.fixture
def trio(league, organiser):
    """Ann, Bob and Cat, each held by an account; the organiser has an address too."""
    organiser.email = "org@example.org"
    organiser.save(update_fields=["email"])
    return (
        holder(league, "Ann Archer", "ann"),
        holder(league, "Bob Baker", "bob"),
        holder(league, "Cat Cole", "cat"),
    )


def to(address: str) -> list:
    return [message for message in mail.outbox if message.to == [address]]


def report(league, ann, bob):
    return reports.submit_report(
        league,
        user=ann.account,
        player_a=ann.pk,
        player_b=bob.pk,
        score_a="1",
        played_at=DAY,
        points="3-1",
        note="club night",
    )


def test_a_report_asks_the_other_side_to_confirm_and_a_dispute_tells_the_organisers(
    league, organiser, trio, django_capture_on_commit_callbacks
):
    ann, bob, _cat = trio
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        submitted = report(league, ann, bob)
    # Only the other side is asked: not the reporter, not a player who did not play.
    (asked,) = mail.outbox
    assert asked.to == ["bob@example.org"]
    assert asked.subject == f"Result to confirm in {league.name}: reported by Ann Archer"
    assert "Ann Archer reported a result of yours" in asked.body
    assert "Place 1: Ann Archer" in asked.body
    assert "Place 2: Bob Baker" in asked.body
    assert "Score: 3-1" in asked.body
    assert f"/{league.slug}/my-games/" in asked.body
    row = OutboxMessage.objects.get(kind="report_submitted")
    assert (row.topic, row.user_id, row.player_id) == (Topic.CONFIRM, bob.account_id, bob.pk)

    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        reports.dispute_report(league, submitted, user=bob.account, reason="I won 3-1")
    (told,) = mail.outbox
    assert told.to == ["org@example.org"]
    assert told.subject == f"Reported result disputed in {league.name} by Bob Baker"
    assert "Bob Baker disputed a result Ann Archer reported" in told.body
    assert "Reason: I won 3-1" in told.body
    assert reverse("workspace:reports", args=[league.slug]) in told.body
    assert "as an organiser of" in told.body
    row = OutboxMessage.objects.get(kind="report_disputed")
    assert (row.user_id, row.player_id, row.topic) == (organiser.pk, None, Topic.CONFIRM)


def test_the_confirm_topic_silences_report_messages(
    league, organiser, trio, django_capture_on_commit_callbacks
):
    ann, bob, _cat = trio
    set_choices(bob.account, {Topic.CONFIRM: False}, {})
    set_choices(organiser, {}, {league.pk: {Topic.CONFIRM: False}})
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        submitted = report(league, ann, bob)
        reports.dispute_report(league, submitted, user=bob.account, reason="wrong score")
    assert mail.outbox == []
    assert not OutboxMessage.objects.filter(kind__startswith="report_").exists()


@pytest.fixture
def ladder(league, organiser, trio):
    """Ann, Bob and Cat ranked (Ann beat Bob, Bob beat Cat); challenges within two places,
    three days to answer."""
    ann, bob, cat = trio
    services.record_match(league, player_a=ann, player_b=bob, score_a="1", played_at=DAY)
    services.record_match(league, player_a=bob, player_b=cat, score_a="1", played_at=DAY)
    rank_everyone(league)
    rate(league)
    PlayerRules.objects.create(league=league, challenges=True, challenge_places=2, challenge_days=3)
    mail.outbox.clear()
    return ann, bob, cat


def test_a_challenge_tells_the_challenged_then_the_answer_tells_the_challenger(
    league, ladder, django_capture_on_commit_callbacks
):
    ann, bob, cat = ladder
    with django_capture_on_commit_callbacks(execute=True):
        first = challenges.issue_challenge(league, user=bob.account, challenged=ann.pk)
    (issued,) = mail.outbox
    assert issued.to == ["ann@example.org"]
    assert issued.subject == f"Challenge in {league.name}: Bob Baker challenges you"
    assert "Bob Baker challenges you to a game" in issued.body
    assert first.respond_by.strftime("%-d %B %Y") in issued.body

    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        challenges.accept_challenge(league, first, user=ann.account)
    # The fixture it schedules has its own messages to both (fixture_scheduled).
    (accepted,) = [m for m in mail.outbox if m.subject.startswith("Challenge")]
    assert accepted.to == ["bob@example.org"]
    assert accepted.subject == f"Challenge accepted in {league.name}: Ann Archer plays you"
    assert "Ann Archer accepted your challenge" in accepted.body
    assert "Play by:" in accepted.body

    with django_capture_on_commit_callbacks(execute=True):
        second = challenges.issue_challenge(league, user=cat.account, challenged=bob.pk)
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        challenges.decline_challenge(league, second, user=bob.account, reason="away all week")
    (declined,) = mail.outbox
    assert declined.to == ["cat@example.org"]
    assert declined.subject == f"Challenge declined in {league.name} by Bob Baker"
    assert "Reason: away all week" in declined.body
    kinds = sorted(
        OutboxMessage.objects.filter(kind__startswith="challenge").values_list("kind", "topic")
    )
    assert kinds == [
        ("challenge_accepted", Topic.CHALLENGE),
        ("challenge_declined", Topic.CHALLENGE),
        ("challenge_issued", Topic.CHALLENGE),
        ("challenge_issued", Topic.CHALLENGE),
    ]


def test_the_challenge_topic_silences_challenge_messages(
    league, ladder, django_capture_on_commit_callbacks
):
    ann, bob, _cat = ladder
    set_choices(ann.account, {}, {league.pk: {Topic.CHALLENGE: False}})
    with django_capture_on_commit_callbacks(execute=True):
        challenges.issue_challenge(league, user=bob.account, challenged=ann.pk)
    assert mail.outbox == []


def test_an_unanswered_challenge_is_reminded_once_before_its_day(
    league, ladder, settings, django_capture_on_commit_callbacks
):
    settings.NOTIFY_REMINDER_HOURS = 24
    ann, bob, cat = ladder
    with django_capture_on_commit_callbacks(execute=True):
        waiting = challenges.issue_challenge(league, user=bob.account, challenged=ann.pk)
        answered = challenges.issue_challenge(league, user=cat.account, challenged=bob.pk)
        challenges.decline_challenge(league, answered, user=bob.account)
    mail.outbox.clear()
    end = sweeps.respond_by_end(waiting)
    assert sweeps.challenge_reminders(end - dt.timedelta(hours=25)) == []  # too early
    assert sweeps.challenge_reminders(end) == []  # the day is over
    now = end - dt.timedelta(hours=6)
    with django_capture_on_commit_callbacks(execute=True):
        keys = sweeps.write_reminders(now)
        assert sweeps.write(sweeps.challenge_reminders(now)) == keys  # written once
    with django_capture_on_commit_callbacks(execute=True):
        queue_messages(keys)
    reminders = OutboxMessage.objects.filter(kind="challenge_reminder")
    assert [(m.user_id, m.params["challenge_id"]) for m in reminders] == [
        (ann.account_id, waiting.pk)
    ]
    (sent,) = mail.outbox
    assert sent.to == ["ann@example.org"]
    assert sent.subject == f"Reminder from {league.name}: answer Bob Baker's challenge"
    assert "still waiting for your answer" in sent.body

    # Muting reminders, or challenges, silences it.
    OutboxMessage.objects.filter(kind="challenge_reminder").delete()
    set_choices(ann.account, {Topic.REMINDER: False}, {})
    assert sweeps.challenge_reminders(now) == []
    set_choices(ann.account, {Topic.REMINDER: True, Topic.CHALLENGE: False}, {})
    assert sweeps.challenge_reminders(now) == []
    assert Challenge.objects.get(pk=waiting.pk).status == "issued"
