"""Write services: every change to a league's history goes through these functions.

Each service validates its input, then, under the league lock, replays an idempotent retry
or runs the checks that depend on stored rows, and appends events through
``league.event_store``. Errors raise ``ValidationError`` with field -> messages and write
nothing. ``events_appended`` is sent once per call that stores something.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.text import slugify

from league import event_store
from league.models import Event, League, Player
from league.validation import (
    NAME_MAX,
    Errors,
    check_active,
    check_not_voided,
    check_opponents,
    check_played_at,
    check_reason,
    check_recorder,
    clean_key,
    parse_played_at,
    parse_points,
    parse_score,
    resolve_match,
    resolve_player,
)

MATCH_FIELDS = ("player_a", "player_b", "score_a", "played_at", "points", "note")
RESULT_FIELDS = ("player_a_id", "player_b_id", "score_a", "played_at", "points", "note")
VOID_KEY_SUFFIX = "/void"


def register_player(
    league: League,
    display_name: str,
    *,
    recorded_by: Any = None,
    idempotency_key: str | None = None,
) -> Player:
    """Add a player to ``league`` and append its ``player_registered`` event."""
    errors = Errors()
    name = " ".join(str(display_name or "").split())
    if not name:
        errors.add("display_name", "Give the player a name.", "required")
    elif len(name) > NAME_MAX:
        errors.add(
            "display_name",
            "The name is too long (at most %(max)s characters).",
            "name_too_long",
            max=NAME_MAX,
        )
    key = clean_key(idempotency_key, errors)
    check_recorder(league, recorded_by, errors)
    errors.raise_if_any()

    with transaction.atomic():
        event_store.lock_league(league)
        player = Player(league=league, display_name=name)
        candidate = Event(
            kind=Event.Kind.PLAYER_REGISTERED,
            player=player,
            recorded_by=recorded_by,
            idempotency_key=key,
        )
        existing = event_store.existing_for(league, candidate)
        if existing is not None:
            return existing.player
        if Player.objects.filter(league=league, display_name__iexact=name).exists():
            errors.add(
                "display_name",
                "%(name)s is already a player of %(league)s.",
                "duplicate_name",
                name=name,
                league=league.name,
            )
            errors.raise_if_any()
        player.slug = _free_slug(league, name)
        player.save()
        event_store.append(league, [candidate])
    return player


def record_match(
    league: League,
    *,
    player_a: Player | int,
    player_b: Player | int,
    score_a: Decimal | str | float,
    played_at: dt.datetime | dt.date,
    recorded_by: Any = None,
    points: str = "",
    note: str = "",
    idempotency_key: str | None = None,
) -> Event:
    """Append one ``match_recorded`` event (``score_a`` is 1, 0.5 or 0)."""
    row = {
        "player_a": player_a,
        "player_b": player_b,
        "score_a": score_a,
        "played_at": played_at,
        "points": points,
        "note": note,
        "idempotency_key": idempotency_key,
    }
    errors = Errors()
    check_recorder(league, recorded_by, errors)
    parsed = _parse_match(league, row, recorded_by, errors)
    errors.raise_if_any()
    assert parsed is not None
    candidate, date_only = parsed

    with transaction.atomic():
        event_store.lock_league(league)
        if event_store.existing_for(league, candidate) is None:
            _check_match_state(league, candidate, date_only, errors)
            errors.raise_if_any()
        (event,) = event_store.append(league, [candidate])
    return event


def record_round(
    league: League, results: list[dict[str, Any]], *, recorded_by: Any = None
) -> list[Event]:
    """Append many results at once: all of them, or none.

    Each result is a dict of ``record_match`` keyword arguments (without ``recorded_by``).
    Errors are keyed ``results.<row>.<field>`` (rows from 0); see
    ``league.validation.row_errors``.
    """
    errors = Errors()
    check_recorder(league, recorded_by, errors)
    if not results:
        errors.add("results", "A round needs at least one result.", "required")
    errors.raise_if_any()

    parsed: list[tuple[Event, bool] | None] = []
    keys: dict[str, int] = {}
    for index, row in enumerate(results):
        row_errors = Errors()
        unknown = set(row) - {*MATCH_FIELDS, "idempotency_key"}
        if unknown:
            raise TypeError(f"record_round() result {index} has unknown keys: {sorted(unknown)}")
        item = _parse_match(league, row, recorded_by, row_errors)
        if item is not None and item[0].idempotency_key:
            key = item[0].idempotency_key
            if key in keys:
                row_errors.add(
                    "idempotency_key",
                    "This idempotency key is also used by result %(row)s of this round.",
                    "idempotency_conflict",
                    row=keys[key] + 1,
                )
            keys.setdefault(key, index)
        errors.merge(row_errors, prefix=f"results.{index}")
        parsed.append(item)

    with transaction.atomic():
        event_store.lock_league(league)
        # Rows that parsed are checked against stored state too, so that one answer
        # lists every problem of the round.
        for index, item in enumerate(parsed):
            if item is None:
                continue
            candidate, date_only = item
            row_errors = Errors()
            try:
                repeated = event_store.existing_for(league, candidate)
            except ValidationError as error:
                errors.merge(error, prefix=f"results.{index}")
                continue
            if repeated is None:
                _check_match_state(league, candidate, date_only, row_errors)
            errors.merge(row_errors, prefix=f"results.{index}")
        errors.raise_if_any()
        return event_store.append(league, [item[0] for item in parsed if item is not None])


def void_match(
    league: League,
    match: Event | int,
    *,
    reason: str,
    recorded_by: Any = None,
    idempotency_key: str | None = None,
) -> Event:
    """Append a ``match_voided`` event: the match no longer counts."""
    errors = Errors()
    check_recorder(league, recorded_by, errors)
    reason = check_reason(reason, errors)
    key = clean_key(idempotency_key, errors)
    target = resolve_match(league, match, errors)
    errors.raise_if_any()
    assert target is not None
    candidate = Event(
        kind=Event.Kind.MATCH_VOIDED,
        voids=target,
        reason=reason,
        recorded_by=recorded_by,
        idempotency_key=key,
    )
    with transaction.atomic():
        event_store.lock_league(league)
        if event_store.existing_for(league, candidate) is None:
            check_not_voided(target, errors)
            errors.raise_if_any()
        (event,) = event_store.append(league, [candidate])
    return event


def correct_match(
    league: League,
    match: Event | int,
    *,
    reason: str,
    recorded_by: Any = None,
    **new_result: Any,
) -> tuple[Event, Event]:
    """Void ``match`` and record the corrected result, linked, in one transaction.

    ``new_result`` takes ``record_match`` keyword arguments; fields left out keep the
    original match's values. With an ``idempotency_key`` the new result carries the key
    and the void carries the key followed by ``/void``.
    """
    unknown = set(new_result) - {*MATCH_FIELDS, "idempotency_key"}
    if unknown:
        raise TypeError(f"correct_match() got unexpected keyword arguments: {sorted(unknown)}")
    errors = Errors()
    check_recorder(league, recorded_by, errors)
    reason = check_reason(reason, errors)
    target = resolve_match(league, match, errors)
    errors.raise_if_any()
    assert target is not None

    row: dict[str, Any] = {field: getattr(target, field) for field in MATCH_FIELDS}
    row.update(new_result)
    parsed = _parse_match(league, row, recorded_by, errors)
    key = parsed[0].idempotency_key if parsed else None
    void_key = f"{key}{VOID_KEY_SUFFIX}" if key else None
    if void_key:
        clean_key(void_key, errors)
    errors.raise_if_any()
    assert parsed is not None
    replacement, date_only = parsed
    replacement.replaces = target
    replacement.reason = reason
    void = Event(
        kind=Event.Kind.MATCH_VOIDED,
        voids=target,
        reason=reason,
        recorded_by=recorded_by,
        idempotency_key=void_key,
    )

    with transaction.atomic():
        event_store.lock_league(league)
        repeated = event_store.existing_for(league, void)
        if event_store.existing_for(league, replacement) is None:
            _check_match_state(league, replacement, date_only, errors)
        if repeated is None:
            check_not_voided(target, errors)
        if all(getattr(replacement, f) == getattr(target, f) for f in RESULT_FIELDS):
            errors.add(
                "__all__",
                "The correction is identical to the recorded result; change at least one field.",
                "unchanged",
            )
        errors.raise_if_any()
        voided, corrected = event_store.append(league, [void, replacement])
    return voided, corrected


def _parse_match(
    league: League, row: dict[str, Any], recorded_by: Any, errors: Errors
) -> tuple[Event, bool] | None:
    """An unsaved ``match_recorded`` event from loose input, and whether only a date was given."""
    found = Errors()
    player_a = resolve_player(league, row.get("player_a"), "player_a", found)
    player_b = resolve_player(league, row.get("player_b"), "player_b", found)
    score = parse_score(row.get("score_a"), found)
    when = parse_played_at(league, row.get("played_at"), found)
    points = parse_points(row.get("points"), found)
    note = str(row.get("note") or "").strip()
    key = clean_key(row.get("idempotency_key"), found)
    check_opponents(player_a, player_b, found)
    errors.merge(found)
    if found or when is None:
        return None
    played_at, date_only = when
    event = Event(
        kind=Event.Kind.MATCH_RECORDED,
        player_a=player_a,
        player_b=player_b,
        score_a=score,
        played_at=played_at,
        points=points,
        note=note,
        recorded_by=recorded_by,
        idempotency_key=key,
    )
    return event, date_only


def _check_match_state(league: League, candidate: Event, date_only: bool, errors: Errors) -> None:
    """Checks that depend on stored rows or the clock (run under the league lock)."""
    check_active(candidate.player_a, candidate.player_b, errors)
    check_played_at(league, candidate.played_at, date_only, errors, "played_at")


def _free_slug(league: League, name: str) -> str:
    """A slug for ``name`` not yet used in ``league`` ("ann-lee", "ann-lee-2", …)."""
    base = (slugify(name) or "player")[:130]
    taken = set(
        Player.objects.filter(league=league, slug__startswith=base).values_list("slug", flat=True)
    )
    slug, counter = base, 2
    while slug in taken:
        slug, counter = f"{base}-{counter}", counter + 1
    return slug
