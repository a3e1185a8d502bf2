"""The arithmetic of a double-elimination bracket, pure and without Django.

A double-elimination cup of depth ``k`` has a winners' bracket of ``2^k`` slots, seeded and
played exactly as a single-elimination cup (``pairings.brackets``: standard seeding, byes for
the top seeds). A player who loses a tie of the winners' bracket drops into the losers'
bracket; a player who loses a tie of the losers' bracket is out. The losers' bracket has
``2k - 2`` rounds:

- its round 1 pairs the losers of the winners' round 1 (the losers of ties ``2t - 1`` and
  ``2t`` meet in tie ``t``);
- its round ``2j`` sets the survivors of its round ``2j - 1`` (first side) against the
  players who lost in the winners' round ``j + 1`` (second side), who drop in reverse order
  (the loser of winners' tie ``t`` of ``m`` meets survivor ``m + 1 - t``), so a player does
  not meet again at once the one who beat them, nor a neighbour from the same quarter;
- its round ``2j + 1`` pairs its round ``2j``'s winners (ties ``2t - 1`` and ``2t``).

The grand final sets the winners' bracket champion (first) against the losers' bracket
champion (second; with a depth of 1, the loser of the only winners' tie). With a bracket
reset the cup plays a second final, between the same two, when the losers' bracket champion
wins the first (each finalist then has lost once); without it the grand final decides.

The cup is played in *rounds of play* (each published together): the winners' round ``r``
in round ``r``, the losers' round ``m`` in round ``m + 1`` (the earliest its sides can be
known), the grand final in round ``2k`` and its reset in round ``2k + 1``. Within a round of
play a tie's board is its place: the winners' ties first, then the losers' ties.

An empty side (an empty slot of round 1, the loser of a tie won without a game, a player
withdrawn) gives the other side a walkover; a tie with both sides empty sends nobody on.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pairings import brackets

#: The parts of a double-elimination bracket.
WINNERS, LOSERS, FINAL, RESET = "winners", "losers", "final", "reset"
#: Where a side of a tie comes from.
SLOT, WINNER_OF, LOSER_OF = "slot", "winner", "loser"


@dataclass(frozen=True, slots=True)
class Feed:
    """A side's source: slot ``ref`` of round 1's bracket (from 0), or the winner or the
    loser of tie ``ref`` (its index in the layout)."""

    kind: str
    ref: int


@dataclass(frozen=True, slots=True)
class TieSpec:
    """A tie of the layout: its index, part (winners, losers, final, reset), the round
    within its part (from 1) and place in it (from 1), the round of play and board it is
    played in, and where its two sides come from."""

    index: int
    part: str
    part_round: int
    position: int
    round_number: int
    board: int
    first: Feed
    second: Feed


def losers_rounds(depth: int) -> int:
    """The rounds of the losers' bracket (``2k - 2``)."""
    _check_depth(depth)
    return 2 * depth - 2


def rounds_of_play(depth: int, reset: bool) -> int:
    """The rounds of play a cup of ``depth`` needs at most (``2k``, ``2k + 1`` with a reset)."""
    _check_depth(depth)
    return 2 * depth + (1 if reset else 0)


def depth_of(rounds: int) -> int:
    """The winners' bracket depth of a cup played over ``rounds`` rounds of play."""
    if rounds < 2:
        raise ValueError("A double-elimination cup has at least two rounds of play.")
    return rounds // 2


def _check_depth(depth: int) -> None:
    if depth < 1:
        raise ValueError("A bracket has at least one round.")


def layout(depth: int, reset: bool) -> tuple[TieSpec, ...]:
    """Every tie of a double-elimination bracket of ``depth``, in an order where a tie comes
    after the ties its sides come from (by round of play, then board)."""
    _check_depth(depth)
    size = 1 << depth
    # (part, part round, position, round of play, first feed, second feed)
    raw: list[tuple[str, int, int, int, Feed, Feed]] = []
    index: dict[tuple[str, int, int], int] = {}

    def add(part: str, part_round: int, position: int, play: int, a: Feed, b: Feed) -> None:
        index[(part, part_round, position)] = len(raw)
        raw.append((part, part_round, position, play, a, b))

    for position in range(1, size // 2 + 1):
        add(WINNERS, 1, position, 1, Feed(SLOT, 2 * position - 2), Feed(SLOT, 2 * position - 1))
    for r in range(2, depth + 1):
        for position in range(1, (size >> r) + 1):
            add(
                WINNERS,
                r,
                position,
                r,
                Feed(WINNER_OF, index[(WINNERS, r - 1, 2 * position - 1)]),
                Feed(WINNER_OF, index[(WINNERS, r - 1, 2 * position)]),
            )
    for m in range(1, losers_rounds(depth) + 1):
        if m == 1:
            count = size // 4
            feeds = [
                (
                    Feed(LOSER_OF, index[(WINNERS, 1, 2 * t - 1)]),
                    Feed(LOSER_OF, index[(WINNERS, 1, 2 * t)]),
                )
                for t in range(1, count + 1)
            ]
        elif m % 2 == 0:
            j = m // 2
            count = size >> (j + 1)
            feeds = [
                (
                    Feed(WINNER_OF, index[(LOSERS, m - 1, t)]),
                    Feed(LOSER_OF, index[(WINNERS, j + 1, count + 1 - t)]),
                )
                for t in range(1, count + 1)
            ]
        else:
            count = size >> ((m + 1) // 2 + 1)
            feeds = [
                (
                    Feed(WINNER_OF, index[(LOSERS, m - 1, 2 * t - 1)]),
                    Feed(WINNER_OF, index[(LOSERS, m - 1, 2 * t)]),
                )
                for t in range(1, count + 1)
            ]
        for t, (a, b) in enumerate(feeds, start=1):
            add(LOSERS, m, t, m + 1, a, b)
    champion_w = Feed(WINNER_OF, index[(WINNERS, depth, 1)])
    champion_l = (
        Feed(WINNER_OF, index[(LOSERS, losers_rounds(depth), 1)])
        if depth > 1
        else Feed(LOSER_OF, index[(WINNERS, 1, 1)])
    )
    add(FINAL, 1, 1, 2 * depth, champion_w, champion_l)
    if reset:
        final = index[(FINAL, 1, 1)]
        add(RESET, 1, 1, 2 * depth + 1, Feed(WINNER_OF, final), Feed(LOSER_OF, final))
    part_order = {WINNERS: 0, LOSERS: 1, FINAL: 2, RESET: 3}
    order = sorted(range(len(raw)), key=lambda i: (raw[i][3], part_order[raw[i][0]], raw[i][2]))
    renumber = {old: new for new, old in enumerate(order)}
    boards: dict[int, int] = {}
    specs = []
    for old in order:
        part, part_round, position, play, a, b = raw[old]
        boards[play] = boards.get(play, 0) + 1

        def moved(feed: Feed) -> Feed:
            return feed if feed.kind == SLOT else Feed(feed.kind, renumber[feed.ref])

        specs.append(
            TieSpec(
                index=renumber[old],
                part=part,
                part_round=part_round,
                position=position,
                round_number=play,
                board=boards[play],
                first=moved(a),
                second=moved(b),
            )
        )
    return tuple(specs)


@dataclass(frozen=True, slots=True)
class Played[T]:
    """A tie as played: its sides (None: empty), whether it is decided, the winner and
    loser (None after a walkover or a double forfeit), whether it was decided without a game
    (a walkover), whether it waits for an earlier tie, and whether it is needed (a reset is
    needed only when the losers' bracket champion won the grand final)."""

    first: T | None
    second: T | None
    first_waiting: bool
    second_waiting: bool
    decided: bool
    winner: T | None
    loser: T | None
    walkover: bool
    needed: bool = True


#: Decides a tie with two known sides: (winner, loser) when decided, None while open.
type Decide[T] = Callable[[TieSpec, T, T], tuple[T | None, T | None] | None]


def play_out[T](
    specs: Sequence[TieSpec],
    slots: Sequence[T | None],
    decide: Decide[T],
    absent: Callable[[TieSpec, T], bool] = lambda spec, player: False,
) -> list[Played[T]]:
    """The bracket as far as ``decide`` settles its ties, in the layout's order.

    ``slots``: round 1's bracket (best seed's slot first, as ``brackets.first_round``);
    ``absent(spec, player)``: the player does not play that tie (withdrawn), so the other
    side has a walkover. A tie whose one side is empty (or absent) is a walkover for the
    other; with both empty it sends nobody on.
    """
    played: list[Played[T]] = []
    for spec in specs:

        def source(feed: Feed) -> tuple[T | None, bool]:
            if feed.kind == SLOT:
                return slots[feed.ref], False
            earlier = played[feed.ref]
            if not earlier.decided:
                return None, True
            return (earlier.winner if feed.kind == WINNER_OF else earlier.loser), False

        (a, a_waits), (b, b_waits) = source(spec.first), source(spec.second)
        if spec.part == RESET:
            final = played[spec.first.ref]
            if not final.decided:
                played.append(Played(None, None, True, True, False, None, None, False))
                continue
            if final.walkover or final.winner is None or final.winner == final.first:
                played.append(Played(None, None, False, False, True, None, None, True, False))
                continue
            # The losers' bracket champion won the grand final: the same two meet again,
            # in the grand final's order.
            a, b = final.first, final.second
        if a_waits or b_waits:
            played.append(Played(a, b, a_waits, b_waits, False, None, None, False))
            continue
        a_in = a is not None and not absent(spec, a)
        b_in = b is not None and not absent(spec, b)
        if not (a_in and b_in):
            through = a if a_in else b if b_in else None
            played.append(Played(a, b, False, False, True, through, None, True))
            continue
        assert a is not None
        assert b is not None
        outcome = decide(spec, a, b)
        if outcome is None:
            played.append(Played(a, b, False, False, False, None, None, False))
        else:
            winner, loser = outcome
            played.append(Played(a, b, False, False, True, winner, loser, False))
    return played


def champion[T](specs: Sequence[TieSpec], played: Sequence[Played[T]]) -> tuple[bool, T | None]:
    """Whether the cup is decided and its champion (None: nobody, after double forfeits)."""
    result: tuple[bool, T | None] = (False, None)
    for spec, tie in zip(specs, played, strict=True):
        if spec.part == FINAL or (spec.part == RESET and tie.needed):
            result = (tie.decided, tie.winner if tie.decided else None)
    return result


def seeded_slots[T](seeded: Sequence[T], depth: int) -> list[T | None]:
    """Round 1's slots for the field ``seeded`` (best first) in a bracket of ``depth``."""
    pairs = brackets.first_round(seeded, 1 << depth)
    return [side for pair in pairs for side in pair]


__all__ = [
    "FINAL",
    "LOSERS",
    "LOSER_OF",
    "RESET",
    "SLOT",
    "WINNERS",
    "WINNER_OF",
    "Feed",
    "Played",
    "TieSpec",
    "champion",
    "depth_of",
    "layout",
    "losers_rounds",
    "play_out",
    "rounds_of_play",
    "seeded_slots",
]
