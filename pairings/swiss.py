"""One Swiss round for a club night: score groups, no repeats, sides alternating, one bye.

A Dutch-system variant solved as one weighted matching (``pairings.matching``); the
rules, in the order they count, are in ``PAIRINGS.md``:

1. no pairing is repeated while any pairing of the field avoids it;
2. the bye (odd fields) goes to a player who has not had one while any has not;
3. it goes to the lowest score, then the lowest-ranked, player who can take it;
4. players meet players of their own score (squared half-point differences are minimised);
5. (sides) no player gets a side they must not have, then as few unmet preferences as possible;
6. within a score group the top half meets the bottom half in rank order (1 v 1 + g/2, …).
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Sequence
from dataclasses import dataclass, field

from pairings.matching import Cost, cheapest_matching
from pairings.round_robin import Pairing

FIRST, SECOND = "first", "second"
_BYE = ("bye",)


@dataclass(frozen=True)
class SwissPlayer:
    """A player entering a round: score so far, rank (1 = best rated), sides and bye so far.

    ``sides`` lists the sides played in earlier rounds, oldest first ("first"/"second").
    """

    id: Hashable
    score: float
    rank: int
    sides: tuple[str, ...] = field(default=())
    had_bye: bool = False


@dataclass(frozen=True)
class SwissRound:
    """The pairings of one round (``first`` takes the first-named side) and the bye, if any."""

    pairings: tuple[Pairing, ...]
    bye: Hashable | None


def _preference(player: SwissPlayer) -> tuple[str | None, int]:
    """The side ``player`` should get and how strongly (2: must, 1: should, 0: none)."""
    firsts = player.sides.count(FIRST)
    seconds = player.sides.count(SECOND)
    last_two = player.sides[-2:]
    if len(last_two) == 2 and last_two[0] == last_two[1]:
        return (SECOND if last_two[0] == FIRST else FIRST), 2
    if abs(firsts - seconds) > 1:
        return (SECOND if firsts > seconds else FIRST), 2
    if firsts != seconds:
        return (SECOND if firsts > seconds else FIRST), 1
    if player.sides:
        return (SECOND if player.sides[-1] == FIRST else FIRST), 1
    return None, 0


def _sides(a: SwissPlayer, b: SwissPlayer) -> tuple[SwissPlayer, SwissPlayer, int, int]:
    """(first, second, forced clashes, unmet preferences) for the pairing of ``a`` and ``b``.

    The stronger preference wins; between equal ones the higher-ranked player's.
    """
    want_a, strength_a = _preference(a)
    want_b, strength_b = _preference(b)
    if (strength_b, -b.rank) > (strength_a, -a.rank):
        a, b, want_a, strength_a, want_b, strength_b = b, a, want_b, strength_b, want_a, strength_a
    first, second = (a, b) if want_a in (FIRST, None) else (b, a)
    got_b = SECOND if first is a else FIRST
    unmet = 1 if (want_b is not None and want_b != got_b) else 0
    forced = 1 if unmet and strength_b == 2 else 0
    return first, second, forced, unmet


class NoPairing(ValueError):
    """No pairing of the round keeps every forbidden pair apart."""


def swiss_round(
    players: Sequence[SwissPlayer],
    played: Collection[frozenset[Hashable]] = (),
    *,
    use_sides: bool = True,
    forbidden: Collection[frozenset[Hashable]] = (),
) -> SwissRound:
    """Pair ``players`` for one Swiss round.

    ``played`` holds the pairs that have met already (as ``frozenset({a, b})``): avoided
    while any pairing of the field avoids them. ``forbidden`` pairs are never made (an
    absolute rule, before every other): :class:`NoPairing` when no pairing of the whole
    field (one bye in an odd field) avoids them. With ``use_sides`` the sport has sides
    (white/black, home/away) and they alternate; without, the higher-ranked player is named
    first.
    """
    ids = [p.id for p in players]
    if len(set(ids)) != len(ids):
        raise ValueError("Each player may appear once in a round.")
    if len(players) < 2:
        raise ValueError("A round needs at least two players.")
    by_id = {p.id: p for p in players}
    groups: dict[int, list[SwissPlayer]] = {}
    for p in players:
        groups.setdefault(_half_points(p.score), []).append(p)
    place: dict[Hashable, tuple[int, int]] = {}
    for members in groups.values():
        members.sort(key=lambda p: p.rank)
        for index, p in enumerate(members):
            place[p.id] = (index, len(members))
    # Bye order: lowest score first, then the lowest-ranked (largest rank number) first.
    bye_order = sorted(players, key=lambda p: (p.score, -p.rank))
    bye_position = {p.id: index for index, p in enumerate(bye_order)}

    costs: dict[tuple[Hashable, Hashable], Cost] = {}
    nodes: list[Hashable] = sorted(ids, key=lambda i: by_id[i].rank)
    for i, a_id in enumerate(nodes):
        a = by_id[a_id]
        for b_id in nodes[i + 1 :]:
            b = by_id[b_id]
            if frozenset((a_id, b_id)) in forbidden:
                continue  # not an edge: the matching cannot make it
            repeat = 1 if frozenset((a_id, b_id)) in played else 0
            gap = _half_points(a.score) - _half_points(b.score)
            forced, unmet = _sides(a, b)[2:] if use_sides else (0, 0)
            dutch = 0
            if gap == 0:
                (pa, size), (pb, _) = place[a_id], place[b_id]
                dutch = abs(abs(pa - pb) - size // 2)
            costs[(a_id, b_id)] = (repeat, 0, 0, 0, gap * gap, forced, unmet, dutch)
    if len(players) % 2:
        nodes.append(_BYE)
        for p in players:
            costs[(p.id, _BYE)] = (0, 1 if p.had_bye else 0, bye_position[p.id], 0, 0, 0, 0, 0)
    pairs = cheapest_matching(nodes, costs)
    if 2 * len(pairs) < len(nodes):
        raise NoPairing("No pairing of the round keeps every forbidden pair apart.")
    bye = None
    pairings: list[Pairing] = []
    for a_id, b_id in pairs:
        if b_id == _BYE:
            bye = a_id
            continue
        a, b = by_id[a_id], by_id[b_id]
        first, second = _sides(a, b)[:2] if use_sides else (a, b)
        pairings.append(Pairing(first.id, second.id))
    return SwissRound(tuple(pairings), bye)


def _half_points(score: float) -> int:
    return round(score * 2)
