"""Instant updates with fractional rating periods (engine/instant.py)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine.instant as instant
from engine import Glicko2Params, History, MatchArrays, RatingState, fold, state_before
from engine.errors import InvalidParameterError
from engine.instant import fold_instant, fold_sides_instant, match_levels, rank_weights
from engine.params import SCALE
from engine.side_fold import fold_sides
from engine.sides import SideMatches
from engine.teams import METHODS, TeamMethod
from tests.unit.scalar_glicko2 import rate_one

PARAMS = Glicko2Params()
LAST_PERIOD = 7


def assert_same(left: History, right: History) -> None:
    for name in History.__dataclass_fields__:
        np.testing.assert_array_equal(getattr(left, name), getattr(right, name), err_msg=name)


def assert_same_state(left: RatingState, right: RatingState) -> None:
    for name in ("rating", "rd", "volatility", "last_period"):
        np.testing.assert_array_equal(getattr(left, name), getattr(right, name), err_msg=name)


def one_match_per_player_per_period(seed: int, n_players: int, periods: int) -> MatchArrays:
    """Random pairings, each player in at most one match a period (some sit out, some never
    play until late), with wins, draws and losses."""
    rng = np.random.default_rng(seed)
    rows = []
    for period in range(periods):
        seats = rng.permutation(n_players)
        for i in range(int(rng.integers(0, n_players // 2 + 1))):
            rows.append((period, seats[2 * i], seats[2 * i + 1], rng.choice([0.0, 0.5, 1.0])))
    period, a, b, s = (np.array(column) for column in zip(*rows, strict=True))
    return MatchArrays(period.astype(np.int64), a.astype(np.int64), b.astype(np.int64), s)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_one_match_per_period_at_the_period_end_is_the_papers_period_update(seed: int) -> None:
    matches = one_match_per_player_per_period(seed, 30, 40)
    period_fold = fold(matches, 30, PARAMS, 0, 39)
    at_end = fold_instant(matches, np.ones(len(matches)), 30, PARAMS, 0, 39)
    assert_same(period_fold.history, at_end.fold.history)
    assert_same_state(period_fold.final_state, at_end.fold.final_state)


def test_the_values_a_match_used_are_the_period_folds_start_of_period_values() -> None:
    matches = one_match_per_player_per_period(4, 20, 15)
    history = fold(matches, 20, PARAMS, 0, 14).history
    at_end = fold_instant(matches, np.ones(len(matches)), 20, PARAMS, 0, 14)
    n = len(matches)
    keys = history.period * 20 + history.player
    rows_a = np.searchsorted(keys, matches.period * 20 + matches.player_a)
    rows_b = np.searchsorted(keys, matches.period * 20 + matches.player_b)
    np.testing.assert_array_equal(at_end.row_rating[:n], history.rating_before[rows_a])
    np.testing.assert_array_equal(at_end.row_rd[:n], history.rd_before[rows_a])
    np.testing.assert_array_equal(at_end.row_rating[n:], history.rating_before[rows_b])
    np.testing.assert_array_equal(at_end.row_rd[n:], history.rd_before[rows_b])


@pytest.mark.parametrize("method", METHODS)
def test_two_sided_team_matches_once_a_period_at_its_end_are_the_period_fold(
    method: TeamMethod,
) -> None:
    rng = np.random.default_rng(7)
    periods, sides, places = [], [], []
    for period in range(25):
        seats = [int(p) for p in rng.permutation(24)]
        while len(seats) >= 4 and rng.random() < 0.8:
            size = int(rng.integers(1, 3))
            sides.append([[seats.pop() for _ in range(size)] for _ in range(2)])
            periods.append(period)
            places.append([int(x) for x in rng.integers(0, 2, 2)])
    matches = SideMatches.from_lists(periods, sides, places)
    period_fold = fold_sides(matches, 24, PARAMS, 0, 24, method=method)
    at_end = fold_sides_instant(matches, np.ones(len(matches)), 24, PARAMS, 0, 24, method=method)
    assert_same(period_fold.history, at_end.fold.history)


def test_multi_side_games_without_the_rank_weight_are_the_period_fold() -> None:
    rng = np.random.default_rng(8)
    periods, sides, places = [], [], []
    for period in range(20):
        seats = [int(p) for p in rng.permutation(24)]
        while len(seats) >= 6:
            k = int(rng.integers(2, 7))
            sides.append([[seats.pop()] for _ in range(k)])
            periods.append(period)
            places.append([int(x) for x in rng.integers(0, k, k)])
    matches = SideMatches.from_lists(periods, sides, places)
    period_fold = fold_sides(matches, 24, PARAMS, 0, 19)
    unweighted = fold_sides_instant(
        matches, np.ones(len(matches)), 24, PARAMS, 0, 19, rank_weight=False
    )
    assert_same(period_fold.history, unweighted.fold.history)
    weighted = fold_sides_instant(matches, np.ones(len(matches)), 24, PARAMS, 0, 19)
    # Weighted side results tell less: the RDs of multi-side players stay wider.
    assert np.mean(weighted.fold.history.rd) > np.mean(unweighted.fold.history.rd) + 1.0


def test_rank_weights_follow_the_plackett_luce_information() -> None:
    expected = [1.0, 7.0 / 9.0, 23.0 / 36.0, 0.2 * (5.0 - (1 + 1 / 2 + 1 / 3 + 1 / 4 + 1 / 5))]
    expected.append(4.0 * (6.0 - (1 + 1 / 2 + 1 / 3 + 1 / 4 + 1 / 5 + 1 / 6)) / 30.0)
    np.testing.assert_allclose(rank_weights(np.array([2, 3, 4, 5, 6])), expected, rtol=1e-12)
    assert rank_weights(np.array([2]))[0] == 1.0


def test_a_period_of_games_is_rated_game_by_game_with_the_elapsed_fractions() -> None:
    """Player 0 (1500/200/0.06, rated in period 0) beats player 1 (1400/30) halfway through
    period 1 and loses to player 2 (1550/100) at its end: two one-game updates, step 6
    widening by half a period's volatility each, computed independently (scalar reference)."""
    tau = 0.5
    start = RatingState(
        rating=np.array([1500.0, 1400.0, 1550.0]),
        rd=np.array([200.0, 30.0, 100.0]),
        volatility=np.array([0.06, 0.06, 0.06]),
        last_period=np.array([0, 0, 0]),
    )
    matches = MatchArrays(
        np.array([1, 1]), np.array([0, 0]), np.array([1, 2]), np.array([1.0, 0.0])
    )
    result = fold_instant(matches, np.array([0.5, 1.0]), 3, Glicko2Params(tau=tau), 1, 1, start)
    rows = result.fold.history
    # Game 1 at 1.5: both last rated at 1.0, half a period gone.
    p0 = rate_one(1500.0, 200.0, 0.06, [(1400.0, 30.0, 1.0)], tau, growth=0.5)
    p1 = rate_one(1400.0, 30.0, 0.06, [(1500.0, 200.0, 0.0)], tau, growth=0.5)
    # Game 2 at 2.0: player 0 half a period after game 1, player 2 a whole period after 1.0.
    after_first = p0
    p0 = rate_one(*after_first, [(1550.0, 100.0, 0.0)], tau, growth=0.5)
    p2 = rate_one(1550.0, 100.0, 0.06, [(after_first[0], after_first[1], 1.0)], tau)
    for player, expected in enumerate((p0, p1, p2)):
        rd = expected[1]
        if player == 1:
            # Brought to the period's end: half a period of growth with its new volatility.
            rd = SCALE * math.sqrt((rd / SCALE) ** 2 + 0.5 * expected[2] ** 2)
        assert rows.rating[player] == pytest.approx(expected[0], abs=1e-9)
        assert rows.rd[player] == pytest.approx(rd, abs=1e-9)
        assert rows.volatility[player] == pytest.approx(expected[2], abs=1e-12)
    np.testing.assert_array_equal(rows.games, [2, 1, 1])
    np.testing.assert_array_equal(rows.wins, [1, 0, 1])
    np.testing.assert_array_equal(rows.losses, [1, 1, 0])
    # The values each match used: A's (player 0's) in [:2], B's in [2:].
    np.testing.assert_allclose(
        result.row_rd, [200.0, after_first[1], 30.0, 100.0], rtol=0, atol=1e-9
    )
    np.testing.assert_allclose(
        result.row_rating, [1500.0, after_first[0], 1400.0, 1550.0], rtol=0, atol=1e-9
    )


def test_match_levels_let_only_matches_without_a_common_player_share_a_level() -> None:
    # Matches: (0,1), (2,3), (1,2), (4,5), (0,5) in period 0; (0,1) in period 1.
    pairs = [(0, 1), (2, 3), (1, 2), (4, 5), (0, 5), (0, 1)]
    row_match = np.repeat(np.arange(len(pairs)), 2)
    row_player = np.array([p for pair in pairs for p in pair])
    levels = match_levels(row_match, row_player, np.array([0, 0, 0, 0, 0, 1]))
    np.testing.assert_array_equal(levels, [0, 0, 1, 0, 1, 0])


@st.composite
def side_leagues(draw: st.DrawFn) -> tuple[int, SideMatches, np.ndarray]:
    """Random leagues of team matches and multi-side games, several a period, with moments."""
    n_players = draw(st.integers(2, 10))
    periods: list[int] = []
    sides: list[list[list[int]]] = []
    places: list[list[int]] = []
    for _ in range(draw(st.integers(0, 30))):
        seats = draw(st.permutations(range(n_players)))
        k = draw(st.integers(2, min(4, n_players)))
        cuts = sorted(draw(st.sets(st.integers(1, len(seats) - 1), min_size=k - 1, max_size=k - 1)))
        take = draw(st.integers(cuts[-1] + 1, len(seats)))
        bounds = [0, *cuts, take]
        sides.append([list(seats[a:b]) for a, b in itertools.pairwise(bounds)])
        places.append(draw(st.lists(st.integers(0, k - 1), min_size=k, max_size=k)))
        periods.append(draw(st.integers(0, LAST_PERIOD)))
    moments = draw(
        st.lists(
            st.sampled_from([0.0, 0.25, 0.5, 1.0]), min_size=len(periods), max_size=len(periods)
        )
    )
    return n_players, SideMatches.from_lists(periods, sides, places), np.array(moments)


@settings(max_examples=60, deadline=None)
@given(league=side_leagues(), checkpoint=st.integers(0, LAST_PERIOD + 1))
def test_resuming_from_a_checkpoint_equals_the_full_fold(
    league: tuple[int, SideMatches, np.ndarray], checkpoint: int
) -> None:
    n_players, matches, moments = league
    full = fold_sides_instant(matches, moments, n_players, PARAMS, 0, LAST_PERIOD).fold
    start = state_before(full.history, n_players, PARAMS, checkpoint)
    later = matches.period >= checkpoint
    resumed = fold_sides_instant(
        matches.take(later), moments[later], n_players, PARAMS, checkpoint, LAST_PERIOD, start
    ).fold
    assert_same(full.history.slice_from(checkpoint), resumed.history)
    assert_same_state(full.final_state, resumed.final_state)


@settings(max_examples=40, deadline=None)
@given(league=side_leagues())
def test_rating_level_by_level_equals_rating_match_by_match(
    league: tuple[int, SideMatches, np.ndarray],
) -> None:
    n_players, matches, moments = league
    by_level = fold_sides_instant(matches, moments, n_players, PARAMS, 0, LAST_PERIOD)
    with pytest.MonkeyPatch.context() as patch:
        # Every match a level of its own: strictly one after the other.
        patch.setattr(
            instant, "match_levels", lambda row_match, row_player, period: np.arange(period.size)
        )
        one_by_one = fold_sides_instant(matches, moments, n_players, PARAMS, 0, LAST_PERIOD)
    assert_same(by_level.fold.history, one_by_one.fold.history)
    np.testing.assert_array_equal(by_level.row_rating, one_by_one.row_rating)
    np.testing.assert_array_equal(by_level.row_rd, one_by_one.row_rd)


def test_matches_are_rated_in_played_order_whatever_order_they_are_given_in() -> None:
    rng = np.random.default_rng(3)
    n = 200
    matches = MatchArrays(
        np.sort(rng.integers(0, 10, n)),
        rng.integers(0, 15, n),
        rng.integers(15, 30, n),
        rng.choice([0.0, 0.5, 1.0], n),
    )
    moments = rng.choice([0.2, 0.4, 0.6, 1.0], n)
    order = np.lexsort((moments, matches.period))
    in_order = fold_instant(matches.take(order), moments[order], 30, PARAMS, 0, 9)
    given = fold_instant(matches, moments, 30, PARAMS, 0, 9)
    assert_same(in_order.fold.history, given.fold.history)
    # Each match's values come back at its own position (A's, then B's).
    both = np.concatenate([order, order + n])
    np.testing.assert_array_equal(given.row_rating[both], in_order.row_rating)
    np.testing.assert_array_equal(given.row_rd[both], in_order.row_rd)


def test_side_match_values_come_back_in_the_given_rows() -> None:
    matches = SideMatches.from_lists(
        [1, 0, 1],
        [[[0, 1], [2, 3]], [[0, 2], [1, 3]], [[0], [1], [2]]],
        [[0, 1], [1, 0], [2, 0, 1]],
    )
    moments = np.array([0.5, 1.0, 0.25])
    result = fold_sides_instant(matches, moments, 4, PARAMS, 0, 1)
    # Match 1 (period 0) comes first: everyone enters it unrated.
    rows_of_match_1 = matches.match == 1
    np.testing.assert_array_equal(result.row_rd[rows_of_match_1], 350.0)
    # Match 2 (period 1, moment 0.25) comes before match 0 (moment 0.5): player 3 is not in
    # it, so in match 0 player 3 enters with its period-0 values, players 0-2 with match 2's.
    after = fold_sides_instant(
        matches.take(np.array([1, 2, 0])), moments[[1, 2, 0]], 4, PARAMS, 0, 1
    )
    taken = matches.take(np.array([1, 2, 0]))
    position = {1: 0, 2: 1, 0: 2}
    for row in range(matches.n_rows):
        match, player = int(matches.match[row]), int(matches.player[row])
        there = np.flatnonzero((taken.match == position[match]) & (taken.player == player))[0]
        assert result.row_rd[row] == after.row_rd[there]
        assert result.row_rating[row] == after.row_rating[there]
    assert_same(result.fold.history, after.fold.history)
    # Player 3 entered match 0 with the RD it left period 0 with (it sat out match 2).
    row = np.flatnonzero((matches.match == 0) & (matches.player == 3))[0]
    first = result.fold.history
    assert result.row_rd[row] == first.rd[(first.period == 0) & (first.player == 3)][0]


def test_the_advantage_and_margins_enter_as_in_the_period_fold() -> None:
    matches = one_match_per_player_per_period(5, 20, 20)
    rng = np.random.default_rng(5)
    with_extras = MatchArrays(
        matches.period,
        matches.player_a,
        matches.player_b,
        matches.score_a,
        rng.random(len(matches)) < 0.3,
        np.where(matches.score_a == 1.0, 2.0, np.where(matches.score_a == 0.0, -1.0, 0.0)),
    )
    params = Glicko2Params(advantage=60.0, margin_scale=3.0)
    period_fold = fold(with_extras, 20, params, 0, 19)
    at_end = fold_instant(with_extras, np.ones(len(matches)), 20, params, 0, 19)
    # The same formulas, the advantage added in another order: equal to rounding.
    np.testing.assert_allclose(at_end.fold.history.rating, period_fold.history.rating, atol=1e-9)
    np.testing.assert_allclose(at_end.fold.history.rd, period_fold.history.rd, atol=1e-9)
    plain = fold_instant(matches, np.ones(len(matches)), 20, Glicko2Params(), 0, 19)
    assert np.max(np.abs(plain.fold.history.rating - at_end.fold.history.rating)) > 1.0


@pytest.mark.parametrize("moment", [[-0.1], [1.5], [float("nan")], [0.5, 0.5]])
def test_moments_outside_the_period_are_refused(moment: list[float]) -> None:
    matches = MatchArrays(np.array([0]), np.array([0]), np.array([1]), np.array([1.0]))
    with pytest.raises(InvalidParameterError, match="moment"):
        fold_instant(matches, np.array(moment), 2, PARAMS, 0, 0)


def test_a_match_outside_the_folded_periods_is_refused() -> None:
    matches = MatchArrays(np.array([3]), np.array([0]), np.array([1]), np.array([1.0]))
    with pytest.raises(InvalidParameterError, match="outside the folded range"):
        fold_instant(matches, np.array([1.0]), 2, PARAMS, 0, 2)
