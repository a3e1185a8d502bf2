"""The event store: the only code that appends events to a league's history.

``store`` appends a few events at a time (forms, the API); ``bulk`` appends a file's worth in
batches with the same guarantees; ``vocabulary`` names every kind of fact; ``signals`` announces
what was appended to the read side.
"""

from league.event_store.store import (
    append,
    content_of,
    existing_for,
    find_by_key,
    idempotency_conflict,
    lock_league,
    next_seq,
)

__all__ = [
    "append",
    "content_of",
    "existing_for",
    "find_by_key",
    "idempotency_conflict",
    "lock_league",
    "next_seq",
]
