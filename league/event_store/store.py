"""The only code that appends events to a league's history.

``append`` stores a batch of candidate events for one league in one transaction: it locks
the league (so sequence numbers are handed out one writer at a time), resolves idempotency
keys, gives each new event the next ``seq`` and sends ``events_appended`` once. Services
validate before calling it; this module guarantees ordering and "at most once".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from league.event_store.signals import events_appended
from league.models import Event, League


def lock_league(league: League) -> None:
    """Serialise the writers of ``league`` until the current transaction ends.

    PostgreSQL: ``SELECT … FOR NO KEY UPDATE`` on the league row (it conflicts with itself but
    not with the key-share locks taken by inserts that reference the league). SQLite: the
    transaction was opened with ``BEGIN IMMEDIATE`` (see settings), which already holds the
    database's single write lock, so there is nothing more to take.
    """
    connection = transaction.get_connection()
    if not connection.in_atomic_block:
        raise transaction.TransactionManagementError(
            "lock_league() must be called inside transaction.atomic()."
        )
    if connection.features.has_select_for_update:
        list(
            League.objects.select_for_update(no_key=connection.vendor == "postgresql")
            .filter(pk=league.pk)
            .values_list("pk", flat=True)
        )


def next_seq(league: League) -> int:
    """The sequence number the next event of ``league`` gets (call under ``lock_league``)."""
    top = Event.objects.filter(league=league).order_by("-seq").values_list("seq", flat=True)
    return (top.first() or 0) + 1


def content_of(event: Event) -> tuple[Any, ...]:
    """What a retried submission must repeat exactly for its idempotency key to match.

    Who recorded it and when are circumstances of the submission, not its content.
    """
    if event.kind == Event.Kind.PLAYER_REGISTERED:
        return (event.kind, event.player.display_name)
    return (
        event.kind,
        event.player_a_id,
        event.player_b_id,
        event.score_a,
        event.played_at,
        event.points,
        event.note,
        event.voids_id,
        event.replaces_id,
        event.reason,
    )


def idempotency_conflict(key: str, existing: Event) -> ValidationError:
    """The error for a key reused with different content."""
    return ValidationError(
        {
            "idempotency_key": ValidationError(
                "Idempotency key %(key)r was already used for a different submission "
                "(event #%(seq)s, %(kind)s); use a new key for a new result.",
                code="idempotency_conflict",
                params={"key": key, "seq": existing.seq, "kind": existing.get_kind_display()},
            )
        }
    )


def find_by_key(league: League, key: str) -> Event | None:
    """The stored event of ``league`` carrying idempotency ``key``, if any."""
    return Event.objects.select_related("player").filter(league=league, idempotency_key=key).first()


def existing_for(league: League, candidate: Event) -> Event | None:
    """The stored event a keyed candidate repeats, or None when it is new.

    Raises ``ValidationError`` (code ``idempotency_conflict``) when the key is taken by an
    event with different content. Call under ``lock_league`` for a stable answer.
    """
    key = candidate.idempotency_key
    if not key:
        return None
    existing = find_by_key(league, key)
    if existing is not None and content_of(existing) != content_of(candidate):
        raise idempotency_conflict(key, existing)
    return existing


def append(league: League, candidates: Sequence[Event]) -> list[Event]:
    """Store ``candidates`` (unsaved events of ``league``) and return the stored events.

    The result is parallel to ``candidates``: a keyed candidate that repeats a stored event
    (same key, same content) yields that event and stores nothing. The new events get
    consecutive sequence numbers and are announced in one ``events_appended`` signal.
    """
    with transaction.atomic():
        lock_league(league)
        stored: list[Event] = []
        new_positions: list[int] = []
        batch_keys: dict[str, Event] = {}
        for candidate in candidates:
            if not candidate._state.adding:
                raise ValueError("append() takes unsaved events only.")
            if candidate.league_id not in (None, league.pk):
                raise ValueError("append() takes events of one league only.")
            candidate.league = league
            key = candidate.idempotency_key
            earlier = batch_keys.get(key) if key else None
            if earlier is not None:
                if content_of(earlier) != content_of(candidate):
                    raise idempotency_conflict(key, earlier)
                stored.append(earlier)
                continue
            existing = existing_for(league, candidate)
            if existing is not None:
                stored.append(existing)
                continue
            if key:
                batch_keys[key] = candidate
            new_positions.append(len(stored))
            stored.append(candidate)

        seq = next_seq(league)
        appended: list[Event] = []
        outcomes: dict[int, Event] = {}
        for index in new_positions:
            candidate = stored[index]
            outcome = _insert(league, candidate, seq)
            outcomes[id(candidate)] = outcome
            if outcome is candidate:
                appended.append(candidate)
                seq += 1
        stored = [outcomes.get(id(event), event) for event in stored]
        if appended:
            events_appended.send(sender=League, league=league, events=appended)
    return stored


def _insert(league: League, candidate: Event, seq: int) -> Event:
    """Insert one event with ``seq``; resolve a concurrent insert of the same key.

    The league lock makes a duplicate key unreachable for writers that go through this
    module, but the UNIQUE constraint is the real guarantee: if it fires, the other
    writer's event is the answer (or a conflict), and the sequence number stays free.
    """
    candidate.seq = seq
    try:
        with transaction.atomic():
            candidate.save()
    except IntegrityError:
        candidate.seq = None
        key = candidate.idempotency_key
        existing = find_by_key(league, key) if key else None
        if existing is None:
            raise
        if content_of(existing) != content_of(candidate):
            raise idempotency_conflict(key, existing) from None
        return existing
    return candidate
