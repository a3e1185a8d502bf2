"""Undoing and correcting recorded matches: a void, or a void and the corrected result.

Nothing recorded is ever changed: a void is a ``match_voided`` event, a correction a void
and a new match linked to it (``replaces``), appended together. A correction is read and
checked by the one path every match takes (``league.services.matches``), whatever its sides.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from django.db import transaction
from django.utils.translation import gettext_lazy as _

from league import event_store
from league.calendar import league_day, local_noon
from league.event_store import Submission
from league.event_store.vocabulary import MatchRecorded, MatchVoided, SideMatchRecorded
from league.idempotency_keys import correction_void_key
from league.models import Event, League
from league.services.matches import (
    MATCH_FIELDS,
    check_match_state,
    parse_match,
    sides_of_match,
)
from league.sides import positions_text
from league.validation import (
    Errors,
    check_not_voided,
    check_reason,
    check_recorder,
    clean_key,
    resolve_match,
)


def void_match(
    league: League,
    match: Event | int,
    *,
    reason: str,
    recorded_by: Any = None,
    idempotency_key: str | None = None,
) -> Event:
    """Append a ``match_voided`` event: the match (or the forfeit) no longer counts."""
    errors = Errors()
    check_recorder(league, recorded_by, errors)
    reason = check_reason(reason, errors)
    key = clean_key(idempotency_key, errors)
    target = resolve_match(league, match, errors, forfeits=True)
    errors.raise_if_any()
    assert target is not None
    submission = Submission(MatchVoided(match_id=target.pk, reason=reason), key)
    with transaction.atomic():
        event_store.lock_league(league)
        if event_store.existing_for(league, submission) is None:
            check_not_voided(target, errors)
            errors.raise_if_any()
        (event,) = event_store.append(league, [submission], recorded_by=recorded_by)
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
    and the void carries the key derived from it (``league.idempotency_keys``). A
    correction that names the same players keeps the fixture the match played.
    """
    unknown = set(new_result) - set(MATCH_FIELDS)
    if unknown:
        raise TypeError(f"correct_match() got unexpected keyword arguments: {sorted(unknown)}")
    errors = Errors()
    check_recorder(league, recorded_by, errors)
    reason = check_reason(reason, errors)
    target = resolve_match(league, match, errors)
    errors.raise_if_any()
    assert target is not None

    row = recorded_row(target)
    if "sides" in new_result:
        for name in ("player_a", "player_b", "sides"):
            row.pop(name, None)
    if "score_a" in new_result:
        row.pop("places", None)
    if "places" in new_result:
        row.pop("score_a", None)
    if league.is_chess and "neutral" not in new_result:
        # A chess game has no neutral ground: a match stored so before the league played
        # chess is corrected to what chess records (check_neutral_allowed).
        row["neutral"] = False
    row.update(new_result)
    row["played_at"] = _kept_played_at(league, target, row["played_at"])
    parsed = parse_match(league, row, errors)
    void_key = correction_void_key(parsed.submission.idempotency_key if parsed else None)
    if void_key:
        clean_key(void_key, errors)
    errors.raise_if_any()
    assert parsed is not None
    original = event_store.fact_of(target)
    changes: dict[str, Any] = {"replaces_id": target.pk, "reason": reason}
    if isinstance(parsed.fact, MatchRecorded):
        same_players = isinstance(original, MatchRecorded) and (
            parsed.fact.player_a_id,
            parsed.fact.player_b_id,
        ) == (original.player_a_id, original.player_b_id)
        changes["fixture_id"] = target.fixture_id if same_players else None
    elif isinstance(original, SideMatchRecorded):
        # A correction with the same sides keeps the fixture with sides the match played.
        same_sides = [sorted(side) for side in parsed.fact.sides] == [
            sorted(side) for side in original.sides
        ]
        changes["fixture_id"] = target.fixture_id if same_sides else None
    replacement = parsed.replaced(**changes)
    void = Submission(MatchVoided(match_id=target.pk, reason=reason), void_key)

    with transaction.atomic():
        event_store.lock_league(league)
        repeated = event_store.existing_for(league, void)
        if event_store.existing_for(league, replacement.submission) is None:
            check_match_state(league, replacement, errors)
        if repeated is None:
            check_not_voided(target, errors)
        if type(original) is type(replacement.fact) and _same_result(original, replacement):
            errors.add(
                "__all__",
                _("The correction is identical to the recorded result; change at least one field."),
                "unchanged",
            )
        errors.raise_if_any()
        voided, corrected = event_store.append(
            league, [void, replacement.submission], recorded_by=recorded_by
        )
    return voided, corrected


def recorded_row(match: Event) -> dict[str, Any]:
    """A recorded match as ``record_match``'s keyword arguments (what a correction starts
    from): a one-vs-one match by its two players, any other by its sides and positions."""
    row: dict[str, Any] = {
        "played_at": match.played_at,
        "points": match.points,
        "note": match.note,
    }
    if match.kind == Event.Kind.MATCH_RECORDED:
        row.update(
            player_a=match.player_a,
            player_b=match.player_b,
            score_a=match.score_a,
            neutral=match.neutral,
        )
        return row
    sides, places = sides_of_match(match)
    row.update(sides=sides, places=positions_text(places))
    return row


def _same_result(original: Any, replacement: Any) -> bool:
    """Whether a correction states the recorded result again (who recorded it, why, and
    the fixture a one-vs-one match played aside)."""
    fact = replacement.fact
    keep = {"replaces_id": fact.replaces_id, "reason": fact.reason}
    if isinstance(fact, MatchRecorded):
        keep["fixture_id"] = fact.fixture_id
    return dataclasses.replace(original, **keep) == fact


def _kept_played_at(league: League, target: Event, played_at: Any) -> Any:
    """A correction's ``played_at``: the recorded match's day, when the correction keeps the
    moment that day was stored as (local noon), else ``played_at`` as given.

    A match recorded with a date is stored at noon in the league's time zone. Kept as a
    moment, it would be checked as one: corrected on its own day before noon, the match would
    be refused as played in the future. Kept as its day, it is checked and stored as the date
    was (the same noon).
    """
    if played_at != target.played_at or target.played_at is None:
        return played_at
    day = league_day(league, target.played_at)
    return day if target.played_at == local_noon(day, league.time_zone) else played_at
