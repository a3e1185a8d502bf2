"""The side-match fold: resuming from any checkpoint equals the full fold, bit for bit."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Glicko2Params, History, RatingState, state_before
from engine.side_fold import fold_sides
from engine.sides import SideMatches
from engine.teams import METHODS, TeamMethod

PARAMS = Glicko2Params()
LAST_PERIOD = 7


@st.composite
def side_leagues(draw: st.DrawFn) -> tuple[int, SideMatches]:
    """Random leagues of two-side team matches and multi-side games over a few periods."""
    n_players = draw(st.integers(2, 12))
    periods: list[int] = []
    sides: list[list[list[int]]] = []
    places: list[list[int]] = []
    for _ in range(draw(st.integers(0, 25))):
        seats = draw(st.permutations(range(n_players)))
        k = draw(st.integers(2, min(4, n_players)))
        cuts = sorted(draw(st.sets(st.integers(1, len(seats) - 1), min_size=k - 1, max_size=k - 1)))
        take = draw(st.integers(cuts[-1] + 1, len(seats)))
        bounds = [0, *cuts, take]
        sides.append([list(seats[a:b]) for a, b in itertools.pairwise(bounds)])
        places.append(draw(st.lists(st.integers(0, k - 1), min_size=k, max_size=k)))
        periods.append(draw(st.integers(0, LAST_PERIOD)))
    return n_players, SideMatches.from_lists(periods, sides, places)


def assert_same(left: History, right: History) -> None:
    for name in History.__dataclass_fields__:
        np.testing.assert_array_equal(getattr(left, name), getattr(right, name), err_msg=name)


def assert_same_state(left: RatingState, right: RatingState) -> None:
    for name in ("rating", "rd", "volatility", "last_period"):
        np.testing.assert_array_equal(getattr(left, name), getattr(right, name), err_msg=name)


@settings(max_examples=60, deadline=None)
@given(
    league=side_leagues(),
    checkpoint=st.integers(0, LAST_PERIOD + 1),
    method=st.sampled_from(METHODS),
)
def test_resuming_from_a_checkpoint_equals_the_full_fold(
    league: tuple[int, SideMatches], checkpoint: int, method: TeamMethod
) -> None:
    n_players, matches = league
    full = fold_sides(matches, n_players, PARAMS, 0, LAST_PERIOD, method=method)
    start = state_before(full.history, n_players, PARAMS, checkpoint)
    later = matches.take(matches.period >= checkpoint)
    resumed = fold_sides(
        later, n_players, PARAMS, checkpoint, LAST_PERIOD, start_state=start, method=method
    )
    assert_same(resumed.history, full.history.slice_from(checkpoint))
    assert_same(
        History.concat([full.history.slice_before(checkpoint), resumed.history]), full.history
    )
    assert_same_state(resumed.final_state, full.final_state)


@settings(max_examples=30, deadline=None)
@given(league=side_leagues(), method=st.sampled_from(METHODS))
def test_history_counts_every_match_and_side_result(
    league: tuple[int, SideMatches], method: TeamMethod
) -> None:
    n_players, matches = league
    history = fold_sides(matches, n_players, PARAMS, 0, LAST_PERIOD, method=method).history
    assert int(history.games.sum()) == matches.n_rows
    match, x, y, _ = matches.pair_scores()
    size = dict.fromkeys(zip(matches.match.tolist(), matches.side.tolist(), strict=True), 0)
    for m, side in zip(matches.match.tolist(), matches.side.tolist(), strict=True):
        size[m, side] += 1
    side_results = sum(
        size[m, a] + size[m, b]
        for m, a, b in zip(match.tolist(), x.tolist(), y.tolist(), strict=True)
    )
    assert int((history.wins + history.draws + history.losses).sum()) == side_results
    assert np.all(history.rd <= PARAMS.max_rd)
    keys = history.period * n_players + history.player
    assert np.all(np.diff(keys) > 0)
