"""The write side's checks of one match, run on the fields of a body that parsed.

``league.services.record_match`` parses a match and then checks it against stored rows and
the clock, but only once everything parsed, and the API's field checks run before it: so a
body's problems came out one stage at a time. These are the same rules
(``league.sides``, ``league.validation``) applied to whatever parsed, for the serializer to
report with the field errors, for every match whatever its sides. Errors are keyed by the
field the client sent (``played_on`` or ``played_at``). The service runs them all again
under the league lock.
"""

from __future__ import annotations

from typing import Any

from league.models import League, Player
from league.sides import PAIR_FIELDS, SIDES_FIELD, check_each_once, resolve_sides
from league.validation import (
    Errors,
    check_can_play,
    check_played_at,
    parse_played_at,
    resolve_player,
)


def check_result(league: League, attrs: dict[str, Any], errors: Errors) -> None:
    """Add to ``errors`` what the write service would refuse in the parsed ``attrs``."""
    check_can_play(_players(league, attrs, errors), errors)
    sent = [field for field in ("played_at", "played_on") if field in attrs]
    if len(sent) == 1:
        (field,) = sent
        when = parse_played_at(league, attrs[field], errors, field)
        if when is not None:
            check_played_at(league, *when, errors, field)


def _players(league: League, attrs: dict[str, Any], errors: Errors) -> list[tuple[str, Player]]:
    """(field, player) of the players ``attrs`` names that exist, each on one side."""
    if SIDES_FIELD in attrs:
        sides = resolve_sides(league, attrs[SIDES_FIELD], errors) or []
        return [(SIDES_FIELD, player) for side in sides for player in side]
    found = [
        (field, resolve_player(league, attrs[field], field, errors))
        for field in PAIR_FIELDS
        if field in attrs
    ]
    players = [(field, player) for field, player in found if player is not None]
    if len(players) == 2:
        check_each_once([[player] for _field, player in players], errors, PAIR_FIELDS)
    return players
