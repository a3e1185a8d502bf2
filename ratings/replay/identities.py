"""Who a match counts for: players merged into others, as of one snapshot.

A ``player_merged`` event says a player is the same competitor as another; from it on, every
replay counts all of the merged player's matches (earlier ones too) as the surviving
player's, until a ``player_unmerged`` event undoes it. The event store keeps the players'
match columns as they were recorded; identities are mapped here, when a replay reads a
snapshot, so a full and an incremental replay of the same snapshot see the same matches.

Every reader of a snapshot's matches (one-vs-one today, matches with sides too) maps its
player ids through :func:`map_players` with the mapping :func:`merges_at` reads.
The services refuse chains (merging into a merged-away player, or merging a player others
were merged into), so one step of the mapping is the whole mapping.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from league.models import IDENTITY_KINDS, Event
from league.prepared_queries import PreparedQuery

_IDENTITY_FACTS = PreparedQuery(
    lambda league_id: (
        Event.objects.filter(league_id=league_id, kind__in=IDENTITY_KINDS)
        .order_by()
        .values_list("seq", "kind", "player_id", "other_player_id")
    )
)


def merges_at(league_id: int, through_seq: int) -> dict[int, int]:
    """Merged-away player id -> surviving player id, after the events with seq <= through_seq."""
    mapping: dict[int, int] = {}
    # The snapshot's bound and the order are applied here, not in the query: with either,
    # SQLite walks the (league, seq) index through every event of the league (0.1 s at
    # 1,000,000) instead of finding the few identity facts through (league, kind).
    rows = sorted(_IDENTITY_FACTS.rows(league_id=league_id))
    for seq, kind, player_id, other_id in rows:
        if seq > through_seq:
            break
        if kind == Event.Kind.PLAYER_MERGED:
            mapping[player_id] = other_id
        else:
            mapping.pop(player_id, None)
    return mapping


def map_players(ids: npt.NDArray[np.int64], mapping: dict[int, int]) -> npt.NDArray[np.int64]:
    """``ids`` with each merged-away player replaced by the player they were merged into."""
    if not mapping or ids.size == 0:
        return ids
    source = np.fromiter(mapping.keys(), dtype=np.int64, count=len(mapping))
    target = np.fromiter(mapping.values(), dtype=np.int64, count=len(mapping))
    order = np.argsort(source)
    source, target = source[order], target[order]
    at = np.clip(np.searchsorted(source, ids), 0, source.size - 1)
    return np.where(source[at] == ids, target[at], ids)


def players_counted_as(player_id: int, mapping: dict[int, int]) -> list[int]:
    """The stored player ids whose matches count as ``player_id``'s (none for a merged-away
    player; itself and the players merged into it otherwise)."""
    if player_id in mapping:
        return []
    return [player_id, *(source for source, target in mapping.items() if target == player_id)]
