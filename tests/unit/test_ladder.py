"""Ladder challenges (pairings/ladder.py)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pairings import LadderPlayer, ladder_round


def _ladder(n):
    return [LadderPlayer(f"p{rank}", rank) for rank in range(1, n + 1)]


def test_neighbours_challenge_each_other_lower_ranked_first():
    result = ladder_round(_ladder(6), max_distance=1)
    assert [(p.first, p.second) for p in result.pairings] == [
        ("p2", "p1"),
        ("p4", "p3"),
        ("p6", "p5"),
    ]
    assert result.unpaired == ()


def test_recent_opponents_are_avoided_when_another_challenge_is_in_reach():
    recent = {frozenset(("p1", "p2")), frozenset(("p3", "p4"))}
    result = ladder_round(_ladder(4), max_distance=2, recent=recent)
    assert {frozenset((p.first, p.second)) for p in result.pairings} == {
        frozenset(("p1", "p3")),
        frozenset(("p2", "p4")),
    }


def test_players_out_of_reach_stay_unpaired():
    players = [LadderPlayer("a", 1), LadderPlayer("b", 2), LadderPlayer("c", 9)]
    result = ladder_round(players, max_distance=3)
    assert [(p.first, p.second) for p in result.pairings] == [("b", "a")]
    assert result.unpaired == ("c",)


@pytest.mark.property
@settings(deadline=None)  # a loaded machine must not fail a correct example
@given(
    st.integers(min_value=2, max_value=24),
    st.integers(min_value=1, max_value=5),
    st.randoms(use_true_random=False),
)
def test_every_challenge_is_within_reach_and_as_many_as_possible(n, distance, rng):
    ranks = sorted(rng.sample(range(1, 3 * n), n))
    players = [LadderPlayer(i, rank) for i, rank in enumerate(ranks)]
    rank_of = {p.id: p.rank for p in players}
    result = ladder_round(players, max_distance=distance)
    for p in result.pairings:
        assert 0 < rank_of[p.first] - rank_of[p.second] <= distance
    seated = [x for p in result.pairings for x in (p.first, p.second)] + list(result.unpaired)
    assert sorted(seated) == list(range(n))
    # On a line, a left-to-right greedy pairing of neighbours within reach is maximum.
    greedy, i = 0, 0
    while i < n - 1:
        if ranks[i + 1] - ranks[i] <= distance:
            greedy, i = greedy + 1, i + 2
        else:
            i += 1
    assert len(result.pairings) == greedy


def test_a_distance_below_one_is_refused():
    with pytest.raises(ValueError, match="at least 1"):
        ladder_round(_ladder(3), max_distance=0)
