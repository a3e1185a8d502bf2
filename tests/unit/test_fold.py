"""The fold: periods in order, history rows, checkpoints, resumption and refusals."""

from __future__ import annotations

import numpy as np
import pytest

from bench.synthetic import synthetic_league
from engine import (
    ConvergenceError,
    Glicko2Params,
    History,
    InvalidParameterError,
    MatchArrays,
    PeriodGames,
    RatingState,
    fold,
    rate_period,
    state_before,
)
from engine.fold import FoldResult, period_starts

PARAMS = Glicko2Params()


def matches(*rows: tuple[int, int, int, float]) -> MatchArrays:
    data = np.array(rows, dtype=np.float64).reshape(-1, 4)
    return MatchArrays(
        data[:, 0].astype(np.int64),
        data[:, 1].astype(np.int64),
        data[:, 2].astype(np.int64),
        data[:, 3],
    )


def assert_same_history(left: History, right: History) -> None:
    for name in History.__dataclass_fields__:
        np.testing.assert_array_equal(getattr(left, name), getattr(right, name), err_msg=name)


def assert_same_state(left: RatingState, right: RatingState) -> None:
    for name in ("rating", "rd", "volatility", "last_period"):
        np.testing.assert_array_equal(getattr(left, name), getattr(right, name), err_msg=name)


@pytest.fixture(scope="module")
def league() -> tuple[MatchArrays, FoldResult]:
    synthetic = synthetic_league(40, 600, 30, seed=7)
    return synthetic.matches, fold(synthetic.matches, 40, PARAMS, 0, 34)


def test_history_rows_are_ordered_and_counted(league: tuple[MatchArrays, FoldResult]) -> None:
    played, result = league
    history = result.history
    keys = history.period * 40 + history.player
    assert np.all(np.diff(keys) > 0)
    assert int(history.games.sum()) == 2 * len(played)
    assert np.array_equal(history.games, history.wins + history.draws + history.losses)
    assert int(history.wins.sum()) == int(history.losses.sum())
    assert np.all(history.rd <= PARAMS.max_rd)
    assert np.all(history.rd_before <= PARAMS.max_rd)


def test_resuming_from_any_checkpoint_is_bit_identical(
    league: tuple[MatchArrays, FoldResult],
) -> None:
    played, full = league
    for period in (0, 1, 5, 17, 29, 30, 34):
        start = state_before(full.history, 40, PARAMS, period)
        later = played.take(played.period >= period)
        resumed = fold(later, 40, PARAMS, period, 34, start_state=start)
        assert_same_history(resumed.history, full.history.slice_from(period))
        assert_same_state(resumed.final_state, full.final_state)
        joined = History.concat([full.history.slice_before(period), resumed.history])
        assert_same_history(joined, full.history)


def test_match_order_does_not_matter(league: tuple[MatchArrays, FoldResult]) -> None:
    played, full = league
    shuffled = played.take(np.random.default_rng(3).permutation(len(played)))
    again = fold(shuffled, 40, PARAMS, 0, 34)
    for name in ("rating", "rd", "volatility"):
        np.testing.assert_allclose(
            getattr(again.history, name), getattr(full.history, name), rtol=1e-9
        )


def test_history_handed_over_period_by_period_is_the_kept_history(
    league: tuple[MatchArrays, FoldResult],
) -> None:
    played, full = league
    blocks: list[History] = []
    streamed = fold(played, 40, PARAMS, 0, 34, on_history=blocks.append)
    assert len(streamed.history) == 0
    assert [int(block.period[0]) for block in blocks] == sorted(set(played.period.tolist()))
    assert all(np.all(block.period == block.period[0]) for block in blocks)
    assert_same_history(History.concat(blocks), full.history)
    assert_same_state(streamed.final_state, full.final_state)


def test_matches_in_period_order_fold_like_the_same_matches_out_of_it(
    league: tuple[MatchArrays, FoldResult],
) -> None:
    """The fold sorts only input out of period order (stably: each period's matches keep
    their order), and both give the same numbers, bit for bit."""
    played, full = league
    assert np.all(np.diff(played.period) >= 0)  # the fixture's matches are in order
    # Periods last to first, each period's matches in their own order.
    reversed_periods = played.take(np.argsort(-played.period, kind="stable"))
    assert not np.all(np.diff(reversed_periods.period) >= 0)
    again = fold(reversed_periods, 40, PARAMS, 0, 34)
    assert_same_history(again.history, full.history)
    assert_same_state(again.final_state, full.final_state)


@pytest.mark.parametrize(
    "periods",
    [[], [4], [0, 0, 0], [0, 1, 1, 3, 3, 3, 9], list(range(12)), [2] * 5 + [7] * 3],
)
def test_period_starts_are_what_unique_gives_for_sorted_periods(periods: list[int]) -> None:
    period = np.array(periods, dtype=np.int64)
    played, starts = period_starts(period)
    expected_played, expected_starts = np.unique(period, return_index=True)
    np.testing.assert_array_equal(played, expected_played)
    np.testing.assert_array_equal(starts, expected_starts)
    assert starts.dtype == np.int64


def test_players_who_never_play_stay_unrated() -> None:
    result = fold(matches((0, 0, 1, 1.0), (3, 1, 0, 0.5)), 4, PARAMS, 0, 5)
    state = result.final_state
    assert state.last_period.tolist() == [3, 3, -1, -1]
    assert state.rating[2:].tolist() == [1500.0, 1500.0]
    assert state.rd_at(5, PARAMS)[2:].tolist() == [350.0, 350.0]
    assert result.history.period.tolist() == [0, 0, 3, 3]


def test_state_can_grow_with_new_players() -> None:
    first = fold(matches((0, 0, 1, 1.0)), 2, PARAMS, 0, 0)
    second = fold(matches((1, 2, 0, 0.0)), 3, PARAMS, 1, 1, start_state=first.final_state)
    assert second.final_state.last_period.tolist() == [1, 0, 1]
    assert first.final_state.n_players == 2


def test_progress_is_reported_up_to_the_total() -> None:
    calls: list[tuple[int, int]] = []
    fold(
        matches((0, 0, 1, 1.0), (250, 0, 1, 0.0)),
        2,
        PARAMS,
        0,
        299,
        on_progress=lambda *a: calls.append(a),
    )
    assert calls[-1] == (300, 300)
    assert all(total == 300 for _, total in calls)
    assert [done for done, _ in calls] == sorted({done for done, _ in calls})


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: fold(matches((5, 0, 1, 1.0)), 2, PARAMS, 0, 4), "outside the folded range"),
        (lambda: fold(matches((0, 0, 1, 1.0)), 2, PARAMS, 1, 4), "outside the folded range"),
        (lambda: fold(matches((0, 0, 2, 1.0)), 2, PARAMS, 0, 0), "not below n_players"),
        (lambda: matches((0, 1, 1, 1.0)), "cannot play themself"),
        (lambda: matches((0, 0, 1, 0.7)), "score_a must be 1, 0.5 or 0"),
        (lambda: fold(matches((0, -1, 1, 1.0)), 2, PARAMS, 0, 0), "0..1, got -1"),
        (
            lambda: rate_period(
                RatingState.unrated(2, PARAMS),
                PeriodGames(np.array([0]), np.array([5]), np.array([1.0])),
                PARAMS,
                0,
            ),
            "player indices must be in 0..1",
        ),
        (lambda: fold(matches((0, 0, 1, 1.0)), 2, PARAMS, -1, 3), "first_period must be >= 0"),
        (
            lambda: MatchArrays(
                np.zeros(2, np.int64), np.zeros(1, np.int64), np.ones(1, np.int64), np.ones(1)
            ),
            "same length",
        ),
        (lambda: fold(matches(), 2, PARAMS, 3, 1), "must not be before"),
    ],
)
def test_bad_input_is_refused(build: object, message: str) -> None:
    with pytest.raises(InvalidParameterError, match=message):
        build()  # type: ignore[operator]


def test_start_state_must_precede_the_first_period() -> None:
    done = fold(matches((2, 0, 1, 1.0)), 2, PARAMS, 0, 2)
    with pytest.raises(InvalidParameterError, match="already contains period 2"):
        fold(matches((2, 0, 1, 1.0)), 2, PARAMS, 2, 3, start_state=done.final_state)
    with pytest.raises(InvalidParameterError, match="not after the last rated period"):
        rate_period(
            done.final_state, PeriodGames(np.array([0]), np.array([1]), np.array([1.0])), PARAMS, 2
        )


def test_refused_fold_leaves_start_state_untouched() -> None:
    start = fold(matches((0, 0, 1, 1.0)), 2, PARAMS, 0, 0).final_state
    before = start.copy()
    with pytest.raises(InvalidParameterError):
        fold(matches((1, 0, 1, 1.0), (9, 0, 1, 1.0)), 2, PARAMS, 1, 3, start_state=start)
    fold(matches((1, 0, 1, 1.0)), 2, PARAMS, 1, 3, start_state=start)
    assert_same_state(start, before)


def test_iteration_cap_raises_a_named_error() -> None:
    params = Glicko2Params(max_iterations=1)
    state = RatingState(
        rating=np.array([1500.0, 1400.0, 1550.0, 1700.0]),
        rd=np.array([200.0, 30.0, 100.0, 300.0]),
        volatility=np.full(4, 0.06),
        last_period=np.zeros(4, dtype=np.int64),
    )
    games = PeriodGames(np.array([0, 0, 0]), np.array([1, 2, 3]), np.array([1.0, 0.0, 0.0]))
    with pytest.raises(ConvergenceError, match=r"did not converge for player 0 \(sigma=0.06"):
        rate_period(state, games, params, 1)


def test_a_period_without_games_rates_nobody() -> None:
    state = RatingState.unrated(3, PARAMS)
    empty = np.empty(0, dtype=np.int64)
    outcome = rate_period(state, PeriodGames(empty, empty, np.empty(0)), PARAMS, 4)
    assert outcome.players.size == 0
    assert outcome.rating.size == 0
