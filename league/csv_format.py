"""The CSV format for importing results: streaming parsing and per-row checks.

Pure (no database): turns a byte stream into ``ResultRow``s and ``RowError``s, one per
data row, in file order, without holding the file in memory. Checks that need the league
(players, the date window, idempotency keys) belong to the import.

Format: a header row naming the columns ``date``, ``player_a``, ``player_b`` and either
``score_a`` or both ``points_a`` and ``points_b``; optional ``id`` (idempotency key),
``note``, ``points`` (the display text of the game score, e.g. "11-7 9-11 11-5", which
overrides the text made from ``points_a``/``points_b``) and ``neutral`` (true/false, yes/no,
1/0 or empty: played on neutral ground, no advantage for ``player_a``); other columns are
ignored. Line
numbers are physical lines of the file, from 1 (the header).

Matches with sides: instead of ``player_a``/``player_b``, columns ``side_a``, ``side_b`` (and
``side_c`` … ``side_p`` for games of three to sixteen sides), each listing its players
separated by ``;`` ("Ana Silva; Ben Okafor"). Two sides take ``score_a`` (or the points) as
above; three or more take a finishing position per side in ``place_a``, ``place_b``, …
(1 is first, equal positions are a tie); a row fills as many sides as its game had (at
least two, from ``side_a`` on, no gaps). Two sides of one player each are a one-vs-one
result. A player named twice in a row, an empty side between filled ones, and positions
missing or given for empty sides are reported on their line.

Text cells (names, ``note``, ``points``, ``id``) that start with a quote before a formula
character are read back without it (``league.csv_safety``), so the app's own exports import
as the same results. A cell with a control character (a NUL byte, an escape…) and a date the
calendar cannot hold in every time zone are reported on their line, never stored.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import IO

from league.control_characters import CONTROL_CHARACTER, first_control_character
from league.csv_safety import restore
from league.scores import EN_DASH, parse_flag, parse_score_text, points_score

REQUIRED_COLUMNS = ("date", "player_a", "player_b")
SIDE_LETTERS = "abcdefghijklmnop"
SIDE_COLUMNS = tuple(f"side_{letter}" for letter in SIDE_LETTERS)
PLACE_COLUMNS = tuple(f"place_{letter}" for letter in SIDE_LETTERS)
SIDE_SEPARATOR = ";"
SCORE_COLUMN = "score_a"
POINTS_COLUMNS = ("points_a", "points_b")
OPTIONAL_COLUMNS = ("id", "note", "points", "neutral")
KNOWN_COLUMNS = (
    *REQUIRED_COLUMNS,
    SCORE_COLUMN,
    *POINTS_COLUMNS,
    *OPTIONAL_COLUMNS,
    *SIDE_COLUMNS,
    *PLACE_COLUMNS,
)

# Longest physical line read (bytes) and longest field (characters): a line past these is
# reported, never loaded, so a file without newlines cannot exhaust memory.
MAX_LINE_BYTES = 64 * 1024
MAX_FIELD_CHARS = 16 * 1024
# Matches the database column of the idempotency key.
MAX_ID_CHARS = 200
MAX_NAME_CHARS = 120

# Points of one player: a whole number of at most this many digits.
MAX_POINTS_DIGITS = 9
_NON_NEGATIVE_INT = re.compile(r"[0-9]+")
# A moment is turned into UTC and into the league's time zone (offsets under a day each):
# dates this close to the ends of the calendar would fall off it.
FIRST_DAY = dt.date.min + dt.timedelta(days=2)
LAST_DAY = dt.date.max - dt.timedelta(days=2)


@dataclass(frozen=True, slots=True)
class ResultRow:
    """One well-formed data row.

    ``played`` is a ``date`` or a ``datetime`` (naive means the league's local time); the
    import turns it into an aware moment.
    """

    line: int
    played: dt.date | dt.datetime
    player_a: str
    player_b: str
    score_a: Decimal
    points: str
    note: str
    key: str | None
    neutral: bool = False


@dataclass(frozen=True, slots=True)
class SideResultRow:
    """One well-formed row of a match with sides: player names per side, and either side
    A's ``score_a`` (two sides) or the finishing ``places`` (1 is first, one per side)."""

    line: int
    played: dt.date | dt.datetime
    sides: tuple[tuple[str, ...], ...]
    score_a: Decimal | None
    places: tuple[int, ...] | None
    points: str
    note: str
    key: str | None


@dataclass(frozen=True, slots=True)
class RowError:
    """Why one line (or the whole file, on line 1) cannot be imported."""

    line: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


class _Lines:
    """Physical lines of a byte stream, decoded as UTF-8, for ``csv.reader``.

    Decoding line by line gives the exact line of an encoding error. A line that cannot be
    decoded or is too long is replaced by an empty line and remembered in ``bad``, so parsing
    goes on and every bad line is reported.
    """

    def __init__(self, stream: IO[bytes]) -> None:
        self._stream = stream
        self.number = 0
        self.bad: dict[int, str] = {}

    def __iter__(self) -> Iterator[str]:
        readline = self._stream.readline
        first = True
        while True:
            raw = readline(MAX_LINE_BYTES + 1)
            if not raw:
                return
            self.number += 1
            if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
                self._skip_rest_of_line(readline)
                self.bad[self.number] = (
                    f"the line is longer than {MAX_LINE_BYTES:,} bytes; is this a CSV file "
                    "with one result per line?"
                )
                yield "\n"
                continue
            if first:
                first = False
                raw = raw.removeprefix(b"\xef\xbb\xbf")
            try:
                yield raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                self.bad[self.number] = (
                    f"not UTF-8 (byte {raw[exc.start]:#04x} at column {exc.start + 1}); save the "
                    "file as UTF-8 and import it again"
                )
                yield "\n"

    @staticmethod
    def _skip_rest_of_line(readline: Callable[[int], bytes]) -> None:
        while True:
            chunk = readline(MAX_LINE_BYTES)
            if not chunk or chunk.endswith(b"\n"):
                return


def parse_score(text: str) -> Decimal:
    """``score_a`` text to 1, 0.5 or 0; raises ``ValueError`` with the accepted forms."""
    score = parse_score_text(text)
    if score is None:
        raise ValueError(
            f"unknown score_a {text!r}: use 1, 0.5 or 0 (or 1-0, ½-½, 0.5-0.5, 1/2-1/2, 0-1)"
        )
    return score


def parse_points(points_a: str, points_b: str) -> tuple[Decimal, str]:
    """Points of both players to (score_a, display text such as "3", en dash, "1")."""
    a, b = points_a.strip(), points_b.strip()
    for column, value in (("points_a", a), ("points_b", b)):
        if not _NON_NEGATIVE_INT.fullmatch(value):
            raise ValueError(f"{column} {value[:40]!r} is not a non-negative whole number")
        if len(value) > MAX_POINTS_DIGITS:
            raise ValueError(f"{column} has more than {MAX_POINTS_DIGITS} digits")
    pa, pb = int(a), int(b)
    return points_score(pa, pb), f"{pa}{EN_DASH}{pb}"


def parse_played(text: str) -> dt.date | dt.datetime:
    """``YYYY-MM-DD`` to a date, an ISO 8601 date-time to a datetime.

    Raises ``ValueError`` for anything else, and for a day within two days of either end of
    the calendar (years 1 and 9999), which could not be moved into every time zone.
    """
    value = text.strip()
    played: dt.date | dt.datetime | None = None
    try:
        if len(value) == 10:
            played = dt.date.fromisoformat(value)
        elif len(value) > 10 and value[10] in "T ":
            played = dt.datetime.fromisoformat(value)
    except ValueError:
        pass
    if played is None:
        raise ValueError(f"bad date {text[:40]!r}: use YYYY-MM-DD or an ISO 8601 date-time")
    day = played.date() if isinstance(played, dt.datetime) else played
    if not FIRST_DAY <= day <= LAST_DAY:
        raise ValueError(
            f"date {value!r} is out of range: use a day from {FIRST_DAY.isoformat()} "
            f"to {LAST_DAY.isoformat()}"
        )
    return played


def _header_columns(header: list[str]) -> dict[str, int] | str:
    """Column name -> index, or the reason the header is unusable."""
    names = [name.strip().lower() for name in header]
    positions: dict[str, int] = {}
    for index, name in enumerate(names):
        if name in positions and name in KNOWN_COLUMNS:
            return f"the column {name!r} appears twice in the header"
        positions.setdefault(name, index)
    has_sides = "side_a" in positions or "side_b" in positions
    if has_sides and ("player_a" in positions or "player_b" in positions):
        return (
            "the header names both player_a/player_b and side_a/side_b: use one pair "
            "(a side of one player is a one-vs-one result)"
        )
    required = ("date", "side_a", "side_b") if has_sides else REQUIRED_COLUMNS
    missing = [name for name in required if name not in positions]
    has_points = all(name in positions for name in POINTS_COLUMNS)
    has_places = "place_a" in positions
    if SCORE_COLUMN not in positions and not has_points and not has_places:
        missing.append("score_a (or both points_a and points_b)")
    if missing:
        return (
            f"missing column{'s' if len(missing) > 1 else ''}: {', '.join(missing)} "
            f"(the header reads {', '.join(repr(name) for name in names)})"
        )
    return positions


def iter_results(stream: IO[bytes]) -> Iterator[ResultRow | SideResultRow | RowError]:
    """Parse a CSV byte stream (a file opened in binary mode) into rows and errors, in order.

    Streaming: one line is read at a time. A file-level problem (empty file, bad header,
    no data rows) is one ``RowError`` and ends the iteration.
    """
    if isinstance(stream, io.TextIOBase):
        raise TypeError("iter_results() reads bytes: open the file in binary mode ('rb').")
    lines = _Lines(stream)
    previous_limit = csv.field_size_limit(MAX_FIELD_CHARS)
    try:
        yield from _parse(lines)
    finally:
        csv.field_size_limit(previous_limit)


def _parse(lines: _Lines) -> Iterator[ResultRow | SideResultRow | RowError]:
    reader = csv.reader(lines, strict=True)
    header, header_line = None, 0
    while header is None:
        start = reader.line_num + 1
        try:
            row = next(reader)
        except StopIteration:
            if lines.bad:
                line, reason = next(iter(lines.bad.items()))
                yield RowError(line, reason)
            else:
                yield RowError(1, "the file is empty: expected a header row and results")
            return
        except csv.Error as exc:
            yield RowError(start, _csv_reason(exc))
            return
        bad = _bad_line(lines, start, reader.line_num)
        if bad:
            yield bad
            return
        if row and any(cell.strip() for cell in row):
            header, header_line = row, start

    columns = _header_columns(header)
    if isinstance(columns, str):
        yield RowError(header_line, columns)
        return
    width = len(header)
    side_mode = "side_a" in columns
    i_date = columns["date"]
    i_a, i_b = (
        (columns["side_a"], columns["side_b"])
        if side_mode
        else (columns["player_a"], columns["player_b"])
    )
    side_index = [columns[name] for name in SIDE_COLUMNS if name in columns]
    place_index = {name[-1]: columns[name] for name in PLACE_COLUMNS if name in columns}
    i_score = columns.get(SCORE_COLUMN)
    i_pa, i_pb = columns.get("points_a"), columns.get("points_b")
    i_id, i_note = columns.get("id"), columns.get("note")
    i_points = columns.get("points")
    i_neutral = columns.get("neutral")

    data_rows = 0
    while True:
        start = reader.line_num + 1
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            data_rows += 1
            yield RowError(start, _csv_reason(exc))
            # The reader cannot resume inside a broken quoted field: stop here.
            return
        bad = _bad_line(lines, start, reader.line_num)
        if bad:
            data_rows += 1
            yield bad
            continue
        if not row or (len(row) == 1 and not row[0].strip()):
            continue
        data_rows += 1
        if len(row) != width:
            yield RowError(start, f"expected {width} fields like the header, found {len(row)}")
            continue
        checked = _check_row(
            start,
            row,
            i_date,
            i_a,
            i_b,
            i_score,
            i_pa,
            i_pb,
            i_id,
            i_note,
            i_points,
            side_mode,
            i_neutral,
        )
        if side_mode and isinstance(checked, ResultRow | SideResultRow):
            checked = _check_sides(checked, row, side_index, place_index)
        yield checked
    if data_rows == 0:
        yield RowError(header_line, "no results: the file has a header but no data rows")


def _check_row(
    line: int,
    row: list[str],
    i_date: int,
    i_a: int,
    i_b: int,
    i_score: int | None,
    i_pa: int | None,
    i_pb: int | None,
    i_id: int | None,
    i_note: int | None,
    i_points: int | None,
    side_mode: bool = False,
    i_neutral: int | None = None,
) -> ResultRow | RowError:
    problems: list[str] = []
    # Almost every row has no control character: one search over the whole row says so
    # (the cells are then described one by one only when the row holds one).
    if CONTROL_CHARACTER.search("".join(row)) is not None:
        indexes = (i_date, i_a, i_b, i_score, i_pa, i_pb, i_id, i_note, i_points, i_neutral)
        _control_problems(row, problems, indexes)
    if problems:
        # The other checks would quote the same unprintable text again.
        return RowError(line, "; ".join(problems))

    played: dt.date | dt.datetime | None = None
    try:
        played = parse_played(row[i_date])
    except ValueError as exc:
        problems.append(str(exc))

    player_a, player_b = restore(row[i_a].strip()), restore(row[i_b].strip())
    if not side_mode:
        for column, name in (("player_a", player_a), ("player_b", player_b)):
            if not name:
                problems.append(f"{column} is empty")
            elif len(name) > MAX_NAME_CHARS:
                problems.append(f"{column} is longer than {MAX_NAME_CHARS} characters")
        if player_a and player_a.casefold() == player_b.casefold():
            problems.append(f"a player cannot play themselves ({player_a!r})")

    score: Decimal | None = None
    points = ""
    score_text = row[i_score].strip() if i_score is not None else ""
    has_points = i_pa is not None and (row[i_pa].strip() or row[i_pb].strip())  # type: ignore[index]
    try:
        if has_points:
            score, points = parse_points(row[i_pa], row[i_pb])  # type: ignore[index]
            if score_text and parse_score(score_text) != score:
                problems.append(f"score_a {score_text!r} disagrees with the points {points!r}")
        elif score_text:
            score = parse_score(score_text)
        elif not side_mode:
            problems.append("no score: fill score_a (or points_a and points_b)")
    except ValueError as exc:
        problems.append(str(exc))

    if i_points is not None and row[i_points].strip():
        points = restore(row[i_points].strip())
    key = restore(row[i_id].strip()) if i_id is not None else ""
    if len(key) > MAX_ID_CHARS:
        problems.append(f"id is longer than {MAX_ID_CHARS} characters")
    neutral = parse_flag(row[i_neutral]) if i_neutral is not None else False
    if neutral is None:
        problems.append(
            f"neutral {row[i_neutral].strip()[:40]!r} is not a yes/no value: use true or false "  # type: ignore[index]
            "(also yes/no, 1/0, or leave it empty)"
        )
    if problems:
        return RowError(line, "; ".join(problems))
    return ResultRow(
        line=line,
        played=played,  # type: ignore[arg-type]
        player_a=player_a,
        player_b=player_b,
        score_a=score,  # type: ignore[arg-type]
        points=points,
        note=restore(row[i_note].strip()) if i_note is not None else "",
        key=key or None,
        neutral=bool(neutral),
    )


def _check_sides(
    parsed: ResultRow,
    row: list[str],
    side_index: list[int],
    place_index: dict[str, int],
) -> SideResultRow | RowError:
    """The sides and the result of a row of the side format (``parsed`` has the rest)."""
    problems: list[str] = []
    for letter, i in zip(SIDE_LETTERS, side_index, strict=False):
        found = first_control_character(row[i])
        if found is not None:
            problems.append(f"side_{letter} contains the control character {found}: remove it")
    for letter, i in place_index.items():
        found = first_control_character(row[i])
        if found is not None:
            problems.append(f"place_{letter} contains the control character {found}: remove it")
    if problems:
        return RowError(parsed.line, "; ".join(problems))
    cells = [row[i].strip() for i in side_index]
    filled = len(cells)
    while filled and not cells[filled - 1]:
        filled -= 1
    sides: list[tuple[str, ...]] = []
    seen: dict[str, str] = {}
    for number, cell in enumerate(cells[:filled]):
        letter = SIDE_LETTERS[number]
        names = tuple(restore(name.strip()) for name in cell.split(SIDE_SEPARATOR))
        names = tuple(name for name in names if name) if cell else ()
        if not names:
            problems.append(f"side_{letter} is empty")
            continue
        for name in names:
            if len(name) > MAX_NAME_CHARS:
                problems.append(
                    f"a name in side_{letter} is longer than {MAX_NAME_CHARS} characters"
                )
                continue
            other = seen.get(name.casefold())
            if other is not None:
                where = (
                    f"on side_{other} and side_{letter}"
                    if other != letter
                    else f"twice on side_{letter}"
                )
                problems.append(f"{name!r} is named {where}: a player plays on one side only")
            seen[name.casefold()] = letter
        sides.append(names)
    if filled < 2 and not problems:
        problems.append("a match needs at least two sides: fill side_a and side_b")
    places: tuple[int, ...] | None = None
    place_cells = {letter: row[i].strip() for letter, i in place_index.items()}
    given = {letter: text for letter, text in place_cells.items() if text}
    if filled > 2 or (given and parsed.score_a is None):
        numbers: list[int] = []
        for number in range(filled):
            letter = SIDE_LETTERS[number]
            text = given.get(letter, "")
            if not text:
                problems.append(
                    f"place_{letter} is empty: give each side's finishing position (1 is first)"
                )
            elif not _NON_NEGATIVE_INT.fullmatch(text) or not 1 <= int(text) <= len(SIDE_LETTERS):
                problems.append(
                    f"place_{letter} {text[:20]!r} is not a finishing position "
                    f"from 1 to {len(SIDE_LETTERS)}"
                )
            else:
                numbers.append(int(text))
        extra = [letter for letter in given if SIDE_LETTERS.index(letter) >= filled]
        if extra:
            problems.append(f"place_{extra[0]} is given for an empty side")
        if parsed.score_a is not None and filled > 2:
            problems.append(
                "score_a is for two sides: a game of three or more sides takes place_a, place_b, …"
            )
        if len(numbers) == filled:
            places = tuple(numbers)
    elif parsed.score_a is None:
        problems.append("no score: fill score_a (or points_a and points_b, or place_a and place_b)")
    elif given:
        problems.append("give score_a or place_a/place_b, not both")
    if problems:
        return RowError(parsed.line, "; ".join(problems))
    return SideResultRow(
        line=parsed.line,
        played=parsed.played,
        sides=tuple(sides),
        score_a=parsed.score_a if places is None else None,
        places=places,
        points=parsed.points,
        note=parsed.note,
        key=parsed.key,
    )


def _control_problems(row: list[str], problems: list[str], indexes: tuple[int | None, ...]) -> None:
    names = ("date", "player_a", "player_b", "score_a", "points_a", "points_b", "id", "note")
    names += ("points", "neutral")
    for column, index in zip(names, indexes, strict=True):
        found = first_control_character(row[index]) if index is not None else None
        if found is not None:
            problems.append(f"{column} contains the control character {found}: remove it")


def _bad_line(lines: _Lines, first: int, last: int) -> RowError | None:
    if not lines.bad:
        return None
    for number in range(first, last + 1):
        reason = lines.bad.pop(number, None)
        if reason is not None:
            return RowError(number, reason)
    return None


def _csv_reason(exc: csv.Error) -> str:
    text = str(exc)
    if "field larger than field limit" in text:
        return f"a field is longer than {MAX_FIELD_CHARS:,} characters"
    return f"malformed CSV ({text})"
