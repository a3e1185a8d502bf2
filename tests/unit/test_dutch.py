"""FIDE Dutch system (pairings/dutch.py): bbpPairings' pairings, absolute criteria, order.

``dutch_fixtures.json`` holds rounds of small random tournaments with the pairing bbpPairings
(the FIDE-endorsed engine) made for each, written by ``bench/dutch_fixtures.py``; the engine
must make the same pairings and colours. The absolute criteria (C.04.3 C1-C3) are checked
as properties over random histories against an exhaustive search of every pairing.
"""

from __future__ import annotations

import json
import random
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pairings.dutch import (
    BLACK,
    DRAW,
    FORFEIT_LOSS,
    FORFEIT_WIN,
    FULL_BYE,
    HALF_BYE,
    LOSS,
    PAIRING_BYE,
    WHITE,
    WIN,
    ZERO_BYE,
    DutchGame,
    DutchPlayer,
    NoValidPairing,
    baku_acceleration,
    pair_round,
)

FIXTURES = json.loads((Path(__file__).parent / "dutch_fixtures.json").read_text())


def _players(fixture: str) -> list[DutchPlayer]:
    return [
        DutchPlayer(
            p["number"],
            Fraction(p["score"]),
            p["rating"],
            tuple(DutchGame(o, c, played, r) for o, c, played, r in p["rounds"]),
            absent_this_round=p["absent"],
        )
        for p in FIXTURES_BY_ID[fixture]["players"]
    ]


FIXTURES_BY_ID = {f"{f['tournament']}-r{f['round']}": f for f in FIXTURES}


@pytest.mark.parametrize("fixture", sorted(FIXTURES_BY_ID))
def test_same_pairing_and_colours_as_bbppairings(fixture: str) -> None:
    data = FIXTURES_BY_ID[fixture]
    result = pair_round(
        _players(fixture), data["round"], data["total_rounds"], accelerated=data["accelerated"]
    )
    assert sorted(map(list, result.pairs)) == sorted(data["pairs"])
    assert result.bye == data["bye"]


def test_fixtures_cover_byes_forfeits_absences_and_late_rounds() -> None:
    """The fixtures exercise what the rules treat specially (so the test above means it)."""
    results = {g[3] for f in FIXTURES for p in f["players"] for g in p["rounds"]}
    assert {PAIRING_BYE, FORFEIT_WIN, FORFEIT_LOSS, HALF_BYE, DRAW} <= results
    assert any(p["absent"] for f in FIXTURES for p in f["players"])
    assert any(f["bye"] is not None for f in FIXTURES)
    assert any(f["round"] == f["total_rounds"] for f in FIXTURES)
    assert len(FIXTURES) >= 50


def _fresh(n: int) -> list[DutchPlayer]:
    return [DutchPlayer(i, Fraction(0), 2600 - 10 * i) for i in range(1, n + 1)]


def test_round_one_top_half_meets_bottom_half_with_alternating_colours() -> None:
    """C.04.3 round 1: S1 = 1..5 meets S2 = 6..10; E.5: odd numbers get the initial colour."""
    result = pair_round(_fresh(11), 1, 7)
    assert result.pairs == [(1, 6), (7, 2), (3, 8), (9, 4), (5, 10)]
    assert result.bye == 11
    flipped = pair_round(_fresh(10), 1, 7, first_white=False)
    assert flipped.pairs == [(6, 1), (2, 7), (8, 3), (4, 9), (10, 5)]
    assert flipped.bye is None


def test_forfeited_game_is_no_meeting_and_forfeit_win_bars_the_bye() -> None:
    """A forfeit is not a played game (the two may meet again), and a win without playing
    counts like a bye: the player cannot receive the pairing-allocated bye (C.04.1)."""
    players = [
        DutchPlayer(1, Fraction(1), 2000, (DutchGame(2, WHITE, False, FORFEIT_WIN),)),
        DutchPlayer(2, Fraction(0), 1900, (DutchGame(1, BLACK, False, FORFEIT_LOSS),)),
        DutchPlayer(3, Fraction(0), 1800, (DutchGame(None, None, False, ZERO_BYE),)),
    ]
    result = pair_round(players, 2, 5)
    assert result.bye != 1
    assert len(result.pairs) == 1
    assert 1 in result.pairs[0]
    two = [p for p in players if p.number != 3]
    assert pair_round(two, 2, 5).pairs in ([(1, 2)], [(2, 1)])


def test_played_rematch_is_refused() -> None:
    players = [
        DutchPlayer(1, Fraction(1), 2000, (DutchGame(2, WHITE, True, WIN),)),
        DutchPlayer(2, Fraction(0), 1900, (DutchGame(1, BLACK, True, LOSS),)),
    ]
    with pytest.raises(NoValidPairing):
        pair_round(players, 2, 5)


def test_topscorers_with_the_same_absolute_preference_meet_only_in_the_last_round() -> None:
    """C3 keeps two players who both must have Black apart, except topscorers (more than
    half the maximum score) when the last round is paired; the higher-ranked one then gets
    the colour (E.4). bbpPairings pairs the same two positions the same way."""

    def twice_white(number: int, opponents: tuple[int, int]) -> DutchPlayer:
        games = tuple(DutchGame(o, WHITE, True, WIN) for o in opponents)
        return DutchPlayer(number, Fraction(2), 2000 - number, games)

    field = [twice_white(1, (3, 4)), twice_white(2, (4, 3))]
    losers = [
        DutchPlayer(n, Fraction(0), 1000 - n, tuple(DutchGame(o, BLACK, True, LOSS) for o in opp))
        for n, opp in ((3, (1, 2)), (4, (2, 1)))
    ]
    players = [*field, *(replace(p, absent_this_round=True) for p in losers)]
    assert pair_round(players, 3, 3).pairs == [(2, 1)]
    with pytest.raises(NoValidPairing):
        pair_round(players, 3, 5)


def test_bad_input_names_the_player() -> None:
    players = _fresh(4)
    with pytest.raises(ValueError, match="Player 1: 0 rounds of history before round 2"):
        pair_round(players, 2, 5)
    with pytest.raises(ValueError, match="not within"):
        pair_round(players, 6, 5)
    bye = (DutchGame(None, None, False, ZERO_BYE),)
    odd = DutchPlayer(4, Fraction(1), 1, (DutchGame(None, None, False, "odd"),))
    with pytest.raises(ValueError, match="Player 4, round 1: unknown result"):
        pair_round([DutchPlayer(1, Fraction(0), 1, bye), odd], 2, 5)
    ghost = DutchPlayer(2, Fraction(1), 1, (DutchGame(9, WHITE, True, WIN),))
    with pytest.raises(ValueError, match="Player 2, round 1: a played game needs a known"):
        pair_round([DutchPlayer(1, Fraction(0), 1, bye), ghost], 2, 5)
    twice = [DutchPlayer(1, Fraction(0), 1), DutchPlayer(1, Fraction(0), 2)]
    with pytest.raises(ValueError, match="once"):
        pair_round(twice, 1, 5)


def test_baku_acceleration_follows_the_handbook_example() -> None:
    """C.04.5.1: nine rounds, five accelerated; GA (2 * ceil(N / 4)) gets 1, 1, 1, ½, ½."""
    points = [baku_acceleration(1, 161, r, 9) for r in range(9)]
    half = Fraction(1, 2)
    assert points == [1, 1, 1, half, half, 0, 0, 0, 0]
    assert baku_acceleration(82, 161, 0, 9) == 1
    assert baku_acceleration(83, 161, 0, 9) == 0


def test_accelerated_round_one_pairs_within_group_a() -> None:
    """With 1 virtual point GA (1-8 of 16) and GB form separate score groups."""
    result = pair_round(_fresh(16), 1, 9, accelerated=True)
    for white, black in result.pairs:
        assert (white <= 8) == (black <= 8)


# -- properties over random histories -----------------------------------------------------


def _random_history(rng: random.Random, n: int, rounds: int) -> list[DutchPlayer]:
    """Arbitrary but consistent histories: random pairs, colours, results, byes, forfeits."""
    history: dict[int, list[DutchGame]] = {i: [] for i in range(1, n + 1)}
    for _ in range(rounds):
        order = list(range(1, n + 1))
        rng.shuffle(order)
        while len(order) >= 2 and rng.random() < 0.9:
            a, b = order.pop(), order.pop()
            kind = rng.random()
            if kind < 0.1:
                history[a].append(DutchGame(b, WHITE, False, FORFEIT_WIN))
                history[b].append(DutchGame(a, BLACK, False, FORFEIT_LOSS))
                continue
            ra, rb = rng.choice([(WIN, LOSS), (DRAW, DRAW), (LOSS, WIN)])
            history[a].append(DutchGame(b, WHITE, True, ra))
            history[b].append(DutchGame(a, BLACK, True, rb))
        for rest in order:
            bye = rng.choice([PAIRING_BYE, HALF_BYE, ZERO_BYE, FULL_BYE])
            history[rest].append(DutchGame(None, None, False, bye))
    one, half = Fraction(1), Fraction(1, 2)
    points = {WIN: one, FORFEIT_WIN: one, PAIRING_BYE: one, FULL_BYE: one, DRAW: half}
    points[HALF_BYE] = half
    return [
        DutchPlayer(
            i,
            sum((points.get(g.result, Fraction(0)) for g in history[i]), Fraction(0)),
            2000 - i,
            tuple(history[i]),
            absent_this_round=rng.random() < 0.1,
        )
        for i in range(1, n + 1)
    ]


def _absolute(player: DutchPlayer) -> str | None:
    """The colour a player must have (C.04.3 A.6.a), computed here from the history alone."""
    colours = [g.colour for g in player.rounds if g.played]
    whites, blacks = colours.count(WHITE), colours.count(BLACK)
    if abs(whites - blacks) > 1:
        return BLACK if whites > blacks else WHITE
    if len(colours) >= 2 and colours[-1] == colours[-2]:
        return BLACK if colours[-1] == WHITE else WHITE
    return None


def _met(a: DutchPlayer, b: DutchPlayer) -> bool:
    return any(g.played and g.opponent == b.number for g in a.rounds)


def _bye_allowed(p: DutchPlayer) -> bool:
    return not any(g.result in (PAIRING_BYE, FORFEIT_WIN, FULL_BYE) for g in p.rounds)


def _legal_pairing_exists(present: list[DutchPlayer]) -> bool:
    """Exhaustive search: a pairing with no played rematch, no absolute-colour clash, one
    bye at most and only to a player who may have it (C1-C3; no topscorer exception here)."""
    if not present:
        return True
    if len(present) % 2:
        return any(
            _bye_allowed(p) and _legal_pairing_exists([q for q in present if q is not p])
            for p in present
        )
    head, rest = present[0], present[1:]
    for other in rest:
        clash = _absolute(head) is not None and _absolute(head) == _absolute(other)
        if (
            not clash
            and not _met(head, other)
            and _legal_pairing_exists([q for q in rest if q is not other])
        ):
            return True
    return False


@settings(max_examples=150, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(2, 10),
    rounds=st.integers(0, 5),
)
def test_absolute_criteria_hold_and_pairing_found_whenever_one_exists(
    seed: int, n: int, rounds: int
) -> None:
    rng = random.Random(seed)
    players = _random_history(rng, n, rounds)
    present = [p for p in players if not p.absent_this_round]
    by_number = {p.number: p for p in players}
    total = rounds + 3  # not the last round: no topscorer exception
    try:
        result = pair_round(players, rounds + 1, total)
    except NoValidPairing:
        assert not _legal_pairing_exists(present)
        return
    assert len(present) < 2 or _legal_pairing_exists(present)
    seen = [x for pair in result.pairs for x in pair] + (
        [result.bye] if result.bye is not None else []
    )
    assert sorted(seen) == sorted(p.number for p in present)  # everyone present, once
    assert (result.bye is not None) == (len(present) % 2 == 1)
    if result.bye is not None:
        assert _bye_allowed(by_number[result.bye])  # C2: one PAB, none after a win unplayed
    for white, black in result.pairs:
        w, b = by_number[white], by_number[black]
        assert not _met(w, b)  # C1: no played rematch
        assert _absolute(w) is None or _absolute(w) != _absolute(b)  # C3
        assert _absolute(w) in (None, WHITE)
        assert _absolute(b) in (None, BLACK)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 12), rounds=st.integers(0, 4))
def test_deterministic_and_independent_of_input_order(seed: int, n: int, rounds: int) -> None:
    rng = random.Random(seed)
    players = _random_history(rng, n, rounds)
    try:
        first = pair_round(players, rounds + 1, rounds + 3)
    except NoValidPairing:
        return
    shuffled = list(players)
    rng.shuffle(shuffled)
    assert pair_round(shuffled, rounds + 1, rounds + 3) == first
    assert pair_round(players, rounds + 1, rounds + 3) == first
