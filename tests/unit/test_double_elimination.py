"""The arithmetic of a double-elimination bracket (``pairings.double_elimination``): its
layout, where losers drop, the grand final and its reset, and, as properties over every
field size and any results, that nobody is out before losing twice and that exactly one
entrant wins."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pairings import double_elimination as de


def _by_part(specs):
    parts: dict[tuple[str, int], list[de.TieSpec]] = {}
    for spec in specs:
        parts.setdefault((spec.part, spec.part_round), []).append(spec)
    return parts


def test_the_layout_of_eight():
    specs = de.layout(3, reset=True)
    parts = _by_part(specs)
    # Winners' bracket 4-2-1, losers' bracket 2-2-1-1, a grand final and its reset.
    assert [len(parts[(de.WINNERS, r)]) for r in (1, 2, 3)] == [4, 2, 1]
    assert [len(parts[(de.LOSERS, m)]) for m in (1, 2, 3, 4)] == [2, 2, 1, 1]
    assert len(parts[(de.FINAL, 1)]) == 1
    assert len(parts[(de.RESET, 1)]) == 1
    assert len(specs) == 15  # 2 * 8 - 2 ties, and the reset
    # Rounds of play: W1 | W2 L1 | W3 L2 | L3 | L4 | final | reset.
    plays = Counter(spec.round_number for spec in specs)
    assert plays == {1: 4, 2: 4, 3: 3, 4: 1, 5: 1, 6: 1, 7: 1}
    assert de.rounds_of_play(3, reset=True) == 7
    assert de.rounds_of_play(3, reset=False) == 6
    assert de.depth_of(7) == 3
    assert de.depth_of(6) == 3
    # Boards: the winners' ties first, then the losers'.
    round_two = [s for s in specs if s.round_number == 2]
    assert [(s.part, s.position, s.board) for s in round_two] == [
        (de.WINNERS, 1, 1),
        (de.WINNERS, 2, 2),
        (de.LOSERS, 1, 3),
        (de.LOSERS, 2, 4),
    ]


def test_every_tie_comes_after_its_sources_and_is_played_later():
    for depth in range(1, 8):
        for reset in (False, True):
            specs = de.layout(depth, reset)
            assert [s.index for s in specs] == list(range(len(specs)))
            seen_boards = set()
            for spec in specs:
                assert (spec.round_number, spec.board) not in seen_boards
                seen_boards.add((spec.round_number, spec.board))
                for feed in (spec.first, spec.second):
                    if feed.kind != de.SLOT:
                        assert feed.ref < spec.index
                        assert specs[feed.ref].round_number < spec.round_number


def test_losers_of_winners_round_two_drop_in_reverse_order():
    specs = de.layout(3, reset=False)
    parts = _by_part(specs)
    w2 = parts[(de.WINNERS, 2)]
    l2 = parts[(de.LOSERS, 2)]
    assert l2[0].second == de.Feed(de.LOSER_OF, w2[1].index)
    assert l2[1].second == de.Feed(de.LOSER_OF, w2[0].index)
    l1 = parts[(de.LOSERS, 1)]
    assert [s.first for s in l2] == [de.Feed(de.WINNER_OF, s.index) for s in l1]


def _results(draw):
    """A decider that picks winners from a drawn list of coin flips (True: first wins)."""
    flips = iter(draw)

    def decide(spec, a, b):
        first_wins = next(flips, True)
        return (a, b) if first_wins else (b, a)

    return decide


def _eight_favourites_win():
    slots = de.seeded_slots(list(range(1, 9)), 3)
    specs = de.layout(3, reset=True)
    played = de.play_out(specs, slots, lambda spec, a, b: (min(a, b), max(a, b)))
    return specs, played


def test_the_favourites_winning_give_the_top_seed_without_a_reset():
    specs, played = _eight_favourites_win()
    final = next(t for s, t in zip(specs, played, strict=True) if s.part == de.FINAL)
    reset = next(t for s, t in zip(specs, played, strict=True) if s.part == de.RESET)
    assert (final.first, final.second, final.winner) == (1, 2, 1)
    assert reset.decided
    assert not reset.needed
    assert de.champion(specs, played) == (True, 1)


def test_the_losers_champion_winning_the_final_forces_a_reset():
    specs = de.layout(2, reset=True)
    slots = de.seeded_slots([1, 2, 3, 4], 2)
    final_index = next(s.index for s in specs if s.part == de.FINAL)

    def decide(spec, a, b):
        if spec.index == final_index:
            return (b, a)  # the losers' bracket champion wins the first final
        if spec.part == de.RESET:
            return None  # not played yet
        return (min(a, b), max(a, b))

    played = de.play_out(specs, slots, decide)
    reset = played[-1]
    assert reset.needed
    assert not reset.decided
    assert (reset.first, reset.second) == (1, 2)
    assert de.champion(specs, played) == (False, None)
    # Without a reset the same grand final decides the cup.
    specs_no = de.layout(2, reset=False)
    played_no = de.play_out(specs_no, slots, decide)
    assert de.champion(specs_no, played_no) == (True, 2)


def test_a_field_of_three_gives_the_top_seed_a_bye_and_walkovers_in_the_losers_bracket():
    specs = de.layout(2, reset=False)
    slots = de.seeded_slots(["a", "b", "c"], 2)
    assert slots == ["a", None, "b", "c"]
    played = de.play_out(specs, slots, lambda spec, a, b: (a, b))
    w1 = played[0]
    assert w1.walkover
    assert w1.winner == "a"
    assert w1.loser is None
    l1 = next(t for s, t in zip(specs, played, strict=True) if s.part == de.LOSERS)
    # Nobody drops from the bye: the loser of b v c goes through without a game.
    assert l1.walkover
    assert l1.winner == "c"
    assert de.champion(specs, played) == (True, "a")


def test_a_tie_waits_for_its_sources():
    specs = de.layout(2, reset=True)
    played = de.play_out(specs, de.seeded_slots([1, 2, 3, 4], 2), lambda spec, a, b: None)
    assert [t.decided for t in played[:2]] == [False, False]
    assert all(t.first_waiting and t.second_waiting for t in played[2:])


@settings(max_examples=150, deadline=None)
@given(
    entrants=st.integers(min_value=2, max_value=40),
    reset=st.booleans(),
    flips=st.lists(st.booleans(), min_size=0, max_size=120),
)
def test_nobody_is_out_before_losing_twice_and_exactly_one_wins(entrants, reset, flips):
    depth = (entrants - 1).bit_length()
    specs = de.layout(depth, reset)
    played = de.play_out(specs, de.seeded_slots(list(range(entrants)), depth), _results(flips))
    assert all(t.decided for t, s in zip(played, specs, strict=True))
    losses = Counter(t.loser for t in played if t.decided and t.loser is not None)
    decided, champion = de.champion(specs, played)
    assert decided
    assert champion is not None
    assert losses[champion] <= 1
    # Everybody plays until their second loss; only a reset-less final can put the
    # winners' bracket champion out after one.
    final = next(t for s, t in zip(specs, played, strict=True) if s.part == de.FINAL)
    for player in range(entrants):
        if player == champion:
            continue
        expected = {2} if reset or player != final.first else {1, 2}
        assert losses[player] in expected, (player, losses[player])
    # Exactly one entrant is never eliminated: the champion.
    out = {p for p in range(entrants) if losses[p] == 2}
    if not reset and final.loser == final.first:
        out.add(final.first)
    assert set(range(entrants)) - out == {champion}
    # Games played: two losses for each but the champion, plus the champion's own.
    games = sum(1 for t in played if t.decided and t.loser is not None)
    assert games == sum(losses.values())


@settings(max_examples=60, deadline=None)
@given(entrants=st.integers(min_value=2, max_value=33), reset=st.booleans())
def test_a_player_is_in_at_most_one_tie_per_round_of_play(entrants, reset):
    depth = (entrants - 1).bit_length()
    specs = de.layout(depth, reset)
    played = de.play_out(specs, de.seeded_slots(list(range(entrants)), depth), _results([]))
    seen: dict[int, set[int]] = {}
    for spec, tie in zip(specs, played, strict=True):
        for side in (tie.first, tie.second):
            if side is not None:
                assert side not in seen.setdefault(spec.round_number, set())
                seen[spec.round_number].add(side)


def test_bad_depths_are_refused():
    with pytest.raises(ValueError):
        de.layout(0, reset=False)
    with pytest.raises(ValueError):
        de.depth_of(1)
