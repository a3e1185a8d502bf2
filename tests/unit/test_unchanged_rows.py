"""``ratings.replay.compute.unchanged_rows``: which rows of a pass equal the stored ones."""

from __future__ import annotations

import numpy as np

from ratings.replay.compute import unchanged_rows


def test_rows_keyed_by_player_index_compare_every_column():
    # Per-player columns (index = player); stored rows of players 4, 1, 2, 7.
    rating = np.array([0.0, 1500.0, 1600.0, 0.0, 1700.0])
    games = np.array([0, 3, 4, 0, 5])
    new = np.array([1, 2, 4])
    old = np.array([4, 1, 2, 7])
    old_rating = np.array([1700.0, 1500.0, 1600.0, 1800.0])
    old_games = np.array([5, 3, 9, 1])

    same, old_same = unchanged_rows(new, [rating, games], old, [old_rating, old_games])

    assert same.tolist() == [True, False, True]  # player 2's games differ
    assert old_same.tolist() == [True, True, False, False]  # player 7 has no new row


def test_floats_compare_by_their_bits():
    new = np.array([0, 1, 2])
    values = np.array([0.0, np.nan, 0.1 + 0.2])
    stored = np.array([-0.0, np.nan, 0.3])

    same, old_same = unchanged_rows(new, [values], new, [stored])

    assert same.tolist() == [False, True, False]
    assert old_same.tolist() == [False, True, False]


def test_keyed_rows_hold_one_value_per_row_and_may_be_missing_on_either_side():
    new_key = np.array([10, 30, 20])
    new_values = np.array([1.0, 3.0, 2.0])
    old_key = np.array([20, 40, 10])
    old_values = np.array([2.0, 4.0, 1.5])

    same, old_same = unchanged_rows(new_key, [new_values], old_key, [old_values], keyed=True)

    assert same.tolist() == [False, False, True]
    assert old_same.tolist() == [True, False, False]


def test_no_rows_on_one_side_means_nothing_is_unchanged():
    same, old_same = unchanged_rows(
        np.array([1, 2]), [np.zeros(3)], np.zeros(0, np.int64), [np.zeros(0)]
    )
    assert same.tolist() == [False, False]
    assert old_same.size == 0
