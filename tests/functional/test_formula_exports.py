"""Spreadsheet formula injection: every CSV the app writes neutralises formula cells.

Players named like formulas are written with a leading quote (OWASP) to ``standings.csv``,
``history.csv`` and every ``export_ratings`` output; numbers (negative ratings) stay
numbers; and the import reads the quoted cells back, so an export re-imports as the same
results and standings.
"""

from __future__ import annotations

import csv
import datetime as dt
import io

import pytest
from django.core.management import call_command
from django.urls import reverse

from league import services as league_services
from league.models import Event, League
from ratings.models import Standing
from tests.functional.conftest import rate

pytestmark = pytest.mark.django_db

LINK = '=HYPERLINK("https://evil.example/","x")'
SUM = "@SUM(1+1)"
DASH = "-Dash"
PLUS = "+Plus"
QUOTED = "'=Quoted"
NAMES = [LINK, SUM, DASH, PLUS, QUOTED, "Ann"]
WRITTEN = {name: ("'" + name if name != "Ann" else name) for name in NAMES}


@pytest.fixture
def formula_league(league):
    players = [league_services.register_player(league, name) for name in NAMES]
    day = dt.date(2024, 1, 2)
    for i, (a, b) in enumerate(zip(players, players[1:] + players[:1], strict=True)):
        league_services.record_match(
            league,
            player_a=a,
            player_b=b,
            score_a=1,
            played_at=day + dt.timedelta(days=i),
            note=f"=cmd|' /C calc'!A{i}",
            points="-",
            idempotency_key=f"=key{i}" if i % 2 else None,
        )
    ann = players[-1]
    for i, winner in enumerate(players[:-1]):
        league_services.record_match(
            league, player_a=winner, player_b=ann, score_a=1, played_at=day + dt.timedelta(days=i)
        )
    # Ratings around 0: Ann's rating and most intervals are negative numbers.
    rate(league, period_anchor=dt.date(2024, 1, 1), period_length=7, initial_rating=0)
    return league


def rows_of(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def download(client, league: League, what: str) -> str:
    url = reverse(f"pages:export_{what}", kwargs={"league_slug": league.slug})
    response = client.get(url)
    assert response.status_code == 200
    return b"".join(response.streaming_content).decode()


def command(*args: str) -> str:
    out = io.StringIO()
    call_command("export_ratings", *args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def assert_players_neutralised(rows: list[dict[str, str]]) -> None:
    assert {row["player"] for row in rows} == set(WRITTEN.values())


def test_standings_csv_neutralises_formula_names_and_keeps_numbers(client, formula_league):
    rows = rows_of(download(client, formula_league, "standings"))
    assert_players_neutralised(rows)
    negative = [row["rating"] for row in rows if row["rating"].startswith("-")]
    assert negative, "the fixture must give some negative ratings"
    assert all(float(value) < 0 for value in negative)
    assert all(float(row["interval_low"]) < float(row["rating"]) for row in rows)


def test_history_csv_neutralises_formula_names(client, formula_league):
    rows = rows_of(download(client, formula_league, "history"))
    assert_players_neutralised(rows)
    assert any(row["rating"].startswith("-") for row in rows)


@pytest.mark.parametrize("args", [[], ["--history"]], ids=["standings", "history"])
def test_export_ratings_neutralises_formula_names(formula_league, args):
    assert_players_neutralised(rows_of(command(formula_league.slug, *args)))


def test_export_ratings_results_neutralise_every_text_cell(formula_league):
    rows = rows_of(command(formula_league.slug, "--results"))
    # A chess league's export names its first player's column by colour: White.
    assert {row["white"] for row in rows} == set(WRITTEN.values())
    assert {row["note"][:6] for row in rows if row["note"]} == {"'=cmd|"}
    assert {row["points"] for row in rows if row["points"]} == {"'-"}
    assert {row["id"] for row in rows if row["id"].startswith("'")} == {
        "'=key1",
        "'=key3",
        "'=key5",
    }


def test_json_is_written_as_the_names_are(formula_league):
    import json

    out = io.StringIO()
    call_command("export_ratings", formula_league.slug, "--format", "json", stdout=out)
    assert {row["player"] for row in json.loads(out.getvalue())} == set(NAMES)


def test_an_export_reimports_as_the_same_results_and_standings(formula_league, tmp_path):
    target = tmp_path / "results.csv"
    call_command(
        "export_ratings",
        formula_league.slug,
        "--results",
        "--output",
        str(target),
        stdout=io.StringIO(),
    )
    copy = League.objects.create(
        name="Copy",
        slug="copy",
        time_zone=formula_league.time_zone,
        start_date=formula_league.start_date,
    )
    call_command("import_results", "copy", str(target), "--create-players", stdout=io.StringIO())
    fields = (
        "player_a__display_name",
        "player_b__display_name",
        "score_a",
        "played_at",
        "points",
        "note",
        "idempotency_key",
    )
    original = Event.objects.matches().filter(league=formula_league).order_by("seq")
    copied = Event.objects.matches().filter(league=copy).order_by("seq")
    assert [row[:-1] for row in copied.values_list(*fields)] == [
        row[:-1] for row in original.values_list(*fields)
    ]
    assert [key for (key,) in copied.values_list("idempotency_key") if key.startswith("=")] == [
        "=key1",
        "=key3",
        "=key5",
    ]
    rate(copy, period_anchor=dt.date(2024, 1, 1), period_length=7, initial_rating=0)

    def standings(league: League) -> dict[str, tuple]:
        return {
            s.player.display_name: (s.rating, s.rd, s.volatility, s.games, s.wins, s.losses)
            for s in Standing.objects.filter(config=league.publication.config).select_related(
                "player"
            )
        }

    assert set(standings(copy)) == set(NAMES)
    assert standings(copy) == standings(formula_league)
