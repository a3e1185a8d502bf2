"""Full round robins from Berger tables: every pair meets once per cycle, byes for odd fields.

``round_robin(players)`` lists the rounds of one cycle (``double=True``: two cycles, the
second with every pairing's sides swapped). With an odd number of players a bye joins the
field: the player drawn against it sits the round out, once per cycle each.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Pairing:
    """Two players; ``first`` takes the first-named side (white, home)."""

    first: Hashable
    second: Hashable


@dataclass(frozen=True)
class Round:
    """One round: its pairings and the players who sit it out (a bye)."""

    number: int
    pairings: tuple[Pairing, ...]
    byes: tuple[Hashable, ...] = field(default=())


def round_robin(players: Sequence[Hashable], *, double: bool = False) -> list[Round]:
    """The rounds of a round robin of ``players`` (two or more distinct ids), Berger's order.

    The table is the circle method with the ring advanced by half the field each round
    (Berger's tables): with ``n`` players (one more, the bye, when odd) there are ``n - 1``
    rounds per cycle; the last player is fixed and alternates sides, the others alternate
    sides from round to round except around their game against the fixed player, so nobody's
    firsts and seconds differ by more than one in a cycle.
    """
    field_ = list(players)
    if len(field_) < 2:
        raise ValueError("A round robin needs at least two players.")
    if len(set(field_)) != len(field_):
        raise ValueError("Each player may appear once in a round robin.")
    bye = object()
    if len(field_) % 2:
        field_.append(bye)
    n = len(field_)
    ring, fixed = field_[:-1], field_[-1]
    m, half = n - 1, n // 2
    cycle: list[list[tuple[Hashable, Hashable]]] = []
    for r in range(m):
        # Slot q holds ring player (q - r * half) mod m: advancing by half the field makes a
        # player change rows (sides) from one round to the next.
        at = [ring[(q - r * half) % m] for q in range(m)]
        games = [(fixed, at[0]) if r % 2 == 0 else (at[0], fixed)]
        games += [(at[q], at[m - q]) for q in range(1, half)]
        cycle.append(games)
    cycles = [cycle] if not double else [cycle, [[(b, a) for a, b in games] for games in cycle]]
    rounds: list[Round] = []
    for games_by_round in cycles:
        for games in games_by_round:
            pairings = tuple(Pairing(a, b) for a, b in games if a is not bye and b is not bye)
            byes = tuple(a if b is bye else b for a, b in games if bye in (a, b))
            rounds.append(Round(len(rounds) + 1, pairings, byes))
    return rounds
