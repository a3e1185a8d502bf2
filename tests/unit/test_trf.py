"""The TRF reader and writer (league/chess/trf.py): columns, flavours, round trips, bad input.

Expected lines are built here field by field from the specification's columns (FIDE TRF-2026:
001 record, start number at 5-8, sex 10, title 11-13, name 15-47, rating 49-52, federation
54-56, FIDE number 58-68, birth date 70-79, points 81-84, rank 86-89, round 1 at 92-99 and
every further round 10 columns on), never by the code under test.
"""

from __future__ import annotations

import random
import time
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from league.chess import trf
from league.chess.trf import PlayerRecord, RoundEntry, Tournament, TrfError


def player_line(
    start: int,
    name: str,
    points: str,
    rounds: list[str],
    *,
    sex: str = " ",
    title: str = "",
    rating: str = "",
    federation: str = "",
    fide_id: str = "",
    birth: str = "",
    rank: str = "",
) -> str:
    """A 001 record laid out by the specification's columns (rounds as ``"   3 w 1"``)."""
    head = (
        "001"
        + " "
        + f"{start:>4}"  # 5-8
        + " "
        + sex  # 10
        + f"{title:>3}"  # 11-13
        + " "
        + f"{name:<33}"  # 15-47
        + " "
        + f"{rating:>4}"  # 49-52
        + " "
        + f"{federation:<3}"  # 54-56
        + " "
        + f"{fide_id:>11}"  # 58-68
        + " "
        + f"{birth:<10}"  # 70-79
        + " "
        + f"{points:>4}"  # 81-84
        + " "
        + f"{rank:>4}"  # 86-89
        + "  "  # 90-91
    )
    assert len(head) == 91
    return (head + "  ".join(rounds)).rstrip()


# A four-player, three-round event: round 3 is paired and not played yet.
#   R1: 1-3 1-0 (1 White), 2-4 ½ (4 White)     R2: 2-1 0-1 forfeit (1 wins, Black), 3 bye U,
#   4 half-point bye H                          R3: 1-4 pending (4 White), 2-3 pending (2 White)
EVENT_LINES = [
    "012 Riverside Rapid",
    "022 Riverside",
    "032 ENG",
    "042 2026/01/05",
    "052 2026/01/19",
    "062 4",
    "092 Individual: Swiss-System",
    "102 Ann Arbiter",
    "132" + " " * 88 + "26/01/05  26/01/12  26/01/19",
    "142 5",
    "152 W",
    "202 BH/C1,BH,SB",
    player_line(
        1,
        "Able, Alice",
        "2.0",
        ["   3 w 1", "   2 b +", "   4 b"],
        sex="w",
        title="WIM",
        rating="2210",
        federation="ENG",
        fide_id="400123",
        birth="1999/04/01",
        rank="1",
    ),
    player_line(2, "Baker, Bob", "0.5", ["   4 b =", "   1 w -", "   3 w"], sex="m", rating="1900"),
    player_line(3, "Cole, Cy", "1.0", ["   1 b 0", "0000 - U", "   2 b"], rank="3"),
    player_line(4, "Dunn, Di", "1.0", ["   2 w =", "0000 - H", "   1 w"], rank="2"),
]
EVENT = "\r\n".join(EVENT_LINES) + "\r\n"


def test_reads_every_field_of_the_header_and_the_players() -> None:
    t = trf.read(EVENT.encode())
    assert (t.name, t.city, t.federation) == ("Riverside Rapid", "Riverside", "ENG")
    assert (t.start_date, t.end_date, t.player_count) == ("2026/01/05", "2026/01/19", 4)
    assert t.chief_arbiter == "Ann Arbiter"
    assert t.round_dates == ["26/01/05", "26/01/12", "26/01/19"]
    assert (t.rounds_planned, t.initial_colour) == (5, "W")
    assert t.tiebreaks == ["BH/C1", "BH", "SB"]
    alice = t.player(1)
    assert alice is not None
    assert (alice.sex, alice.title, alice.name, alice.rating) == ("w", "WIM", "Able, Alice", 2210)
    assert (alice.federation, alice.fide_id, alice.birth_date) == ("ENG", "400123", "1999/04/01")
    assert (alice.points, alice.rank) == (Decimal("2"), 1)
    assert alice.rounds == [
        RoundEntry(3, "w", "1"),
        RoundEntry(2, "b", "+"),
        RoundEntry(4, "b", " "),
    ]
    cole = t.player(3)
    assert cole is not None
    assert cole.rating is None
    assert cole.rounds[1] == RoundEntry(None, "-", "U")
    assert t.round_count == 3
    assert t.pending_round == 3


def test_writes_the_specification_columns() -> None:
    text = trf.write(trf.read(EVENT.encode()))
    lines = text.split("\r\n")
    assert text.endswith("\r\n")
    assert lines[-1] == ""
    alice = next(line for line in lines if line.startswith("001    1"))
    assert alice[9] == "w"
    assert alice[10:13] == "WIM"
    assert alice[14:47].rstrip() == "Able, Alice"
    assert alice[48:52] == "2210"
    assert alice[53:56] == "ENG"
    assert alice[57:68] == "     400123"
    assert alice[69:79] == "1999/04/01"
    assert alice[80:84] == " 2.0"
    assert alice[85:89] == "   1"
    assert alice[91:99] == "   3 w 1"
    assert alice[101:109] == "   2 b +"
    assert alice[111:] == "   4 b"
    assert "142 5" in lines
    assert "152 W" in lines
    assert not any(line.startswith(("XXR", "XXC")) for line in lines)


def test_our_own_file_reads_back_identical() -> None:
    assert trf.write(trf.read(EVENT.encode())) == EVENT


def test_trf_x_flavour_uses_xxr_and_xxc_and_can_leave_out_the_pending_round() -> None:
    t = trf.read(EVENT.encode())
    text = trf.write(t, trf.TRF_X, include_pending=False)
    lines = text.split("\r\n")
    assert "XXR 5" in lines
    assert "XXC white1" in lines
    assert not any(line.startswith(("142", "152")) for line in lines)
    alice = next(line for line in lines if line.startswith("001    1"))
    assert len(alice) == 109  # two rounds, the pending third left out
    # Dunn's half-point bye was in round 2 and stays; Cole's U too.
    dunn = next(line for line in lines if line.startswith("001    4"))
    assert dunn[80:84] == " 1.0"
    back = trf.read(text)
    assert back.round_count == 2
    assert back.pending_round is None
    assert back.initial_colour == "W"


def test_pending_round_byes_leave_the_points_when_left_out() -> None:
    t = Tournament(name="x", rounds_planned=2)
    t.players = [
        PlayerRecord(
            1,
            "A",
            points=Decimal("2"),
            rounds=[RoundEntry(2, "w", "1"), RoundEntry(None, "-", "U")],
        ),
        PlayerRecord(
            2, "B", points=Decimal("0"), rounds=[RoundEntry(1, "b", "0"), RoundEntry(3, "w", " ")]
        ),
        PlayerRecord(
            3,
            "C",
            points=Decimal("1"),
            rounds=[RoundEntry(None, "-", "F"), RoundEntry(2, "b", " ")],
        ),
    ]
    text = trf.write(t, trf.TRF_X, include_pending=False)
    first = next(line for line in text.split("\r\n") if line.startswith("001    1"))
    assert first[80:84] == " 1.0"  # the round-2 U (1 point) is not counted without round 2


def test_reads_trf16_spellings_and_line_endings() -> None:
    legacy = [
        "012 Old file",
        "XXR 7",
        "XXC black1",
        player_line(1, "One", "1.0", ["   2 W 1"], title="g", sex="m"),
        player_line(2, "Two", "0.0", ["   1 B 0"], title="wf"),
        "### a comment line",
        "",
    ]
    t = trf.read("\r".join(legacy).encode())  # CR alone ends lines too
    assert t.rounds_planned == 7
    assert t.initial_colour == "B"
    one, two = t.player(1), t.player(2)
    assert one is not None
    assert two is not None
    assert (one.title, two.title) == ("GM", "WFM")
    assert one.rounds == [RoundEntry(2, "w", "1")]


def test_scoring_record_changes_what_points_must_add_up_to() -> None:
    lines = [
        "012 Three for a win",
        "162  W 3.0    D 1.0",
        player_line(1, "One", "3.0", ["   2 w 1", "0000 - H"]),
        player_line(2, "Two", "1.0", ["   1 b 0", "0000 - H"]),
    ]
    with pytest.raises(TrfError) as error:
        trf.read("\n".join(lines))
    # H counts as a draw: 1 point under this scoring, so One has 4 and Two has 1.
    (problem,) = error.value.problems
    assert (problem.line, problem.column) == (3, 81)
    assert "4.0" in problem.message
    lines[2] = player_line(1, "One", "4.0", ["   2 w 1", "0000 - H"])
    t = trf.read("\n".join(lines))
    assert t.scoring == {"W": Decimal(3), "D": Decimal(1)}
    assert trf.read(trf.write(t)).scoring == t.scoring


def test_byes_accelerations_and_prohibited_pairings_round_trip() -> None:
    lines = [
        "012 Records",
        player_line(1, "One", "0.0", []),
        player_line(2, "Two", "0.0", []),
        player_line(3, "Three", "0.0", []),
        "240 H   1    2    3",
        "250      1.0 001 002 0001 0002",
        "260 001 003    1    2",
        "XXA    1  1.0",
    ]
    t = trf.read("\n".join(lines))
    assert t.byes == [trf.ByeRecord("H", 1, (2, 3))]
    assert t.accelerations == [trf.AccelerationRecord(Decimal(1), 1, 2, 1, 2)]
    assert t.prohibited == [trf.ProhibitedPairing(1, 3, (1, 2))]
    assert t.extension_records == ["XXA    1  1.0"]
    assert trf.read(trf.write(t)) == t


# --- bad input: every problem names its line (and column); nothing half-read comes back ----


def problems_of(text: str | bytes) -> list[tuple[int, int | None]]:
    with pytest.raises(TrfError) as error:
        trf.read(text)
    return [(p.line, p.column) for p in error.value.problems]


def replace_line(number: int, line: str) -> str:
    lines = list(EVENT_LINES)
    lines[number - 1] = line
    return "\n".join(lines)


ALICE = 13  # line numbers in EVENT_LINES
BOB = 14
COLE = 15
DUNN = 16


def test_a_shifted_field_is_a_column_error() -> None:
    shifted = " " + EVENT_LINES[ALICE - 1][:4] + EVENT_LINES[ALICE - 1][4:]
    assert problems_of(replace_line(ALICE, shifted.replace(" 001", "001 ", 1))) == [(ALICE, 9)]
    # the rating written one column too far left runs into the gap before it
    line = EVENT_LINES[BOB - 1]
    assert problems_of(replace_line(BOB, line[:47] + "1900 " + line[52:])) == [(BOB, 48)]


def test_a_short_player_line() -> None:
    assert problems_of(replace_line(COLE, "001    3      Cole, Cy")) == [(COLE, 23)]


def test_an_unknown_result_code_names_its_column() -> None:
    line = EVENT_LINES[COLE - 1].replace("   1 b 0", "   1 b x")
    [(number, column)] = problems_of(replace_line(COLE, line))
    assert (number, column) == (COLE, 99)


def test_an_unknown_colour() -> None:
    line = EVENT_LINES[COLE - 1].replace("   1 b 0", "   1 r 0")
    assert problems_of(replace_line(COLE, line)) == [(COLE, 97)]


def test_an_opponent_who_does_not_name_the_player_back() -> None:
    # Cole's round 1 names Dunn instead of Alice: Alice's and Cole's records disagree.
    line = EVENT_LINES[COLE - 1].replace("   1 b 0", "   4 b 0")
    found = problems_of(replace_line(COLE, line))
    assert (ALICE, 92) in found
    assert (COLE, 92) in found


def test_colours_that_clash() -> None:
    line = EVENT_LINES[COLE - 1].replace("   1 b 0", "   1 w 0")
    assert problems_of(replace_line(COLE, line)) == [(ALICE, 97)]


def test_results_that_do_not_match() -> None:
    line = EVENT_LINES[COLE - 1].replace("   1 b 0", "   1 b =").replace(" 1.0", " 1.5")
    assert problems_of(replace_line(COLE, line)) == [(ALICE, 99)]


def test_points_that_do_not_match_the_results() -> None:
    line = EVENT_LINES[DUNN - 1].replace(" 1.0", " 1.5")
    assert problems_of(replace_line(DUNN, line)) == [(DUNN, 81)]


def test_an_opponent_without_a_record() -> None:
    lines = list(EVENT_LINES[:ALICE])
    lines[5] = "062 1"
    lines[ALICE - 1] = player_line(1, "Able, Alice", "1.0", ["   9 w 1"])
    assert problems_of("\n".join(lines)) == [(ALICE, 92)]


def test_two_pairing_allocated_byes_in_one_round() -> None:
    line = EVENT_LINES[DUNN - 1].replace("0000 - H", "0000 - U").replace(" 1.0", " 1.5")
    assert problems_of(replace_line(DUNN, line)) == [(DUNN, 109)]


def test_a_game_without_result_in_an_earlier_round_is_pending_on_both_lines() -> None:
    bob = EVENT_LINES[BOB - 1].replace("   4 b =", "   4 b  ").replace(" 0.5", " 0.0")
    dunn = EVENT_LINES[DUNN - 1].replace("   2 w =", "   2 w  ").replace(" 1.0", " 0.5")
    lines = list(EVENT_LINES)
    lines[BOB - 1], lines[DUNN - 1] = bob, dunn
    t = trf.read("\n".join(lines))
    bob_record = t.player(2)
    assert bob_record is not None
    assert bob_record.rounds[0] == RoundEntry(4, "b", " ")
    assert bob_record.rounds[0].pending
    # One side with a result and the other without is a mismatch.
    lines[DUNN - 1] = EVENT_LINES[DUNN - 1]
    assert problems_of("\n".join(lines)) == [(BOB, 99)]


def test_a_bye_that_names_an_opponent() -> None:
    line = EVENT_LINES[COLE - 1].replace("0000 - U", "   4 - U")
    assert problems_of(replace_line(COLE, line)) == [(COLE, 109)]


def test_a_repeated_start_number() -> None:
    line = EVENT_LINES[DUNN - 1].replace("001    4", "001    3")
    assert (DUNN, 5) in problems_of(replace_line(DUNN, line))


def test_the_player_count_record_must_match() -> None:
    assert problems_of(replace_line(6, "062 5")) == [(6, 5)]


def test_a_bye_record_naming_a_missing_player() -> None:
    assert problems_of(EVENT + "240 H   4   12\n") == [(len(EVENT_LINES) + 1, None)]


def test_unknown_and_unsupported_records() -> None:
    assert problems_of(EVENT + "9x9 what\n") == [(len(EVENT_LINES) + 1, 1)]
    assert problems_of(EVENT + "310   1 A team\n") == [(len(EVENT_LINES) + 1, 1)]


def test_a_nul_byte_names_its_line_and_column() -> None:
    data = EVENT.encode().replace(b"Riverside Rapid", b"River\x00side Rapid")
    assert problems_of(data) == [(1, 10)]


def test_not_utf8_names_its_line() -> None:
    data = EVENT.encode().replace(b"Ann Arbiter", b"Ann \xe9rbiter")
    assert problems_of(data) == [(8, 9)]


def test_tabs_and_control_characters() -> None:
    assert problems_of(replace_line(2, "022\tRiverside")) == [(2, 4)]
    assert problems_of(replace_line(2, "022 River\x1bside")) == [(2, 10)]


def test_an_empty_file() -> None:
    assert problems_of(b"") == [(1, None)]


def test_a_50_mb_file_is_refused_before_it_is_parsed(monkeypatch: pytest.MonkeyPatch) -> None:
    def parse_nothing(*args: object) -> None:
        raise AssertionError("the reader was started")

    monkeypatch.setattr(trf, "_decode", parse_nothing)
    monkeypatch.setattr(trf._Reader, "__init__", parse_nothing)
    data = (EVENT_LINES[ALICE - 1] + "\n").encode() * (50 * 1024 * 1024 // 110)
    started = time.perf_counter()
    with pytest.raises(TrfError) as error:
        trf.read(data)
    assert time.perf_counter() - started < 1.0
    (problem,) = error.value.problems
    assert problem.line == 1
    assert "5242880" in problem.message


def test_every_problem_is_reported_not_just_the_first() -> None:
    lines = list(EVENT_LINES)
    lines[BOB - 1] = lines[BOB - 1].replace("   4 b =", "   4 q =")
    lines[COLE - 1] = lines[COLE - 1].replace("   1 b 0", "   1 b ?")
    assert problems_of("\n".join(lines)) == [(BOB, 97), (COLE, 99)]


# --- property: any consistent tournament written and read back is the same tournament --------

POINTS = {
    "1": 1,
    "0": 0,
    "=": Decimal("0.5"),
    "+": 1,
    "-": 0,
    "U": 1,
    "F": 1,
    "H": Decimal("0.5"),
    "Z": 0,
    " ": 0,
}
OPPOSITE = {"1": "0", "0": "1", "=": "=", "+": "-", "-": "+", " ": " "}


@given(
    seed=st.integers(0, 2**32 - 1),
    players=st.integers(2, 14),
    rounds=st.integers(1, 6),
    pending=st.booleans(),
)
def test_any_consistent_tournament_round_trips(
    seed: int, players: int, rounds: int, pending: bool
) -> None:
    rng = random.Random(seed)
    records = [
        PlayerRecord(
            n,
            f"Player {n:02}, Some",
            sex=rng.choice(["", "m", "w"]),
            title=rng.choice(["", "GM", "WFM"]),
            rating=rng.choice([None, rng.randint(1000, 2800)]),
            federation=rng.choice(["", "ENG", "FRA"]),
            fide_id=rng.choice(["", str(rng.randint(1, 99999999))]),
            birth_date=rng.choice(["", "1980", "2001/02/03"]),
            rank=rng.choice([None, n]),
        )
        for n in range(1, players + 1)
    ]
    for r in range(rounds):
        last = pending and r == rounds - 1
        order = list(records)
        rng.shuffle(order)
        paired, rest = order[: len(order) // 2 * 2], order[len(order) // 2 * 2 :]
        for a, b in zip(paired[::2], paired[1::2], strict=True):
            result = " " if last else rng.choice(["1", "0", "=", "+", "-"])
            a.rounds.append(RoundEntry(b.start_number, "w", result))
            b.rounds.append(RoundEntry(a.start_number, "b", OPPOSITE[result]))
        for lone in rest:
            lone.rounds.append(RoundEntry(None, "-", "U"))
    for record in records:
        record.points = Decimal(sum(Decimal(POINTS[e.result]) for e in record.rounds))
    t = Tournament(name="Random", rounds_planned=rounds + 1, players=records)
    text = trf.write(t)
    back = trf.read(text)
    assert trf.write(back) == text
    assert back == trf.read(trf.write(back))
    assert [p.points for p in back.players] == [p.points for p in records]
