"""The CSV of a season's division tables: one row per player per division, as the
divisions page ranks them, with the zone in words; formula-safe cells, and the same bytes
whatever the reader's language."""

from __future__ import annotations

import csv
import datetime as dt
import io

import pytest
from django.urls import reverse

from league import seasons
from league.divisions import DivisionInput, set_divisions
from tests.divisions_support import three_divisions
from tests.functional.conftest import rate, record_results

pytestmark = pytest.mark.django_db

HEADER = "division_position,division,rank,player,games,wins,draws,losses,points,WIN,SB,zone"


@pytest.fixture
def club(league, make_player):
    made = three_divisions(league, make_player)
    made["spring"] = seasons.update_season(
        made["spring"],
        name="Spring 2024",
        start_date="2024-03-01",
        end_date="2024-03-31",
        tiebreaks="WIN, SB",
    )
    return made


def _url(league, season) -> str:
    return reverse("pages:season_divisions_csv", args=[league.slug, season.slug])


def _body(response) -> bytes:
    assert response.status_code == 200
    return b"".join(response.streaming_content)


def _rows(response) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(_body(response).decode())))


EXPECTED = [
    "1,Division 1,1,Player A1,2,2,0,0,6.0,2.0,3.0,stay",
    "1,Division 1,2,Player A2,2,1,0,1,3.0,1.0,0.0,stay",
    "1,Division 1,3,Player A3,2,0,0,2,0.0,0.0,0.0,relegated",
    "2,Division 2,1,Player B1,2,2,0,0,6.0,2.0,3.0,promoted",
    "2,Division 2,2,Player B2,2,1,0,1,3.0,1.0,0.0,stay",
    "2,Division 2,3,Player B3,2,0,0,2,0.0,0.0,0.0,relegated",
    "3,Division 3,1,Player C1,2,2,0,0,6.0,2.0,3.0,promoted",
    "3,Division 3,2,Player C2,2,1,0,1,3.0,1.0,0.0,stay",
    "3,Division 3,3,Player C3,2,0,0,2,0.0,0.0,0.0,stay",
]


def test_the_rows_are_the_hand_made_season_s_tables(client, club):
    """By hand (3/1/0 points): in each division X1 beat X2 and X3, X2 beat X3, so X1 has
    6 points, 2 wins and Sonneborn-Berger 3 (X2's 3 points + X3's 0), X2 3 points, 1 win,
    SB 0; B1's win over A3 is across divisions and counts in neither table. One goes up
    and one down between adjacent divisions: the top's winner and the bottom's last stay."""
    league, spring = club["league"], club["spring"]
    response = client.get(_url(league, spring))
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert 'filename="riverside-spring-2024-divisions.csv"' in response["Content-Disposition"]
    assert _body(response).decode().splitlines() == [HEADER, *EXPECTED]
    page = client.get(reverse("pages:season_divisions", args=[league.slug, spring.slug]))
    assert f'href="{_url(league, spring)}" download' in page.content.decode()
    # A season without divisions: the header alone; an unknown season: not found.
    assert _body(client.get(_url(league, club["autumn"]))).decode().splitlines() == [
        "division_position,division,rank,player,games,wins,draws,losses,points,zone"
    ]
    missing = reverse("pages:season_divisions_csv", args=[league.slug, "no-such-season"])
    assert client.get(missing).status_code == 404


@pytest.mark.parametrize("language", ["de", "fr", "es"])
def test_the_same_bytes_in_every_language(client, club, language):
    url = _url(club["league"], club["spring"])
    english = _body(client.get(url, HTTP_ACCEPT_LANGUAGE="en"))
    client.cookies["django_language"] = language
    page = client.get(reverse("pages:season_divisions", args=[club["league"].slug, "spring-2024"]))
    assert page["Content-Language"] == language
    assert _body(client.get(url, HTTP_ACCEPT_LANGUAGE=language)) == english
    assert english.decode().splitlines()[1:] == EXPECTED


def test_formula_cells_are_written_as_text(client, league, make_player):
    """Player and division names a spreadsheet would run are quoted (OWASP); the numbers
    stay numbers."""
    link = '=HYPERLINK("https://evil.example/","x")'
    ann, mal = make_player(league, "Ann"), make_player(league, link)
    season = seasons.create_season(
        league, name="Box", start_date="2024-03-01", end_date="2024-03-31"
    )
    set_divisions(season, [DivisionInput("@SUM(1+1)", (ann.pk, mal.pk))], promotion=0)
    record_results(league, [(mal, ann, "1", dt.date(2024, 3, 5))])
    rate(league)
    rows = _rows(client.get(_url(league, season)))
    assert [(r["division"], r["player"], r["points"], r["zone"]) for r in rows] == [
        ("'@SUM(1+1)", "'" + link, "3.0", "stay"),
        ("'@SUM(1+1)", "Ann", "0.0", "stay"),
    ]
