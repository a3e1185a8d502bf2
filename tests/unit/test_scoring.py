"""Predictive scoring against direct computations written out in the test."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bench.synthetic import synthetic_league
from engine import Glicko2Params, InvalidParameterError, MatchArrays
from engine.scoring import ELO_K_GRID, elo_predictions, metrics, score_fold, tune_elo
from tests.unit import scalar_glicko2

ROWS = [
    (0, 0, 1, 1.0),
    (0, 2, 3, 0.5),
    (0, 0, 2, 1.0),
    (1, 1, 0, 0.0),
    (3, 3, 0, 1.0),
    (3, 4, 1, 0.5),
    (3, 2, 1, 1.0),
    (4, 0, 4, 0.0),
]


def as_arrays(rows: list[tuple[int, int, int, float]]) -> MatchArrays:
    return MatchArrays(
        np.array([r[0] for r in rows]),
        np.array([r[1] for r in rows]),
        np.array([r[2] for r in rows]),
        np.array([r[3] for r in rows]),
    )


def by_hand_prediction(ra: float, rda: float, rb: float, rdb: float) -> float:
    phi = math.sqrt((rda / 173.7178) ** 2 + (rdb / 173.7178) ** 2)
    g = 1 / math.sqrt(1 + 3 * phi**2 / math.pi**2)
    return 1 / (1 + math.exp(-g * (ra - rb) / 173.7178))


def by_hand_predictions() -> list[float]:
    """Start-of-period ratings from the scalar reference's history, then the pairing formula."""
    history, _ = scalar_glicko2.fold(ROWS, 0, 4)
    before = {(int(r[0]), int(r[1])): (r[5], r[6]) for r in history}
    return [by_hand_prediction(*before[(p, a)], *before[(p, b)]) for p, a, b, _ in ROWS]


def test_predictions_use_start_of_period_ratings() -> None:
    scores = score_fold(as_arrays(ROWS), 5, Glicko2Params(), 0, 4)
    assert scores.predictions.tolist() == pytest.approx(by_hand_predictions(), abs=1e-12)
    # First period: everyone unrated, so every prediction is exactly even.
    assert scores.predictions[:3].tolist() == [0.5, 0.5, 0.5]


def test_metrics_match_direct_computation() -> None:
    p = by_hand_predictions()
    s = [r[3] for r in ROWS]
    scores = score_fold(as_arrays(ROWS), 5, Glicko2Params(), 0, 4)
    n = len(p)
    log_loss = (
        -sum(si * math.log(pi) + (1 - si) * math.log(1 - pi) for pi, si in zip(p, s, strict=True))
        / n
    )
    brier = sum((pi - si) ** 2 for pi, si in zip(p, s, strict=True)) / n
    hits = []
    for pi, si in zip(p, s, strict=True):
        if si == 0.5 or pi == 0.5:
            hits.append(0.5)
        else:
            hits.append(1.0 if (pi > 0.5) == (si == 1.0) else 0.0)
    assert scores.glicko2.n == n
    assert scores.glicko2.log_loss == pytest.approx(log_loss, rel=1e-12)
    assert scores.glicko2.brier == pytest.approx(brier, rel=1e-12)
    assert scores.glicko2.accuracy == pytest.approx(sum(hits) / n, rel=1e-12)
    assert scores.constant.log_loss == pytest.approx(math.log(2), rel=1e-12)
    assert scores.constant.brier == pytest.approx(sum((0.5 - si) ** 2 for si in s) / n)
    assert scores.constant.accuracy == 0.5


def test_calibration_table_by_tenths() -> None:
    p = np.array([0.05, 0.07, 0.55, 0.95, 1.0, 0.5])
    s = np.array([0.0, 1.0, 0.5, 1.0, 1.0, 0.0])
    table = metrics(p, s).calibration
    assert [b.count for b in table] == [2, 0, 0, 0, 0, 2, 0, 0, 0, 2]
    assert (table[0].mean_predicted, table[0].observed) == (pytest.approx(0.06), 0.5)
    assert (table[5].mean_predicted, table[5].observed) == (pytest.approx(0.525), 0.25)
    assert (table[9].mean_predicted, table[9].observed) == (pytest.approx(0.975), 1.0)
    assert table[1].mean_predicted is None
    assert table[1].observed is None
    assert (table[0].low, table[0].high, table[9].high) == (0.0, 0.1, 1.0)


def by_hand_elo(rows: list[tuple[int, int, int, float]], k: float) -> list[float]:
    """Plain Elo, period by period: predict from start-of-period ratings, then update."""
    ratings: dict[int, float] = {}
    predictions = [0.0] * len(rows)
    for period in sorted({r[0] for r in rows}):
        changes: dict[int, float] = {}
        for i, (p, a, b, s) in enumerate(rows):
            if p != period:
                continue
            ra, rb = ratings.get(a, 1500.0), ratings.get(b, 1500.0)
            e = 1 / (1 + 10 ** ((rb - ra) / 400))
            predictions[i] = e
            changes[a] = changes.get(a, 0.0) + k * (s - e)
            changes[b] = changes.get(b, 0.0) - k * (s - e)
        for player, change in changes.items():
            ratings[player] = ratings.get(player, 1500.0) + change
    return predictions


def test_elo_baseline_matches_direct_computation() -> None:
    grid = elo_predictions(as_arrays(ROWS), 5, (16.0, 32.0))
    assert grid[0].tolist() == pytest.approx(by_hand_elo(ROWS, 16.0), abs=1e-12)
    assert grid[1].tolist() == pytest.approx(by_hand_elo(ROWS, 32.0), abs=1e-12)


def test_elo_k_is_tuned_to_the_lowest_log_loss() -> None:
    league = synthetic_league(60, 3000, 40, seed=2)
    k, predictions = tune_elo(league.matches, 60)
    s = league.matches.score_a
    losses = {
        candidate: metrics(np.array(by_hand_elo(rows_of(league.matches), candidate)), s).log_loss
        for candidate in ELO_K_GRID
    }
    assert k == min(losses, key=lambda c: losses[c])
    assert metrics(predictions, s).log_loss == pytest.approx(losses[k], rel=1e-12)


def rows_of(matches: MatchArrays) -> list[tuple[int, int, int, float]]:
    return list(
        zip(
            matches.period.tolist(),
            matches.player_a.tolist(),
            matches.player_b.tolist(),
            matches.score_a.tolist(),
            strict=True,
        )
    )


def test_glicko2_beats_the_constant_baseline_on_a_league_with_real_strengths() -> None:
    league = synthetic_league(100, 8000, 60, seed=5)
    scores = score_fold(league.matches, 100, Glicko2Params(), 0, 59)
    assert scores.glicko2.log_loss < scores.constant.log_loss - 0.05
    assert scores.glicko2.accuracy > 0.6
    # Stronger players end higher: ratings track the true strengths.
    state = scores.fold.final_state
    assert np.corrcoef(state.rating, league.strengths)[0, 1] > 0.9


def test_nothing_to_score_is_refused() -> None:
    with pytest.raises(InvalidParameterError, match="no matches to score"):
        score_fold(as_arrays([]), 3, Glicko2Params(), 0, 2)
