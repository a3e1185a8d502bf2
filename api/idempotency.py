"""The ``Idempotency-Key`` header, mapped onto the event store's idempotency key.

Duplicates are stopped by the database (``UNIQUE(league, idempotency_key)`` on events),
never by a cache, and the write services compare a retried request with the stored event
(same content: the stored event is returned; different content: an
``idempotency_conflict`` error, which the API renders as 422). Two identical requests
arriving together need nothing more here: ``league.event_store`` serialises a league's
writers and resolves a unique-key race itself, so the later one answers like a retry. The
API only decides which store key a request maps to:

- one result:  ``match:<key>``
- one void:    ``void:<key>``
- a round of n results: row i is stored under ``round:<key>:<n>:<i>``.
- one fixture scheduled: ``fixture:<key>``; one cancelled: ``cancel-fixture:<key>``.
- a player's report: ``player-report:<key>``; a player's challenge: ``player-challenge:<key>``
  (``api.players``).
- about events (competitions): ``event:<key>`` (created), ``entry:<key>``,
  ``withdrawal:<key>``, ``bye:<key>``, ``pairing:<key>`` (a round published), ``forfeit:<key>``.

The prefix scopes a client's key to the kind of request, so a key used for a result can
never be mistaken for a round row or for a key written by another part of the
application. A round stores one event per row, each with its own key, because a round is
n independent facts that happen to be submitted together; folding the row count into the
keys makes a retry with more or fewer rows map to new keys, and
``check_round_is_whole`` then sees rows stored under the same client key for a different
row count and refuses the request (422) inside the same transaction, so nothing is
written. Colons are not allowed in a client key so that ``round:<key>:`` is an exact
prefix, and so that ``client_key_of`` can read the client's key back out of a store key:
the write side's conflict messages name the key it stored, the client reads the one it sent.

The response to a write is built only from the stored event's immutable fields, so a
retry rebuilds byte-for-byte the body the first request received, with the same status.
"""

from __future__ import annotations

import re

from rest_framework import exceptions, status
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request

from league.idempotency_keys import scoped_key
from league.models import Event, League

HEADER = "Idempotency-Key"
IDEMPOTENCY_CONFLICT = "idempotency_conflict"
MATCH_SCOPE, VOID_SCOPE, ROUND_SCOPE = "match", "void", "round"
FIXTURE_SCOPE, CANCEL_FIXTURE_SCOPE = "fixture", "cancel-fixture"
REPORT_SCOPE, CHALLENGE_SCOPE = "player-report", "player-challenge"
#: The scopes of the requests about events (competitions): one fact each.
COMPETITION_SCOPES = (
    "event", "entry", "withdrawal", "bye", "pairing", "forfeit", "tie_game", "forbidden",
)  # fmt: skip
MAX_LENGTH = 100
# Visible ASCII without the colon (used as the separator in store keys).
KEY_PATTERN = re.compile(rf"[!-9;-~]{{1,{MAX_LENGTH}}}")


class IdempotencyConflict(exceptions.APIException):
    """The Idempotency-Key was already used with a different request body (422)."""

    status_code = status.HTTP_422_UNPROCESSABLE_ENTITY
    default_detail = "This Idempotency-Key was already used with a different request."
    default_code = IDEMPOTENCY_CONFLICT

    def __init__(self, messages: list[str] | None = None) -> None:
        super().__init__()
        self.messages = messages or [str(self.default_detail)]


def client_key(request: Request) -> str | None:
    """The request's ``Idempotency-Key`` header, validated; ``None`` when absent."""
    raw = request.headers.get(HEADER)
    if raw is None:
        return None
    key = raw.strip()
    if not KEY_PATTERN.fullmatch(key):
        raise ValidationError(
            {
                HEADER: [
                    f"Must be 1 to {MAX_LENGTH} visible ASCII characters without spaces or "
                    "colons (a UUID is a good choice)."
                ]
            }
        )
    return key


def match_key(key: str | None) -> str | None:
    """Store key for one recorded result."""
    return scoped_key(MATCH_SCOPE, key)


def void_key(key: str | None) -> str | None:
    """Store key for one void."""
    return scoped_key(VOID_SCOPE, key)


def fixture_key(key: str | None) -> str | None:
    """Store key for one scheduled fixture."""
    return scoped_key(FIXTURE_SCOPE, key)


def cancel_fixture_key(key: str | None) -> str | None:
    """Store key for one cancelled fixture."""
    return scoped_key(CANCEL_FIXTURE_SCOPE, key)


def report_key(key: str | None) -> str | None:
    """Store key for one result reported by a player."""
    return scoped_key(REPORT_SCOPE, key)


def challenge_key(key: str | None) -> str | None:
    """Store key for one challenge issued by a player."""
    return scoped_key(CHALLENGE_SCOPE, key)


def competition_key(scope: str, key: str | None) -> str | None:
    """Store key for one request about an event: ``<scope>:<key>`` (``COMPETITION_SCOPES``)."""
    if scope not in COMPETITION_SCOPES:
        raise ValueError(f"Unknown scope {scope!r}.")
    return scoped_key(scope, key)


def client_key_of(store_key: str) -> str:
    """The client's key inside a store key made here (``round:<key>:3:0`` -> ``<key>``).

    The write side's messages name the key it stored; the client should read the one it sent.
    A key of another shape is returned unchanged.
    """
    scope, separator, rest = store_key.partition(":")
    scopes = (
        MATCH_SCOPE,
        VOID_SCOPE,
        ROUND_SCOPE,
        FIXTURE_SCOPE,
        CANCEL_FIXTURE_SCOPE,
        REPORT_SCOPE,
        CHALLENGE_SCOPE,
        *COMPETITION_SCOPES,
    )
    if not separator or scope not in scopes:
        return store_key
    return rest.split(":", 1)[0]


def round_row_keys(key: str | None, rows: int) -> list[str | None]:
    """Store keys for the rows of a round of ``rows`` results."""
    return [scoped_key(ROUND_SCOPE, key, rows, index) for index in range(rows)]


def check_round_is_whole(league: League, key: str | None, rows: int) -> None:
    """Refuse a round whose client key already holds rows of a different round.

    Call inside the transaction that stored the rows: afterwards the client key must own
    exactly ``rows`` events, all under this row count.
    """
    if key is None:
        return
    prefix = f"{scoped_key(ROUND_SCOPE, key)}:"
    candidates = Event.objects.filter(league=league, idempotency_key__startswith=prefix)
    # Compared again here: SQLite's LIKE ignores ASCII case, so "R-1" would count "r-1"'s rows.
    stored = [
        k for k in candidates.values_list("idempotency_key", flat=True) if k.startswith(prefix)
    ]
    if len(stored) != rows:
        raise IdempotencyConflict(
            ["This Idempotency-Key was already used for a round with a different set of rows."]
        )
