"""Properties of the vectorised engine and fold, checked with hypothesis.

The scalar reference (tests/unit/scalar_glicko2.py) is written from the paper one player at a
time, with idle RD growth applied eagerly every period; the engine grows RD lazily.

Floats computed two ways (the engine against a formula written here) are compared within a
stated tolerance: a few ulps where the two computations are the same formula, looser where
they are different algorithms. Exact equality is asserted only where bit-identity is the
property itself (no idle period returns the stored RD unchanged; a cap returns the cap).
The module is marked ``property``: ``bin/test`` runs it once more with a random seed.
"""

from __future__ import annotations

import math
import sys

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from engine import (
    Glicko2Params,
    MatchArrays,
    PeriodGames,
    RatingState,
    fold,
    grown_rd,
    rate_period,
)
from tests.unit import scalar_glicko2

SCALE = 173.7178
COLUMNS = ("rating", "rd", "volatility", "rating_before", "rd_before")

Match = tuple[int, int, int, float]

pytestmark = pytest.mark.property

# The same formula evaluated in another order (Python's ``x ** 2`` and NumPy's ``x * x``,
# a scalar against a vectorised expression) may differ in the last bits: allow four ulps.
ULPS = 4
FORMULA_REL_TOL = ULPS * sys.float_info.epsilon


def same_formula(actual: float, expected: float) -> bool:
    """Whether two evaluations of one formula agree to within ``ULPS`` units in the last place."""
    return math.isclose(actual, expected, rel_tol=FORMULA_REL_TOL, abs_tol=0.0)


@st.composite
def leagues(
    draw: st.DrawFn, max_players: int = 8, max_periods: int = 8
) -> tuple[int, int, list[Match]]:
    """(n_players, n_periods, matches): idle periods, draws, repeat pairings, late arrivals."""
    n_players = draw(st.integers(2, max_players))
    n_periods = draw(st.integers(1, max_periods))
    match = st.tuples(
        st.integers(0, n_periods - 1),
        st.integers(0, n_players - 1),
        st.integers(0, n_players - 2),
        st.sampled_from([0.0, 0.5, 1.0]),
    ).map(lambda m: (m[0], m[1], m[2] + (m[2] >= m[1]), m[3]))
    return n_players, n_periods, draw(st.lists(match, min_size=0, max_size=30))


params_strategy = st.builds(
    Glicko2Params,
    tau=st.sampled_from([0.3, 0.5, 0.8, 1.2]),
    max_rd=st.sampled_from([350.0, 500.0]),
    volatility_ceiling=st.sampled_from([None, 0.0601, 0.1]),
    rating_floor=st.sampled_from([None, 1400.0]),
)


def as_arrays(rows: list[Match]) -> MatchArrays:
    data = np.array(rows, dtype=np.float64).reshape(-1, 4)
    return MatchArrays(
        data[:, 0].astype(np.int64),
        data[:, 1].astype(np.int64),
        data[:, 2].astype(np.int64),
        data[:, 3],
    )


def history_close(left, right, tol: float = 1e-9) -> None:  # type: ignore[no-untyped-def]
    for name in ("period", "player", "games", "wins", "draws", "losses"):
        np.testing.assert_array_equal(getattr(left, name), getattr(right, name), err_msg=name)
    for name in COLUMNS:
        np.testing.assert_allclose(getattr(left, name), getattr(right, name), rtol=tol, atol=0)


@settings(max_examples=150, deadline=None)
@given(league=leagues(), data=st.data())
def test_permuting_games_inside_a_period_changes_nothing(
    league: tuple[int, int, list[Match]], data: st.DataObject
) -> None:
    n_players, n_periods, rows = league
    shuffled = data.draw(st.permutations(rows))
    params = Glicko2Params()
    original = fold(as_arrays(rows), n_players, params, 0, n_periods - 1)
    permuted = fold(as_arrays(shuffled), n_players, params, 0, n_periods - 1)
    history_close(original.history, permuted.history)


@settings(max_examples=150, deadline=None)
@given(league=leagues(), data=st.data())
def test_swapping_players_and_inverting_the_score_changes_nothing(
    league: tuple[int, int, list[Match]], data: st.DataObject
) -> None:
    n_players, n_periods, rows = league
    flips = data.draw(st.lists(st.booleans(), min_size=len(rows), max_size=len(rows)))
    swapped = [
        (p, b, a, 1.0 - s) if flip else (p, a, b, s)
        for (p, a, b, s), flip in zip(rows, flips, strict=True)
    ]
    params = Glicko2Params()
    original = fold(as_arrays(rows), n_players, params, 0, n_periods - 1)
    mirrored = fold(as_arrays(swapped), n_players, params, 0, n_periods - 1)
    history_close(original.history, mirrored.history)


@settings(max_examples=200, deadline=None)
@given(league=leagues(max_players=10, max_periods=10), params=params_strategy)
def test_engine_agrees_with_scalar_reference(
    league: tuple[int, int, list[Match]], params: Glicko2Params
) -> None:
    n_players, n_periods, rows = league
    result = fold(as_arrays(rows), n_players, params, 0, n_periods - 1)
    expected, rated = scalar_glicko2.fold(
        rows,
        0,
        n_periods - 1,
        tau=params.tau,
        max_rd=params.max_rd,
        volatility_ceiling=params.volatility_ceiling,
        rating_floor=params.rating_floor,
    )
    history = result.history
    assert len(history) == len(expected)
    for i, row in enumerate(expected):
        assert (history.period[i], history.player[i]) == (row[0], row[1])
        actual = [getattr(history, name)[i] for name in COLUMNS]
        assert actual == pytest.approx(list(row[2:7]), abs=1e-9, rel=0)
        counts = [history.games[i], history.wins[i], history.draws[i], history.losses[i]]
        assert counts == list(row[7:])
    # After the last period: same ratings, and the lazily grown RD equals the eager one.
    state = result.final_state
    assert sorted(rated) == np.flatnonzero(state.last_period >= 0).tolist()
    rd_now = state.rd_at(n_periods - 1, params)
    for player, (rating, rd, sigma) in rated.items():
        assert (state.rating[player], rd_now[player], state.volatility[player]) == pytest.approx(
            (rating, rd, sigma), abs=1e-9, rel=0
        )


extreme_rating = st.floats(-8500.0, 11500.0)
extreme_rd = st.floats(1e-3, 1e4)


@settings(max_examples=200, deadline=None)
@given(
    players=st.lists(
        st.tuples(extreme_rating, extreme_rd, st.floats(1e-4, 1.0)), min_size=2, max_size=6
    ),
    data=st.data(),
)
def test_outputs_stay_finite_for_extreme_inputs(
    players: list[tuple[float, float, float]], data: st.DataObject
) -> None:
    n = len(players)
    pair = st.tuples(st.integers(0, n - 1), st.integers(0, n - 2), st.sampled_from([0.0, 0.5, 1.0]))
    rows = data.draw(st.lists(pair, min_size=1, max_size=40))
    a = np.array([r[0] for r in rows])
    b = np.array([r[1] + (r[1] >= r[0]) for r in rows])
    state = RatingState(
        rating=np.array([p[0] for p in players]),
        rd=np.array([p[1] for p in players]),
        volatility=np.array([p[2] for p in players]),
        last_period=np.zeros(n, dtype=np.int64),
    )
    params = Glicko2Params(tau=data.draw(st.sampled_from([0.3, 0.5, 1.2])), max_rd=1e4)
    outcome = rate_period(state, PeriodGames(a, b, np.array([r[2] for r in rows])), params, 1)
    for values in (outcome.rating, outcome.rd, outcome.volatility):
        assert np.all(np.isfinite(values))
    assert np.all(outcome.rd > 0)
    assert np.all(outcome.rd <= params.max_rd)
    assert np.all(outcome.volatility > 0)


def test_thirty_losses_to_a_much_weaker_player_and_the_guards() -> None:
    # The doc's warning: without guards sigma jumps to the far root of f and r' collapses.
    def period(params: Glicko2Params) -> tuple[float, float, float]:
        state = RatingState(
            rating=np.array([2500.0, 1500.0]),
            rd=np.array([50.0, 50.0]),
            volatility=np.array([0.06, 0.06]),
            last_period=np.zeros(2, dtype=np.int64),
        )
        games = PeriodGames(np.zeros(30, np.int64), np.ones(30, np.int64), np.zeros(30))
        outcome = rate_period(state, games, params, 1)
        return outcome.rating[0], outcome.rd[0], outcome.volatility[0]

    unguarded = period(Glicko2Params())
    expected = scalar_glicko2.rate_one(2500.0, 50.0, 0.06, [(1500.0, 50.0, 0.0)] * 30, tau=0.5)
    assert unguarded[0] == pytest.approx(expected[0], abs=1e-6)
    assert unguarded[0] < -40000  # the collapse the doc warns about
    assert expected[1] > 350.0
    assert unguarded[1] == 350.0  # the RD ceiling
    assert unguarded[2] == pytest.approx(expected[2], abs=1e-9)
    guarded = period(Glicko2Params(volatility_ceiling=0.1, rating_floor=100.0))
    assert guarded[2] == 0.1
    assert guarded[0] >= 100.0
    assert guarded[0] > unguarded[0]


@settings(max_examples=300, deadline=None)
@given(
    rd=st.floats(1.0, 350.0),
    sigma=st.floats(1e-4, 0.5),
    k=st.integers(0, 500),
    max_rd=st.sampled_from([350.0, 500.0, 1e6]),
)
# Found by a random run: 48.81363194174817 != 48.81363194174818, one ulp apart.
@example(rd=22.28572493866774, sigma=0.25, k=1, max_rd=350.0)
def test_idle_rd_growth_is_exact_and_capped(rd: float, sigma: float, k: int, max_rd: float) -> None:
    grown = grown_rd(rd, sigma, k, max_rd)
    if k == 0:
        assert grown == rd  # bit for bit: a stored RD reads back exactly
    else:
        by_hand = min(SCALE * math.sqrt((rd / SCALE) ** 2 + k * sigma**2), max_rd)
        assert same_formula(grown, by_hand), (grown, by_hand)
        assert grown <= max_rd
    # Through the fold: play in period 0, idle for k periods, play again in period k + 1.
    params = Glicko2Params(max_rd=max_rd, initial_volatility=sigma, initial_rd=min(rd, max_rd))
    rows = as_arrays([(0, 0, 1, 0.5), (k + 1, 0, 1, 0.5)])
    history = fold(rows, 2, params, 0, k + 1).history
    after_first = history.rd[0]
    sigma_first = history.volatility[0]
    entering = history.rd_before[2]
    if k == 0:
        assert entering == after_first
    else:
        phi = after_first / SCALE
        by_hand = min(SCALE * math.sqrt(phi * phi + k * (sigma_first * sigma_first)), max_rd)
        assert same_formula(entering, by_hand), (entering, by_hand)
        assert entering <= max_rd
    # Eager growth one period at a time agrees to rounding.
    eager = after_first
    for _ in range(k):
        eager = min(SCALE * math.sqrt((eager / SCALE) ** 2 + sigma_first**2), max_rd)
    assert entering == pytest.approx(eager, rel=1e-12)


@settings(max_examples=100, deadline=None)
@given(
    gap=st.integers(1, 10**7),
    rd=st.floats(1e-3, 350.0),
    sigma=st.floats(1e-4, 1.0),
    score=st.sampled_from([0.0, 0.5, 1.0]),
)
def test_huge_idle_gaps_stay_finite_and_capped(
    gap: int, rd: float, sigma: float, score: float
) -> None:
    params = Glicko2Params(initial_rd=rd, initial_volatility=sigma)
    rows = as_arrays([(0, 0, 1, score), (gap, 0, 1, score), (gap, 1, 2, 1.0 - score)])
    history = fold(rows, 3, params, 0, gap).history
    assert history.period.tolist() == [0, 0, gap, gap, gap]
    grown = history.rd_before[2:4]
    expected = [
        min(SCALE * math.sqrt((r / SCALE) ** 2 + (gap - 1) * s**2), 350.0) if gap > 1 else r
        for r, s in zip(history.rd[:2], history.volatility[:2], strict=True)
    ]
    assert grown.tolist() == pytest.approx(expected, rel=1e-12)
    for name in COLUMNS:
        assert np.all(np.isfinite(getattr(history, name)))
    assert np.all(history.rd <= 350.0)
