"""Predictive scoring of a configuration over a league's history (backtesting).

Every match is predicted from both players' ratings at the start of its period with the
pairing formula (:func:`~engine.prediction.win_probability_array`). Those ratings come
from the replay's own fold: a history row's ``rating_before``/``rd_before`` are exactly the
values a player entered the period with, so scoring needs no second Glicko-2 implementation.

Baselines, scored on the same matches: a constant 0.5, and a plain Elo (base 10, 400 scale)
with K tuned over a small grid. Elo is run period by period too -- predictions from the
ratings at the start of the period, updates summed over the period -- so that both systems see
the same information when they predict.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from engine.errors import InvalidParameterError
from engine.fold import FoldResult, History, MatchArrays, fold
from engine.instant import fold_instant
from engine.params import Glicko2Params
from engine.prediction import brier_array, log_loss_array, win_probability_array
from engine.state import FloatArray, IntArray, RatingState

__all__ = [
    "CALIBRATION_BINS",
    "ELO_K_GRID",
    "CalibrationBin",
    "Metrics",
    "Scores",
    "calibration_bin_of",
    "correct_array",
    "elo_predictions",
    "match_predictions",
    "metrics",
    "score_fold",
    "score_instant",
    "tune_elo",
]

#: K factors tried for the Elo baseline; the one with the lowest log-loss is reported.
ELO_K_GRID: tuple[float, ...] = (4.0, 8.0, 12.0, 16.0, 24.0, 32.0, 48.0, 64.0)
ELO_INITIAL = 1500.0
CALIBRATION_BINS = 10


@dataclass(frozen=True)
class CalibrationBin:
    """Matches whose prediction fell in ``[low, high)`` (the last bin includes 1.0)."""

    low: float
    high: float
    count: int
    mean_predicted: float | None
    observed: float | None  # mean score of the first-named player (draws count 0.5)


@dataclass(frozen=True)
class Metrics:
    """Mean log-loss, mean Brier score, accuracy (draws count half) and a calibration table."""

    n: int
    log_loss: float
    brier: float
    accuracy: float
    calibration: tuple[CalibrationBin, ...]


@dataclass(frozen=True)
class Scores:
    """Glicko-2 against the two baselines on the same matches.

    ``predictions`` and ``elo_predictions`` follow the order of the input matches.
    """

    glicko2: Metrics
    constant: Metrics
    elo: Metrics
    elo_k: float
    predictions: FloatArray
    elo_predictions: FloatArray
    fold: FoldResult


def correct_array(p: FloatArray, s: FloatArray) -> FloatArray:
    """Per match, 1 when the favourite won, 0 when it lost, 0.5 for a draw or a 50 % call."""
    called = np.where(p > 0.5, 1.0, 0.0)
    result: FloatArray = np.where((s == 0.5) | (p == 0.5), 0.5, (called == s).astype(np.float64))
    return result


def calibration_bin_of(p: FloatArray, bins: int = CALIBRATION_BINS) -> IntArray:
    """Per match, the calibration decile (0 … ``bins`` - 1) its prediction falls in."""
    which: IntArray = np.minimum((np.asarray(p) * bins).astype(np.int64), bins - 1)
    return which


def metrics(p: FloatArray, s: FloatArray, bins: int = CALIBRATION_BINS) -> Metrics:
    """Score predictions ``p`` (first-named player wins) against results ``s``."""
    p = np.asarray(p, dtype=np.float64)
    s = np.asarray(s, dtype=np.float64)
    if p.shape != s.shape or p.ndim != 1:
        raise InvalidParameterError("predictions and results must be 1-D arrays of equal length")
    if p.size == 0:
        raise InvalidParameterError("there are no matches to score")
    correct = correct_array(p, s)
    which = calibration_bin_of(p, bins)
    counts = np.bincount(which, minlength=bins)
    predicted_sums = np.bincount(which, weights=p, minlength=bins)
    observed_sums = np.bincount(which, weights=s, minlength=bins)
    table = tuple(
        CalibrationBin(
            low=i / bins,
            high=(i + 1) / bins,
            count=int(counts[i]),
            mean_predicted=float(predicted_sums[i] / counts[i]) if counts[i] else None,
            observed=float(observed_sums[i] / counts[i]) if counts[i] else None,
        )
        for i in range(bins)
    )
    return Metrics(
        n=int(p.size),
        log_loss=float(np.mean(log_loss_array(p, s))),
        brier=float(np.mean(brier_array(p, s))),
        accuracy=float(np.mean(correct)),
        calibration=table,
    )


def match_predictions(
    matches: MatchArrays, history: History, n_players: int, advantage: float = 0.0
) -> FloatArray:
    """Each match's prediction from the players' start-of-period ratings in ``history``.

    ``advantage`` (rating points) goes to the first-named side of every match not marked
    neutral in ``matches.neutral``. Any history with ``rating_before``/``rd_before`` works:
    the Glicko-2 fold's, or the Glicko yardstick's (:mod:`engine.yardsticks`).
    """
    keys = history.period * n_players + history.player
    rows_a = np.searchsorted(keys, matches.period * n_players + matches.player_a)
    rows_b = np.searchsorted(keys, matches.period * n_players + matches.player_b)
    if len(matches) and (
        rows_a.max() >= keys.size
        or rows_b.max() >= keys.size
        or np.any(keys[rows_a] != matches.period * n_players + matches.player_a)
        or np.any(keys[rows_b] != matches.period * n_players + matches.player_b)
    ):
        raise InvalidParameterError("history has no row for some match's player and period")
    return win_probability_array(
        history.rating_before[rows_a],
        history.rd_before[rows_a],
        history.rating_before[rows_b],
        history.rd_before[rows_b],
        matches.advantage(advantage) if advantage != 0.0 else 0.0,
    )


def elo_predictions(
    matches: MatchArrays,
    n_players: int,
    ks: Sequence[float] = ELO_K_GRID,
    advantage: float = 0.0,
) -> FloatArray:
    """Plain Elo predictions for each K in ``ks`` at once: array of shape (len(ks), matches).

    ``expected = 1 / (1 + 10^((r_b - r_a - h) / 400))`` with ``h`` the first-named side's
    advantage in rating points (0 in neutral matches); updates use the plain results.
    """
    k = np.asarray(ks, dtype=np.float64)
    shift = matches.advantage(advantage) if advantage != 0.0 else None
    if k.ndim != 1 or k.size == 0 or np.any(k <= 0):
        raise InvalidParameterError("Elo K factors must be a non-empty list of positive numbers")
    ratings = np.full(k.size * n_players, ELO_INITIAL)
    row_offset = (np.arange(k.size, dtype=np.int64) * n_players)[:, None]
    predictions = np.empty((k.size, len(matches)))
    order = np.argsort(matches.period, kind="stable")
    period = matches.period[order]
    _, starts = np.unique(period, return_index=True)
    ends = np.append(starts[1:], period.size) if period.size else starts
    for start, end in zip(starts.tolist(), ends.tolist(), strict=True):
        rows = order[start:end]
        a = matches.player_a[rows] + row_offset
        b = matches.player_b[rows] + row_offset
        s = matches.score_a[rows]
        gap = ratings[b] - ratings[a]
        if shift is not None:
            gap = gap - shift[rows]
        expected = 1.0 / (1.0 + 10.0 ** (gap / 400.0))
        predictions[:, rows] = expected
        change = k[:, None] * (s - expected)
        ratings += np.bincount(a.ravel(), weights=change.ravel(), minlength=ratings.size)
        ratings -= np.bincount(b.ravel(), weights=change.ravel(), minlength=ratings.size)
    return predictions


def tune_elo(
    matches: MatchArrays,
    n_players: int,
    ks: Sequence[float] = ELO_K_GRID,
    advantage: float = 0.0,
) -> tuple[float, FloatArray]:
    """The K with the lowest mean log-loss, and its predictions."""
    grid = elo_predictions(matches, n_players, ks, advantage)
    losses = log_loss_array(grid, matches.score_a[None, :]).mean(axis=1)
    best = int(np.argmin(losses))
    return float(ks[best]), grid[best]


def score_fold(
    matches: MatchArrays,
    n_players: int,
    params: Glicko2Params,
    first_period: int,
    last_period: int,
    start_state: RatingState | None = None,
) -> Scores:
    """Fold the matches with ``params`` and score every match's start-of-period prediction.

    ``params.advantage`` enters the Glicko-2 and the Elo predictions alike; predictions are
    always scored against the plain results (``score_a``), margins on or off.
    """
    if len(matches) == 0:
        raise InvalidParameterError("there are no matches to score")
    result = fold(matches, n_players, params, first_period, last_period, start_state)
    predictions = match_predictions(matches, result.history, n_players, params.advantage)
    elo_k, elo = tune_elo(matches, n_players, advantage=params.advantage)
    results = matches.score_a
    return Scores(
        glicko2=metrics(predictions, results),
        constant=metrics(np.full(len(matches), 0.5), results),
        elo=metrics(elo, results),
        elo_k=elo_k,
        predictions=predictions,
        elo_predictions=elo,
        fold=result,
    )


def score_instant(
    matches: MatchArrays,
    moment: FloatArray,
    n_players: int,
    params: Glicko2Params,
    first_period: int,
    last_period: int,
    start_state: RatingState | None = None,
) -> Scores:
    """:func:`score_fold` with instant updates (``engine.instant``): every match is predicted
    from both players' values just before it (those its update used), not from the start of
    its period. ``moment`` is each match's position in its period; the baselines are the same.
    """
    if len(matches) == 0:
        raise InvalidParameterError("there are no matches to score")
    rated = fold_instant(matches, moment, n_players, params, first_period, last_period, start_state)
    n = len(matches)
    predictions = win_probability_array(
        rated.row_rating[:n],
        rated.row_rd[:n],
        rated.row_rating[n:],
        rated.row_rd[n:],
        matches.advantage(params.advantage) if params.advantage != 0.0 else 0.0,
    )
    elo_k, elo = tune_elo(matches, n_players, advantage=params.advantage)
    results = matches.score_a
    return Scores(
        glicko2=metrics(predictions, results),
        constant=metrics(np.full(n, 0.5), results),
        elo=metrics(elo, results),
        elo_k=elo_k,
        predictions=predictions,
        elo_predictions=elo,
        fold=rated.fold,
    )
