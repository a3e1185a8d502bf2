"""Round robins from Berger tables (pairings/round_robin.py), 3 to 20 players."""

from __future__ import annotations

from collections import Counter

import pytest

from pairings import round_robin

SIZES = range(3, 21)


def _games(rounds):
    return [(p.first, p.second) for r in rounds for p in r.pairings]


@pytest.mark.parametrize("n", SIZES)
def test_every_pair_meets_exactly_once_per_cycle(n):
    rounds = round_robin([f"p{i}" for i in range(n)])
    meetings = Counter(frozenset(game) for game in _games(rounds))
    everyone = {f"p{i}" for i in range(n)}
    expected = {frozenset((a, b)) for a in everyone for b in everyone if a != b}
    assert set(meetings) == expected
    assert set(meetings.values()) == {1}
    assert len(rounds) == (n - 1 if n % 2 == 0 else n)


@pytest.mark.parametrize("n", SIZES)
def test_each_round_seats_every_player_once(n):
    for r in round_robin(list(range(n))):
        seated = [x for p in r.pairings for x in (p.first, p.second)] + list(r.byes)
        assert sorted(seated) == list(range(n)), r
        assert len(r.byes) == n % 2


@pytest.mark.parametrize("n", [n for n in SIZES if n % 2])
def test_byes_are_balanced_one_per_player_per_cycle(n):
    single = Counter(x for r in round_robin(list(range(n))) for x in r.byes)
    assert single == Counter(range(n))
    double = Counter(x for r in round_robin(list(range(n)), double=True) for x in r.byes)
    assert double == Counter(dict.fromkeys(range(n), 2))


@pytest.mark.parametrize("n", SIZES)
def test_sides_are_balanced_within_one(n):
    rounds = round_robin(list(range(n)))
    firsts = Counter(p.first for r in rounds for p in r.pairings)
    seconds = Counter(p.second for r in rounds for p in r.pairings)
    assert max(abs(firsts[i] - seconds[i]) for i in range(n)) <= 1


@pytest.mark.parametrize("n", SIZES)
def test_sides_alternate_apart_from_the_fixed_players_game(n):
    """Berger's property: nobody plays the same side three rounds running."""
    rounds = round_robin(list(range(n)))
    for player in range(n):
        sides = []
        for r in rounds:
            for p in r.pairings:
                if player in (p.first, p.second):
                    sides.append(p.first == player)
        runs = [sides[i : i + 3] for i in range(len(sides) - 2)]
        assert not any(len(set(run)) == 1 for run in runs), (player, sides)


@pytest.mark.parametrize("n", SIZES)
def test_double_round_robin_swaps_sides_in_the_second_cycle(n):
    rounds = round_robin(list(range(n)), double=True)
    cycle = len(rounds) // 2
    first = _games(rounds[:cycle])
    second = _games(rounds[cycle:])
    assert sorted(second) == sorted((b, a) for a, b in first)
    assert Counter(frozenset(g) for g in first + second) == Counter(
        {frozenset(g): 2 for g in first}
    )
    assert [r.number for r in rounds] == list(range(1, 2 * cycle + 1))


def test_bad_fields_are_refused():
    with pytest.raises(ValueError, match="at least two"):
        round_robin(["solo"])
    with pytest.raises(ValueError, match="once"):
        round_robin(["a", "b", "a"])
