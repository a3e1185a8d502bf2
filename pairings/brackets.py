"""The arithmetic of a single-elimination bracket (a knockout cup), pure and without Django.

A bracket of ``size`` slots (a power of two) is played over ``log2(size)`` rounds. Seeds are
placed by the standard seeding: in round 1 seed ``s`` meets seed ``size + 1 - s`` (1 v 16,
8 v 9, ... in a bracket of 16), and the slots are ordered so that, if the better seed always
wins, the best four meet in the semi-finals (1 v 4, 2 v 3) and seeds 1 and 2 only in the
final. A field smaller than the bracket leaves the slots of the missing seeds (the worst
ones, ``n + 1`` to ``size``) empty: their opponents, the top seeds, have a bye in round 1 and
advance without a game.

The winners of ties ``2t - 1`` and ``2t`` of a round meet in tie ``t`` of the next one.
"""

from __future__ import annotations

from collections.abc import Sequence

#: A tie: its two sides (None: an empty slot, or a side not known yet).
type Pair[T] = tuple[T | None, T | None]


def rounds_for(entrants: int) -> int:
    """The rounds a cup of ``entrants`` needs (2 entrants: 1 round; 9 to 16: 4)."""
    if entrants < 2:
        raise ValueError("A cup needs at least two entrants.")
    return (entrants - 1).bit_length()


def bracket_size(entrants: int) -> int:
    """The smallest power of two that holds ``entrants`` (at least 2)."""
    return 1 << rounds_for(entrants)


def byes_for(entrants: int) -> int:
    """How many top seeds have a bye in round 1."""
    return bracket_size(entrants) - entrants


def fits(entrants: int, rounds: int) -> bool:
    """A cup of ``rounds`` rounds takes ``2^(rounds-1) + 1`` to ``2^rounds`` entrants."""
    return rounds >= 1 and entrants >= 2 and rounds_for(entrants) == rounds


def seed_order(size: int) -> list[int]:
    """The seeds (1 best) in slot order for a bracket of ``size`` slots (a power of two):
    ``[1, 16, 8, 9, 4, 13, 5, 12, 2, 15, 7, 10, 3, 14, 6, 11]`` for 16."""
    if size < 2 or size & (size - 1):
        raise ValueError(f"A bracket has a power of two slots (2, 4, 8, ...); got {size}.")
    order = [1, 2]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [seed for first in order for seed in (first, total - first)]
    return order


def first_round[T](seeded: Sequence[T], size: int | None = None) -> list[Pair[T]]:
    """Round 1's ties of the field ``seeded`` (best first) in bracket order: (better seed,
    worse seed); an empty slot (a bye for the other side) is None."""
    slots = bracket_size(len(seeded)) if size is None else size
    if len(seeded) > slots:
        raise ValueError(f"{len(seeded)} entrants do not fit a bracket of {slots}.")
    placed = [seeded[seed - 1] if seed <= len(seeded) else None for seed in seed_order(slots)]
    return [(placed[i], placed[i + 1]) for i in range(0, slots, 2)]


def next_round[T](winners: Sequence[T | None]) -> list[Pair[T]]:
    """The ties of the next round from the winners of this one's ties, in bracket order."""
    if len(winners) < 2 or len(winners) % 2:
        raise ValueError("A round after the first pairs an even number of ties' winners.")
    return [(winners[i], winners[i + 1]) for i in range(0, len(winners), 2)]


def tie_of(seed: int, size: int, round_number: int) -> int:
    """The tie (1-based, in bracket order) in which ``seed`` plays ``round_number`` if it
    wins every tie before."""
    slot = seed_order(size).index(seed)
    return slot // (1 << round_number) + 1


def meeting_round(seed_a: int, seed_b: int, size: int) -> int:
    """The round in which two seeds meet if both win every tie before it (the final is
    ``log2(size)``)."""
    if seed_a == seed_b:
        raise ValueError("A seed does not meet itself.")
    order = seed_order(size)
    a, b = order.index(seed_a), order.index(seed_b)
    return (a ^ b).bit_length()


__all__ = [
    "Pair",
    "bracket_size",
    "byes_for",
    "first_round",
    "fits",
    "meeting_round",
    "next_round",
    "rounds_for",
    "seed_order",
    "tie_of",
]
