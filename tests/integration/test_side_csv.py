"""A doubles league from the command line: created, filled from CSV, replayed, exported.

Also the multi-side format, and every row-by-row refusal of the side format (with the line
and the reason, nothing recorded).
"""

from __future__ import annotations

import csv
import io

import pytest
from django.core.management import CommandError, call_command

from league.csv_import import import_results
from league.models import Event, League, MatchFormat, MatchParticipant, Player
from ratings.models import Standing

DOUBLES_CSV = """date,side_a,side_b,score_a,points,note,id
2024-01-06,Ana Silva; Ben Okafor,Cai Wong; Dee Patel,1,21-15,,d1
2024-01-06,Ana Silva; Cai Wong,Ben Okafor; Dee Patel,0,19-21,,d2
2024-01-13,Ana Silva; Dee Patel,Ben Okafor; Cai Wong,0.5,,friendly,d3
2024-01-20,Ben Okafor; Dee Patel,Ana Silva; Cai Wong,1,,,d4
"""

BOARD_CSV = """date,side_a,side_b,side_c,side_d,place_a,place_b,place_c,place_d,score_a
2024-01-06,Ann,Bob,Cat,Dan,2,1,2,4,
2024-01-06,Ann,Bob,Cat,,1,3,2,,
2024-01-13,Ann,Bob,,,,,,,1
"""


def _run(*args: str) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def _write(tmp_path, name: str, text: str):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_doubles_league_is_created_filled_from_csv_replayed_and_exported(db, tmp_path):
    out = _run(
        "create_league",
        "padel",
        "--name",
        "Padel Club",
        "--format",
        "doubles",
        "--start-date",
        "2024-01-01",
        "--period-days",
        "7",
    )
    assert "sides of 2 players each" in out
    league = League.objects.get(slug="padel")
    assert (league.match_format, league.side_size) == (MatchFormat.FIXED, 2)

    out = _run(
        "import_results", "padel", str(_write(tmp_path, "d.csv", DOUBLES_CSV)), "--create-players"
    )
    assert "recorded 4 result(s)" in out
    assert Event.objects.side_matches().filter(league=league).count() == 4
    assert MatchParticipant.objects.filter(event__league=league).count() == 16

    _run("replay", "padel", "--sync")
    standings = {
        row.player.display_name: row for row in Standing.objects.filter(config__league=league)
    }
    assert set(standings) == {"Ana Silva", "Ben Okafor", "Cai Wong", "Dee Patel"}
    # Everyone played 4 matches. Ana: W, L, D, L.
    ana = standings["Ana Silva"]
    assert (ana.games, ana.wins, ana.draws, ana.losses) == (4, 1, 1, 2)
    ben = standings["Ben Okafor"]
    assert (ben.games, ben.wins, ben.draws, ben.losses) == (4, 3, 1, 0)
    assert ben.rating > 1500 > ana.rating

    exported = tmp_path / "results.csv"
    _run("export_ratings", "padel", "--results", "--output", str(exported))
    rows = list(csv.DictReader(exported.open(encoding="utf-8")))
    assert [row["side_a"] for row in rows] == [
        "Ana Silva; Ben Okafor",
        "Ana Silva; Cai Wong",
        "Ana Silva; Dee Patel",
        "Ben Okafor; Dee Patel",
    ]
    assert [row["score_a"] for row in rows] == ["1", "0", "0.5", "1"]
    assert [row["id"] for row in rows] == ["d1", "d2", "d3", "d4"]

    standings_file = tmp_path / "standings.csv"
    _run("export_ratings", "padel", "--output", str(standings_file))
    board = list(csv.DictReader(standings_file.open(encoding="utf-8")))
    assert board[0]["player"] == "Ben Okafor"
    assert len(board) == 4

    # The export imports back as the same results: every row already recorded.
    out = _run("import_results", "padel", str(exported))
    assert "recorded 0 result(s), 4 already recorded" in out
    # And into a new league, as the same matches.
    _run(
        "create_league",
        "padel2",
        "--name",
        "Padel Two",
        "--format",
        "doubles",
        "--start-date",
        "2024-01-01",
        "--period-days",
        "7",
    )
    _run("import_results", "padel2", str(exported), "--create-players")
    _run("replay", "padel2", "--sync")
    again = {
        row.player.display_name: (row.rating, row.rd, row.volatility)
        for row in Standing.objects.filter(config__league__slug="padel2")
    }
    assert again == {name: (s.rating, s.rd, s.volatility) for name, s in standings.items()}


def test_the_multi_side_format_records_finishing_orders_with_ties(league, tmp_path):
    league.match_format = MatchFormat.FIXED
    league.side_size = 1
    league.save()
    with _write(tmp_path, "b.csv", BOARD_CSV).open("rb") as stream:
        report = import_results(league, stream, create_players=True)
    assert report.ok, report.errors
    assert report.recorded == 3
    first, second = Event.objects.side_matches().filter(league=league).order_by("seq")
    places = {p.player.display_name: p.place for p in first.participants.select_related("player")}
    assert places == {"Ann": 1, "Bob": 0, "Cat": 1, "Dan": 2}
    assert first.score_a is None
    assert second.participants.count() == 3
    single = Event.objects.matches().get(league=league)  # two sides of one: a plain match
    assert (single.player_a.display_name, single.player_b.display_name) == ("Ann", "Bob")

    exported = io.StringIO()
    from ratings import exports

    exports.write_csv(exports.results(league), exported)
    lines = exported.getvalue().splitlines()
    assert lines[0] == (
        "id,date,side_a,side_b,side_c,side_d,score_a,place_a,place_b,place_c,place_d,points,note"
    )
    assert lines[1].split(",")[2:11] == ["Ann", "Bob", "Cat", "Dan", "", "2", "1", "2", "4"]
    assert lines[3].split(",")[2:7] == ["Ann", "Bob", "", "", "1"]


@pytest.mark.parametrize(
    ("row", "reason"),
    [
        ("2024-01-06,Ana; Ben,Ana; Cai,1", "Ana is on side A and side B"),
        ("2024-01-06,Ana; Ana,Cai; Dee,1", "Ana is named twice on side A"),
        ("2024-01-06,Ana; Ben,,1", "at least two sides"),
        ("2024-01-06,Ana; Ben,Cai,1", "sides of 2 players each"),
        ("2024-01-06,Ana; Ben; Cai,Dee; Eve; Fay,1", "sides of 2 players each"),
        ("2024-01-06,Ana; Zed,Cai; Dee,1", "has no player named “Zed”"),
        ("2024-01-06,Ana; Ben,Cai; Dee,", "no score"),
        ("2024-01-06,Ana; Ben,Cai; Dee,3", "unknown score_a"),
    ],
)
def test_every_side_row_refusal_names_the_line_and_records_nothing(
    league, make_player, tmp_path, row, reason
):
    league.match_format = MatchFormat.FIXED
    league.side_size = 2
    league.save()
    for name in ("Ana", "Ben", "Cai", "Dee", "Eve", "Fay"):
        make_player(league, name)
    text = "date,side_a,side_b,score_a\n2024-01-05,Ana; Ben,Cai; Dee,1\n" + row + "\n"
    before = Event.objects.filter(league=league).count()
    with _write(tmp_path, "bad.csv", text).open("rb") as stream:
        report = import_results(league, stream)
    assert not report.ok
    assert [error.line for error in report.errors] == [3]
    assert reason in report.errors[0].message, report.errors[0].message
    assert Event.objects.filter(league=league).count() == before
    assert not MatchParticipant.objects.exists()
    assert Player.objects.filter(league=league).count() == 6


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (
            "date,side_a,side_b,side_c,place_a,place_b,place_c\n2024-01-06,A,B,C,1,2,\n",
            "place_c is empty",
        ),
        (
            "date,side_a,side_b,side_c,place_a,place_b,place_c\n2024-01-06,A,B,C,1,x,2\n",
            "place_b 'x' is not a finishing position",
        ),
        (
            "date,side_a,side_b,side_c,place_a,place_b,place_c,score_a\n2024-01-06,A,B,C,1,2,3,1\n",
            "score_a is for two sides",
        ),
        (
            "date,side_a,side_b,side_c,place_a,place_b,place_c\n2024-01-06,A,B,,1,2,3\n",
            "place_c is given for an empty side",
        ),
        (
            "date,side_a,side_b,side_c,place_a,place_b,place_c\n2024-01-06,A,,C,1,2,3\n",
            "side_b is empty",
        ),
        ("date,player_a,side_a,side_b,score_a\n2024-01-06,A,B,C,1\n", "both player_a"),
    ],
)
def test_multi_side_rows_are_checked_line_by_line(league, tmp_path, text, reason):
    league.match_format = MatchFormat.ANY
    league.save()
    with _write(tmp_path, "bad.csv", text).open("rb") as stream:
        report = import_results(league, stream, create_players=True)
    assert not report.ok
    assert reason in report.errors[0].message, report.errors[0].message
    assert not Event.objects.filter(league=league).exists()


def test_a_singles_league_refuses_a_doubles_row_and_player_rows_keep_working(league, tmp_path):
    text = "date,player_a,player_b,score_a\n2024-01-05,Ann,Bob,1\n"
    with _write(tmp_path, "ok.csv", text).open("rb") as stream:
        assert import_results(league, stream, create_players=True).recorded == 1
    text = "date,side_a,side_b,score_a\n2024-01-06,Ann; Bob,Cat; Dan,1\n"
    with _write(tmp_path, "bad.csv", text).open("rb") as stream:
        report = import_results(league, stream, create_players=True)
    assert [error.line for error in report.errors] == [2]
    assert "singles only" in report.errors[0].message
    assert Event.objects.filter(league=league).count() == 3  # two registrations, one match


def test_create_league_refuses_an_unknown_format(db):
    with pytest.raises(CommandError, match="Unknown --format"):
        _run("create_league", "x", "--name", "X", "--format", "trios")
    assert not League.objects.exists()


@pytest.mark.parametrize(
    ("name", "match_format", "recorded"),
    [("doubles.csv", MatchFormat.FIXED, 4), ("board_games.csv", MatchFormat.ANY, 4)],
)
def test_the_readmes_example_files_import(league, name, match_format, recorded):
    from pathlib import Path

    league.match_format = match_format
    league.side_size = 2
    league.save()
    path = Path(__file__).resolve().parents[2] / "examples" / name
    with path.open("rb") as stream:
        report = import_results(league, stream, create_players=True)
    assert report.ok, report.errors
    assert report.recorded == recorded
