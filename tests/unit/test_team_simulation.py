"""The team simulation's measuring pieces: rank error, matchmaking, engine input, crossing."""

from __future__ import annotations

import math

import numpy as np

from bench.team_simulation import first_round_at, matchmake, rank_error, side_matches


def test_rank_error_is_zero_for_the_true_order_and_a_third_at_random() -> None:
    rng = np.random.default_rng(0)
    skill = rng.normal(1500.0, 350.0, 3000)
    true_rank = np.empty(skill.size, dtype=np.int64)
    true_rank[np.argsort(-skill)] = np.arange(skill.size)
    assert rank_error(skill, true_rank, rng) == 0.0
    assert abs(rank_error(np.full(skill.size, 1500.0), true_rank, rng) - 1 / 3) < 0.02


def test_matchmaking_groups_neighbours_and_seats_everyone_once() -> None:
    rng = np.random.default_rng(1)
    estimate = np.arange(24, dtype=np.float64)
    teams = matchmake(estimate, 3, rng)
    assert teams.shape == (4, 2, 3)
    assert sorted(teams.ravel().tolist()) == list(range(24))
    # The best six players form the first match.
    assert set(teams[0].ravel().tolist()) == set(range(18, 24))
    # With a remainder, random players sit out and nobody plays twice.
    odd = matchmake(np.arange(25, dtype=np.float64), 3, rng)
    assert odd.shape == (4, 2, 3)
    assert len(set(odd.ravel().tolist())) == 24


def test_side_matches_place_the_winner_first() -> None:
    teams = np.array([[[0, 1], [2, 3]], [[4, 5], [6, 7]]], dtype=np.int64)
    matches = side_matches(teams, np.array([True, False]))
    match, side_x, side_y, score = matches.pair_scores()
    np.testing.assert_array_equal(match, [0, 1])
    np.testing.assert_array_equal(side_x, [0, 0])
    np.testing.assert_array_equal(side_y, [1, 1])
    np.testing.assert_array_equal(score, [1.0, 0.0])


def test_games_to_target_interpolates_between_rounds() -> None:
    rounds = np.array([0, 1, 2, 3])
    error = np.array([0.33, 0.25, 0.15, 0.10])
    assert math.isclose(first_round_at(rounds, error, 0.17), 1.8)
    assert first_round_at(rounds, error, 0.05) == math.inf
    assert first_round_at(rounds, error, 0.40) == 0.0
