"""The event store: the only code that appends events to a league's history.

``store`` appends a few facts at a time (forms, the API) and maps facts to rows and back;
``bulk`` appends a file's worth in batches with the same mapping and guarantees;
``vocabulary`` names every kind of fact; ``signals`` announces what was appended to the read
side.
"""

from league.event_store.store import (
    Submission,
    append,
    apply_to_players,
    existing_for,
    fact_of,
    facts_of,
    find_by_key,
    idempotency_conflict,
    lock_league,
    next_seq,
    row_fields,
    stored_facts_by_key,
    top_seq,
)

__all__ = [
    "Submission",
    "append",
    "apply_to_players",
    "existing_for",
    "fact_of",
    "facts_of",
    "find_by_key",
    "idempotency_conflict",
    "lock_league",
    "next_seq",
    "row_fields",
    "stored_facts_by_key",
    "top_seq",
]
