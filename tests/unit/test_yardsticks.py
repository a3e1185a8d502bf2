"""The yardsticks: Glicko (Glickman 1999) by hand and on his example, Elo by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bench.synthetic import synthetic_league
from engine import (
    GlickoParams,
    InvalidParameterError,
    MatchArrays,
    RatingState,
    glicko_fold,
    score_yardsticks,
)
from engine.scoring import metrics, tune_elo
from engine.yardsticks import DEFAULT_C, Q, glicko_predictions

q = math.log(10) / 400


def g(rd: float) -> float:
    return 1 / math.sqrt(1 + 3 * q**2 * rd**2 / math.pi**2)


def expected(r: float, rj: float, rdj: float) -> float:
    return 1 / (1 + 10 ** (-g(rdj) * (r - rj) / 400))


def by_hand(r: float, rd: float, games: list[tuple[float, float, float]]) -> tuple[float, float]:
    """Glickman (1999), step 2 and 3, written from the article's formulas."""
    d2 = 1 / (
        q**2
        * sum(
            g(rdj) ** 2 * expected(r, rj, rdj) * (1 - expected(r, rj, rdj)) for rj, rdj, _ in games
        )
    )
    total = sum(g(rdj) * (s - expected(r, rj, rdj)) for rj, rdj, s in games)
    new_r = r + q / (1 / rd**2 + 1 / d2) * total
    return new_r, math.sqrt(1 / (1 / rd**2 + 1 / d2))


def example_state() -> RatingState:
    return RatingState(
        rating=np.array([1500.0, 1400.0, 1550.0, 1700.0]),
        rd=np.array([200.0, 30.0, 100.0, 300.0]),
        volatility=np.zeros(4),
        last_period=np.zeros(4, dtype=np.int64),
    )


EXAMPLE = MatchArrays(
    np.array([1, 1, 1]), np.array([0, 2, 3]), np.array([1, 0, 0]), np.array([1.0, 1.0, 1.0])
)


def test_glickmans_example() -> None:
    """Glickman's 1999 example: 1500/200 beats 1400/30, loses to 1550/100 and 1700/300.

    The paper prints r' = 1464 and RD' = 151.4 (intermediates g = 0.9955, 0.9531, 0.7242,
    E = 0.639, 0.432, 0.303, d^2 = 231.67^2); c = 0 keeps the given RDs as the period's.
    """
    result = glicko_fold(EXAMPLE, 4, GlickoParams(c=0.0), 1, 1, example_state())
    history = result.history
    assert history.player.tolist() == [0, 1, 2, 3]
    assert round(float(history.rating[0])) == 1464
    assert round(float(history.rd[0]), 1) == 151.4
    assert [round(g(rd), 4) for rd in (30, 100, 300)] == [0.9955, 0.9531, 0.7242]
    assert [
        round(expected(1500, r, rd), 3) for r, rd in ((1400, 30), (1550, 100), (1700, 300))
    ] == [
        0.639,
        0.432,
        0.303,
    ]
    games = [(1400.0, 30.0, 1.0), (1550.0, 100.0, 0.0), (1700.0, 300.0, 0.0)]
    r, rd = by_hand(1500.0, 200.0, games)
    assert history.rating[0] == pytest.approx(r, abs=1e-9)
    assert history.rd[0] == pytest.approx(rd, abs=1e-9)
    # The opponents, each from the pre-period values of player 0 (simultaneity).
    for row, (own, own_rd, s) in zip(
        (1, 2, 3), ((1400.0, 30.0, 0.0), (1550.0, 100.0, 1.0), (1700.0, 300.0, 1.0)), strict=True
    ):
        r, rd = by_hand(own, own_rd, [(1500.0, 200.0, s)])
        assert history.rating[row] == pytest.approx(r, abs=1e-9)
        assert history.rd[row] == pytest.approx(rd, abs=1e-9)
    assert q == Q


def test_rd_grows_with_c() -> None:
    """The article's c: an RD of 50 back at 350 after 100 idle periods."""
    assert pytest.approx(34.6, abs=0.05) == DEFAULT_C
    state = RatingState(
        np.array([1500.0, 1500.0]),
        np.array([50.0, 50.0]),
        np.zeros(2),
        np.array([0, 0], dtype=np.int64),
    )
    one = MatchArrays(np.array([100]), np.array([0]), np.array([1]), np.array([0.5]))
    result = glicko_fold(one, 2, GlickoParams(max_rd=400.0), 1, 100, state)
    assert result.history.rd_before.tolist() == pytest.approx([350.0, 350.0], abs=1e-9)
    three = MatchArrays(np.array([3]), np.array([0]), np.array([1]), np.array([0.5]))
    result = glicko_fold(three, 2, GlickoParams(c=20.0), 1, 3, state)
    assert result.history.rd_before[0] == pytest.approx(math.sqrt(50**2 + 3 * 20**2), abs=1e-9)


def test_advantage_in_glicko() -> None:
    h = 40.0
    result = glicko_fold(EXAMPLE, 4, GlickoParams(c=0.0, advantage=h), 1, 1, example_state())
    # Player 0 hosts player 1 (h lower in 0's expected score), then visits 2 and 3 (h higher).
    games = [(1400.0 - h, 30.0, 1.0), (1550.0 + h, 100.0, 0.0), (1700.0 + h, 300.0, 0.0)]
    r, rd = by_hand(1500.0, 200.0, games)
    assert result.history.rating[0] == pytest.approx(r, abs=1e-9)
    assert result.history.rd[0] == pytest.approx(rd, abs=1e-9)


def test_glicko_predictions_are_start_of_period_and_scored() -> None:
    league = synthetic_league(40, 800, 20, seed=9)
    m = league.matches
    p = glicko_predictions(m, 40, GlickoParams(), 0, 19)
    assert p.shape == (len(m),)
    first = p[m.period == 0]
    assert first.size > 0
    assert np.all(first == 0.5)
    scores = score_yardsticks(m, 40, GlickoParams(), 0, 19)
    assert scores.glicko == metrics(p, m.score_a)
    k, elo = tune_elo(m, 40)
    assert scores.elo_k == k
    assert np.array_equal(scores.elo_predictions, elo)
    # Strengths are real: Glicko beats the coin.
    assert scores.glicko.log_loss < math.log(2)


def test_glicko_refusals() -> None:
    with pytest.raises(InvalidParameterError, match="c must"):
        GlickoParams(c=-1.0)
    with pytest.raises(InvalidParameterError, match="outside"):
        glicko_fold(EXAMPLE, 4, GlickoParams(), 0, 0)
