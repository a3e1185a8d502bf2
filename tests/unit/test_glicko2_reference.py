"""The engine against the reference vectors of docs/glicko2.md (ratings/RD to 1e-6, sigma 1e-9).

Each vector is rated through the vectorised period update, with every listed player present
in the same period, and single-player vectors also through the scalar ``rate_player``.
"""

from __future__ import annotations

import numpy as np
import pytest

from engine import Glicko2Params, PeriodGames, RatingState, apply, rate_period, rate_player

RATING_TOL = 1e-6
SIGMA_TOL = 1e-9


def rated_state(players: list[tuple[float, float, float]], last_period: int = 0) -> RatingState:
    """Players already rated in ``last_period`` with the given (rating, RD, sigma)."""
    return RatingState(
        rating=np.array([p[0] for p in players]),
        rd=np.array([p[1] for p in players]),
        volatility=np.array([p[2] for p in players]),
        last_period=np.full(len(players), last_period, dtype=np.int64),
    )


def games(*rows: tuple[int, int, float]) -> PeriodGames:
    return PeriodGames(
        np.array([r[0] for r in rows], dtype=np.int64),
        np.array([r[1] for r in rows], dtype=np.int64),
        np.array([r[2] for r in rows], dtype=np.float64),
    )


def assert_values(actual: tuple[float, float, float], expected: tuple[float, float, float]) -> None:
    assert actual[0] == pytest.approx(expected[0], abs=RATING_TOL)
    assert actual[1] == pytest.approx(expected[1], abs=RATING_TOL)
    assert actual[2] == pytest.approx(expected[2], abs=SIGMA_TOL)


def outcome_of(state: RatingState, period_games: PeriodGames, params: Glicko2Params, player: int):
    outcome = rate_period(state, period_games, params, period=1)
    row = int(np.flatnonzero(outcome.players == player)[0])
    return outcome, (outcome.rating[row], outcome.rd[row], outcome.volatility[row])


GLICKMAN = [(1500, 200, 0.06), (1400, 30, 0.06), (1550, 100, 0.06), (1700, 300, 0.06)]


def test_vector_1_glickmans_example_intermediate_values() -> None:
    # v and Delta from the paper's formulas, by hand, then the engine's own intermediates.
    mu, phi_j = 0.0, np.array([30, 100, 300]) / 173.7178
    mu_j = (np.array([1400, 1550, 1700]) - 1500) / 173.7178
    g = 1 / np.sqrt(1 + 3 * phi_j**2 / np.pi**2)
    e = 1 / (1 + np.exp(-g * (mu - mu_j)))
    v = 1 / np.sum(g**2 * e * (1 - e))
    delta = v * np.sum(g * (np.array([1, 0, 0]) - e))
    assert v == pytest.approx(1.7789770897, abs=1e-9)
    assert delta == pytest.approx(-0.4839332610, abs=1e-9)
    v_engine, delta_engine = _engine_v_delta()
    assert v_engine == pytest.approx(1.7789770897, abs=1e-9)
    assert delta_engine == pytest.approx(-0.4839332610, abs=1e-9)


def _engine_v_delta() -> tuple[float, float]:
    """v and Delta recovered from the engine's step 7 output.

    phi'^-2 = phi*^-2 + 1/v and mu' - mu = phi'^2 Delta / v.
    """
    params = Glicko2Params(tau=0.5)
    outcome = rate_period(rated_state(GLICKMAN), games((0, 1, 1), (0, 2, 0), (0, 3, 0)), params, 1)
    phi_new = outcome.rd[0] / 173.7178
    phi_star_sq = (200 / 173.7178) ** 2 + outcome.volatility[0] ** 2
    v = 1 / (1 / phi_new**2 - 1 / phi_star_sq)
    delta = (outcome.rating[0] - 1500) / 173.7178 / phi_new**2 * v
    return float(v), float(delta)


def test_vector_1_glickmans_example() -> None:
    params = Glicko2Params(tau=0.5)
    expected = (1464.0506705, 151.5165241, 0.0599959843)
    scalar = rate_player(1500, 200, 0.06, [(1400, 30, 1), (1550, 100, 0), (1700, 300, 0)], params)
    assert_values(scalar, expected)
    # Opponents with RD 30/100/300 and each other as a separate period population.
    state = rated_state(GLICKMAN)
    _, vectorised = outcome_of(state, games((0, 1, 1), (0, 2, 0), (0, 3, 0)), params, 0)
    assert_values(vectorised, expected)


def test_vector_2_whole_period_simultaneous_with_idle_player() -> None:
    params = Glicko2Params(tau=0.5, max_rd=1000.0)
    state = rated_state([*GLICKMAN, (1500, 350, 0.06)])
    outcome = rate_period(state, games((0, 1, 1), (2, 0, 1), (0, 3, 0)), params, period=1)
    assert outcome.players.tolist() == [0, 1, 2, 3]
    expected = [
        (1464.050671, 151.516524, 0.059995984),
        (1398.143558, 31.670215, 0.059999124),
        (1570.394740, 97.709169, 0.059999419),
        (1784.421790, 251.565565, 0.059999012),
    ]
    for row, values in enumerate(expected):
        actual = (outcome.rating[row], outcome.rd[row], outcome.volatility[row])
        assert actual[0] == pytest.approx(values[0], abs=RATING_TOL)
        assert actual[1] == pytest.approx(values[1], abs=RATING_TOL)
        assert actual[2] == pytest.approx(values[2], abs=1e-9)
    assert outcome.games.tolist() == [3, 1, 1, 1]
    assert (outcome.wins.tolist(), outcome.draws.tolist(), outcome.losses.tolist()) == (
        [1, 0, 1, 1],
        [0, 0, 0, 0],
        [2, 1, 0, 0],
    )
    apply(state, outcome)
    # p5 did not play: untouched in the state; at the end of period 1 its RD has grown once.
    assert state.last_period[4] == 0
    assert state.rd_at(1, params)[4] == pytest.approx(350.155166, abs=RATING_TOL)
    assert state.rd_at(1, Glicko2Params(tau=0.5))[4] == 350.0
    assert (state.rating[4], state.volatility[4]) == (1500.0, 0.06)


def test_vector_2_game_by_game_differs() -> None:
    params = Glicko2Params(tau=0.5)
    rating, rd, sigma = 1500.0, 200.0, 0.06
    for opponent, score in ((1, 1.0), (2, 0.0), (3, 0.0)):
        opponent_rating, opponent_rd, _ = GLICKMAN[opponent]
        rating, rd, sigma = rate_player(
            rating, rd, sigma, [(opponent_rating, opponent_rd, score)], params
        )
    assert rating == pytest.approx(1463.788372, abs=RATING_TOL)
    assert rd == pytest.approx(151.873213, abs=RATING_TOL)
    assert abs(rating - 1464.050671) > 0.2


def test_vector_3_large_delta_branch() -> None:
    params = Glicko2Params(tau=0.5)
    expected = (1852.327328, 51.051490, 0.061375930)
    assert_values(rate_player(2000, 50, 0.06, [(1000, 50, 0.0)] * 10, params), expected)
    state = rated_state([(2000, 50, 0.06), (1000, 50, 0.06)])
    _, vectorised = outcome_of(state, games(*[(0, 1, 0.0)] * 10), params, 0)
    assert_values(vectorised, expected)


def test_vector_4_draws_only() -> None:
    params = Glicko2Params(tau=0.5)
    expected = (1500.0, 153.127437, 0.059995781)
    assert_values(rate_player(1500, 200, 0.06, [(1500, 200, 0.5)] * 3, params), expected)
    state = rated_state([(1500, 200, 0.06), (1500, 200, 0.06)])
    outcome, vectorised = outcome_of(state, games(*[(0, 1, 0.5)] * 3), params, 0)
    assert_values(vectorised, expected)
    assert outcome.draws.tolist() == [3, 3]


def test_vector_5_unrated_player_loses_to_strong_player() -> None:
    params = Glicko2Params(tau=0.5)
    expected = (1467.587849, 318.661755, 0.059999458)
    assert_values(rate_player(1500, 350, 0.06, [(2000, 70, 0.0)], params), expected)
    # Player 0 has never played: enters with the initial values 1500/350/0.06.
    state = RatingState.unrated(2, params)
    state.rating[1], state.rd[1], state.last_period[1] = 2000.0, 70.0, 0
    outcome, vectorised = outcome_of(state, games((0, 1, 0.0)), params, 0)
    assert_values(vectorised, expected)
    assert outcome.rd_before.tolist() == [350.0, 70.0]


def test_vector_6_stall_regression_terminates() -> None:
    params = Glicko2Params(tau=1.2)
    player = (2074.0127235334676, 45.35612041352053, 0.0851378611338275)
    first = (1992.997165387486, 63.59044876901177)
    second = (2260.0407431945787, 179.65914228190348)
    expected = (2075.012325, 47.031166, 0.085057030)
    results = [(*first, 0.5), (*second, 0.5)]
    assert_values(rate_player(*player, results, params), expected)
    state = rated_state([player, (*first, 0.06), (*second, 0.06)])
    _, vectorised = outcome_of(state, games((0, 1, 0.5), (2, 0, 0.5)), params, 0)
    assert_values(vectorised, expected)
