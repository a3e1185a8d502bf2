"""From stored facts to outbox rows, in the transaction that stores them.

``on_events_appended`` (connected to ``league.event_store.signals.events_appended``) runs in
the writer's transaction: for each new event whose kind has an entry in
``notifications.kinds.KINDS`` it writes one ``Message`` per account that holds a player the
event concerns and wants its topic, and one ``WebhookDelivery`` per kind of call when the
league has a webhook. The rows commit or roll back with the events; once committed, their
tasks are sent (``transaction.on_commit``). A broker that cannot be reached loses nothing:
the rows wait for the sweep (``notifications.tasks.resend_waiting``).

A result's message waits (``HELD``) for the standings that include it:
``on_standings_published`` (connected to ``ratings.signals.standings_published``) stores
each recipient's rating after it and releases the message.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Iterable, Sequence
from functools import partial
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Exists, OuterRef

from league.event_store import top_seq
from league.event_store.vocabulary import Fact
from league.models import MATCH_KINDS, Event, League, Player
from league.prepared_queries import PreparedQuery
from notifications.kinds import KINDS
from notifications.models import Message, Status, Webhook, WebhookDelivery
from notifications.preferences import enabled_for
from notifications.tasks import queue_deliveries, queue_messages, release
from ratings.models import RatingConfig, Standing
from ratings.selectors.configurations import live_config

logger = logging.getLogger(__name__)


def accounts_of(player_ids: Iterable[int]) -> dict[int, int]:
    """The account holding each of ``player_ids`` (players without one are left out)."""
    return dict(
        Player.objects.filter(pk__in=set(player_ids), account__isnull=False).values_list(
            "pk", "account_id"
        )
    )


def ratings_of(config: RatingConfig | None, player_ids: Iterable[int]) -> dict[int, dict]:
    """Each player's rating and RD under ``config`` (players without a standing left out)."""
    if config is None:
        return {}
    rows = Standing.objects.filter(config=config, player_id__in=set(player_ids))
    return {
        player: {"rating": rating, "rd": rd}
        for player, rating, rd in rows.values_list("player_id", "rating", "rd")
    }


# Every recorded result asks (prepared once: ``league.prepared_queries``).
_AUDIENCE = PreparedQuery(
    lambda league_id: (
        League.objects.filter(pk=league_id)
        .annotate(
            any_webhook=Exists(Webhook.objects.filter(league_id=OuterRef("pk"), active=True)),
            any_account=Exists(
                Player.objects.filter(league_id=OuterRef("pk"), account__isnull=False)
            ),
        )
        .order_by()
        .values_list("any_webhook", "any_account")
    )
)
_HAS_HELD = PreparedQuery(
    lambda league_id, through_seq: (
        Message.objects.filter(league_id=league_id, status=Status.HELD, awaits_seq__lte=through_seq)
        .order_by()
        .values_list("pk")[:1]
    )
)


def on_events_appended(
    sender: Any, *, league: League, events: Sequence[Fact], **kwargs: Any
) -> None:
    """Write the messages and webhook calls the new events of ``league`` start.

    In a savepoint: whatever goes wrong here is logged and costs the messages, never the
    writer's events (a write is never blocked by its announcements).
    """
    try:
        with transaction.atomic():
            write_for_events(league, events)
    except Exception:
        logger.exception("Messages of %s's new events not written.", league.slug)


def write_for_events(league: League, events: Sequence[Fact]) -> None:
    """The outbox rows of ``league``'s new ``events`` (see ``on_events_appended``)."""
    count = len(events)
    if not count:
        return
    has_webhook, has_accounts = _AUDIENCE.first(league_id=league.pk) or (False, False)
    if not (has_webhook or has_accounts):
        return
    # The new events are the league's last ``count`` rows: this runs under the league's lock,
    # in the transaction that stored them.
    newest = top_seq(league.pk)
    first_seq = newest - count + 1 if newest else 1
    if count > settings.NOTIFY_BULK_LIMIT:
        # A file of results (a season's history) is one summary for the webhook, no mail.
        if has_webhook:
            results = Event.objects.filter(
                league=league, seq__gte=first_seq, kind__in=MATCH_KINDS
            ).count()
            if results:
                _write_deliveries(league, {"results": []}, {"results": {"count": results}})
        return
    rows = list(
        Event.objects.filter(league=league, seq__gte=first_seq)
        .select_related("league")
        .order_by("seq")
    )
    if [row.kind for row in rows] != [fact.kind for fact in events]:
        logger.error("Events of %s not found as appended; no messages written.", league.slug)
        return
    messages: list[Message] = []
    calls: dict[str, list[int]] = defaultdict(list)
    config = live_config(league) if has_accounts else None
    for row in rows:
        kind = KINDS.get(row.kind)
        if kind is None or (kind.recipients is None and kind.accounts is None):
            continue
        if kind.webhook and has_webhook:
            calls[kind.webhook].append(row.pk)
        if has_accounts:
            messages.extend(_messages_for(league, row, config))
    if messages:
        Message.objects.bulk_create(messages, ignore_conflicts=True)
        keys = [message.dedupe_key for message in messages if message.status == Status.PENDING]
        if keys:
            transaction.on_commit(partial(queue_messages, keys), robust=True)
    if calls:
        _write_deliveries(league, calls, {})


def _messages_for(league: League, event: Event, config: RatingConfig | None) -> list[Message]:
    kind = KINDS[event.kind]
    if kind.accounts is not None:
        return _account_messages(league, event, kind.accounts(event))
    assert kind.recipients is not None
    accounts = accounts_of(kind.recipients(event))
    wanted = enabled_for(accounts.values(), league, kind.topic)
    before = ratings_of(config, accounts) if kind.waits_for_ratings else {}
    found = []
    seen: set[int] = set()
    for player, user in sorted(accounts.items()):
        if user not in wanted or user in seen:
            continue
        seen.add(user)
        params = {"before": before[player]} if player in before else {}
        found.append(
            Message(
                user_id=user,
                league=league,
                player_id=player,
                event=event,
                kind=kind.key,
                topic=kind.topic,
                params=params,
                dedupe_key=f"{kind.key}:{event.pk}:{user}",
                status=Status.HELD if kind.waits_for_ratings else Status.PENDING,
                awaits_seq=event.seq if kind.waits_for_ratings else None,
            )
        )
    return found


def _account_messages(league: League, event: Event, users: Iterable[int]) -> list[Message]:
    """One message to each of ``users`` (accounts concerned as themselves, such as the
    league's organisers) that wants the event's topic and has an address."""
    kind = KINDS[event.kind]
    active = set(
        get_user_model()
        .objects.filter(pk__in=set(users), is_active=True)
        .exclude(email="")
        .values_list("pk", flat=True)
    )
    return [
        Message(
            user_id=user,
            league=league,
            event=event,
            kind=kind.key,
            topic=kind.topic,
            params={},
            dedupe_key=f"{kind.key}:{event.pk}:{user}",
            status=Status.PENDING,
        )
        for user in sorted(enabled_for(active, league, kind.topic))
    ]


def _write_deliveries(
    league: League, calls: dict[str, list[int]], params: dict[str, dict[str, Any]]
) -> None:
    deliveries = WebhookDelivery.objects.bulk_create(
        WebhookDelivery(league=league, kind=kind, event_ids=ids, params=params.get(kind, {}))
        for kind, ids in calls.items()
    )
    ids = [delivery.pk for delivery in deliveries]
    transaction.on_commit(partial(queue_deliveries, ids), robust=True)


def on_standings_published(
    sender: Any, *, league: League, config: RatingConfig, through_seq: int, **kwargs: Any
) -> None:
    """Release the held result messages of ``league`` that the new standings include, each
    with its recipient's rating after it.

    In a savepoint, failures logged: the standings are published whatever happens here (the
    sweep releases the messages later, without the numbers).
    """
    try:
        with transaction.atomic():
            # Most publications release nothing: the cheap question first.
            if not _HAS_HELD.exists(league_id=league.pk, through_seq=through_seq):
                return
            held = list(
                Message.objects.filter(
                    league=league, status=Status.HELD, awaits_seq__lte=through_seq
                )
            )
            if held:
                players = [message.player_id for message in held if message.player_id]
                release(held, ratings_of(config, players))
    except Exception:
        logger.exception("Held messages of %s not released.", league.slug)
