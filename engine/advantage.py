"""Advantage of the first-named side, and the margin-of-victory outcome mapping.

Both are deviations from Glickman's paper, off by default (formulas and sources in
``engine/ADVANTAGE.md``):

- **advantage** ``h`` (rating points) for the first-named side of every game not marked
  neutral: in the expected score, the first-named player's opponent's mu is lowered by
  ``h / 173.7178`` and the second-named player's opponent's mu is raised by it, so
  ``E_a = 1 / (1 + exp(-g(phi_b) (mu_a + h' - mu_b)))`` with ``h' = h / 173.7178`` and
  ``E_b = 1 / (1 + exp(-g(phi_a) (mu_b - mu_a - h')))`` (Lichess's 2025 first-move advantage;
  the ``gamma`` term of PlayerRatings' ``glicko2``).
- **margin score**: ``s = 0.5 + 0.5 tanh(|margin| / scale)`` for the winner, ``1 - s`` for the
  loser, ``0.5`` for a draw; bounded in [0.5, 1] for a win, monotone in the margin, and the plain
  result again as ``scale -> 0`` or when the margin is unknown (NaN).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from engine.errors import InvalidParameterError
from engine.state import FloatArray

__all__ = ["game_advantage", "margin_score", "outcome_scores"]

BoolArray = npt.NDArray[np.bool_]


def game_advantage(n_games: int, neutral: npt.ArrayLike | None, advantage: float) -> FloatArray:
    """Per game, the first-named side's advantage in rating points (0 where neutral)."""
    if neutral is None:
        return np.full(n_games, float(advantage))
    flags = np.asarray(neutral, dtype=bool)
    if flags.shape != (n_games,):
        raise InvalidParameterError(f"neutral must have one flag per game ({n_games})")
    return np.where(flags, 0.0, float(advantage))


def margin_score(margin: npt.ArrayLike, scale: float) -> FloatArray:
    """``0.5 + 0.5 tanh(margin / scale)``: the first-named side's score for a signed margin.

    Bounded in [0, 1], increasing in ``margin``, 0.5 at 0, and ``margin_score(-m) = 1 -
    margin_score(m)`` up to rounding. ``scale`` (points) must be positive.
    """
    if not (isinstance(scale, int | float) and np.isfinite(scale) and scale > 0):
        raise InvalidParameterError(f"margin scale must be a positive number, got {scale!r}")
    m = np.asarray(margin, dtype=np.float64)
    result: FloatArray = 0.5 + 0.5 * np.tanh(m / float(scale))
    return result


def outcome_scores(score_a: npt.ArrayLike, margin: npt.ArrayLike, scale: float) -> FloatArray:
    """The scores the update uses when margins are on: the result decides who won, the
    margin how much.

    A win scores ``w = 0.5 + 0.5 tanh(|margin| / scale)``, a loss exactly ``1 - w``, a draw
    0.5; an unknown margin (NaN) gives the plain result (1 or 0), as ``tanh(inf) = 1``.
    A margin that contradicts its result (a win by 0 or less, a loss by 0 or more, a draw by
    anything but 0) is refused, not read as a draw or as its absolute value: every entry
    path refuses such points (``league.validation.check_points_agree``), so one here is a bug.
    """
    s = np.asarray(score_a, dtype=np.float64)
    signed = np.asarray(margin, dtype=np.float64)
    if s.shape != signed.shape:
        raise InvalidParameterError("score_a and margin must have the same shape")
    if np.any(np.isinf(signed)):
        raise InvalidParameterError("a margin must be finite (or NaN when unknown)")
    known = ~np.isnan(signed)
    wrong = known & (
        ((s == 1.0) & (signed <= 0)) | ((s == 0.0) & (signed >= 0)) | ((s == 0.5) & (signed != 0))
    )
    if np.any(wrong):
        first = int(np.flatnonzero(wrong)[0])
        raise InvalidParameterError(
            f"game {first}: margin {signed.flat[first]:g} contradicts its score "
            f"{s.flat[first]:g} ({int(wrong.sum())} such game(s)); a win needs a positive "
            "margin, a loss a negative one, a draw 0"
        )
    m = np.abs(signed)
    win = margin_score(np.where(np.isnan(m), np.inf, m), scale)
    result: FloatArray = np.where(s == 1.0, win, np.where(s == 0.0, 1.0 - win, 0.5))
    return result
