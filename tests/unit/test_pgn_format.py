"""Reading a PGN file into result rows (league.pgn_format): what is read, what is refused."""

from __future__ import annotations

import datetime as dt
import io
from decimal import Decimal

from league.csv_format import ResultRow, RowError
from league.pgn_format import MAX_LINE_BYTES, in_pgn_terms, iter_pgn_results


def game(white="Ann", black="Ben", result="1-0", date="2024.03.01", **tags: str) -> str:
    lines = [f'[{name} "{value}"]' for name, value in tags.items()]
    for name, value in (("White", white), ("Black", black), ("Result", result), ("Date", date)):
        if value is not None:
            lines.append(f'[{name} "{value}"]')
    return "\n".join(lines) + f"\n\n1. e4 e5 {result or '*'}\n\n"


def read(text: str | bytes) -> list[ResultRow | RowError]:
    data = text.encode() if isinstance(text, str) else text
    return list(iter_pgn_results(io.BytesIO(data)))


def test_each_game_is_a_result_with_white_named_first():
    rows = read(
        game(Event="Club Championship", Round="3", Site="Riverside")
        + game("Cy", "Di", "1/2-1/2", "2024.03.08")
        + game("Ed", "Fay", "0-1", "2024.03.09")
    )
    assert [type(row) for row in rows] == [ResultRow] * 3
    first, second, third = rows
    assert first.sides == (("Ann",), ("Ben",))
    assert first.score_a == Decimal("1")
    assert first.played == dt.date(2024, 3, 1)
    assert first.note == "Club Championship, round 3"
    assert first.line == 1
    assert second.score_a == Decimal("0.5")
    assert second.note == ""
    assert third.score_a == Decimal("0")
    assert third.sides == (("Ed",), ("Fay",))
    # The line of each game is the line its tags start on: the first game has seven tags,
    # an empty line, its moves and an empty line; the second four tags.
    assert second.line == 11
    assert third.line == 18


def test_keys_are_stable_and_tell_repeated_games_apart():
    text = game(Round="1") + game(Round="1", result="0-1")
    once, again = read(text), read(text)
    assert [row.key for row in once] == [row.key for row in again]
    assert once[0].key != once[1].key
    assert all(row.key.startswith("pgn:") for row in once)


def test_an_unfinished_game_is_refused_with_its_number_and_line():
    (row,) = read(game(result="*"))
    assert isinstance(row, RowError)
    assert row.line == 1
    assert "game 1" in row.message
    assert "“*”" in row.message


def test_an_unknown_result_is_refused():
    (row,) = read(game(result="2-0"))
    assert isinstance(row, RowError)
    assert "unknown result “2-0”" in row.message


def test_missing_tags_are_named():
    (row,) = read(game(black=None, date=None))
    assert isinstance(row, RowError)
    assert "Black, Date" in row.message


def test_dates_with_unknown_parts_or_impossible_days_are_refused():
    rows = read(game(date="2024.03.??") + game(date="2024.02.30") + game(date="yesterday"))
    assert [type(row) for row in rows] == [RowError] * 3
    assert [row.message.split(":")[0] for row in rows] == ["game 1", "game 2", "game 3"]
    assert "2024.02.30" in rows[1].message


def test_a_nul_byte_is_reported_on_its_line():
    data = game().encode() + game("Cy", "D\x00i").encode()
    rows = read(data)
    errors = [row for row in rows if isinstance(row, RowError)]
    # The second game starts on line 8 (four tags, two empty lines, moves): Black on 9.
    assert any(error.line == 9 and "U+0000" in error.message for error in errors)


def test_bytes_that_are_not_utf8_are_reported_on_their_line():
    data = game().encode() + game("Cy", "Di").encode().replace(b"Cy", b"C\xff")
    errors = [row for row in read(data) if isinstance(row, RowError)]
    assert errors[0].line == 8
    assert "not UTF-8" in errors[0].message


def test_a_line_past_the_limit_is_reported_not_loaded():
    data = b"[White " + b"x" * (MAX_LINE_BYTES * 3) + b"\n" + game().encode()
    rows = read(data)
    assert isinstance(rows[0], RowError)
    assert rows[0].line == 1
    assert "longer than" in rows[0].message


def test_tags_that_follow_moves_without_an_empty_line_are_reported():
    text = game().rstrip("\n") + "\n" + game("Cy", "Di")
    errors = [row for row in read(text) if isinstance(row, RowError)]
    # The second game's tags start on line 7, right after the first game's moves; its moves
    # are then left without tags (line 12).
    assert [error.line for error in errors] == [7, 12]
    assert "empty line" in errors[0].message
    assert "missing tag" in errors[1].message


def test_a_file_without_a_game_is_one_error():
    (row,) = read("this is not PGN\n")
    assert isinstance(row, RowError)
    assert row.line == 1
    assert "missing tag" in row.message


def test_service_messages_are_put_in_the_file_s_terms():
    assert in_pgn_terms("played_at: too early; player_b: unknown") == (
        "Date: too early; Black: unknown"
    )
