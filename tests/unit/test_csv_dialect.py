"""Spreadsheet variants of the import format: separators and day/month dates (no database)."""

from __future__ import annotations

import io

import pytest

from league import csv_dialect
from league.csv_dialect import ASK, DAY_FIRST, ISO, MONTH_FIRST, Dialect, detect, normalise
from league.csv_format import ResultRow, RowError, iter_results


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"date,player_a,player_b,score_a\n2024-03-01,A,B,1\n", Dialect(",", ISO, "")),
        (b"date;player_a;player_b;score_a\n2024-03-01;A;B;1\n", Dialect(";", ISO, "")),
        (b"date\tside_a\tside_b\tscore_a\n2024-03-01\tA\tB\t1\n", Dialect("\t", ISO, "")),
        (b"date,player_a,player_b,score_a\n01/03/2024,A,B,1\n31/03/2024,A,B,1\n",
         Dialect(",", DAY_FIRST, "31/03/2024")),
        (b"date,player_a,player_b,score_a\n03/31/2024,A,B,1\n",
         Dialect(",", MONTH_FIRST, "03/31/2024")),
        (b"date,player_a,player_b,score_a\n03/04/2024,A,B,1\n", Dialect(",", ASK, "03/04/2024")),
        # Both orders in one file: the file cannot say which, so the organiser is asked.
        (b"date,player_a,player_b,score_a\n31/03/2024,A,B,1\n03/31/2024,A,B,1\n",
         Dialect(",", ASK, "31/03/2024")),
        # No header the import knows: commas, for the import to explain.
        (b"when;who\n2024-03-01;A\n", Dialect(",", ISO, "")),
    ],
    ids=["comma", "semicolon", "tab", "day-first", "month-first", "either", "mixed", "unknown"],
)  # fmt: skip
def test_detect_reads_the_separator_and_the_date_order(data, expected):
    assert detect(data) == expected


def test_a_standard_file_is_passed_through_byte_for_byte():
    data = b"\xef\xbb\xbfdate,player_a,player_b,score_a\r\n2024-03-01,A,B,1\r\n\xff\n"
    assert normalise(data, detect(data)) is data


def test_a_semicolon_file_becomes_the_import_format_line_for_line():
    data = (
        b"date;player_a;player_b;score_a;note\r\n"
        b'31/12/2023;Ann;Bob;0,5;"x; y, z"\r\n'
        b"\r\n"
        b'01.02.2024 19:30;Bob;Ann;1;"two\nlines"\r\n'
        b"30/02/2024;Ann;Bob;1;\r\n"
    )
    rows = list(iter_results(io.BytesIO(normalise(data, detect(data)))))
    assert [(row.line, type(row).__name__) for row in rows] == [
        (2, "ResultRow"),
        (4, "ResultRow"),
        (6, "RowError"),
    ]
    first, second, bad = rows
    assert isinstance(first, ResultRow)
    assert isinstance(second, ResultRow)
    assert (first.played.isoformat(), str(first.score_a), first.note) == (
        "2023-12-31",
        "0.5",
        "x; y, z",
    )
    assert (second.played.isoformat(), second.note) == ("2024-02-01T19:30:00", "two\nlines")
    # No such day: left as written, for the import to report on its own line.
    assert isinstance(bad, RowError)
    assert "'30/02/2024'" in bad.message


@pytest.mark.parametrize(("order", "day"), [(DAY_FIRST, "2024-04-03"), (MONTH_FIRST, "2024-03-04")])
def test_the_order_given_decides_a_date_that_fits_both(order, day):
    data = b"date,player_a,player_b,score_a\n03/04/2024,A,B,1\n"
    (row,) = iter_results(io.BytesIO(normalise(data, detect(data), order)))
    assert row.played.isoformat() == day


def test_undecided_dates_are_left_as_written():
    data = b"date,player_a,player_b,score_a\n03/04/2024,A,B,1\n"
    assert normalise(data, detect(data)) == data


def test_a_broken_line_is_left_for_the_import_to_report_on_its_line():
    data = (
        b'date;player_a;player_b;score_a\n2024-03-01;A;B;1\n2024-03-02;A;"B;1\n2024-03-03;C;D;1\n'
    )
    rows = list(iter_results(io.BytesIO(normalise(data, detect(data)))))
    assert [(row.line, type(row).__name__) for row in rows[:2]] == [
        (2, "ResultRow"),
        (3, "RowError"),
    ]


def test_rows_by_line_gives_the_cells_as_written():
    data = b"Date;Player_A;player_b\n\n31/03/2024;Ann;\xffBob\n"
    line, header, rows = csv_dialect.rows_by_line(data, ";", [3])
    assert (line, header) == (1, ["Date", "Player_A", "player_b"])
    assert rows == {3: ["31/03/2024", "Ann", "\ufffdBob"]}
