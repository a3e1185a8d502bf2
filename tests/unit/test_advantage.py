"""The first-named side's advantage: off changes no bit, on matches the formula by hand."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from bench.synthetic import synthetic_league
from engine import (
    Glicko2Params,
    InvalidParameterError,
    MatchArrays,
    PeriodGames,
    RatingState,
    fold,
    rate_period,
    rate_player,
    win_probability,
)
from engine.prediction import win_probability_array
from engine.scoring import elo_predictions, match_predictions, score_fold
from engine.side_fold import fold_sides
from engine.sides import SideMatches
from engine.teams import METHODS, TeamMethod, rate_sides_period
from tests.unit import fingerprint_support as fp

#: Summaries of the engine's outputs before the options existed (see fingerprint_support.py).
BEFORE = json.loads((Path(__file__).parent / "engine_before.json").read_text())
#: Relative tolerance against BEFORE: last-bit differences between CPUs are about 1e-15.
BEFORE_TOLERANCE = 1e-9
SCALE = 173.7178


def with_options(matches: MatchArrays, seed: int) -> MatchArrays:
    """The same matches with random neutral flags and margins attached."""
    rng = np.random.default_rng(seed)
    margin = np.where(matches.score_a == 0.5, 0.0, rng.integers(1, 6, len(matches)))
    margin = np.where(matches.score_a == 0.0, -margin, margin).astype(np.float64)
    return MatchArrays(
        matches.period,
        matches.player_a,
        matches.player_b,
        matches.score_a,
        neutral=rng.random(len(matches)) < 0.3,
        margin=margin,
    )


@pytest.mark.parametrize("index", range(len(fp.LEAGUES)))
def test_plain_arrays_give_the_numbers_of_before(index: int) -> None:
    now = fp.summary(index)
    assert now.keys() == BEFORE[index].keys()
    for name, values in now.items():
        assert values == pytest.approx(BEFORE[index][name], rel=BEFORE_TOLERANCE), name


@pytest.mark.parametrize("index", range(len(fp.LEAGUES)))
def test_options_off_change_no_bit(index: int) -> None:
    """Zero advantage and no margin scale: flags and margins present, every bit as before."""
    matches, n_players, n_periods, params = fp.league(index)
    assert params.advantage == 0.0
    assert params.margin_scale is None
    flagged = with_options(matches, index)
    result = fold(flagged, n_players, params, 0, n_periods - 1)
    plain_result = fold(matches, n_players, params, 0, n_periods - 1)
    assert fp.history_fingerprint(result.history) == fp.history_fingerprint(plain_result.history)
    scores = score_fold(flagged, n_players, params, 0, n_periods - 1)
    plain = score_fold(matches, n_players, params, 0, n_periods - 1)
    assert [float.hex(x) for x in scores.predictions.tolist()] == [
        float.hex(x) for x in plain.predictions.tolist()
    ]


def test_all_neutral_equals_no_advantage() -> None:
    league = synthetic_league(30, 500, 20, seed=11)
    m = league.matches
    neutral = MatchArrays(m.period, m.player_a, m.player_b, m.score_a, np.ones(len(m), bool))
    on = fold(neutral, 30, Glicko2Params(advantage=80.0), 0, 19)
    off = fold(m, 30, Glicko2Params(), 0, 19)
    assert fp.history_fingerprint(on.history) == fp.history_fingerprint(off.history)


def test_advantage_shifts_the_opponent_in_the_expected_score() -> None:
    """One period by hand: a's opponent b is h lower, b's opponent a is h higher."""
    h = 60.0
    state = RatingState(
        rating=np.array([1500.0, 1400.0, 1550.0, 1700.0]),
        rd=np.array([200.0, 30.0, 100.0, 300.0]),
        volatility=np.full(4, 0.06),
        last_period=np.zeros(4, dtype=np.int64),
    )
    # Player 0 hosts 1 (wins), visits 2 (loses), plays 3 on neutral ground (loses).
    games = PeriodGames(
        np.array([0, 2, 0]),
        np.array([1, 0, 3]),
        np.array([1.0, 1.0, 0.0]),
        neutral=np.array([False, False, True]),
    )
    params = Glicko2Params(advantage=h, max_rd=400.0)
    outcome = rate_period(state, games, params, 1)
    expected = {
        0: [(1400.0 - h, 30.0, 1.0), (1550.0 + h, 100.0, 0.0), (1700.0, 300.0, 0.0)],
        1: [(1500.0 + h, 200.0, 0.0)],
        2: [(1500.0 - h, 200.0, 1.0)],
        3: [(1500.0, 200.0, 1.0)],
    }
    for row, player in enumerate(outcome.players.tolist()):
        r, rd = state.rating[player], state.rd[player]
        by_hand = rate_player(r, rd, 0.06, expected[player], params)
        assert outcome.rating[row] == pytest.approx(by_hand[0], abs=1e-9)
        assert outcome.rd[row] == pytest.approx(by_hand[1], abs=1e-9)
        assert outcome.volatility[row] == pytest.approx(by_hand[2], abs=1e-12)
    # Wins, draws and losses still come from the results.
    assert outcome.wins.tolist() == [1, 0, 1, 1]
    assert outcome.losses.tolist() == [2, 1, 0, 0]


def test_prediction_with_advantage_by_hand() -> None:
    h = 75.0
    phi = math.hypot(120.0, 80.0) / SCALE
    g = 1 / math.sqrt(1 + 3 * phi**2 / math.pi**2)
    by_hand = 1 / (1 + math.exp(-g * (1520.0 + h - 1580.0) / SCALE))
    assert win_probability(1520.0, 120.0, 1580.0, 80.0, advantage=h) == pytest.approx(
        by_hand, abs=1e-15
    )
    assert win_probability(1520.0, 120.0, 1580.0, 80.0) == win_probability(
        1520.0, 120.0, 1580.0, 80.0, 0.0
    )
    # An advantage h is the same as h more rating points for A.
    p = win_probability_array([1500.0, 1500.0], [50.0, 50.0], [1500.0, 1500.0], [50.0, 50.0], h)
    assert p[0] == pytest.approx(win_probability(1575.0, 50.0, 1500.0, 50.0), abs=1e-15)


def test_match_predictions_skip_neutral_games() -> None:
    league = synthetic_league(20, 300, 10, seed=5)
    m = league.matches
    neutral = np.arange(len(m)) % 2 == 0
    flagged = MatchArrays(m.period, m.player_a, m.player_b, m.score_a, neutral)
    result = fold(flagged, 20, Glicko2Params(advantage=50.0), 0, 9)
    on = match_predictions(flagged, result.history, 20, 50.0)
    off = match_predictions(flagged, result.history, 20)
    assert np.array_equal(on[neutral], off[neutral])
    assert np.all(on[~neutral] > off[~neutral])


def test_elo_advantage_by_hand() -> None:
    matches = MatchArrays(
        np.array([0, 1, 1]),
        np.array([0, 1, 0]),
        np.array([1, 0, 1]),
        np.array([1.0, 0.5, 0.0]),
        neutral=np.array([False, False, True]),
    )
    k, h = 32.0, 100.0
    first = 1 / (1 + 10 ** (-h / 400))
    r0 = 1500 + k * (1 - first)
    r1 = 1500 - k * (1 - first)
    second = 1 / (1 + 10 ** ((r0 - r1 - h) / 400))  # player 1 hosts player 0
    third = 1 / (1 + 10 ** ((r1 - r0) / 400))  # neutral: no advantage
    got = elo_predictions(matches, 2, [k], advantage=h)[0]
    assert got.tolist() == pytest.approx([first, second, third], abs=1e-12)
    assert first == pytest.approx(0.6400649998, abs=1e-9)


def test_advantage_must_be_finite() -> None:
    with pytest.raises(InvalidParameterError, match="advantage"):
        Glicko2Params(advantage=math.inf)
    with pytest.raises(InvalidParameterError, match="neutral"):
        PeriodGames(np.array([0]), np.array([1]), np.array([1.0]), neutral=np.array([1]))


@pytest.mark.parametrize("method", METHODS)
def test_one_vs_one_through_sides_has_the_same_advantage(method: TeamMethod) -> None:
    league = synthetic_league(30, 500, 15, seed=21)
    flagged = with_options(league.matches, 21)
    params = Glicko2Params(advantage=70.0)
    pairs = fold(flagged, 30, params, 0, 14).history
    sides = fold_sides(SideMatches.from_pairs(flagged), 30, params, 0, 14, method=method).history
    assert np.array_equal(pairs.player, sides.player)
    np.testing.assert_allclose(sides.rating, pairs.rating, rtol=0, atol=1e-8)
    np.testing.assert_allclose(sides.rd, pairs.rd, rtol=0, atol=1e-8)


@pytest.mark.parametrize("method", METHODS)
def test_team_advantage_off_changes_no_bit(method: TeamMethod) -> None:
    """Two-a-side matches: zero advantage with neutral flags equals the plain fold exactly."""
    rng = np.random.default_rng(4)
    teams = rng.permuted(np.tile(np.arange(12), (40, 1)), axis=1)[:, :4]
    scores = rng.choice([0.0, 0.5, 1.0], 40).tolist()
    period = np.repeat(np.arange(8), 5).tolist()
    plain = SideMatches.two_sides(period, teams[:, :2].tolist(), teams[:, 2:].tolist(), scores)
    flagged = SideMatches(
        plain.period, plain.match, plain.side, plain.player, plain.place, rng.random(40) < 0.5
    )
    left = fold_sides(plain, 12, Glicko2Params(), 0, 7, method=method).history
    right = fold_sides(flagged, 12, Glicko2Params(), 0, 7, method=method).history
    assert fp.history_fingerprint(left) == fp.history_fingerprint(right)
    # With an advantage the same matches give other numbers.
    home = fold_sides(flagged, 12, Glicko2Params(advantage=100.0), 0, 7, method=method).history
    assert not np.array_equal(home.rating, left.rating)


def test_team_advantage_by_hand() -> None:
    """team_sum, one 2-vs-2 match: side 0's opponent sum is h' lower, side 1's h' higher."""
    h = 90.0
    matches = SideMatches.two_sides([0], [[0, 1]], [[2, 3]], [1.0])
    params = Glicko2Params(advantage=h)
    state = RatingState.unrated(4, params)
    outcome = rate_sides_period(state, matches, params, 0, "team_sum")
    # Player 0: opponent mu = (mu_2 + mu_3) - mu_1 - h' = -h', phi = sqrt(3) * phi_0.
    phi = 350.0 / SCALE
    opponent_rd = math.sqrt(3) * phi * SCALE
    by_hand = rate_player(1500.0, 350.0, 0.06, [(1500.0 - h, opponent_rd, 1.0)], params)
    assert outcome.rating[0] == pytest.approx(by_hand[0], abs=1e-9)
    away = rate_player(1500.0, 350.0, 0.06, [(1500.0 + h, opponent_rd, 0.0)], params)
    assert outcome.rating[2] == pytest.approx(away[0], abs=1e-9)
