"""FIDE tie-breaks (league/tiebreaks.py) and crosstables (league/crosstables.py).

Every expected value below is worked out by hand in the comments beside it, from the
definitions of C.07 (2023/2024) as docs/tiebreaks.md states them; the property tests check
identities that hold for any round robin and that the order of entry changes nothing.
"""

from __future__ import annotations

import random
from fractions import Fraction as F

import pytest
from hypothesis import given
from hypothesis import strategies as st

from league.crosstables import round_robin_grid, swiss_table
from league.tiebreaks import (
    Bye,
    Game,
    Points,
    TiebreakInputError,
    Tournament,
    Unplayed,
    direct_encounter,
    rank,
    values,
)

H = F(1, 2)
ALL = [
    "BH", "BH-C1", "BH-C2", "BH-M1", "SB", "WIN", "WON", "BPG", "BWG", "PS", "PS-C1", "ARO",
    "ARO-C1",
]  # fmt: skip


def swiss() -> Tournament:
    """Five players, three rounds, a pairing bye, a requested half-point bye, a forfeit and a
    withdrawal (D plays no round 3).

    R1: A(w) 1-0 B, C(w) ½-½ D, E pairing bye (1 point).
    R2: B(w) 0-1 E, D(w) 0-1 A, C half-point bye.
    R3: A(w) ½-½ E, C won by forfeit against B (B did not come), D withdrawn.
    Scores: A 2½, E 2½, C 2, D ½, B 0.
    """
    return Tournament(
        players={"A": 2000, "B": 1900, "C": 1800, "D": 1700, "E": 1600},
        games=[
            Game("A", "B", F(1), 1, coloured=True),
            Game("C", "D", H, 1, coloured=True),
            Game("B", "E", F(0), 2, coloured=True),
            Game("D", "A", F(0), 2, coloured=True),
            Game("A", "E", H, 3, coloured=True),
            Game("C", "B", F(1), 3, forfeit=True, coloured=True),
        ],
        byes=[Bye("E", 1, Unplayed.PAIRING_BYE), Bye("C", 2, Unplayed.HALF_BYE)],
        rounds=3,
    )


def test_scores_and_adjusted_scores():
    t = swiss()
    assert t.scores == {"A": F(5, 2), "B": 0, "C": 2, "D": H, "E": F(5, 2)}
    # B's forfeit in the last round and D's withdrawal are voluntarily unplayed rounds at the
    # end of their event: each counts as a draw for their opponents' tie-breaks (Art. 16).
    assert t.adjusted_scores == {"A": F(5, 2), "B": H, "C": 2, "D": 1, "E": F(5, 2)}


# Opponents' scores per round, dummy (own score) for unplayed rounds, VUR marked *:
#   A: B ½, D 1, E 2½                   BH 4     C1 3½   C2 2½   M1 1
#   B: A 2½, E 2½, dummy* 0             BH 5     C1 5    C2 2½   M1 2½
#   C: D 1, dummy* 2 (bye), dummy 2 (+) BH 5     C1 3    C2 2    M1 1
#   D: C 2, A 2½, dummy* ½              BH 5     C1 4½   C2 2½   M1 2
#   E: dummy 2½ (PAB), B ½, A 2½        BH 5½    C1 5    C2 2½   M1 2½
# SB (opponent's score x game score): A ½+1+1¼ = 2¾; B 0; C ½+1+2 = 3½; D 1; E 2½+½+1¼ = 4¼.
# PS (running scores): A 1+2+2½ = 5½; B 0; C ½+1+2 = 3½; D ½+½+½ = 1½; E 1+2+2½ = 5½.
# ARO over the board: A (1900+1700+1600)/3 = 1733⅓ -> 1733, cut 1 -> 1800; B 1800 / 2000;
# C 1700 (the forfeit does not count) / none; D 1900 / 2000; E 1950 / 2000.
EXPECTED = {
    "BH": {"A": 4, "B": 5, "C": 5, "D": 5, "E": F(11, 2)},
    "BH-C1": {"A": F(7, 2), "B": 5, "C": 3, "D": F(9, 2), "E": 5},
    "BH-C2": {"A": F(5, 2), "B": F(5, 2), "C": 2, "D": F(5, 2), "E": F(5, 2)},
    "BH-M1": {"A": 1, "B": F(5, 2), "C": 1, "D": 2, "E": F(5, 2)},
    "SB": {"A": F(11, 4), "B": 0, "C": F(7, 2), "D": 1, "E": F(17, 4)},
    # WIN counts the pairing bye and the forfeit win; WON only games won over the board.
    "WIN": {"A": 2, "B": 0, "C": 1, "D": 0, "E": 2},
    "WON": {"A": 2, "B": 0, "C": 0, "D": 0, "E": 1},
    # Black over the board: A r2; B r1 (the forfeit does not count); D r1; E r2, r3.
    "BPG": {"A": 1, "B": 1, "C": 0, "D": 1, "E": 2},
    "BWG": {"A": 1, "B": 0, "C": 0, "D": 0, "E": 1},
    "PS": {"A": F(11, 2), "B": 0, "C": F(7, 2), "D": F(3, 2), "E": F(11, 2)},
    "PS-C1": {"A": F(9, 2), "B": 0, "C": 3, "D": 1, "E": F(9, 2)},
    "ARO": {"A": 1733, "B": 1800, "C": 1700, "D": 1900, "E": 1950},
    "ARO-C1": {"A": 1800, "B": 2000, "C": None, "D": 2000, "E": 2000},
}


@pytest.mark.parametrize("code", sorted(EXPECTED))
def test_hand_checked_swiss_with_byes_forfeit_and_withdrawal(code):
    assert values(swiss(), [code])[code] == EXPECTED[code]


def test_rank_by_order():
    t = swiss()
    # A and E are level on 2½; BH-C1 puts E (5) ahead of A (3½).
    order = [p.player for p in rank(t, ["BH-C1", "BH", "SB"])]
    assert order == ["E", "A", "C", "D", "B"]
    # Their game was drawn: direct encounter ½ each; both have two wins; SB E 4¼ > A 2¾.
    placed = rank(t, ["DE", "WIN", "SB"])
    assert [p.player for p in placed] == ["E", "A", "C", "D", "B"]
    assert placed[0].values["DE"] == H
    assert placed[1].values["DE"] == H
    # Progressive scores are level (5½); games won over the board put A (2) ahead of E (1).
    assert [p.player for p in rank(t, ["PS", "WON"])] == ["A", "E", "C", "D", "B"]


def test_level_players_share_a_position():
    placed = rank(swiss(), ["BH-C2"])
    # A and E: both 2½ points and BH-C2 2½.
    assert [(p.player, p.position) for p in placed[:3]] == [("A", 1), ("E", 1), ("C", 3)]


def test_direct_encounter_when_all_met():
    # X, Y, Z level on score; among them X beat Y, X drew Z, Z beat Y: X 1½, Z 1½, Y 0.
    t = Tournament(
        players=dict.fromkeys("XYZW"),
        games=[
            Game("X", "Y", F(1)),
            Game("X", "Z", H),
            Game("Z", "Y", F(1)),
            Game("W", "X", F(0)),
            Game("Y", "W", F(1)),
            Game("Y", "W", F(1)),
            Game("W", "Z", F(0)),
        ],
    )
    assert t.scores == {"X": F(5, 2), "Y": 2, "Z": F(5, 2), "W": 0}
    points, order = direct_encounter(t, ["X", "Z"])
    assert points == {"X": H, "Z": H}
    assert order["X"] == order["Z"]
    points, order = direct_encounter(t, ["X", "Y", "Z"])
    assert points == {"X": F(3, 2), "Y": 0, "Z": F(3, 2)}
    assert order["X"] == order["Z"] > order["Y"]


def test_direct_encounter_when_not_all_met():
    # Tied P, Q, R, S: P beat Q and R; Q beat R; S met nobody of them.
    # P scored 2 but S could still reach 3 with the three missing games: nobody separated.
    games = [Game("P", "Q", F(1)), Game("P", "R", F(1)), Game("Q", "R", F(1))]
    t = Tournament(players=dict.fromkeys("PQRS"), games=games)
    _points, order = direct_encounter(t, ["P", "Q", "R", "S"])
    assert set(order.values()) == {0}
    # Among P, Q, R and T, where T lost to P and drew with Q (T never met R), the points
    # are P 3, Q 1½, R 0, T ½, and the most each could reach with the missing games won:
    # Q 1½ (met everyone), R 0 + 1 = 1, T ½ + 1 = 1½. P's 3 is beyond every one: P ahead.
    # Among Q, R, T, Q's 1½ does not exceed T's reach of 1½: the three stay level.
    t = Tournament(
        players=dict.fromkeys("PQRT"),
        games=[*games, Game("P", "T", F(1)), Game("T", "Q", H)],
    )
    points, order = direct_encounter(t, ["P", "Q", "R", "T"])
    assert points == {"P": 3, "Q": F(3, 2), "R": 0, "T": H}
    assert order["P"] > order["Q"] == order["R"] == order["T"]


def test_season_points_and_no_rounds():
    # A season scored 3/1/0 without rounds: A beat B twice, drew C; B beat C; C beat A.
    t = Tournament(
        players={"A": 1600, "B": 1500, "C": 1400},
        games=[
            Game("A", "B", F(1)),
            Game("A", "B", F(1)),
            Game("A", "C", H),
            Game("C", "A", F(1)),
            Game("B", "C", F(1)),
        ],
        points=Points(F(3), F(1), F(0), F(3)),
    )
    # A 3+3+1+0 = 7, B 0+0+3 = 3, C 1+3+0 = 4.
    assert t.scores == {"A": 7, "B": 3, "C": 4}
    got = values(t, ["BH", "SB", "PS", "WIN"])
    # BH: each game once. A: B 3 + B 3 + C 4 + C 4 = 14; B: A 7 + A 7 + C 4 = 18;
    # C: A 7 + A 7 + B 3 = 17. SB: A 3+3+½·4 = 8; B 4; C ½·7 + 7 = 10½.
    assert got["BH"] == {"A": 14, "B": 18, "C": 17}
    assert got["SB"] == {"A": 8, "B": 4, "C": F(21, 2)}
    assert got["PS"] == {"A": None, "B": None, "C": None}
    assert got["WIN"] == {"A": 2, "B": 1, "C": 1}


@pytest.mark.parametrize(
    ("tournament", "message"),
    [
        (Tournament({"A": None}, [Game("A", "Z", F(1))]), "not a player"),
        (Tournament({"A": None, "B": None}, [Game("A", "B", F(2))]), "1, ½ or 0"),
        (Tournament({"A": None, "B": None}, [Game("A", "B", H, forfeit=True)]), "won by one"),
        (Tournament({"A": None, "B": None}, [Game("A", "B", H, 4)], rounds=3), "not a round"),
        (
            Tournament(
                {"A": None, "B": None},
                [Game("A", "B", H, 1)],
                [Bye("A", 1, Unplayed.ZERO_BYE)],
                rounds=1,
            ),
            "two results in round 1",
        ),
    ],
)
def test_contradictions_are_refused(tournament, message):
    with pytest.raises(TiebreakInputError, match=message):
        values(tournament, ["BH"])


def test_unknown_code_is_refused():
    with pytest.raises(TiebreakInputError, match="not a tie-break"):
        values(swiss(), ["XYZ"])


def test_round_robin_grid():
    # A beat B and drew C; C beat B by forfeit (B did not come).
    t = Tournament(
        players={"A": None, "B": None, "C": None},
        games=[
            Game("A", "B", F(1), 1),
            Game("C", "A", H, 2),
            Game("C", "B", F(1), 3, forfeit=True),
        ],
        byes=[
            Bye("C", 1, Unplayed.PAIRING_BYE),
            Bye("B", 2, Unplayed.PAIRING_BYE),
            Bye("A", 3, Unplayed.PAIRING_BYE),
        ],
        rounds=3,
    )
    grid = {row.player: row for row in round_robin_grid(t, ["A", "C", "B"])}
    assert grid["A"].cells[0] is None
    assert [c.score for c in grid["A"].cells[1]] == [H]
    assert [c.score for c in grid["A"].cells[2]] == [1]
    assert [(c.score, c.forfeit) for c in grid["B"].cells[1]] == [(0, True)]
    assert grid["C"].number == 2


def test_swiss_table_rows():
    rows = {row.player: row for row in swiss_table(swiss(), ["A", "E", "C", "D", "B"])}
    a = rows["A"].rounds
    # A: r1 v B (line 5) White won; r2 v D (line 4) Black won; r3 v E (line 2) White drew.
    assert [(c.opponent, c.black, c.score) for c in a] == [
        (5, False, 1),
        (4, True, 1),
        (2, False, H),
    ]
    e1, c2, c3 = rows["E"].rounds[0], rows["C"].rounds[1], rows["C"].rounds[2]
    assert (e1.opponent, e1.unplayed, e1.points) == (None, Unplayed.PAIRING_BYE, 1)
    assert (c2.unplayed, c2.points) == (Unplayed.HALF_BYE, H)
    assert (c3.opponent, c3.forfeit, c3.score) == (5, True, 1)
    d3 = rows["D"].rounds[2]
    assert (d3.opponent, d3.unplayed, d3.points) == (None, Unplayed.ABSENT, 0)


# Property tests -------------------------------------------------------------------------


@st.composite
def round_robins(draw):
    """A complete single round robin of 3 to 8 players with random results (no byes)."""
    n = draw(st.integers(3, 8))
    players = [f"p{i}" for i in range(n)]
    games = [
        Game(players[i], players[j], F(draw(st.sampled_from([0, 1, 2])), 2))
        for i in range(n)
        for j in range(i + 1, n)
    ]
    return Tournament({p: 1500 + 10 * k for k, p in enumerate(players)}, games)


@st.composite
def swiss_events(draw):
    """Random Swiss-like events: random pairings each round, byes, forfeits, withdrawals."""
    n = draw(st.integers(3, 9))
    rounds = draw(st.integers(1, 5))
    seed = draw(st.integers(0, 10**6))
    rng = random.Random(seed)
    players = [f"p{i}" for i in range(n)]
    games, byes = [], []
    for r in range(1, rounds + 1):
        order = players[:]
        rng.shuffle(order)
        while len(order) >= 2:
            a, b = order.pop(), order.pop()
            kind = rng.random()
            if kind < 0.1:
                continue  # neither paired this round: absent
            forfeit = kind < 0.2
            score = F(rng.choice([0, 2])) / 2 if forfeit else F(rng.choice([0, 1, 2]), 2)
            games.append(Game(a, b, score, r, forfeit=forfeit, coloured=True))
        if order:
            byes.append(Bye(order[0], r, rng.choice(list(Unplayed))))
    return Tournament({p: 1400 + rng.randrange(800) for p in players}, games, byes, rounds=rounds)


@pytest.mark.property
@given(swiss_events(), st.randoms(use_true_random=False))
def test_a_tiebreak_never_depends_on_the_order_of_entry(t, rnd):
    games, byes = list(t.games), list(t.byes)
    rnd.shuffle(games)
    rnd.shuffle(byes)
    players = list(t.players.items())
    rnd.shuffle(players)
    again = Tournament(dict(players), games, byes, t.points, t.rounds)
    assert values(again, [*ALL, "DE"]) == values(t, [*ALL, "DE"])
    order = ["DE", "BH-C1", "SB", "WIN", "ARO"]
    assert rank(again, order) == rank(t, order)


@pytest.mark.property
@given(round_robins(), st.randoms(use_true_random=False))
def test_round_robin_sides_swapped_change_nothing(t, rnd):
    # Without colours, naming a game's players the other way round is the same game.
    swapped = [Game(g.second, g.first, 1 - g.score) if rnd.random() < 0.5 else g for g in t.games]
    again = Tournament(t.players, swapped)
    assert values(again, ALL) == values(t, ALL)


@pytest.mark.property
@given(round_robins())
def test_sonneborn_berger_equals_a_direct_computation(t):
    sb = values(t, ["SB"])["SB"]
    for player in t.players:
        direct = F(0)
        for g in t.games:
            if player in (g.first, g.second):
                mine = g.score if g.first == player else 1 - g.score
                other = g.second if g.first == player else g.first
                # Full score of a beaten opponent, half of a drawn one's.
                direct += t.scores[other] if mine == 1 else t.scores[other] / 2 if mine == H else 0
        assert sb[player] == direct
    # Summed over a round robin of n: sum_j s_j (n - 1 - s_j) (each player's score times the
    # points they gave away).
    n = len(t.players)
    assert sum(sb.values()) == sum(s * (n - 1 - s) for s in t.scores.values())


@pytest.mark.property
@given(round_robins())
def test_round_robin_buchholz_is_everyone_elses_score(t):
    n = len(t.players)
    total = F(n * (n - 1), 2)
    bh = values(t, ["BH"])["BH"]
    assert bh == {p: total - s for p, s in t.scores.items()}
