"""The bracket arithmetic of a knockout cup (``pairings.brackets``): standard seeding, byes for
the top seeds, the next round from the winners, and where seeds meet."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pairings import brackets


def test_sizes_rounds_and_byes():
    assert [brackets.rounds_for(n) for n in (2, 3, 4, 5, 8, 9, 16, 17)] == [1, 2, 2, 3, 3, 4, 4, 5]
    assert [brackets.bracket_size(n) for n in (2, 3, 5, 12, 16)] == [2, 4, 8, 16, 16]
    assert [brackets.byes_for(n) for n in (2, 3, 5, 12, 16)] == [0, 1, 3, 4, 0]
    assert brackets.fits(16, 4)
    assert brackets.fits(9, 4)
    assert not brackets.fits(8, 4)
    assert not brackets.fits(17, 4)
    assert not brackets.fits(1, 1)
    with pytest.raises(ValueError):
        brackets.rounds_for(1)


def test_the_standard_seeding_of_sixteen():
    assert brackets.seed_order(16) == [1, 16, 8, 9, 4, 13, 5, 12, 2, 15, 7, 10, 3, 14, 6, 11]
    assert brackets.seed_order(4) == [1, 4, 2, 3]
    with pytest.raises(ValueError):
        brackets.seed_order(12)


def test_round_one_pairs_the_best_with_the_worst():
    seeded = [f"s{n}" for n in range(1, 17)]
    ties = brackets.first_round(seeded)
    assert ties[:2] == [("s1", "s16"), ("s8", "s9")]
    assert all(int(a[1:]) + int(b[1:]) == 17 for a, b in ties)


def test_a_short_field_gives_the_top_seeds_a_bye():
    # 12 players in a bracket of 16: seeds 1 to 4 face the empty slots 16 to 13.
    ties = brackets.first_round(list(range(1, 13)))
    assert len(ties) == 8
    byes = sorted(a for a, b in ties if b is None)
    assert byes == [1, 2, 3, 4]
    assert all(a is not None for a, _b in ties)
    assert sorted(a + b for a, b in ties if b is not None) == [17, 17, 17, 17]
    # Three players: seed 1 has the bye, 2 v 3 is the other semi-final.
    assert brackets.first_round(["A", "B", "C"]) == [("A", None), ("B", "C")]


def test_the_next_round_pairs_neighbouring_ties():
    assert brackets.next_round(["a", "b", "c", None]) == [("a", "b"), ("c", None)]
    with pytest.raises(ValueError):
        brackets.next_round(["a", "b", "c"])


def test_where_seeds_meet_when_the_better_seed_always_wins():
    size = 16
    seeded = list(range(1, size + 1))
    ties = brackets.first_round(seeded)
    number = 1
    met = {}
    while True:
        for a, b in ties:
            met[frozenset((a, b))] = number
        winners = [min(a, b) for a, b in ties]
        if len(winners) == 1:
            break
        ties = brackets.next_round(winners)
        number += 1
    assert met[frozenset((1, 2))] == 4  # the final
    assert met[frozenset((1, 4))] == met[frozenset((2, 3))] == 3  # the semi-finals
    assert all(brackets.meeting_round(*pair, size) == r for pair, r in met.items())
    assert brackets.tie_of(9, 16, 1) == 2
    assert brackets.tie_of(2, 16, 4) == 1


@pytest.mark.property
@given(st.integers(min_value=1, max_value=7).flatmap(
    lambda k: st.tuples(st.just(k), st.permutations(range(1, 2**k + 1)))
))  # fmt: skip
def test_seeds_one_and_two_can_only_meet_in_the_final(case):
    """Whatever the results, in a 2^k field seeds 1 and 2 never share a tie before round k."""
    k, strengths = case
    size = 2**k
    # Any results: the side with the higher random strength wins each tie.
    strength = dict(zip(range(1, size + 1), strengths, strict=True))
    ties = brackets.first_round(list(range(1, size + 1)))
    for number in range(1, k + 1):
        for a, b in ties:
            if {a, b} == {1, 2}:
                assert number == k
        if number == k:
            break
        ties = brackets.next_round([max((a, b), key=strength.__getitem__) for a, b in ties])
    assert brackets.meeting_round(1, 2, size) == k


@pytest.mark.property
@given(st.integers(min_value=2, max_value=128))
def test_every_entrant_has_one_slot_and_no_tie_is_empty(n):
    ties = brackets.first_round(list(range(1, n + 1)))
    placed = [side for tie in ties for side in tie if side is not None]
    assert sorted(placed) == list(range(1, n + 1))
    assert all(a is not None or b is not None for a, b in ties)
    # The byes go to the best seeds, one each.
    assert sorted(a for a, b in ties if b is None) == list(range(1, brackets.byes_for(n) + 1))
