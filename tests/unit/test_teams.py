"""Team and multi-side methods: hand-checked examples, symmetry, one-vs-one identity,
pairwise decomposition of multi-side matches, and refusals."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest

from bench.synthetic import synthetic_league
from engine import (
    Glicko2Params,
    History,
    InvalidParameterError,
    MatchArrays,
    PeriodGames,
    RatingState,
    fold,
    rate_period,
    rate_player,
)
from engine.glicko2 import PeriodOutcome
from engine.params import SCALE
from engine.side_fold import fold_sides
from engine.sides import SideMatches, places_from_score
from engine.teams import METHODS, TeamMethod, rate_sides_period

PARAMS = Glicko2Params()
OUTCOME_FIELDS = ("players", "rating", "rd", "volatility", "rating_before", "rd_before", "games")


def rate_one(matches: SideMatches, n: int, method: TeamMethod) -> PeriodOutcome:
    return rate_sides_period(RatingState.unrated(n, PARAMS), matches, PARAMS, 0, method)


def assert_same_outcome(left: PeriodOutcome, right: PeriodOutcome) -> None:
    for name in (*OUTCOME_FIELDS, "wins", "draws", "losses", "volatility_before"):
        np.testing.assert_array_equal(getattr(left, name), getattr(right, name), err_msg=name)


def closed_form(opponent_phi: float, weight_sum_g2: float, sigma_new: float) -> tuple[float, float]:
    """Rating and RD of an unrated winner against opponents at mu = 0 (E = 1/2), by the doc's
    formulas: v = 1 / (sum w g^2 / 4), phi' = 1 / sqrt(1 / (phi^2 + sigma'^2) + 1 / v),
    mu' = phi'^2 * sum w g (1 - 1/2)."""
    phi = 350.0 / SCALE
    g = 1.0 / math.sqrt(1.0 + 3.0 * opponent_phi**2 / math.pi**2)
    v = 1.0 / (weight_sum_g2 * g * g * 0.25)
    phi_new = 1.0 / math.sqrt(1.0 / (phi * phi + sigma_new * sigma_new) + 1.0 / v)
    mu_new = phi_new * phi_new * (weight_sum_g2 * g * 0.5)
    return SCALE * mu_new + 1500.0, SCALE * phi_new


# Four unrated players (1500 / 350 / 0.06); side {0, 1} beats side {2, 3}.
DOUBLES_WIN = SideMatches.two_sides([0], [[0, 1]], [[2, 3]], [1.0])


@pytest.mark.parametrize(
    ("method", "opponent_rd", "expected_rating"),
    [
        # the opposing side as one 1500 / 350 opponent (mean mu, rms phi)
        ("composite", 350.0, 1662.310894),
        # two opponents at 1500 / 350, each half a game: the same evidence as one game
        ("per_opponent", 350.0, 1662.310894),
        # everyone else as one opponent: mu = 0 + 0 - 0, phi^2 = 3 phi_0^2
        ("team_sum", 350.0 * math.sqrt(3.0), 1633.837307),
    ],
)
def test_equal_doubles_move_by_the_documented_amount(
    method: TeamMethod, opponent_rd: float, expected_rating: float
) -> None:
    outcome = rate_one(DOUBLES_WIN, 4, method)
    winners, losers = outcome.rating[:2], outcome.rating[2:]
    sigma_new = float(outcome.volatility[0])
    rating, rd = closed_form(opponent_rd / SCALE, 1.0, sigma_new)
    np.testing.assert_allclose(winners, rating, rtol=0, atol=1e-9)
    np.testing.assert_allclose(outcome.rd, rd, rtol=0, atol=1e-9)
    # Losers mirror winners around 1500.
    np.testing.assert_allclose(losers, 3000.0 - rating, rtol=0, atol=1e-9)
    assert rating == pytest.approx(expected_rating, abs=1e-6)
    # And the scalar reference agrees: one game against the composite opponent.
    reference = rate_player(1500.0, 350.0, 0.06, [(1500.0, opponent_rd, 1.0)], PARAMS)
    assert float(outcome.rating[0]) == pytest.approx(reference[0], abs=1e-9)
    assert float(outcome.rd[0]) == pytest.approx(reference[1], abs=1e-9)
    assert sigma_new == pytest.approx(reference[2], abs=1e-12)


def rated_state(n: int, seed: int) -> RatingState:
    """Random ratings after period 0 for all players but the last, who is unrated."""
    rng = np.random.default_rng(seed)
    last_period = np.zeros(n, dtype=np.int64)
    last_period[-1] = -1
    return RatingState(
        rating=np.where(last_period == 0, rng.normal(1500.0, 300.0, n), 1500.0),
        rd=np.where(last_period == 0, rng.uniform(40.0, 350.0, n), 350.0),
        volatility=np.where(last_period == 0, rng.uniform(0.04, 0.08, n), 0.06),
        last_period=last_period,
    )


@pytest.mark.parametrize("method", METHODS)
def test_swapping_sides_gives_the_same_changes(method: TeamMethod) -> None:
    state = rated_state(7, 1)
    forward = SideMatches.two_sides([1], [[0, 1, 2]], [[3, 4, 6]], [1.0])
    backward = SideMatches.two_sides([1], [[3, 4, 6]], [[0, 1, 2]], [0.0])
    left = rate_sides_period(state, forward, PARAMS, 1, method)
    right = rate_sides_period(state, backward, PARAMS, 1, method)
    assert_same_outcome(left, right)


@pytest.mark.parametrize("method", METHODS)
def test_mirrored_ratings_and_result_mirror_the_changes(method: TeamMethod) -> None:
    state = rated_state(6, 2)
    mirrored = state.copy()
    mirrored.rating = 3000.0 - state.rating
    win = SideMatches.two_sides([1], [[0, 1]], [[2, 3, 4]], [1.0])
    loss = SideMatches.two_sides([1], [[0, 1]], [[2, 3, 4]], [0.0])
    plain = rate_sides_period(state, win, PARAMS, 1, method)
    mirror = rate_sides_period(mirrored, loss, PARAMS, 1, method)
    np.testing.assert_allclose(
        plain.rating - plain.rating_before,
        -(mirror.rating - mirror.rating_before),
        rtol=0,
        atol=1e-8,
    )
    np.testing.assert_allclose(plain.rd, mirror.rd, rtol=0, atol=1e-9)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_one_vs_one_league_is_bit_identical_to_the_plain_fold(
    method: TeamMethod, seed: int
) -> None:
    synthetic = synthetic_league(30, 400, 20, seed=seed)
    plain = fold(synthetic.matches, 30, PARAMS, 0, 24)
    sides = fold_sides(SideMatches.from_pairs(synthetic.matches), 30, PARAMS, 0, 24, method=method)
    for name in History.__dataclass_fields__:
        np.testing.assert_array_equal(
            getattr(plain.history, name), getattr(sides.history, name), err_msg=name
        )
    for name in ("rating", "rd", "volatility", "last_period"):
        np.testing.assert_array_equal(
            getattr(plain.final_state, name), getattr(sides.final_state, name), err_msg=name
        )


@pytest.mark.parametrize("method", METHODS)
def test_one_vs_one_period_from_a_rated_state_is_bit_identical(method: TeamMethod) -> None:
    rng = np.random.default_rng(5)
    state = rated_state(50, 5)
    a = rng.integers(0, 50, 300)
    b = (a + rng.integers(1, 50, 300)) % 50
    s = rng.choice([0.0, 0.5, 1.0], 300)
    games = PeriodGames(a, b, s)
    pairs = SideMatches.from_pairs(MatchArrays(np.ones(300, dtype=np.int64), a, b, s))
    assert_same_outcome(
        rate_period(state, games, PARAMS, 1), rate_sides_period(state, pairs, PARAMS, 1, method)
    )


@pytest.mark.parametrize("method", METHODS)
def test_multi_side_match_is_its_pairwise_side_results(method: TeamMethod) -> None:
    state = rated_state(7, 3)
    # Sides {0, 1}, {2, 3}, {4, 5, 6} finish 2nd, 1st, 2nd (a tie for second).
    multi = SideMatches.from_lists([1], [[[0, 1], [2, 3], [4, 5, 6]]], [[1, 0, 1]])
    pairs = SideMatches.from_lists(
        [1, 1, 1],
        [[[0, 1], [2, 3]], [[0, 1], [4, 5, 6]], [[2, 3], [4, 5, 6]]],
        [[1, 0], [0, 0], [0, 1]],
    )
    together = rate_sides_period(state, multi, PARAMS, 1, method)
    apart = rate_sides_period(state, pairs, PARAMS, 1, method)
    for name in ("rating", "rd", "volatility"):
        np.testing.assert_allclose(
            getattr(together, name), getattr(apart, name), rtol=1e-13, err_msg=name
        )
    np.testing.assert_array_equal(together.games, [1] * 7)
    np.testing.assert_array_equal(apart.games, [2] * 7)
    np.testing.assert_array_equal(together.wins, [0, 0, 2, 2, 0, 0, 0])
    np.testing.assert_array_equal(together.draws, [1, 1, 0, 0, 1, 1, 1])
    np.testing.assert_array_equal(together.losses, [1, 1, 0, 0, 1, 1, 1])


@pytest.mark.parametrize("method", METHODS)
def test_tied_places_are_a_draw(method: TeamMethod) -> None:
    tie = SideMatches.from_lists([0], [[[0, 1], [2, 3]]], [[0, 0]])
    draw = SideMatches.two_sides([0], [[0, 1]], [[2, 3]], [0.5])
    assert_same_outcome(rate_one(tie, 4, method), rate_one(draw, 4, method))
    outcome = rate_one(tie, 4, method)
    np.testing.assert_allclose(outcome.rating, 1500.0, atol=1e-9)
    np.testing.assert_array_equal(outcome.draws, [1, 1, 1, 1])


def test_the_methods_differ_for_teams() -> None:
    state = rated_state(4, 4)
    match = SideMatches.two_sides([1], [[0, 1]], [[2, 3]], [1.0])
    ratings = {m: rate_sides_period(state, match, PARAMS, 1, m).rating for m in METHODS}
    assert not np.allclose(ratings["composite"], ratings["team_sum"])
    assert not np.allclose(ratings["composite"], ratings["per_opponent"])


def test_pair_scores_and_places() -> None:
    matches = SideMatches.from_lists(
        [0, 0], [[[0], [1], [2]], [[3, 4], [5, 6]]], [[2, 0, 1], [0, 1]]
    )
    match, x, y, score = matches.pair_scores()
    np.testing.assert_array_equal(match, [0, 0, 0, 1])
    np.testing.assert_array_equal(x, [0, 0, 1, 0])
    np.testing.assert_array_equal(y, [1, 2, 2, 1])
    np.testing.assert_array_equal(score, [0.0, 0.0, 1.0, 1.0])
    place_a, place_b = places_from_score([1.0, 0.5, 0.0])
    np.testing.assert_array_equal(place_a, [0, 0, 1])
    np.testing.assert_array_equal(place_b, [1, 0, 0])


def test_row_order_does_not_matter() -> None:
    rows = np.array([[0, 1, 3, 1], [0, 0, 1, 0], [0, 0, 0, 0], [0, 1, 2, 1]])
    shuffled = rows[[2, 0, 3, 1]]
    left = SideMatches(np.array([0]), *rows.T)
    right = SideMatches(np.array([0]), *shuffled.T)
    for name in ("match", "side", "player", "place"):
        np.testing.assert_array_equal(getattr(left, name), getattr(right, name))


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: SideMatches.from_lists([0], [[[0, 1], [1, 2]]], [[0, 1]]), "more than once"),
        (lambda: SideMatches.from_lists([0], [[[0, 1], []]], [[0, 1]]), "is empty"),
        (lambda: SideMatches.from_lists([0], [[[0, 1]]], [[0]]), "fewer than two sides"),
        (lambda: SideMatches.from_lists([0], [[[0], [1]]], [[0]]), "one place per side"),
        (lambda: SideMatches.two_sides([0], [[0]], [[1]], [0.7]), "score_a"),
        (
            lambda: SideMatches(
                np.array([0]),
                np.array([0, 0, 0]),
                np.array([0, 0, 1]),
                np.array([0, 1, 2]),
                np.array([0, 1, 1]),
            ),
            "different places",
        ),
        (
            lambda: SideMatches(
                np.array([0]),
                np.array([0, 0]),
                np.array([0, 2]),
                np.array([0, 1]),
                np.array([0, 1]),
            ),
            "numbered",
        ),
        (
            lambda: SideMatches(
                np.array([0, 0]),
                np.array([0, 0]),
                np.array([0, 1]),
                np.array([0, 1]),
                np.array([0, 1]),
            ),
            "has no players",
        ),
    ],
)
def test_malformed_matches_are_refused(build: Callable[[], SideMatches], message: str) -> None:
    with pytest.raises(InvalidParameterError, match=message):
        build()


def test_unknown_method_and_players_out_of_range_are_refused() -> None:
    with pytest.raises(InvalidParameterError, match="unknown team method"):
        rate_one(DOUBLES_WIN, 4, "mean")  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError, match="player indices"):
        fold_sides(DOUBLES_WIN, 3, PARAMS, 0, 0)
    with pytest.raises(InvalidParameterError, match="outside the folded range"):
        fold_sides(DOUBLES_WIN, 4, PARAMS, 1, 2)
