"""The outbox: which facts write which messages to whom, when a result's message goes (once
its standings are published, with the rating change), preferences, reminders and digests.
Mail goes to Django's in-memory outbox here; tests/integration/test_messages_smtp.py speaks
SMTP."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from django.core import mail
from django.utils import timezone

from league import services
from league.fixtures import FixtureRequest, cancel_fixture, schedule_fixtures
from league.models import Fixture, MatchFormat
from notifications import sweeps
from notifications.models import Message, Preference, Status, Topic
from notifications.preferences import set_choices
from notifications.tasks import queue_messages, resend_waiting, write_reminders
from ratings import services as rating_services
from ratings.models import Publication, Standing
from tests.messages_support import holder

pytestmark = pytest.mark.django_db


@pytest.fixture
def pair(league):
    return holder(league, "Ann Archer", "ann"), holder(league, "Bob Baker", "bob")


def to(address: str) -> list:
    return [message for message in mail.outbox if message.to == [address]]


def rating_of(league, player) -> tuple[float, float]:
    config = Publication.objects.get(league=league).config
    standing = Standing.objects.get(config=config, player=player)
    return standing.rating, standing.rd


def test_a_result_waits_for_its_standings_then_tells_the_rating_change(
    league, organiser, pair, django_capture_on_commit_callbacks
):
    ann, bob = pair
    carl = services.register_player(league, "Carl Cole")  # no account: no message
    with django_capture_on_commit_callbacks(execute=True):
        rating_services.create_config(league)
    day = timezone.now().date() - dt.timedelta(days=2)
    with django_capture_on_commit_callbacks(execute=True):
        services.record_match(
            league, player_a=ann, player_b=carl, score_a=Decimal("1"), played_at=day
        )
    first = rating_of(league, ann)
    mail.outbox.clear()

    # The write holds the messages: the standings with the result are not published yet.
    event = services.record_match(
        league,
        player_a=ann,
        player_b=bob,
        score_a=Decimal("0"),
        played_at=day + dt.timedelta(days=1),
        points="1-3",
        recorded_by=organiser,
    )
    held = Message.objects.filter(event=event).order_by("user_id")
    assert [(m.user_id, m.status, m.awaits_seq) for m in held] == [
        (ann.account_id, Status.HELD, event.seq),
        (bob.account_id, Status.HELD, event.seq),
    ]
    assert held[0].params == {"before": {"rating": first[0], "rd": first[1]}}
    assert mail.outbox == []

    # The replay publishes them; the messages go with the numbers of the new standings.
    with django_capture_on_commit_callbacks(execute=True):
        rating_services.request_catch_up(league)
    after = rating_of(league, ann)
    assert after[0] < first[0]  # Ann lost
    (message,) = to("ann@example.org")
    assert message.subject == "Result in Riverside Chess Club: you lost against Bob Baker"
    change = after[0] - first[0]
    expected = (
        f"Your rating: {first[0]:.0f} → {after[0]:.0f} ({change:+.1f}), ± {1.96 * after[1]:.0f}"
    )
    assert expected in message.body
    assert "you lost against Bob Baker (1–3)" in message.body
    (to_bob,) = to("bob@example.org")
    assert "you won against Ann Archer (3–1)" in to_bob.body
    assert "Your rating now:" in to_bob.body  # no standing before his first game
    assert len(mail.outbox) == 2


def test_a_result_whose_standings_never_come_goes_after_the_wait_without_numbers(
    league, pair, settings, django_capture_on_commit_callbacks
):
    ann, bob = pair
    # Its replay is queued after the commit, which this test never runs.
    services.record_match(
        league, player_a=ann, player_b=bob, score_a="0.5", played_at=dt.date(2024, 3, 1)
    )
    assert set(Message.objects.values_list("status", flat=True)) == {Status.HELD}
    resend_waiting()
    assert mail.outbox == []  # not waited long enough
    Message.objects.update(
        created_at=timezone.now() - dt.timedelta(seconds=settings.NOTIFY_RATING_WAIT_SECONDS + 1)
    )
    with django_capture_on_commit_callbacks(execute=True):
        resend_waiting()
    assert sorted(m.to[0] for m in mail.outbox) == ["ann@example.org", "bob@example.org"]
    assert all("you drew against" in m.body for m in mail.outbox)
    assert all("not ready yet" in m.body for m in mail.outbox)


def test_a_retried_submission_writes_no_second_message(league, pair):
    ann, bob = pair
    for _attempt in range(2):
        services.record_match(
            league,
            player_a=ann,
            player_b=bob,
            score_a="1",
            played_at=dt.date(2024, 3, 1),
            idempotency_key="club-night-1",
        )
    assert Message.objects.count() == 2


def test_a_league_choice_wins_over_the_account_and_the_sending_checks_again(
    league, other_league, pair, django_capture_on_commit_callbacks
):
    ann, bob = pair
    # Ann: no fixtures anywhere, but yes in this league; Bob: fixtures off in this league.
    set_choices(ann.account, {Topic.FIXTURE: False}, {league.pk: {Topic.FIXTURE: True}})
    set_choices(bob.account, {}, {league.pk: {Topic.FIXTURE: False}})
    when = timezone.now() + dt.timedelta(days=2)
    with django_capture_on_commit_callbacks(execute=True):
        schedule_fixtures(league, [FixtureRequest(ann, bob, scheduled_at=when)])
    assert [m.to for m in mail.outbox] == [["ann@example.org"]]

    # A message written while wanted but sent after unsubscribing is skipped, not sent.
    fixture = Fixture.objects.get()
    cancel_fixture(league, fixture, reason="Hall closed")
    (pending,) = Message.objects.filter(kind="fixture_cancelled")
    set_choices(ann.account, {}, {league.pk: {Topic.FIXTURE: None}})  # back to "off"
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        queue_messages([pending.dedupe_key])
    assert mail.outbox == []
    pending.refresh_from_db()
    assert pending.status == Status.SKIPPED


def test_reminders_go_once_before_the_deadline_and_not_for_played_fixtures(
    league, pair, django_capture_on_commit_callbacks
):
    ann, bob = pair
    carl = holder(league, "Carl Cole", "carl")
    now = timezone.now()
    soon = now + dt.timedelta(hours=6)
    with django_capture_on_commit_callbacks(execute=True):
        open_one, played, later = schedule_fixtures(
            league,
            [
                FixtureRequest(ann, bob, scheduled_at=soon, deadline=soon.date()),
                FixtureRequest(
                    bob, carl, scheduled_at=now + dt.timedelta(hours=7), deadline=soon.date()
                ),
                FixtureRequest(ann, carl, scheduled_at=now + dt.timedelta(days=9)),
            ],
        )
        services.record_match(
            league, player_a=bob, player_b=carl, score_a="1", played_at=now, fixture=played
        )
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        assert write_reminders() == 2
        write_reminders()  # the next sweep writes nothing new
    reminders = Message.objects.filter(kind="fixture_reminder")
    assert sorted(reminders.values_list("user_id", flat=True)) == sorted(
        [ann.account_id, bob.account_id]
    )
    assert {m.params["fixture_id"] for m in reminders} == {open_one.pk}
    assert sorted(m.to[0] for m in mail.outbox) == ["ann@example.org", "bob@example.org"]
    assert all("no result is recorded yet" in m.body for m in mail.outbox)
    assert later.pk not in {m.params["fixture_id"] for m in reminders}


def test_the_weekly_digest_goes_to_who_asked_once_a_week(
    league, pair, settings, django_capture_on_commit_callbacks
):
    ann, bob = pair
    set_choices(ann.account, {Topic.DIGEST: True}, {})
    # Yesterday: a date stands for its noon, so today's result is after "now" all morning.
    services.record_match(
        league,
        player_a=ann,
        player_b=bob,
        score_a="1",
        played_at=timezone.now().date() - dt.timedelta(days=1),
    )
    monday = dt.datetime(2026, 11, 23, 8, 0, tzinfo=dt.UTC)
    assert sweeps.write_digests(monday - dt.timedelta(hours=2)) == []  # before 07:00 Monday
    keys = sweeps.write_digests(monday)
    assert keys == [f"weekly_digest:{ann.account_id}:2026-W48"]
    assert sweeps.write_digests(monday + dt.timedelta(days=2)) == keys  # the same row
    assert Message.objects.filter(kind="weekly_digest").count() == 1
    assert not Preference.objects.filter(user=bob.account, topic=Topic.DIGEST).exists()
    mail.outbox.clear()
    # The week the digest tells ends now (the result above is in it).
    Message.objects.update(params={"until": timezone.now().isoformat()})
    with django_capture_on_commit_callbacks(execute=True):
        queue_messages(keys)
    (digest,) = mail.outbox
    assert digest.to == ["ann@example.org"]
    assert "== Riverside Chess Club (Ann Archer) ==" in digest.body
    assert "1 result recorded in the past seven days." in digest.body


def test_a_voided_result_and_a_doubles_result_tell_each_player_their_side(
    league, organiser, django_capture_on_commit_callbacks
):
    league.match_format = "any"
    league.save()
    ann, bob = holder(league, "Ann Archer", "ann"), holder(league, "Bob Baker", "bob")
    cat, dan = holder(league, "Cat Cole", "cat"), holder(league, "Dan Dell", "dan")
    doubles = services.record_match(
        league, sides=[[ann, bob], [cat, dan]], score_a="1", played_at=dt.date(2024, 3, 1)
    )
    single = services.record_match(
        league, player_a=ann, player_b=cat, score_a="1", played_at=dt.date(2024, 3, 2)
    )
    services.void_match(league, single, reason="Wrong opponent", recorded_by=organiser)
    with django_capture_on_commit_callbacks(execute=True):
        rating_services.create_config(league)
    assert Message.objects.filter(status=Status.SENT).count() == 4 + 2 + 2
    (to_dan,) = to("dan@example.org")
    assert (
        to_dan.subject == "Result in Riverside Chess Club: you lost against Ann Archer & Bob Baker"
    )
    assert "2. Cat Cole & Dan Dell (your side)" in to_dan.body
    voids = [m for m in to("cat@example.org") if m.subject.startswith("Result voided")]
    assert [m.subject for m in voids] == [
        "Result voided in Riverside Chess Club: your match against Ann Archer"
    ]
    assert "Reason: Wrong opponent" in voids[0].body
    assert Message.objects.filter(event=doubles).count() == 4


def test_two_senders_never_send_one_message_twice(league, pair):
    from notifications.mail import Sent, claim, deliver_message

    ann, bob = pair
    when = timezone.now() + dt.timedelta(days=2)
    schedule_fixtures(league, [FixtureRequest(ann, bob, scheduled_at=when)])
    message = Message.objects.filter(user=ann.account).get()
    assert claim(Message, message.pk)  # a first task holds it
    assert deliver_message(message.pk) == Sent.BUSY  # the second sends nothing
    assert mail.outbox == []
    Message.objects.filter(pk=message.pk).update(lease_until=timezone.now() - dt.timedelta(1))
    assert deliver_message(message.pk) == Sent.SENT  # the first died: its lease ran out
    assert deliver_message(message.pk) == Sent.BUSY  # sent: never again
    assert len(mail.outbox) == 1


def test_a_failure_in_the_messages_never_blocks_the_write(league, pair, monkeypatch, caplog):
    from notifications import kinds

    ann, bob = pair

    def broken(event):
        raise RuntimeError("a bug in a recipients function")

    entry = kinds.KINDS["match_recorded"]
    monkeypatch.setitem(
        kinds.KINDS, "match_recorded", kinds.Kind(**{**entry.__dict__, "recipients": broken})
    )
    event = services.record_match(
        league, player_a=ann, player_b=bob, score_a="1", played_at=dt.date(2024, 3, 1)
    )
    assert event.pk is not None
    assert not Message.objects.exists()
    assert "Messages of riverside's new events not written." in caplog.text


def test_a_fixture_with_sides_tells_every_player_and_reminds_until_its_side_result(
    league, django_capture_on_commit_callbacks
):
    league.match_format = MatchFormat.FIXED
    league.side_size = 2
    league.save()
    ann, bob, cat, dan = (
        holder(league, name, name.lower()) for name in ("Ann", "Bob", "Cat", "Dan")
    )
    for player in (ann, bob, cat, dan):
        set_choices(player.account, {Topic.FIXTURE: True, Topic.REMINDER: True}, {})
    now = timezone.now()
    today = timezone.localdate(now, timezone=ZoneInfo(league.time_zone))
    with django_capture_on_commit_callbacks(execute=True):
        schedule_fixtures(
            league, [FixtureRequest(None, None, now, today, sides=[[ann, bob], [cat, dan]])]
        )
    subjects = {m.to[0]: m.subject for m in mail.outbox}
    assert set(subjects) == {f"{name}@example.org" for name in ("ann", "bob", "cat", "dan")}
    assert "Cat & Dan" in subjects["ann@example.org"]
    assert "Ann & Bob" in subjects["dan@example.org"]
    fixture = Fixture.objects.get()
    match = services.record_fixture_result(league, fixture, score_a="1", played_at=now)
    assert sweeps.fixture_reminders(now) == []  # played by a side result: no reminder
    services.void_match(league, match, reason="wrong pairs")
    reminded = sweeps.fixture_reminders(now)
    assert {m.player_id for m in reminded} == {ann.pk, bob.pk, cat.pk, dan.pk}
