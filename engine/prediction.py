"""Win probability for a pairing, and the per-match loss functions used to score predictions.

``P(A beats B) = 1 / (1 + exp(-g(sqrt(phi_A^2 + phi_B^2)) (mu_A - mu_B)))`` uses both players'
uncertainty. Scalar functions return floats; the ``*_array`` variants take and return arrays.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from engine.glicko2 import g
from engine.params import SCALE

__all__ = [
    "PROBABILITY_CLIP",
    "brier",
    "brier_array",
    "log_loss",
    "log_loss_array",
    "win_probability",
    "win_probability_array",
]

FloatArray = npt.NDArray[np.float64]
ArrayLike = npt.ArrayLike

#: Predictions are kept this far from 0 and 1 inside log-loss, so that a confident miss costs
#: about 34.5 nats instead of infinity.
PROBABILITY_CLIP = 1e-15


def win_probability_array(
    rating_a: ArrayLike,
    rd_a: ArrayLike,
    rating_b: ArrayLike,
    rd_b: ArrayLike,
    advantage: ArrayLike = 0.0,
) -> FloatArray:
    """Vectorised :func:`win_probability` (an expected score: a draw counts as half a win).

    ``advantage`` (rating points, per pairing or one for all) is A's advantage (ADVANTAGE.md):
    ``g(sqrt(phi_A^2 + phi_B^2)) (mu_A + h / 173.7178 - mu_B)`` in the exponent.
    """
    diff = np.asarray(rating_a, dtype=np.float64) - np.asarray(rating_b, dtype=np.float64)
    shift = np.asarray(advantage, dtype=np.float64)
    if np.any(shift != 0.0):
        diff = diff + shift
    mu_diff = diff / SCALE
    phi_a = np.asarray(rd_a, dtype=np.float64) / SCALE
    phi_b = np.asarray(rd_b, dtype=np.float64) / SCALE
    x = g(np.sqrt(phi_a * phi_a + phi_b * phi_b)) * mu_diff
    # sigmoid(x) = exp(-logaddexp(0, -x)): no overflow for any x
    result: FloatArray = np.exp(-np.logaddexp(0.0, -x))
    return result


def win_probability(
    rating_a: float, rd_a: float, rating_b: float, rd_b: float, advantage: float = 0.0
) -> float:
    """Probability that A beats B, from both ratings and both RDs (and A's advantage)."""
    return float(win_probability_array(rating_a, rd_a, rating_b, rd_b, advantage))


def log_loss_array(p: ArrayLike, s: ArrayLike) -> FloatArray:
    """Per-match ``-[s ln p + (1 - s) ln(1 - p)]`` (draws: s = 0.5)."""
    q = np.clip(np.asarray(p, dtype=np.float64), PROBABILITY_CLIP, 1.0 - PROBABILITY_CLIP)
    score = np.asarray(s, dtype=np.float64)
    result: FloatArray = -(score * np.log(q) + (1.0 - score) * np.log1p(-q))
    return result


def log_loss(p: float, s: float) -> float:
    """Log-loss of result ``s`` (1, 0.5, 0) under prediction ``p``."""
    return float(log_loss_array(p, s))


def brier_array(p: ArrayLike, s: ArrayLike) -> FloatArray:
    """Per-match ``(p - s)^2``."""
    diff = np.asarray(p, dtype=np.float64) - np.asarray(s, dtype=np.float64)
    result: FloatArray = diff * diff
    return result


def brier(p: float, s: float) -> float:
    """Brier score of result ``s`` under prediction ``p``."""
    return float(brier_array(p, s))
