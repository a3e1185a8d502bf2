"""The margin-of-victory outcome mapping: bounded, monotone, symmetric, off by default."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bench.synthetic import synthetic_league
from engine import (
    Glicko2Params,
    InvalidParameterError,
    MatchArrays,
    PeriodGames,
    RatingState,
    fold,
    margin_score,
    outcome_scores,
    rate_period,
    rate_player,
)
from tests.unit import fingerprint_support as fp

margins = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False)
scales = st.floats(min_value=0.01, max_value=1e3)


def test_formula_by_hand() -> None:
    assert margin_score(0.0, 3.0) == 0.5
    assert margin_score(2.0, 3.0) == pytest.approx(0.5 + 0.5 * math.tanh(2 / 3), abs=1e-15)
    assert outcome_scores([1.0, 0.0, 0.5], [2.0, -2.0, 0.0], 3.0).tolist() == pytest.approx(
        [0.5 + 0.5 * math.tanh(2 / 3), 0.5 - 0.5 * math.tanh(2 / 3), 0.5], abs=1e-15
    )


@pytest.mark.property
@given(margins, margins, scales)
def test_monotone_and_bounded(m1: float, m2: float, scale: float) -> None:
    low, high = sorted((m1, m2))
    s_low, s_high = float(margin_score(low, scale)), float(margin_score(high, scale))
    assert 0.0 <= s_low <= s_high <= 1.0
    # A win's margin is positive (a point at least): the larger, the more it is worth.
    small, large = sorted((abs(m1) + 1.0, abs(m2) + 1.0))
    win = outcome_scores([1.0, 1.0], [small, large], scale)
    assert 0.5 <= win[0] <= win[1] <= 1.0


@pytest.mark.property
@given(margins, scales)
def test_symmetric(m: float, scale: float) -> None:
    assert float(margin_score(-m, scale)) == pytest.approx(1.0 - float(margin_score(m, scale)))
    # Seen from the other side, the loser's score is exactly 1 minus the winner's.
    win, loss = outcome_scores([1.0, 0.0], [abs(m) + 1.0, -abs(m) - 1.0], scale)
    assert loss == 1.0 - win


def test_unknown_margin_and_tiny_scale_give_the_plain_result() -> None:
    assert outcome_scores([1.0, 0.0, 0.5], [np.nan, np.nan, np.nan], 5.0).tolist() == [
        1.0,
        0.0,
        0.5,
    ]
    assert outcome_scores([1.0, 0.0], [3.0, -3.0], 1e-3).tolist() == [1.0, 0.0]


def test_refusals() -> None:
    with pytest.raises(InvalidParameterError, match="scale"):
        margin_score(1.0, 0.0)
    with pytest.raises(InvalidParameterError, match="margin_scale"):
        Glicko2Params(margin_scale=-1.0)
    with pytest.raises(InvalidParameterError, match="finite"):
        MatchArrays(np.array([0]), np.array([0]), np.array([1]), np.array([1.0]), None, [np.inf])
    with pytest.raises(InvalidParameterError, match=r"\[0, 1\]"):
        PeriodGames(np.array([0]), np.array([1]), np.array([1.0]), outcome=np.array([1.5]))


@pytest.mark.parametrize(
    ("score", "margin"),
    [(1.0, 0.0), (1.0, -2.0), (0.0, 0.0), (0.0, 3.0), (0.5, 1.0), (0.5, -1.0)],
)
def test_a_margin_contradicting_its_result_is_refused(score: float, margin: float) -> None:
    """A win by a level score is not counted as a draw, nor a win by -2 as a win by 2."""
    with pytest.raises(InvalidParameterError, match="contradicts its score"):
        outcome_scores([1.0, score], [1.0, margin], 2.0)
    matches = MatchArrays(
        np.array([0]), np.array([0]), np.array([1]), np.array([score]), None, np.array([margin])
    )
    with pytest.raises(InvalidParameterError, match="game 0: margin"):
        fold(matches, 2, Glicko2Params(margin_scale=2.0), 0, 0)
    # With margins off the margin is not read (and not judged).
    fold(matches, 2, Glicko2Params(), 0, 0)


def test_margins_off_change_no_bit() -> None:
    matches, n_players, n_periods, params = fp.league(0)
    margin = np.where(matches.score_a == 1.0, 3.0, np.where(matches.score_a == 0.0, -3.0, 0.0))
    with_margin = MatchArrays(
        matches.period, matches.player_a, matches.player_b, matches.score_a, None, margin
    )
    plain = fold(matches, n_players, params, 0, n_periods - 1)
    off = fold(with_margin, n_players, params, 0, n_periods - 1)
    assert fp.history_fingerprint(off.history) == fp.history_fingerprint(plain.history)


def test_fold_uses_the_mapped_scores() -> None:
    """A period by hand with scores from the mapping; counts still from the results."""
    state = RatingState.unrated(3, Glicko2Params())
    params = Glicko2Params(margin_scale=2.0)
    matches = MatchArrays(
        np.array([0, 0]),
        np.array([0, 1]),
        np.array([1, 2]),
        np.array([1.0, 0.0]),
        None,
        np.array([1.0, -4.0]),
    )
    result = fold(matches, 3, params, 0, 0)
    s1 = 0.5 + 0.5 * math.tanh(1 / 2)
    s2 = 0.5 + 0.5 * math.tanh(4 / 2)
    by_hand = rate_player(1500.0, 350.0, 0.06, [(1500.0, 350.0, s1)], params)
    assert result.history.rating[0] == pytest.approx(by_hand[0], abs=1e-9)
    by_hand_2 = rate_player(1500.0, 350.0, 0.06, [(1500.0, 350.0, s2)], params)
    assert result.history.rating[2] == pytest.approx(by_hand_2[0], abs=1e-9)
    assert result.history.wins.tolist() == [1, 0, 1]
    assert result.history.losses.tolist() == [0, 2, 0]
    # The same period through rate_period with the outcome given directly.
    games = PeriodGames(
        matches.player_a, matches.player_b, matches.score_a, outcome=np.array([s1, 1 - s2])
    )
    direct = rate_period(state, games, params, 0)
    assert np.array_equal(direct.rating, result.history.rating)


def test_larger_margins_move_ratings_more() -> None:
    league = synthetic_league(30, 400, 10, seed=3)
    m = league.matches
    small = np.where(m.score_a == 1.0, 1.0, np.where(m.score_a == 0.0, -1.0, 0.0))
    params = Glicko2Params(margin_scale=3.0)
    spread = []
    for margin in (small, 4.0 * small):
        arrays = MatchArrays(m.period, m.player_a, m.player_b, m.score_a, None, margin)
        spread.append(float(np.std(fold(arrays, 30, params, 0, 9).final_state.rating)))
    plain = float(np.std(fold(m, 30, Glicko2Params(), 0, 9).final_state.rating))
    assert spread[0] < spread[1] < plain
