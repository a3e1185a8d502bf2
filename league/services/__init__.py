"""Write services: every change to a league's history goes through these functions.

- ``league.services.players``: register, rename, deactivate, reactivate, merge, unmerge,
  and a player's FIDE details;
- ``league.services.matches``: record a match, whatever its sides (``record_match``), a
  round of them (``record_round``), a fixture's result; the one parser of a match;
- ``league.services.corrections``: void a match, or void it and record the correction.

Each service validates its input, then, under the league lock, replays an idempotent retry
or runs the checks that depend on stored rows, and appends facts (``league.event_store``
vocabulary) through ``league.event_store.append``. Errors raise ``ValidationError`` with
field -> messages and write nothing. ``events_appended`` is sent once per call that stores
something.
"""

from league.services.corrections import correct_match, recorded_row, void_match
from league.services.matches import (
    MATCH_FIELDS,
    ParsedMatch,
    parse_match,
    record_fixture_result,
    record_match,
    record_round,
    sides_of_match,
)
from league.services.players import (
    deactivate_player,
    identify_player,
    merge_player,
    reactivate_player,
    register_player,
    rename_player,
    unmerge_player,
)

__all__ = [
    "MATCH_FIELDS",
    "ParsedMatch",
    "correct_match",
    "deactivate_player",
    "identify_player",
    "merge_player",
    "parse_match",
    "reactivate_player",
    "record_fixture_result",
    "record_match",
    "record_round",
    "recorded_row",
    "register_player",
    "rename_player",
    "sides_of_match",
    "unmerge_player",
    "void_match",
]
