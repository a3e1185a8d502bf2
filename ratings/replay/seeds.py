"""Seeded players: the starting rating and RD a replay gives players seeded from a list.

A ``player_seeded`` event (``league.seeding``) gives a player a starting rating and RD; the
latest seed of each player counts. A replay puts them in its starting state for every
player still unrated there (``with_seeds``): the engine starts an unrated player from the
values the state holds (``engine.glicko2.pre_period``). A league without seeds starts from
exactly the state it did before, so its numbers do not change by a bit.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from engine.params import Glicko2Params
from engine.state import NEVER, RatingState
from league.models import Event
from league.prepared_queries import PreparedQuery

_SEEDS = PreparedQuery(
    lambda league_id: (
        Event.objects.filter(league_id=league_id, kind=Event.Kind.PLAYER_SEEDED)
        .order_by()
        .values_list("seq", "player_id", "seed_rating", "seed_rd")
    )
)


def seeds_of(league_id: int, through_seq: int) -> dict[int, tuple[float, float]]:
    """Player id -> (rating, RD) of the latest seed of each seeded player, among the
    league's events up to ``through_seq`` (a replay's snapshot)."""
    # No condition on seq and no order in the query: with either, SQLite walks the (league,
    # seq) index through every event of the league (0.1 s at 200,000 matches) instead of
    # finding the few seeds through the (league, kind, played_at) index. The snapshot's
    # bound and the order are applied here.
    rows = _SEEDS.rows(league_id=league_id)
    return {player: (rating, rd) for seq, player, rating, rd in sorted(rows) if seq <= through_seq}


def with_seeds(
    start: RatingState | None,
    seeds: dict[int, tuple[float, float]],
    player_ids: npt.NDArray[np.int64],
    params: Glicko2Params,
) -> RatingState | None:
    """``start`` (None: everyone unrated) with each seeded player that is still unrated in it
    starting from their seed (RD capped at the RD ceiling); ``start`` itself when no seed
    applies. ``player_ids`` are the replay's players in engine order (ascending ids)."""
    if not seeds:
        return start
    n = player_ids.size
    state = RatingState.unrated(n, params) if start is None else start.resized(n, params)
    ids = np.fromiter(seeds, dtype=np.int64, count=len(seeds))
    index = np.searchsorted(player_ids, ids)
    known = (index < n) & (player_ids[np.minimum(index, n - 1)] == ids)
    if not known.any():
        return start
    ratings = np.array([seeds[int(i)][0] for i in ids[known]], dtype=np.float64)
    rds = np.array([seeds[int(i)][1] for i in ids[known]], dtype=np.float64)
    at = index[known]
    unrated = state.last_period[at] == NEVER
    state.rating[at[unrated]] = ratings[unrated]
    state.rd[at[unrated]] = np.minimum(rds[unrated], params.max_rd)
    return state
