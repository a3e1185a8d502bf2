"""Win / draw / loss probabilities: a Davidson (1970) draw model tied to the Glicko-2 score.

The Glicko-2 expected score ``E`` (:func:`~engine.prediction.win_probability_array`)
counts a draw as half a win; it says nothing about how often games are drawn. This module
splits ``E`` into three probabilities with one league-wide draw parameter ``nu >= 0``:

* Davidson's model: with strengths ``u`` and ``1/u`` (``u > 0``),
  ``P(win) = u / D``, ``P(draw) = nu / D``, ``P(loss) = (1/u) / D``, ``D = u + 1/u + nu``.
* ``u`` is chosen per game so that the model's expected score is exactly Glicko-2's:
  ``P(win) + P(draw) / 2 = E``. That is the quadratic ``(1 - E) u^2 + nu (1/2 - E) u - E = 0``,
  whose positive root is taken in a cancellation-free form.

So ``P(win) + P(draw) + P(loss) = 1`` and ``P(win) + P(draw) / 2 = E`` for every ``nu``;
``nu = 0`` gives ``P(draw) = 0`` and ``P(win) = E``; swapping the players swaps win and loss.
``nu / (2 + nu)`` is the draw probability of two equal players (:attr:`DrawModel.draw_rate`).
As ``nu`` grows, ``P(draw)`` tends to ``2 min(E, 1 - E)``, the most draws that ``E`` allows.

``nu`` is fitted by maximum likelihood on a league's own results, each game predicted from the
ratings both players entered its period with (the fold's ``rating_before`` / ``rd_before``):
a grid over the draw rate ``[0, 1)`` then golden-section search in the best grid cell, NumPy
only. A league without draws gets ``nu = 0`` exactly (every decisive game's likelihood falls as
``nu`` grows, so 0 is the maximum). See ``engine/OUTCOMES.md``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from numbers import Real

import numpy as np
import numpy.typing as npt

from engine.errors import InvalidParameterError
from engine.fold import History, MatchArrays
from engine.prediction import PROBABILITY_CLIP, win_probability_array
from engine.scoring import match_predictions

__all__ = [
    "MAX_DRAW_RATE",
    "DrawModel",
    "OutcomeProbabilities",
    "draw_rate_for_nu",
    "fit_draw_model",
    "fit_draw_model_from_history",
    "log_likelihood",
    "nu_for_draw_rate",
    "outcome_log_loss_array",
    "outcome_probabilities",
    "outcome_probabilities_array",
]

FloatArray = npt.NDArray[np.float64]

#: Upper end of the fitted draw rate between equals (``nu`` about 2e6): a league of draws only.
MAX_DRAW_RATE = 1.0 - 1e-6
#: Grid cells over the draw rate before the golden-section search.
GRID_POINTS = 65
#: Golden-section stops when the bracket on the draw rate is this narrow.
FIT_TOLERANCE = 1e-9


def nu_for_draw_rate(draw_rate: float) -> float:
    """``nu`` whose draw probability between equal players is ``draw_rate`` (in ``[0, 1)``)."""
    if not (0.0 <= draw_rate < 1.0):
        raise InvalidParameterError(f"draw rate must be in [0, 1), got {draw_rate!r}")
    return 2.0 * draw_rate / (1.0 - draw_rate)


def draw_rate_for_nu(nu: float) -> float:
    """The draw probability between equal players under ``nu`` (``nu / (2 + nu)``)."""
    _check_nu(nu)
    return nu / (2.0 + nu)


def _check_nu(nu: float) -> float:
    if isinstance(nu, bool) or not isinstance(nu, Real) or not math.isfinite(nu):
        raise InvalidParameterError(f"nu must be a finite number, got {nu!r}")
    if nu < 0:
        raise InvalidParameterError(f"nu must be at least 0, got {nu!r}")
    return float(nu)


def _split(expected: FloatArray, nu: float) -> tuple[FloatArray, FloatArray, FloatArray]:
    """(win, draw, loss) for expected scores ``expected`` under ``nu``; no checks."""
    # Work on the underdog's side, e = min(E, 1 - E) <= 1/2, where b = nu (1/2 - e) >= 0 and
    # the root u = 2e / (b + sqrt(b^2 + 4 e (1 - e))) <= 1 has no cancellation.
    low = np.minimum(expected, 1.0 - expected)
    b = nu * (0.5 - low)
    root = b + np.sqrt(b * b + 4.0 * low * (1.0 - low))
    # root is 0 only for e = 0 with nu = 0: a certain loss, u = 0.
    u = np.divide(2.0 * low, root, out=np.zeros_like(low), where=root > 0.0)
    # Multiply D by u: P(small) = u^2 / (u^2 + 1 + nu u), P(draw) = nu u / (...), P(big) = 1 / (...)
    denominator = u * u + 1.0 + nu * u
    small = u * u / denominator
    draw = nu * u / denominator
    big = 1.0 / denominator
    favourite = expected > 0.5
    win: FloatArray = np.where(favourite, big, small)
    loss: FloatArray = np.where(favourite, small, big)
    return win, draw, loss


def outcome_probabilities_array(
    expected: npt.ArrayLike, nu: float
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Vectorised (win, draw, loss) for the first player, from Glicko-2 expected scores.

    ``expected`` holds ``E`` in ``[0, 1]`` (for example from ``win_probability_array``).
    """
    e = np.asarray(expected, dtype=np.float64)
    if e.size and not (np.all(np.isfinite(e)) and np.all((e >= 0.0) & (e <= 1.0))):
        raise InvalidParameterError("expected scores must be numbers in [0, 1]")
    return _split(e, _check_nu(nu))


@dataclass(frozen=True)
class OutcomeProbabilities:
    """The first-named player's chances: ``win + draw + loss == 1`` (up to rounding)."""

    win: float
    draw: float
    loss: float

    @property
    def expected_score(self) -> float:
        """``win + draw / 2``: the Glicko-2 expected score the probabilities were split from."""
        return self.win + self.draw / 2.0


def outcome_probabilities(
    rating_a: float, rd_a: float, rating_b: float, rd_b: float, nu: float, advantage: float = 0.0
) -> OutcomeProbabilities:
    """A's chances of winning, drawing and losing against B under the draw parameter ``nu``.

    ``advantage`` (rating points) is A's, as in :func:`engine.prediction.win_probability`.
    """
    expected = win_probability_array(rating_a, rd_a, rating_b, rd_b, advantage)
    win, draw, loss = outcome_probabilities_array(expected, nu)
    return OutcomeProbabilities(float(win), float(draw), float(loss))


def _check_results(expected: npt.ArrayLike, score: npt.ArrayLike) -> tuple[FloatArray, FloatArray]:
    e = np.asarray(expected, dtype=np.float64)
    s = np.asarray(score, dtype=np.float64)
    if e.shape != s.shape or e.ndim != 1:
        raise InvalidParameterError(
            "expected scores and results must be 1-D arrays of equal length"
        )
    if not (np.all(np.isfinite(e)) and np.all((e >= 0.0) & (e <= 1.0))):
        raise InvalidParameterError("expected scores must be numbers in [0, 1]")
    if not np.all((s == 0.0) | (s == 0.5) | (s == 1.0)):
        raise InvalidParameterError("results must be 1, 0.5 or 0")
    return e, s


def outcome_log_loss_array(
    win: npt.ArrayLike, draw: npt.ArrayLike, loss: npt.ArrayLike, score: npt.ArrayLike
) -> FloatArray:
    """Per-game ``-ln P(observed outcome)`` (score 1, 0.5, 0), probabilities clipped at 1e-15."""
    s = np.asarray(score, dtype=np.float64)
    p = np.where(
        s == 1.0,
        np.asarray(win, dtype=np.float64),
        np.where(s == 0.5, np.asarray(draw, dtype=np.float64), np.asarray(loss, dtype=np.float64)),
    )
    result: FloatArray = -np.log(np.clip(p, PROBABILITY_CLIP, 1.0))
    return result


def log_likelihood(expected: npt.ArrayLike, score: npt.ArrayLike, nu: float) -> float:
    """Total log-likelihood of the results ``score`` under ``nu`` (probabilities clipped)."""
    e, s = _check_results(expected, score)
    win, draw, loss = _split(e, _check_nu(nu))
    return -float(np.sum(outcome_log_loss_array(win, draw, loss, s)))


@dataclass(frozen=True)
class DrawModel:
    """A fitted draw parameter, with what it was fitted on.

    ``draw_rate`` is the draw probability between two equal players, ``nu / (2 + nu)``;
    ``log_likelihood`` is the fitted model's total over the ``games`` it was fitted on
    (probabilities clipped at 1e-15, as everywhere in scoring).
    """

    nu: float
    draw_rate: float
    games: int
    draws: int
    log_likelihood: float

    def probabilities(self, expected: npt.ArrayLike) -> tuple[FloatArray, FloatArray, FloatArray]:
        """(win, draw, loss) for expected scores under this model."""
        return outcome_probabilities_array(expected, self.nu)


def fit_draw_model(expected: npt.ArrayLike, score: npt.ArrayLike) -> DrawModel:
    """Fit ``nu`` by maximum likelihood to results ``score`` predicted as ``expected``.

    The search runs over the draw rate ``d = nu / (2 + nu)`` in ``[0, MAX_DRAW_RATE]``: the
    log-likelihood on a grid of ``GRID_POINTS`` values, then golden-section search in the two
    cells around the best grid point, to ``FIT_TOLERANCE`` on ``d``. Bounded by construction;
    a league with no draws gets exactly 0 without a search.
    """
    e, s = _check_results(expected, score)
    if e.size == 0:
        raise InvalidParameterError("there are no games to fit the draw model on")
    draws = int(np.count_nonzero(s == 0.5))
    if draws == 0:
        return DrawModel(
            nu=0.0, draw_rate=0.0, games=int(e.size), draws=0, log_likelihood=_loglik(e, s, 0.0)
        )

    def objective(rate: float) -> float:
        return _loglik(e, s, 2.0 * rate / (1.0 - rate))

    grid = np.linspace(0.0, MAX_DRAW_RATE, GRID_POINTS)
    values = [objective(float(rate)) for rate in grid]
    best = int(np.argmax(values))
    low = float(grid[max(best - 1, 0)])
    high = float(grid[min(best + 1, GRID_POINTS - 1)])
    rate = _golden_section_max(objective, low, high)
    # The grid point itself may beat the search's end point on a flat or kinked objective.
    if values[best] > objective(rate):
        rate = float(grid[best])
    nu = 2.0 * rate / (1.0 - rate)
    return DrawModel(
        nu=nu,
        draw_rate=rate,
        games=int(e.size),
        draws=draws,
        log_likelihood=_loglik(e, s, nu),
    )


def _loglik(e: FloatArray, s: FloatArray, nu: float) -> float:
    win, draw, loss = _split(e, nu)
    return -float(np.sum(outcome_log_loss_array(win, draw, loss, s)))


INV_PHI = (math.sqrt(5.0) - 1.0) / 2.0


def _golden_section_max(f: Callable[[float], float], low: float, high: float) -> float:
    """Maximiser of a unimodal ``f`` on ``[low, high]`` by golden-section search."""
    a, b = low, high
    c = b - INV_PHI * (b - a)
    d = a + INV_PHI * (b - a)
    fc, fd = f(c), f(d)
    while b - a > FIT_TOLERANCE:
        if fc >= fd:
            b, d, fd = d, c, fc
            c = b - INV_PHI * (b - a)
            fc = f(c)
        else:
            a, c, fc = c, d, fd
            d = a + INV_PHI * (b - a)
            fd = f(d)
    return (a + b) / 2.0


def fit_draw_model_from_history(
    matches: MatchArrays, history: History, n_players: int
) -> DrawModel:
    """Fit ``nu`` on a league's matches, each predicted from its start-of-period ratings.

    ``history`` is the fold's (``fold(matches, ...).history``): its ``rating_before`` /
    ``rd_before`` are the values the players entered each period with.
    """
    if len(matches) == 0:
        raise InvalidParameterError("there are no games to fit the draw model on")
    expected = match_predictions(matches, history, n_players)
    return fit_draw_model(expected, matches.score_a)
