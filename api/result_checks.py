"""The write side's checks of one result, run on the fields of a body that parsed.

``league.services.record_match`` parses a result and then checks it against stored rows and
the clock, but only once everything parsed, and the API's field checks run before it: so a
body's problems came out one stage at a time. These are the same checks
(``league.validation``) applied to whatever parsed, for the serializer to report with the
field errors. Errors are keyed by the field the client sent (``played_on`` or
``played_at``). The service runs them all again under the league lock.
"""

from __future__ import annotations

from typing import Any

from league.models import League, Player
from league.validation import (
    Errors,
    check_active,
    check_opponents,
    check_played_at,
    parse_played_at,
    resolve_player,
)


def check_result(league: League, attrs: dict[str, Any], errors: Errors) -> None:
    """Add to ``errors`` what the write service would refuse in the parsed ``attrs``."""
    player_a = _player(league, attrs, "player_a", errors)
    player_b = _player(league, attrs, "player_b", errors)
    check_opponents(player_a, player_b, errors)
    check_active(player_a, player_b, errors)
    sent = [field for field in ("played_at", "played_on") if field in attrs]
    if len(sent) == 1:
        (field,) = sent
        when = parse_played_at(league, attrs[field], errors, field)
        if when is not None:
            check_played_at(league, *when, errors, field)


def _player(league: League, attrs: dict[str, Any], field: str, errors: Errors) -> Player | None:
    if field not in attrs:
        return None
    return resolve_player(league, attrs[field], field, errors)
