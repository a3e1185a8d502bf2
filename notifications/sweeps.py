"""Messages no fact starts: reminders before a deadline and the weekly digest.

Celery beat runs each writer every few minutes; each writes the messages now due that are
not written yet (``Message.dedupe_key`` says which), so a sweep that runs twice, or late
after beat was down, writes each message once. Another kind of deadline (a challenge's)
plugs in by adding its writer to ``REMINDERS``.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable

from django.conf import settings
from django.db.models import Exists, OuterRef

from league.calendar import league_zone, local_midnight
from league.fixtures import fixture_sides
from league.models import MATCH_KINDS, Challenge, ChallengeStatus, Event, Fixture, Player
from notifications.models import Message, Preference, Status, Topic
from notifications.preferences import enabled_for


def deadline_end(fixture: Fixture) -> dt.datetime:
    """The end of a fixture's deadline day in its league's time zone."""
    return local_midnight(fixture.deadline + dt.timedelta(days=1), league_zone(fixture.league))


def fixture_reminders(now: dt.datetime) -> list[Message]:
    """A reminder to each account holding a side of a fixture neither played nor cancelled
    whose deadline ends within ``NOTIFY_REMINDER_HOURS``."""
    ahead = dt.timedelta(hours=settings.NOTIFY_REMINDER_HOURS)
    played = Event.objects.filter(
        fixture=OuterRef("pk"), kind__in=MATCH_KINDS, voided_by__isnull=True
    )
    # Deadlines are local days: a day either side covers every time zone.
    candidates = (
        Fixture.objects.select_related("league")
        .filter(
            cancelled=False,
            deadline__gte=(now - dt.timedelta(days=1)).date(),
            deadline__lte=(now + ahead + dt.timedelta(days=1)).date(),
        )
        .exclude(Exists(played))
    )
    found: list[Message] = []
    for fixture in candidates:
        end = deadline_end(fixture)
        if not end - ahead <= now < end:
            continue
        players = [player for side in fixture_sides(fixture) for player in side]
        accounts = dict(
            Player.objects.filter(pk__in=players, account__isnull=False).values_list(
                "pk", "account_id"
            )
        )
        wanted = enabled_for(accounts.values(), fixture.league, Topic.REMINDER)
        for player, user in accounts.items():
            if user in wanted:
                found.append(
                    Message(
                        user_id=user,
                        league=fixture.league,
                        player_id=player,
                        kind="fixture_reminder",
                        topic=Topic.REMINDER,
                        params={"fixture_id": fixture.pk, "deadline": fixture.deadline.isoformat()},
                        dedupe_key=(
                            f"fixture_reminder:{fixture.pk}:{fixture.deadline.isoformat()}:{user}"
                        ),
                    )
                )
    return found


def respond_by_end(challenge: Challenge) -> dt.datetime:
    """The end of a challenge's respond-by day in its league's time zone."""
    return local_midnight(
        challenge.respond_by + dt.timedelta(days=1), league_zone(challenge.league)
    )


def challenge_reminders(now: dt.datetime) -> list[Message]:
    """A reminder to the challenged player's account of a challenge still unanswered whose
    respond-by day ends within ``NOTIFY_REMINDER_HOURS``, when it wants both reminders and
    challenges from the league (muting either silences it)."""
    ahead = dt.timedelta(hours=settings.NOTIFY_REMINDER_HOURS)
    # Respond-by days are local days: a day either side covers every time zone.
    candidates = Challenge.objects.select_related("league", "challenged").filter(
        status=ChallengeStatus.ISSUED,
        challenged__account__isnull=False,
        respond_by__gte=(now - dt.timedelta(days=1)).date(),
        respond_by__lte=(now + ahead + dt.timedelta(days=1)).date(),
    )
    found: list[Message] = []
    for challenge in candidates:
        end = respond_by_end(challenge)
        if not end - ahead <= now < end:
            continue
        user = challenge.challenged.account_id
        assert user is not None
        if not (
            enabled_for([user], challenge.league, Topic.REMINDER)
            and enabled_for([user], challenge.league, Topic.CHALLENGE)
        ):
            continue
        day = challenge.respond_by.isoformat()
        found.append(
            Message(
                user_id=user,
                league=challenge.league,
                player_id=challenge.challenged_id,
                kind="challenge_reminder",
                topic=Topic.REMINDER,
                params={"challenge_id": challenge.pk, "respond_by": day},
                dedupe_key=f"challenge_reminder:{challenge.pk}:{day}:{user}",
            )
        )
    return found


#: Writers of reminders, each given the time now.
REMINDERS: list[Callable[[dt.datetime], Iterable[Message]]] = [
    fixture_reminders,
    challenge_reminders,
]


def write(messages: Iterable[Message]) -> list[str]:
    """Store ``messages`` not stored yet; their dedupe keys (to queue)."""
    rows = list(messages)
    Message.objects.bulk_create(rows, ignore_conflicts=True)
    return [row.dedupe_key for row in rows]


def write_reminders(now: dt.datetime) -> list[str]:
    """Write every reminder due at ``now``; their dedupe keys."""
    return write(message for writer in REMINDERS for message in writer(now))


def digest_due(now: dt.datetime) -> bool:
    """Whether this week's digest may go: from the configured weekday and UTC hour on."""
    start = (settings.NOTIFY_DIGEST_WEEKDAY, settings.NOTIFY_DIGEST_HOUR)
    return (now.isoweekday(), now.hour) >= start


def write_digests(now: dt.datetime) -> list[str]:
    """This week's digest for every account that asked for it and holds a player; their
    dedupe keys (none before the week's digest is due)."""
    if not digest_due(now):
        return []
    year, week, _day = now.isocalendar()
    users = (
        Preference.objects.filter(topic=Topic.DIGEST, league__isnull=True, enabled=True)
        .filter(user__is_active=True)
        .exclude(user__email="")
        .values_list("user_id", flat=True)
    )
    holders = set(
        Player.objects.filter(account_id__in=list(users)).values_list("account_id", flat=True)
    )
    return write(
        Message(
            user_id=user,
            kind="weekly_digest",
            topic=Topic.DIGEST,
            params={"week": f"{year}-W{week:02d}", "until": now.isoformat()},
            dedupe_key=f"weekly_digest:{user}:{year}-W{week:02d}",
            status=Status.PENDING,
        )
        for user in sorted(holders)
    )
