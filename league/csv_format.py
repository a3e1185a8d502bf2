"""The CSV format for importing results: streaming parsing and per-row checks.

Pure (no database): turns a byte stream into ``ResultRow``s and ``RowError``s, one per
data row, in file order, without holding the file in memory. One row type and one row check
for every match, whatever its sides (``player_a``/``player_b`` are the two sides of one
player of a one-vs-one result). Checks that need the league (players known, active and on
one side each, the league's format, the date window, the points against the result,
idempotency keys) are the write services' own rules, applied by the import.

Format: a header row naming the columns ``date``, ``player_a``, ``player_b`` and either
``score_a`` or both ``points_a`` and ``points_b``; optional ``id`` (idempotency key),
``note``, ``points`` (the display text of the game score, e.g. "11-7 9-11 11-5", which
overrides the text made from ``points_a``/``points_b``), ``neutral`` (true/false, yes/no,
1/0 or empty: played on neutral ground, no advantage for ``player_a``) and ``void_reason`` (a
row with one is recorded and then voided for that reason: the full event log's export) and
``player_status`` (``inactive`` or ``active``: the row names one player in ``player_a`` or
``side_a``, with the reason in ``note``, and states that player's status once the file's
matches are in, instead of a match; the export writes one for each deactivated player); other
columns are ignored. Line numbers are physical lines of the file, from 1 (the header).

Matches with sides: instead of ``player_a``/``player_b``, columns ``side_a``, ``side_b`` (and
``side_c`` … ``side_p`` for games of three to sixteen sides), each listing its players
separated by ``;`` ("Ana Silva; Ben Okafor"). Two sides take ``score_a`` (or the points) as
above; three or more take a finishing position per side in ``place_a``, ``place_b``, …
(1 is first, equal positions are a tie); a row fills as many sides as its game had (at
least two, from ``side_a`` on, no gaps). Two sides of one player each are a one-vs-one
result. An empty side between filled ones, and positions missing or given for empty sides
are reported on their line (a player named twice too, by the import).

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

from django.utils.formats import number_format
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from league.control_characters import CONTROL_CHARACTER, first_control_character
from league.csv_safety import PREFIX, restore
from league.scores import (
    EN_DASH,
    ONE_VS_ONE_FIRST,
    POINTS_CONTRADICT,
    parse_flag,
    parse_score_text,
    points_contradiction,
    points_score,
)

REQUIRED_COLUMNS = ("date", "player_a", "player_b")
SIDE_LETTERS = "abcdefghijklmnop"
SIDE_COLUMNS = tuple(f"side_{letter}" for letter in SIDE_LETTERS)
PLACE_COLUMNS = tuple(f"place_{letter}" for letter in SIDE_LETTERS)
SIDE_SEPARATOR = ";"
SCORE_COLUMN = "score_a"
POINTS_COLUMNS = ("points_a", "points_b")
OPTIONAL_COLUMNS = ("id", "note", "points", "neutral", "void_reason", "player_status")
#: ``player_status`` cells: what the row makes of the player it names.
PLAYER_STATUSES = {"inactive": False, "active": True}
#: A chess league's names of ``player_a`` and ``player_b``: White is named first.
COLOUR_COLUMNS = {"white": "player_a", "black": "player_b"}
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
    """One well-formed data row: a match of any sides.

    ``sides`` holds each side's player names (a one-vs-one result: two sides of one name;
    ``pair`` when they came from ``player_a``/``player_b``). Two sides carry side A's
    ``score_a``, or ``places``; three or more the finishing ``places`` (1 is first, one per
    side). ``played`` is a ``date`` or a ``datetime`` (naive means the league's local time);
    the import turns it into an aware moment.
    """

    line: int
    played: dt.date | dt.datetime
    sides: tuple[tuple[str, ...], ...]
    score_a: Decimal | None
    places: tuple[int, ...] | None
    points: str
    note: str
    key: str | None
    neutral: bool = False
    void_reason: str = ""
    pair: bool = True


@dataclass(frozen=True, slots=True)
class PlayerStatusRow:
    """A row that states a player's status instead of a match (a ``player_status`` cell):
    ``active`` False makes the import deactivate the player once the file's matches are in,
    True reactivates them; ``reason`` is the row's ``note``."""

    line: int
    name: str
    active: bool
    reason: str


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
                self.bad[self.number] = _(
                    "the line is longer than %(max)s bytes; is this a CSV file "
                    "with one result per line?"
                ) % {"max": number_format(MAX_LINE_BYTES, force_grouping=True)}
                yield "\n"
                continue
            if first:
                first = False
                raw = raw.removeprefix(b"\xef\xbb\xbf")
            try:
                yield raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                self.bad[self.number] = _(
                    "not UTF-8 (byte %(byte)s at column %(column)s); save the "
                    "file as UTF-8 and import it again"
                ) % {"byte": f"{raw[exc.start]:#04x}", "column": exc.start + 1}
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
            _("unknown score_a %(text)r: use 1, 0.5 or 0 (or 1-0, ½-½, 0.5-0.5, 1/2-1/2, 0-1)")
            % {"text": text}
        )
    return score


def parse_points(points_a: str, points_b: str) -> tuple[Decimal, str]:
    """Points of both players to (score_a, display text such as "3", en dash, "1")."""
    a, b = points_a.strip(), points_b.strip()
    for column, value in (("points_a", a), ("points_b", b)):
        if not _NON_NEGATIVE_INT.fullmatch(value):
            raise ValueError(
                _("%(column)s %(value)r is not a non-negative whole number")
                % {"column": column, "value": value[:40]}
            )
        if len(value) > MAX_POINTS_DIGITS:
            raise ValueError(
                _("%(column)s has more than %(max)s digits")
                % {"column": column, "max": MAX_POINTS_DIGITS}
            )
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
        raise ValueError(
            _("bad date %(text)r: use YYYY-MM-DD or an ISO 8601 date-time") % {"text": text[:40]}
        )
    day = played.date() if isinstance(played, dt.datetime) else played
    if not FIRST_DAY <= day <= LAST_DAY:
        raise ValueError(
            _("date %(value)r is out of range: use a day from %(first)s to %(last)s")
            % {"value": value, "first": FIRST_DAY.isoformat(), "last": LAST_DAY.isoformat()}
        )
    return played


def _header_columns(header: list[str]) -> dict[str, int] | str:
    """Column name -> index, or the reason the header is unusable."""
    names = [name.strip().lower() for name in header]
    if not {"player_a", "player_b"} & set(names):
        # A chess league's export names the players by colour (``league.chess.vocabulary``).
        names = [COLOUR_COLUMNS.get(name, name) for name in names]
    positions: dict[str, int] = {}
    for index, name in enumerate(names):
        if name in positions and name in KNOWN_COLUMNS:
            return _("the column %(name)r appears twice in the header") % {"name": name}
        positions.setdefault(name, index)
    has_sides = "side_a" in positions or "side_b" in positions
    if has_sides and ("player_a" in positions or "player_b" in positions):
        return _(
            "the header names both player_a/player_b and side_a/side_b: use one pair "
            "(a side of one player is a one-vs-one result)"
        )
    required = ("date", "side_a", "side_b") if has_sides else REQUIRED_COLUMNS
    missing = [name for name in required if name not in positions]
    has_points = all(name in positions for name in POINTS_COLUMNS)
    has_places = "place_a" in positions
    if SCORE_COLUMN not in positions and not has_points and not has_places:
        missing.append(_("score_a (or both points_a and points_b)"))
    if missing:
        return ngettext(
            "missing column: %(missing)s (the header reads %(header)s)",
            "missing columns: %(missing)s (the header reads %(header)s)",
            len(missing),
        ) % {"missing": ", ".join(missing), "header": ", ".join(repr(name) for name in names)}
    return positions


def iter_results(stream: IO[bytes]) -> Iterator[ResultRow | PlayerStatusRow | RowError]:
    """Parse a CSV byte stream (a file opened in binary mode) into rows and errors, in order.

    Streaming: one line is read at a time. A file-level problem (empty file, bad header,
    no data rows) is one ``RowError`` and ends the iteration.
    """
    for item in iter_result_blocks(stream):
        if isinstance(item, PlainBlock):
            yield from item.rows()
        else:
            yield item


def iter_result_blocks(
    stream: IO[bytes],
) -> Iterator[PlainBlock | ResultRow | PlayerStatusRow | RowError]:
    """``iter_results`` with runs of plain rows given as ``PlainBlock``s (column-wise).

    The same rows in the same order: flattening each block with ``PlainBlock.rows`` gives
    exactly what ``iter_results`` yields. A row with anything to check or report on its own
    (a problem, a status, points, a void, neutral ground, a quoted formula prefix it needs
    read back…) is yielded on its own, as before.
    """
    if isinstance(stream, io.TextIOBase):
        raise TypeError("iter_results() reads bytes: open the file in binary mode ('rb').")
    lines = _Lines(stream)
    previous_limit = csv.field_size_limit(MAX_FIELD_CHARS)
    try:
        yield from _parse(lines)
    finally:
        csv.field_size_limit(previous_limit)


@dataclass(frozen=True, slots=True)
class PlainBlock:
    """Consecutive plain rows of a ``player_a``/``player_b`` file, one list per column.

    A plain row is a well-formed one-vs-one result with a score, no points, no places, not on
    neutral ground, no void and no status: the ``ResultRow`` of row ``i`` is
    ``line=lines[i], played=played[i], sides=((a[i],), (b[i],)), score_a=scores[i],
    note=notes[i], key=keys[i] or None`` (``rows`` builds them). Most rows of a file are
    plain; reading them a block at a time parses each distinct date, score and name once and
    leaves the per-row work to the C loops of ``map`` and ``zip``.
    """

    lines: list[int]
    played: list[dt.date | dt.datetime]
    a: list[str]
    b: list[str]
    scores: list[Decimal]
    #: The ``id`` of each row, "" for none.
    keys: list[str]
    notes: list[str]

    def __len__(self) -> int:
        return len(self.lines)

    def row(self, index: int) -> ResultRow:
        """Row ``index`` as the ``ResultRow`` ``iter_results`` yields for it."""
        return ResultRow(
            line=self.lines[index],
            played=self.played[index],
            sides=((self.a[index],), (self.b[index],)),
            score_a=self.scores[index],
            places=None,
            points="",
            note=self.notes[index],
            key=self.keys[index] or None,
            neutral=False,
            void_reason="",
            pair=True,
        )

    def rows(self) -> Iterator[ResultRow]:
        return map(self.row, range(len(self.lines)))


@dataclass(frozen=True, slots=True)
class _Layout:
    """Where a file's columns are: the header read once, for every row."""

    width: int
    date: int
    #: (column, index) of each side's cell: ``player_a``/``player_b`` or ``side_a``, ….
    sides: tuple[tuple[str, int], ...]
    #: (column, index) of each side's finishing position (``place_a``, …).
    places: tuple[tuple[str, int], ...]
    score: int | None
    points_a: int | None
    points_b: int | None
    key: int | None
    note: int | None
    points: int | None
    neutral: int | None
    void: int | None
    status: int | None
    #: (column, index) of every column whose cells are read.
    read: tuple[tuple[str, int], ...]

    @property
    def pair(self) -> bool:
        """Whether the sides are ``player_a`` and ``player_b`` (one name each)."""
        return self.sides[0][0] == "player_a"

    @classmethod
    def of(cls, columns: dict[str, int], width: int) -> _Layout:
        side_names = ("player_a", "player_b") if "player_a" in columns else SIDE_COLUMNS
        present = [name for name in KNOWN_COLUMNS if name in columns]
        return cls(
            width=width,
            date=columns["date"],
            sides=tuple((name, columns[name]) for name in side_names if name in columns),
            places=tuple((name, columns[name]) for name in PLACE_COLUMNS if name in columns),
            score=columns.get(SCORE_COLUMN),
            points_a=columns.get("points_a"),
            points_b=columns.get("points_b"),
            key=columns.get("id"),
            note=columns.get("note"),
            points=columns.get("points"),
            neutral=columns.get("neutral"),
            void=columns.get("void_reason"),
            status=columns.get("player_status"),
            read=tuple((name, columns[name]) for name in present),
        )


def _parse(lines: _Lines) -> Iterator[ResultRow | PlayerStatusRow | RowError]:
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
                yield RowError(1, _("the file is empty: expected a header row and results"))
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
    layout = _Layout.of(columns, len(header))
    quick = _quick_reader(layout)
    block = _block_reader(layout, quick) if quick is not None else None
    width = layout.width

    data_rows = 0
    # Rows of the right width waiting to be read a block at a time, and their lines.
    waiting: list[list[str]] = []
    waiting_lines: list[int] = []
    while True:
        start = reader.line_num + 1
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            data_rows += 1
            if waiting:
                yield from block(waiting_lines, waiting)  # type: ignore[misc]
            yield RowError(start, _csv_reason(exc))
            # The reader cannot resume inside a broken quoted field: stop here.
            return
        bad = _bad_line(lines, start, reader.line_num) if lines.bad else None
        if bad:
            data_rows += 1
            if waiting:
                yield from block(waiting_lines, waiting)  # type: ignore[misc]
                waiting, waiting_lines = [], []
            yield bad
            continue
        if not row or (len(row) == 1 and not row[0].strip()):
            continue
        data_rows += 1
        if block is not None and len(row) == width:
            waiting.append(row)
            waiting_lines.append(start)
            if len(waiting) >= _BLOCK_ROWS:
                yield from block(waiting_lines, waiting)
                waiting, waiting_lines = [], []
            continue
        if waiting:
            yield from block(waiting_lines, waiting)  # type: ignore[misc]
            waiting, waiting_lines = [], []
        if len(row) != width:
            yield RowError(
                start,
                _("expected %(width)s fields like the header, found %(found)s")
                % {"width": width, "found": len(row)},
            )
            continue
        checked = quick(start, row) if quick is not None else None
        yield checked if checked is not None else _check_row(start, row, layout)
    if waiting:
        yield from block(waiting_lines, waiting)  # type: ignore[misc]
    if data_rows == 0:
        yield RowError(header_line, _("no results: the file has a header but no data rows"))


#: Most distinct dates and scores a quick reader remembers (a file repeats them).
_MEMO_LIMIT = 100_000


def _quick_reader(layout: _Layout) -> Callable[[int, list[str]], ResultRow | None] | None:
    """For a ``player_a``/``player_b`` file without places: a reader of one row that
    returns the ``ResultRow`` ``_check_row`` would, or None when the row is not a plain
    well-formed result (a problem, a status, points to check), which ``_check_row`` then
    reads for its messages. The same rules, told with fewer steps, and each distinct date
    and score parsed once (a file of a million rows has a few thousand of them).
    """
    if not layout.pair or layout.places:
        return None
    i_date = layout.date
    i_a, i_b = layout.sides[0][1], layout.sides[1][1]
    i_score, i_key, i_note, i_points = layout.score, layout.key, layout.note, layout.points
    i_neutral, i_void, i_status = layout.neutral, layout.void, layout.status
    i_pa, i_pb = layout.points_a, layout.points_b
    has_points_columns = i_pa is not None and i_pb is not None
    dates: dict[str, dt.date | dt.datetime | None] = {}
    scores: dict[str, Decimal | None] = {}
    search = CONTROL_CHARACTER.search

    def played_of(text: str) -> dt.date | dt.datetime | None:
        if len(dates) >= _MEMO_LIMIT:
            dates.clear()
        try:
            value = dates[text] = parse_played(text)
        except ValueError:
            value = dates[text] = None
        return value

    def score_of(text: str) -> Decimal | None:
        if len(scores) >= _MEMO_LIMIT:
            scores.clear()
        value = scores[text] = parse_score_text(text) if text else None
        return value

    def read(line: int, row: list[str]) -> ResultRow | None:
        if search("".join(row)) is not None:
            return None
        if i_status is not None and row[i_status].strip():
            return None
        if has_points_columns and (row[i_pa].strip() or row[i_pb].strip()):  # type: ignore[index]
            return None
        text = row[i_date]
        played = dates[text] if text in dates else played_of(text)
        if played is None:
            return None
        text = row[i_score].strip() if i_score is not None else ""
        score = scores[text] if text in scores else score_of(text)
        if score is None:
            return None
        a = row[i_a].strip()
        if a[:1] == PREFIX:
            a = restore(a)
        b = row[i_b].strip()
        if b[:1] == PREFIX:
            b = restore(b)
        if not a or not b or len(a) > MAX_NAME_CHARS or len(b) > MAX_NAME_CHARS:
            return None
        key = row[i_key].strip() if i_key is not None else ""
        if key[:1] == PREFIX:
            key = restore(key)
        if len(key) > MAX_ID_CHARS:
            return None
        neutral = parse_flag(row[i_neutral]) if i_neutral is not None else False
        if neutral is None:
            return None
        void_reason = restore(row[i_void].strip()) if i_void is not None else ""
        if void_reason and not key:
            return None
        points = ""
        if i_points is not None and row[i_points].strip():
            points = restore(row[i_points].strip())
        return ResultRow(
            line=line,
            played=played,
            sides=((a,), (b,)),
            score_a=score,
            places=None,
            points=points,
            note=restore(row[i_note].strip()) if i_note is not None else "",
            key=key or None,
            neutral=bool(neutral),
            void_reason=void_reason,
            pair=True,
        )

    return read


#: Rows read at a time by a block reader.
_BLOCK_ROWS = 2048


def _block_reader(
    layout: _Layout, quick: Callable[[int, list[str]], ResultRow | None]
) -> Callable[[list[int], list[list[str]]], Iterator[PlainBlock | ResultRow | RowError]]:
    """For a file ``_quick_reader`` reads: a reader of consecutive rows of the header's width
    (and their lines) that yields the plain ones as ``PlainBlock``s and each other row as
    ``quick`` or ``_check_row`` reads it, in file order.

    Column by column: each distinct date, score, name and neutral cell is read once (by the
    quick reader's own rules) and looked up for every row through ``map``; a row is plain
    when every one of its cells is. The common case (no control character, no formula prefix
    to read back, nothing in the status, points or void columns) costs no Python per row.
    """
    i_date = layout.date
    i_a, i_b = layout.sides[0][1], layout.sides[1][1]
    i_score, i_key, i_note, i_points = layout.score, layout.key, layout.note, layout.points
    i_neutral, i_void, i_status = layout.neutral, layout.void, layout.status
    i_pa, i_pb = layout.points_a, layout.points_b
    # Cells that must be empty for a row to be plain (else the row is read on its own).
    must_be_empty = [i for i in (i_status, i_pa, i_pb, i_points, i_void) if i is not None]
    search = CONTROL_CHARACTER.search
    dates: dict[str, dt.date | dt.datetime | None] = {}
    scores: dict[str, Decimal | None] = {}
    names: dict[str, str | None] = {}
    plain_neutral: dict[str, bool] = {}

    def date_of(text: str) -> dt.date | dt.datetime | None:
        try:
            return parse_played(text)
        except ValueError:
            return None

    def score_of(text: str) -> Decimal | None:
        text = text.strip()
        return parse_score_text(text) if text else None

    def name_of(text: str) -> str | None:
        name = text.strip()
        if name[:1] == PREFIX:
            name = restore(name)
        return name if name and len(name) <= MAX_NAME_CHARS else None

    def lookup(memo: dict, compute: Callable, column: tuple[str, ...]) -> list:  # type: ignore[type-arg]
        """Each cell of ``column`` read by ``compute``, each distinct one once."""
        if len(memo) >= _MEMO_LIMIT:
            memo.clear()
        for text in set(column).difference(memo):
            memo[text] = compute(text)
        return list(map(memo.__getitem__, column))

    def read(
        lines: list[int], rows: list[list[str]]
    ) -> Iterator[PlainBlock | ResultRow | RowError]:
        columns = list(zip(*rows, strict=True))
        text = "".join(map("".join, rows))
        # Rows that are not plain, by index.
        other: set[int] = set()
        if search(text) is not None:
            other.update(i for i, row in enumerate(rows) if search("".join(row)) is not None)
        for index in must_be_empty:
            column = columns[index]
            if any(map(str.strip, column)):
                other.update(i for i, cell in enumerate(column) if cell.strip())
        played = lookup(dates, date_of, columns[i_date])
        score_cells = columns[i_score] if i_score is not None else ("",) * len(rows)
        scores_read = lookup(scores, score_of, score_cells)
        a = lookup(names, name_of, columns[i_a])
        b = lookup(names, name_of, columns[i_b])
        for values in (played, scores_read, a, b):
            if None in values:
                other.update(i for i, value in enumerate(values) if value is None)
        if i_neutral is not None:
            flags = lookup(
                plain_neutral, lambda cell: parse_flag(cell) is False, columns[i_neutral]
            )
            if False in flags:
                other.update(i for i, flag in enumerate(flags) if not flag)
        keys: list[str] = (
            list(map(str.strip, columns[i_key])) if i_key is not None else [""] * len(rows)
        )
        notes: list[str] = (
            list(map(str.strip, columns[i_note])) if i_note is not None else [""] * len(rows)
        )
        if PREFIX in text:
            keys = [restore(key) if key[:1] == PREFIX else key for key in keys]
            notes = list(map(restore, notes))
        if keys and max(map(len, keys)) > MAX_ID_CHARS:
            other.update(i for i, key in enumerate(keys) if len(key) > MAX_ID_CHARS)
        if not other:
            yield PlainBlock(lines, played, a, b, scores_read, keys, notes)
            return
        start = 0
        for index in sorted(other):
            if index > start:
                yield PlainBlock(
                    lines[start:index],
                    played[start:index],
                    a[start:index],
                    b[start:index],
                    scores_read[start:index],
                    keys[start:index],
                    notes[start:index],
                )
            line, row = lines[index], rows[index]
            checked = quick(line, row)
            yield checked if checked is not None else _check_row(line, row, layout)
            start = index + 1
        if start < len(rows):
            yield PlainBlock(
                lines[start:],
                played[start:],
                a[start:],
                b[start:],
                scores_read[start:],
                keys[start:],
                notes[start:],
            )

    return read


def _status_row(line: int, row: list[str], layout: _Layout) -> PlayerStatusRow | RowError:
    """A ``player_status`` row: one player named in the first side's cell, no match."""
    assert layout.status is not None
    status = row[layout.status].strip().lower()
    problems: list[str] = []
    if status not in PLAYER_STATUSES:
        problems.append(
            _("player_status %(value)r is not a status: use inactive or active")
            % {"value": row[layout.status].strip()[:40]}
        )
    first = row[layout.sides[0][1]].strip()
    names = [n.strip() for n in first.split(SIDE_SEPARATOR)] if not layout.pair else [first]
    others = [column for column, index in layout.sides[1:] if row[index].strip()]
    if len(names) != 1 or not names[0] or others:
        problems.append(
            _("a player_status row names one player, in %(column)s, and no match")
            % {"column": layout.sides[0][0]}
        )
    if problems:
        return RowError(line, "; ".join(problems))
    note = restore(row[layout.note].strip()) if layout.note is not None else ""
    return PlayerStatusRow(line, restore(names[0]), PLAYER_STATUSES[status], note)


def _check_row(
    line: int, row: list[str], layout: _Layout
) -> ResultRow | PlayerStatusRow | RowError:
    """One data row read by ``layout``: the match it states, or every problem it has.

    The rules that need the league (players known, active and on one side each, the
    league's format and date window, the points against the result) are the services'
    own, applied by the import (``league.event_store.bulk``).
    """
    problems: list[str] = []
    # Almost every row has no control character: one search over the whole row says so
    # (the cells are then described one by one only when the row holds one).
    if CONTROL_CHARACTER.search("".join(row)) is not None:
        for column, index in layout.read:
            found = first_control_character(row[index])
            if found is not None:
                problems.append(
                    _("%(column)s contains the control character %(found)s: remove it")
                    % {"column": column, "found": found}
                )
    if problems:
        # The other checks would quote the same unprintable text again.
        return RowError(line, "; ".join(problems))
    if layout.status is not None and row[layout.status].strip():
        return _status_row(line, row, layout)

    played: dt.date | dt.datetime | None = None
    try:
        played = parse_played(row[layout.date])
    except ValueError as exc:
        problems.append(str(exc))
    sides = _sides(row, layout, problems)
    score, points, given = _score(row, layout, len(sides), problems)
    places = _places(row, layout, len(sides), score, given, problems)
    if layout.points is not None and row[layout.points].strip():
        points = restore(row[layout.points].strip())
    key = restore(row[layout.key].strip()) if layout.key is not None else ""
    if len(key) > MAX_ID_CHARS:
        problems.append(_("id is longer than %(max)s characters") % {"max": MAX_ID_CHARS})
    neutral = parse_flag(row[layout.neutral]) if layout.neutral is not None else False
    if neutral is None:
        problems.append(
            _(
                "neutral %(value)r is not a yes/no value: use true or false (also yes/no, 1/0, "
                "or leave it empty)"
            )
            % {"value": row[layout.neutral].strip()[:40]}  # type: ignore[index]
        )
    void_reason = restore(row[layout.void].strip()) if layout.void is not None else ""
    if void_reason and not key:
        problems.append(_("a row with a void_reason needs an id (to find its match)"))
    if problems:
        return RowError(line, "; ".join(problems))
    return ResultRow(
        line=line,
        played=played,  # type: ignore[arg-type]
        sides=sides,
        score_a=score if places is None else None,
        places=places,
        points=points,
        note=restore(row[layout.note].strip()) if layout.note is not None else "",
        key=key or None,
        neutral=bool(neutral),
        void_reason=void_reason,
        pair=layout.pair,
    )


def _sides(row: list[str], layout: _Layout, problems: list[str]) -> tuple[tuple[str, ...], ...]:
    """Each side's player names: one name a cell of ``player_a``/``player_b``, names
    separated by ``;`` in ``side_a``, … (sides left empty at the end are no sides)."""
    sides: list[tuple[str, ...]] = []
    if layout.pair:
        for column, index in layout.sides:
            name = restore(row[index].strip())
            if not name:
                problems.append(_("%(column)s is empty") % {"column": column})
            elif len(name) > MAX_NAME_CHARS:
                problems.append(_too_long(column))
            sides.append((name,) if name else ())
        return tuple(sides)
    cells = [(column, row[index].strip()) for column, index in layout.sides]
    while cells and not cells[-1][1]:
        cells.pop()
    for column, cell in cells:
        split = (restore(name.strip()) for name in cell.split(SIDE_SEPARATOR))
        names = tuple(name for name in split if name)
        if not names:
            problems.append(_("%(column)s is empty") % {"column": column})
        elif any(len(name) > MAX_NAME_CHARS for name in names):
            problems.append(_too_long(column))
        sides.append(names)
    if len(cells) < 2 and not problems:
        problems.append(_("a match needs at least two sides: fill side_a and side_b"))
    return tuple(sides)


def _too_long(column: str) -> str:
    return _("a name in %(column)s is longer than %(max)s characters") % {
        "column": column,
        "max": MAX_NAME_CHARS,
    }


def _score(
    row: list[str], layout: _Layout, n_sides: int, problems: list[str]
) -> tuple[Decimal | None, str, bool]:
    """Side A's score, the points text and whether either was given, from ``score_a`` or
    the two sides' points (which must then say the same result: the rule of
    ``league.scores.POINTS_CONTRADICT``)."""
    score: Decimal | None = None
    points = ""
    score_text = row[layout.score].strip() if layout.score is not None else ""
    i_a, i_b = layout.points_a, layout.points_b
    has_points = i_a is not None and i_b is not None and (row[i_a].strip() or row[i_b].strip())
    try:
        if has_points:
            score, points = parse_points(row[i_a], row[i_b])  # type: ignore[index]
            if score_text:
                first = ONE_VS_ONE_FIRST if layout.pair or n_sides == 2 else "side A"
                params = points_contradiction(parse_score(score_text), points, first)
                if params is not None:
                    problems.append(POINTS_CONTRADICT % params)
        elif score_text:
            score = parse_score(score_text)
    except ValueError as exc:
        problems.append(str(exc))
    return score, points, bool(has_points or score_text)


def _places(
    row: list[str],
    layout: _Layout,
    n_sides: int,
    score: Decimal | None,
    score_given: bool,
    problems: list[str],
) -> tuple[int, ...] | None:
    """The finishing positions of a match's sides (``place_a``, …), or None when side A's
    score says the result of its two sides."""
    given = {column: row[i].strip() for column, i in layout.places if row[i].strip()}
    if n_sides <= 2 and not given:
        if not score_given and n_sides == 2:
            problems.append(
                _("no score: fill score_a (or points_a and points_b)")
                if layout.pair
                else _("no score: fill score_a (or points_a and points_b, or place_a and place_b)")
            )
        return None
    if score is not None and n_sides <= 2:
        problems.append(_("give score_a or place_a/place_b, not both"))
        return None
    numbers: list[int] = []
    for column in PLACE_COLUMNS[:n_sides]:
        text = given.get(column, "")
        if not text:
            problems.append(
                _("%(column)s is empty: give each side's finishing position (1 is first)")
                % {"column": column}
            )
        elif not _NON_NEGATIVE_INT.fullmatch(text) or not 1 <= int(text) <= len(SIDE_LETTERS):
            problems.append(
                _("%(column)s %(text)r is not a finishing position from 1 to %(max)s")
                % {"column": column, "text": text[:20], "max": len(SIDE_LETTERS)}
            )
        else:
            numbers.append(int(text))
    extra = [column for column in given if PLACE_COLUMNS.index(column) >= n_sides]
    if extra:
        problems.append(_("%(column)s is given for an empty side") % {"column": extra[0]})
    if score is not None:
        problems.append(
            _("score_a is for two sides: a game of three or more sides takes place_a, place_b, …")
        )
    return tuple(numbers) if len(numbers) == n_sides else None


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
        return _("a field is longer than %(max)s characters") % {
            "max": number_format(MAX_FIELD_CHARS, force_grouping=True)
        }
    return _("malformed CSV (%(problem)s)") % {"problem": text}
