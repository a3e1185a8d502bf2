"""Hostile CSV cells through every import path: a line-numbered message, nothing stored.

A NUL byte (PostgreSQL refuses it in text), another control character, or a date-time at
the ends of the calendar (which overflows when moved into a time zone) used to crash the
import. Each is now a row error naming the line and the column, from ``import_results``,
from ``manage.py import_results`` (no traceback) and from the admin's preview (no 500).
"""

from __future__ import annotations

import datetime as dt
import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse

from league import services as league_services
from league.csv_import import import_results
from league.models import Event, League, Player

HEADER = "date,player_a,player_b,score_a,id,note,points\n"
GOOD_ROW = ["2024-03-01", "Ann", "Bob", "1", "k1", "friendly", "3-1"]
COLUMNS = HEADER.strip().split(",")


def csv_of(*rows: list[str], header: str = HEADER) -> bytes:
    return (header + "".join(",".join(row) + "\n" for row in rows)).encode("utf-8")


def with_cell(column: str, value: str) -> list[str]:
    row = list(GOOD_ROW)
    row[COLUMNS.index(column)] = value
    return row


def stored(league: League) -> tuple:
    return (
        list(Event.objects.filter(league=league).order_by("pk").values_list()),
        list(Player.objects.filter(league=league).order_by("pk").values_list()),
    )


@pytest.fixture
def players(league):
    return [league_services.register_player(league, name) for name in ("Ann", "Bob")]


CONTROL_CASES = [
    pytest.param(column, value, id=f"{column}-{value!r}")
    for column, good in zip(COLUMNS, GOOD_ROW, strict=True)
    for value in (good[:1] + "\x00" + good[1:], good + "\x1b")
]

DATE_CASES = [
    "0001-01-01T00:00:00+14:00",
    "9999-12-31T23:59:59-14:00",
    "0001-01-01",
    "0001-01-02T12:00:00",
    "9999-12-31",
    "9999-12-30T00:00:00+00:00",
]


# --- import_results ------------------------------------------------------------------------


@pytest.mark.parametrize(("column", "value"), CONTROL_CASES)
def test_a_control_character_in_any_cell_is_a_row_error(league, players, column, value):
    before = stored(league)
    data = csv_of([*GOOD_ROW[:4], "k0", "", ""], with_cell(column, value))
    report = import_results(league, io.BytesIO(data), create_players=True)
    assert not report.ok
    assert [(error.line, error.message.split(" contains")[0]) for error in report.errors] == [
        (3, column)
    ]
    assert "control character U+00" in report.errors[0].message
    assert stored(league) == before


@pytest.mark.parametrize("column", ["points_a", "points_b"])
def test_a_nul_in_the_points_columns_is_a_row_error(league, players, column):
    header = "date,player_a,player_b,points_a,points_b\n"
    row = ["2024-03-01", "Ann", "Bob", "3", "1"]
    row[3 if column == "points_a" else 4] += "\x00"
    before = stored(league)
    report = import_results(league, io.BytesIO(csv_of(row, header=header)))
    assert [str(error) for error in report.errors] == [
        f"line 2: {column} contains the control character U+0000 (a NUL byte) at character 2: "
        "remove it"
    ]
    assert stored(league) == before


def test_a_nul_in_a_column_the_import_ignores_is_harmless(league, players):
    data = csv_of([*GOOD_ROW, "x\x00y"], header=HEADER.strip() + ",comment\n")
    report = import_results(league, io.BytesIO(data))
    assert report.committed
    assert Event.objects.matches().filter(league=league).count() == 1


def test_tabs_and_line_breaks_inside_a_note_are_kept(league, players):
    data = csv_of(with_cell("note", '"first line\nsecond\tcolumn"'))
    report = import_results(league, io.BytesIO(data))
    assert report.committed
    assert Event.objects.matches().get(league=league).note == "first line\nsecond\tcolumn"


@pytest.mark.parametrize("value", DATE_CASES)
def test_a_date_at_the_ends_of_the_calendar_is_a_row_error(league, players, value):
    before = stored(league)
    report = import_results(league, io.BytesIO(csv_of(with_cell("date", value))))
    assert [str(error) for error in report.errors] == [
        f"line 2: date {value!r} is out of range: use a day from 0001-01-03 to 9999-12-29"
    ]
    assert stored(league) == before


@pytest.mark.parametrize("zone", ["Pacific/Kiritimati", "Etc/GMT+12", "UTC"])
def test_the_first_and_last_accepted_days_never_overflow(db, zone):
    league = League.objects.create(
        name=zone, slug="edge", time_zone=zone, start_date=dt.date(2024, 1, 1)
    )
    for name in ("Ann", "Bob"):
        league_services.register_player(league, name)
    data = csv_of(
        with_cell("date", "0001-01-03T00:00:00+23:59"),
        ["9999-12-29T23:59:59-23:59", "Ann", "Bob", "1", "k2", "", ""],
    )
    report = import_results(league, io.BytesIO(data))
    # Refused for their dates (before the start, in the future), not by an overflow.
    assert [error.line for error in report.errors] == [2, 3]
    assert "before the league started" in report.errors[0].message
    assert "in the future" in report.errors[1].message


def test_points_with_more_digits_than_a_score_has_are_a_row_error(league, players):
    header = "date,player_a,player_b,points_a,points_b\n"
    data = csv_of(["2024-03-01", "Ann", "Bob", "9" * 5000, "1"], header=header)
    report = import_results(league, io.BytesIO(data))
    assert [str(error) for error in report.errors] == ["line 2: points_a has more than 9 digits"]


# --- manage.py import_results --------------------------------------------------------------


@pytest.mark.parametrize(
    ("row", "message"),
    [
        (with_cell("player_a", "A\x00nn"), "line 2: player_a contains the control character"),
        (with_cell("note", "n\x00te"), "line 2: note contains the control character"),
        (with_cell("id", "k\x00"), "line 2: id contains the control character"),
        (with_cell("date", "0001-01-01T00:00:00+14:00"), "line 2: date '0001-01-01T00:00:00"),
        (with_cell("date", "9999-12-31T23:59:59-14:00"), "line 2: date '9999-12-31T23:59:59"),
    ],
    ids=["name", "note", "id", "year-1", "year-9999"],
)
def test_the_command_names_the_line_and_records_nothing(league, players, tmp_path, row, message):
    path = tmp_path / "results.csv"
    path.write_bytes(csv_of(row))
    before = stored(league)
    err = io.StringIO()
    with pytest.raises(CommandError, match="1 bad row"):
        call_command(
            "import_results",
            league.slug,
            str(path),
            "--create-players",
            stdout=io.StringIO(),
            stderr=err,
        )
    assert f"{path}: {message}" in err.getvalue()
    assert stored(league) == before


# --- the admin's import preview ------------------------------------------------------------


@pytest.mark.parametrize(
    ("row", "message"),
    [
        (with_cell("player_b", "B\x00ob"), "line 2: player_b contains the control character"),
        (with_cell("points", "3\x001"), "line 2: points contains the control character"),
        (with_cell("date", "0001-01-01T00:00:00+14:00"), "line 2: date"),
        (with_cell("date", "9999-12-31T23:59:59-14:00"), "line 2: date"),
    ],
    ids=["name", "points", "year-1", "year-9999"],
)
def test_the_workspace_preview_names_the_line_and_records_nothing(
    client, organiser, league, players, settings, tmp_path, row, message
):
    settings.VAR_DIR = tmp_path
    client.force_login(organiser)
    before = stored(league)
    upload = SimpleUploadedFile("results.csv", csv_of(row), "text/csv")
    response = client.post(
        reverse("workspace:import", args=[league.slug]),
        {"file": upload, "create_players": "on"},
    )
    assert response.status_code == 302
    preview = client.get(response["Location"])
    assert preview.status_code == 200
    html = preview.content.decode()
    line, text = message.split(": ", 1)
    assert f'id="{line.replace(" ", "-")}"' in html
    assert text in html
    assert "1 bad row (of 1): nothing was recorded." in html
    confirmed = client.post(response["Location"], {"confirm": "1"})
    assert confirmed.status_code == 200
    assert stored(league) == before


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["river\x00side", "{file}"], "The league slug 'river\\\\x00side' contains"),
        (
            ["riverside", "{file}", "--recorded-by", "org\x00"],
            "The user name 'org\\\\x00' contains",
        ),
    ],
    ids=["slug", "recorded-by"],
)
def test_the_command_refuses_a_nul_in_its_arguments(league, players, tmp_path, args, message):
    path = tmp_path / "results.csv"
    path.write_bytes(csv_of(GOOD_ROW))
    before = stored(league)
    with pytest.raises(CommandError, match=message):
        call_command(
            "import_results",
            *[arg.format(file=path) for arg in args],
            stdout=io.StringIO(),
            stderr=io.StringIO(),
        )
    with pytest.raises(CommandError, match="The league slug"):
        call_command("export_ratings", "river\x00side", stdout=io.StringIO())
    assert stored(league) == before
