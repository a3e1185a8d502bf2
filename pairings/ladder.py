"""Ladder challenges: each player meets someone within a few places of them on the ladder.

``ladder_round`` pairs as many players as it can with partners at most ``max_distance``
ranks apart, avoiding pairs that met recently, then preferring the closest ranks. The
lower-ranked player is the challenger and is named first.
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Sequence
from dataclasses import dataclass

from pairings.matching import Cost, cheapest_matching
from pairings.round_robin import Pairing


@dataclass(frozen=True)
class LadderPlayer:
    """A player on the ladder at ``rank`` (1 = top)."""

    id: Hashable
    rank: int


@dataclass(frozen=True)
class LadderRound:
    """The challenges (challenger first) and the players left without one."""

    pairings: tuple[Pairing, ...]
    unpaired: tuple[Hashable, ...]


def ladder_round(
    players: Sequence[LadderPlayer],
    *,
    max_distance: int,
    recent: Collection[frozenset[Hashable]] = (),
) -> LadderRound:
    """Challenges within ``max_distance`` ranks (1 or more), as many players paired as can be.

    Among the largest sets of challenges: fewest pairs in ``recent``, then the smallest sum
    of rank distances.
    """
    if max_distance < 1:
        raise ValueError("The rank distance must be at least 1.")
    ids = [p.id for p in players]
    if len(set(ids)) != len(ids):
        raise ValueError("Each player may appear once on the ladder.")
    ordered = sorted(players, key=lambda p: p.rank)
    costs: dict[tuple[Hashable, Hashable], Cost] = {}
    for i, a in enumerate(ordered):
        for b in ordered[i + 1 :]:
            distance = b.rank - a.rank
            if distance > max_distance:
                break
            costs[(a.id, b.id)] = (1 if frozenset((a.id, b.id)) in recent else 0, distance)
    pairs = cheapest_matching([p.id for p in ordered], costs)
    paired = {player for pair in pairs for player in pair}
    # (higher, lower) from the matching: the lower-ranked challenger is named first.
    pairings = tuple(Pairing(lower, higher) for higher, lower in pairs)
    unpaired = tuple(p.id for p in ordered if p.id not in paired)
    return LadderRound(pairings, unpaired)
