"""Swiss rounds (pairings/swiss.py): property tests over random score tables.

Each example draws a field of 2 to 10 players with random scores, ranks, sides played, byes
had and pairs already met; the generated round is compared with an exhaustive search over
every pairing of the field (at most 945 for ten players).
"""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pairings import SwissPlayer, swiss_round
from pairings.swiss import FIRST, SECOND, NoPairing

BYE = "bye"


def all_pairings(ids):
    """Every way to pair ``ids`` (with one bye when odd), as lists of pairs."""
    if not ids:
        yield []
        return
    if len(ids) % 2:
        for index, chosen in enumerate(ids):
            for rest in all_pairings(ids[:index] + ids[index + 1 :]):
                yield [(chosen, BYE), *rest]
        return
    head, tail = ids[0], ids[1:]
    for index, partner in enumerate(tail):
        for rest in all_pairings(tail[:index] + tail[index + 1 :]):
            yield [(head, partner), *rest]


def _repeats(pairs, played):
    return sum(1 for a, b in pairs if b != BYE and frozenset((a, b)) in played)


@st.composite
def fields(draw):
    n = draw(st.integers(min_value=2, max_value=10))
    rounds = draw(st.integers(min_value=0, max_value=6))
    ranks = draw(st.permutations(list(range(1, n + 1))))
    players = []
    for i in range(n):
        sides = draw(st.lists(st.sampled_from([FIRST, SECOND]), max_size=rounds))
        score = draw(st.integers(min_value=0, max_value=2 * rounds)) / 2
        players.append(SwissPlayer(i, score, ranks[i], tuple(sides), had_bye=draw(st.booleans())))
    every_pair = [frozenset((a, b)) for a in range(n) for b in range(a + 1, n)]
    played = draw(st.sets(st.sampled_from(every_pair), max_size=len(every_pair)))
    return players, played


def _as_pairs(result):
    pairs = [(p.first, p.second) for p in result.pairings]
    if result.bye is not None:
        pairs.append((result.bye, BYE))
    return pairs


@pytest.mark.property
@settings(deadline=None)  # the exhaustive reference search takes its time
@given(fields(), st.booleans())
def test_the_round_seats_everyone_once_with_a_bye_only_for_odd_fields(field, use_sides):
    players, played = field
    result = swiss_round(players, played, use_sides=use_sides)
    seated = Counter(x for p in result.pairings for x in (p.first, p.second))
    if result.bye is not None:
        seated[result.bye] += 1
    assert seated == Counter(p.id for p in players)
    assert (result.bye is not None) == (len(players) % 2 == 1)


@pytest.mark.property
@settings(deadline=None)  # the exhaustive reference search takes its time
@given(fields(), st.booleans())
def test_no_pairing_is_repeated_while_an_alternative_exists(field, use_sides):
    players, played = field
    result = swiss_round(players, played, use_sides=use_sides)
    fewest = min(_repeats(p, played) for p in all_pairings([p.id for p in players]))
    assert _repeats(_as_pairs(result), played) == fewest
    if fewest == 0:
        assert not any(frozenset((p.first, p.second)) in played for p in result.pairings)


@pytest.mark.property
@settings(deadline=None)  # the exhaustive reference search takes its time
@given(fields(), st.booleans())
def test_the_bye_goes_to_the_lowest_eligible_player_among_repeat_free_pairings(field, use_sides):
    players, played = field
    if len(players) % 2 == 0:
        return
    result = swiss_round(players, played, use_sides=use_sides)
    by_id = {p.id: p for p in players}
    candidates = list(all_pairings([p.id for p in players]))
    fewest = min(_repeats(c, played) for c in candidates)
    best = [c for c in candidates if _repeats(c, played) == fewest]

    def bye_of(pairs):
        return next(a for a, b in pairs if b == BYE)

    # Rule 2: a player without a bye gets it whenever one can (without more repeats).
    fresh = [c for c in best if not by_id[bye_of(c)].had_bye]
    if fresh:
        assert not by_id[result.bye].had_bye
        best = fresh
    # Rule 3: the lowest score, then the lowest-ranked, of those who can take it.
    lowest = min(best, key=lambda c: (by_id[bye_of(c)].score, -by_id[bye_of(c)].rank))
    assert result.bye == bye_of(lowest)


def _must(player):
    """The side a player must get (same side twice running, or two more of one side)."""
    last = player.sides[-2:]
    if len(last) == 2 and last[0] == last[1]:
        return SECOND if last[0] == FIRST else FIRST
    firsts, seconds = player.sides.count(FIRST), player.sides.count(SECOND)
    if abs(firsts - seconds) > 1:
        return SECOND if firsts > seconds else FIRST
    return None


@pytest.mark.property
@settings(deadline=None)  # the exhaustive reference search takes its time
@given(fields())
def test_a_player_who_must_change_sides_does_unless_the_opponent_must_too(field):
    players, played = field
    result = swiss_round(players, played, use_sides=True)
    by_id = {p.id: p for p in players}
    for pairing in result.pairings:
        first, second = by_id[pairing.first], by_id[pairing.second]
        for player, got, other in ((first, FIRST, second), (second, SECOND, first)):
            must = _must(player)
            if must is not None and must != got:
                assert _must(other) == must, (pairing, player, other)


def test_a_simple_club_night_pairs_the_top_half_against_the_bottom_half():
    players = [SwissPlayer(i, 0.0, rank=i) for i in range(1, 9)]
    result = swiss_round(players, use_sides=False)
    assert sorted(tuple(sorted((p.first, p.second))) for p in result.pairings) == [
        (1, 5),
        (2, 6),
        (3, 7),
        (4, 8),
    ]


def test_score_groups_meet_their_own_score_first():
    players = [
        SwissPlayer("a", 2.0, 1),
        SwissPlayer("b", 2.0, 2),
        SwissPlayer("c", 1.0, 3),
        SwissPlayer("d", 1.0, 4),
    ]
    result = swiss_round(players, use_sides=False)
    assert {frozenset((p.first, p.second)) for p in result.pairings} == {
        frozenset("ab"),
        frozenset("cd"),
    }


def test_sides_alternate_from_the_last_round():
    players = [
        SwissPlayer("w", 1.0, 1, sides=(FIRST,)),
        SwissPlayer("b", 1.0, 2, sides=(SECOND,)),
    ]
    (pairing,) = swiss_round(players).pairings
    assert (pairing.first, pairing.second) == ("b", "w")


def test_a_repeat_is_accepted_only_when_every_pairing_repeats():
    players = [SwissPlayer(i, 0.0, i + 1) for i in range(2)]
    result = swiss_round(players, {frozenset((0, 1))})
    assert len(result.pairings) == 1


def test_bad_fields_are_refused():
    with pytest.raises(ValueError, match="at least two"):
        swiss_round([SwissPlayer(1, 0.0, 1)])
    with pytest.raises(ValueError, match="once"):
        swiss_round([SwissPlayer(1, 0.0, 1), SwissPlayer(1, 0.0, 2)])


@pytest.mark.property
@settings(deadline=None)  # the exhaustive reference search takes its time
@given(fields(), st.booleans())
def test_score_groups_stay_together_as_far_as_the_rules_before_allow(field, use_sides):
    """Rules 1 to 4 of PAIRINGS.md, checked against every pairing of the field: no pairing
    with as few repeats and as good a bye has a smaller sum of squared score differences."""
    players, played = field
    by_id = {p.id: p for p in players}
    bye_order = sorted(players, key=lambda p: (p.score, -p.rank))
    bye_rank = {p.id: i for i, p in enumerate(bye_order)}

    def cost(pairs):
        repeats = _repeats(pairs, played)
        bye = next((a for a, b in pairs if b == BYE), None)
        had = 1 if bye is not None and by_id[bye].had_bye else 0
        position = bye_rank[bye] if bye is not None else 0
        spread = sum(
            round(2 * (by_id[a].score - by_id[b].score)) ** 2 for a, b in pairs if b != BYE
        )
        return (repeats, had, position, spread)

    result = swiss_round(players, played, use_sides=use_sides)
    best = min(cost(c) for c in all_pairings([p.id for p in players]))
    assert cost(_as_pairs(result)) == best


@settings(max_examples=60, deadline=None)
@given(
    size=st.integers(min_value=2, max_value=8),
    data=st.data(),
)
def test_a_forbidden_pair_is_never_made_and_a_round_is_refused_only_when_none_avoids_it(size, data):
    """Forbidden pairs are an absolute rule (not a cost like a rematch): never paired, and
    ``NoPairing`` exactly when no pairing of the field (exhaustive search) avoids them."""
    ids = list(range(1, size + 1))
    every_pair = [frozenset((a, b)) for a in ids for b in ids if a < b]
    forbidden = set(data.draw(st.lists(st.sampled_from(every_pair), max_size=6)))
    played = set(data.draw(st.lists(st.sampled_from(every_pair), max_size=6)))
    players = [SwissPlayer(id=i, score=0.0, rank=i) for i in ids]
    possible = any(
        not any(b != BYE and frozenset((a, b)) in forbidden for a, b in pairs)
        for pairs in all_pairings(ids)
    )
    if not possible:
        with pytest.raises(NoPairing):
            swiss_round(players, played, forbidden=forbidden)
        return
    result = swiss_round(players, played, forbidden=forbidden)
    made = {frozenset((p.first, p.second)) for p in result.pairings}
    assert not made & forbidden
    assert 2 * len(made) + (result.bye is not None) == size


def test_a_forbidden_pair_is_avoided_even_at_the_cost_of_rematches():
    """A, B, C, D have played A-B, C-D, A-C, B-D: the only new pairing is A-D with B-C.
    With A-D forbidden the round repeats two games rather than make it."""
    players = [SwissPlayer(id=name, score=1.0, rank=rank) for rank, name in enumerate("ABCD", 1)]
    played = {frozenset(pair) for pair in ("AB", "CD", "AC", "BD")}
    made = {
        frozenset((p.first, p.second))
        for p in swiss_round(players, played, forbidden={frozenset("AD")}).pairings
    }
    assert frozenset("AD") not in made
    assert len(made) == 2
