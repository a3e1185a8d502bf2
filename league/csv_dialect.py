"""Spreadsheet variants of the import format: the separator and the order of a date's parts.

Spreadsheets set to a European locale save "CSV" with semicolons between the cells (the comma
is their decimal mark: ``0,5``) and dates as ``31/12/2024`` or ``31.12.2024``; the import
format (``league.csv_format``) reads commas, decimal points and ISO dates. ``detect`` reads a
file's header and its ``date`` column and says which variant it is; ``normalise`` rewrites
such a file into the import format line for line, so that every message still names the
line of the file as the organiser sees it; ``rows_by_line`` reads the cells as written, for a
preview. A date such as ``03/04/2024`` fits both orders: when every date of a file does, or
the file has both kinds, ``detect`` cannot tell and the caller asks (``ASK``).

Pure (no database): bytes in, bytes out. The whole file is held in memory, so the caller
bounds its size.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

BOM = b"\xef\xbb\xbf"
SEPARATORS = (",", ";", "\t")
#: Orders of a date's day and month: ``DAY_FIRST`` 31/12/2024, ``MONTH_FIRST`` 12/31/2024.
DAY_FIRST, MONTH_FIRST = "dmy", "mdy"
#: ``detect``'s answers besides the two orders: no such dates, or dates it cannot read alone.
ISO, ASK = "iso", "ask"
# Columns whose names make a header row recognisable as the import format's.
_PLAYER_COLUMNS = ("player_a", "side_a")
_DATE = re.compile(
    r"\s*(\d{1,2})([./-])(\d{1,2})\2(\d{4})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2}))?)?\s*"
)
_DECIMAL_COMMA = re.compile(r"\s*\d+,\d+\s*")


@dataclass(frozen=True)
class Dialect:
    """How one file is written: its ``separator`` and its dates' ``date_order`` (``ISO`` when
    it has no day/month dates, ``DAY_FIRST``, ``MONTH_FIRST``, or ``ASK``); ``example`` is a
    date of the file that shows the order (or, for ``ASK``, one that fits both)."""

    separator: str = ","
    date_order: str = ISO
    example: str = ""

    @property
    def is_standard(self) -> bool:
        """Nothing to rewrite: commas, and no day/month dates."""
        return self.separator == "," and self.date_order == ISO


def detect(data: bytes) -> Dialect:
    """The separator of ``data`` (the one that makes its header the import format's) and the
    order of the dates in its ``date`` column."""
    text = _text(data, errors="surrogateescape")
    separator = _separator(text)
    day_first = month_first = either = ""
    try:
        header: list[str] | None = None
        date_index = -1
        for _line, row in _records(text, separator):
            if header is None:
                if any(cell.strip() for cell in row):
                    header = _names(row)
                    date_index = header.index("date") if "date" in header else -1
                continue
            if not 0 <= date_index < len(row):
                continue
            found = _DATE.fullmatch(row[date_index])
            if found is None:
                continue
            first, second = int(found.group(1)), int(found.group(3))
            cell = row[date_index].strip()
            if first > 12 >= second:
                day_first = day_first or cell
            elif second > 12 >= first:
                month_first = month_first or cell
            else:
                either = either or cell
            if day_first and month_first:
                break
    except csv.Error:
        # The import reports the malformed line; the rows before it still tell the order.
        pass
    if day_first and not month_first:
        return Dialect(separator, DAY_FIRST, day_first)
    if month_first and not day_first:
        return Dialect(separator, MONTH_FIRST, month_first)
    if day_first or either:
        return Dialect(separator, ASK, either or day_first)
    return Dialect(separator, ISO)


def normalise(data: bytes, dialect: Dialect, date_order: str = "") -> bytes:
    """``data`` in the import format: commas between cells, the ``date`` column's day/month
    dates as ISO dates (in ``date_order``, else the dialect's own order), a decimal comma in
    ``score_a`` as a point. Physical lines stay where they are; a date that is no day of the
    calendar stays as written, for the import to report on its line."""
    order = date_order if date_order in (DAY_FIRST, MONTH_FIRST) else dialect.date_order
    if dialect.separator == "," and order not in (DAY_FIRST, MONTH_FIRST):
        return data
    text = _text(data, errors="surrogateescape")
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    header: list[str] | None = None
    done = 0
    try:
        for line, row in _records(text, dialect.separator):
            if header is None:
                if any(cell.strip() for cell in row):
                    header = _names(row)
            else:
                row = _converted(row, header, order, decimal_comma=dialect.separator != ",")
            writer.writerow(row)
            done = line + _breaks(row)
    except csv.Error:
        # Rewrite no further: the import meets the same broken line, on the same line.
        out.write("".join(list(_physical_lines(text))[done:]))
    return out.getvalue().encode("utf-8", errors="surrogateescape")


def rows_by_line(
    data: bytes, separator: str, wanted: Iterable[int] = ()
) -> tuple[int, list[str], dict[int, list[str]]]:
    """The header's line and cells as written, and the cells of the data rows starting on the
    lines ``wanted`` (text that is not UTF-8 shown with replacement characters)."""
    lines = set(wanted)
    header_line, header, rows = 0, [], {}
    try:
        for line, row in _records(_text(data, errors="replace"), separator):
            if not header_line:
                if any(cell.strip() for cell in row):
                    header_line, header = line, [cell.strip() for cell in row]
            elif line in lines:
                rows[line] = row
    except csv.Error:
        pass
    return header_line, header, rows


def _converted(row: list[str], header: list[str], order: str, *, decimal_comma: bool) -> list[str]:
    row = list(row)
    if "date" in header and order in (DAY_FIRST, MONTH_FIRST):
        index = header.index("date")
        if index < len(row):
            row[index] = iso_date(row[index], order)
    if decimal_comma and "score_a" in header:
        index = header.index("score_a")
        if index < len(row) and _DECIMAL_COMMA.fullmatch(row[index]):
            row[index] = row[index].replace(",", ".")
    return row


def iso_date(cell: str, order: str) -> str:
    """``cell`` as an ISO date (and time) when it is a day/month date of the calendar in
    ``order``; ``cell`` unchanged otherwise."""
    found = _DATE.fullmatch(cell)
    if found is None:
        return cell
    first, second, year = int(found.group(1)), int(found.group(3)), int(found.group(4))
    day, month = (first, second) if order == DAY_FIRST else (second, first)
    try:
        text = dt.date(year, month, day).isoformat()
    except ValueError:
        return cell
    if found.group(5) is not None:
        hour, minute, second_text = found.group(5), found.group(6), found.group(7)
        text += f" {int(hour):02d}:{minute}" + (f":{second_text}" if second_text else "")
    return text


def _text(data: bytes, *, errors: str) -> str:
    return data.removeprefix(BOM).decode("utf-8", errors=errors)


def _names(row: list[str]) -> list[str]:
    return [cell.strip().lower() for cell in row]


def _separator(text: str) -> str:
    """The separator that reads the first non-empty line as a header of the import format."""
    for separator in SEPARATORS:
        try:
            for _line, row in _records(text, separator):
                if any(cell.strip() for cell in row):
                    names = _names(row)
                    if "date" in names and any(name in names for name in _PLAYER_COLUMNS):
                        return separator
                    break
        except csv.Error:
            continue
    return ","


def _physical_lines(text: str) -> Iterator[str]:
    """Lines split at "\\n" only, as ``league.csv_format`` reads them (a lone "\\r" is not a
    line break there)."""
    parts = text.split("\n")
    for part in parts[:-1]:
        yield part + "\n"
    if parts[-1]:
        yield parts[-1]


def _records(text: str, separator: str) -> Iterator[tuple[int, list[str]]]:
    """(first physical line, cells) of each record; raises ``csv.Error`` at a broken one."""
    reader = csv.reader(_physical_lines(text), delimiter=separator, strict=True)
    while True:
        start = reader.line_num + 1
        try:
            row = next(reader)
        except StopIteration:
            return
        yield start, row


def _breaks(row: list[str]) -> int:
    """Line breaks inside the cells of ``row`` (a quoted cell may span lines)."""
    return sum(cell.count("\n") for cell in row)
