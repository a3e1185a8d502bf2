"""The FIDE Dutch system (Handbook C.04.3, 2025 rules, with C.04.1 and C.04.3 section E).

Public interface: :class:`DutchPlayer` (one player's pairing number, score, rating and
round-by-round history), :func:`pair_round` (pairs the next round) and :class:`DutchRound`
(its pairs, White first, and the pairing-allocated bye). Pure Python over plain values, no
Django; deterministic. The rules applied, and the deviations, are listed in ``PAIRINGS.md``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import Literal

Colour = Literal["w", "b"]
WHITE: Colour = "w"
BLACK: Colour = "b"

# Result kinds of one round of a player's history (the TRF result codes in brackets).
WIN = "win"  # played and won (1, W)
DRAW = "draw"  # played, drawn (=, D)
LOSS = "loss"  # played and lost (0, L)
FORFEIT_WIN = "forfeit_win"  # opponent did not show: a win, not a played game (+)
FORFEIT_LOSS = "forfeit_loss"  # did not show: a loss, not a played game (-)
PAIRING_BYE = "pairing_bye"  # the pairing-allocated bye (U), C.04.1.c
FULL_BYE = "full_bye"  # a requested bye scored as a win (F)
HALF_BYE = "half_bye"  # a requested bye scored as a draw (H)
ZERO_BYE = "zero_bye"  # absent or a requested bye for no points (Z)
RESULT_KINDS = frozenset(
    {WIN, DRAW, LOSS, FORFEIT_WIN, FORFEIT_LOSS, PAIRING_BYE, FULL_BYE, HALF_BYE, ZERO_BYE}
)


@dataclass(frozen=True)
class DutchGame:
    """One round of a player's history.

    ``opponent`` is the opponent's pairing number (None for a bye or absence), ``colour`` the
    colour the player had ('w'/'b', None when there was no opponent), ``played`` whether the
    game was actually played over the board (False for forfeits and byes: C.04.1 and the
    Dutch rules count only played games for colours and for "have met"), ``result`` one of
    :data:`RESULT_KINDS`.
    """

    opponent: int | None
    colour: Colour | None
    played: bool
    result: str


@dataclass(frozen=True)
class DutchPlayer:
    """A player entering a round.

    ``number`` is the pairing number (1 = top of the initial ranking), ``score`` the points
    so far (a Fraction or Decimal, exactly), ``rating`` the rating used for the initial
    ranking, ``rounds`` the history of the rounds before this one, oldest first, and
    ``absent_this_round`` True when the player is not to be paired (withdrawn, or a
    requested bye this round).
    """

    number: int
    score: Fraction | Decimal
    rating: int
    rounds: tuple[DutchGame, ...] = field(default=())
    absent_this_round: bool = False


@dataclass(frozen=True)
class DutchRound:
    """The pairs of a round, ``(white number, black number)`` by board, and the bye, if any."""

    pairs: list[tuple[int, int]]
    bye: int | None


def pair_round(
    players: Sequence[DutchPlayer],
    round_number: int,
    total_rounds: int,
    *,
    accelerated: bool = False,
    bye_points: Fraction | Decimal = Fraction(1),
    first_white: bool = True,
) -> DutchRound:
    """Pair round ``round_number`` (1-based) of ``total_rounds`` by the FIDE Dutch system.

    ``players`` are every player of the event (absent ones are skipped); ``accelerated``
    applies Baku acceleration (C.04.5.1, the virtual points of the first rounds);
    ``bye_points`` is what the pairing-allocated bye scores; ``first_white`` gives the top
    player White in round 1 (C.04.3 E.5, the lot drawn before round 1).
    Raises ``ValueError`` on inconsistent input or when no legal pairing exists.
    """
    raise NotImplementedError("FIDE Dutch pairing: engine in progress on branch h-dutch")
