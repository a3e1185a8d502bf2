"""Seasons in the API over real HTTP: the list, a season's table (open, then archived)."""

from __future__ import annotations

import pytest
import requests
from rest_framework.authtoken.models import Token

from league import seasons
from ratings.seasons.archive import close_season

pytestmark = pytest.mark.django_db(transaction=True)

TIMEOUT = 10


@pytest.fixture
def january(rated):
    return seasons.create_season(
        rated, name="January 2024", start_date="2024-01-01", end_date="2024-01-31",
        points_win="2", points_draw="1", points_loss="0",
    )  # fmt: skip


def test_season_list_and_table(live_server, rated, january, players, organiser):
    base = f"{live_server.url}/api/leagues/{rated.slug}/seasons/"
    listed = requests.get(base, timeout=TIMEOUT)
    assert listed.status_code == 200
    assert [(s["slug"], s["closed"]) for s in listed.json()] == [("january-2024", False)]
    assert listed.json()[0]["points_win"] == 2

    table = requests.get(f"{base}{january.slug}/standings/", timeout=TIMEOUT).json()
    assert table["archived"] is False
    # The four counted January results (the fifth is voided); two points a win, one a draw.
    rows = {row["name"]: row for row in table["rows"]}
    assert sum(row["games"] for row in rows.values()) == 2 * 4
    assert {name: row["points"] for name, row in rows.items()} == _expected_points(rated)
    assert table["rows"][0]["position"] == 1

    close_season(january, by=organiser)
    archived = requests.get(f"{base}{january.slug}/standings/", timeout=TIMEOUT).json()
    assert archived["archived"] is True
    assert [d["kind"] for d in archived["derivations"]] == ["archived"]
    # Who archived it is the organisers' business, as who recorded a match.
    assert archived["derivations"][0]["derived_by"] is None
    token, _ = Token.objects.get_or_create(user=organiser)
    as_organiser = requests.get(
        f"{base}{january.slug}/standings/",
        headers={"Authorization": f"Token {token.key}"},
        timeout=TIMEOUT,
    ).json()
    assert as_organiser["derivations"][0]["derived_by"] == "organiser"


def _expected_points(league) -> dict[str, float]:
    """Points per player counted straight from the stored live matches (2/1/0)."""
    from league.models import Event

    points: dict[str, float] = {}
    for a, b, score in (
        Event.objects.live_matches()
        .filter(league=league)
        .values_list("player_a__display_name", "player_b__display_name", "score_a")
    ):
        points[a] = points.get(a, 0) + float(score) * 2
        points[b] = points.get(b, 0) + (1 - float(score)) * 2
    return points


def test_unknown_season_is_a_json_404(live_server, rated):
    response = requests.get(
        f"{live_server.url}/api/leagues/{rated.slug}/seasons/nope/standings/", timeout=TIMEOUT
    )
    assert response.status_code == 404
    assert response.headers["Content-Type"].startswith("application/json")


def test_season_tiebreaks_and_forecast_fields(live_server, rated, january):
    seasons.update_season(
        january, name="January 2024", start_date="2024-01-01", end_date="2024-01-31",
        points_win="2", points_draw="1", points_loss="0", tiebreaks="BH,SB",
    )  # fmt: skip
    base = f"{live_server.url}/api/leagues/{rated.slug}/seasons/"
    assert requests.get(base, timeout=TIMEOUT).json()[0]["tiebreaks"] == ["BH", "SB"]
    table = requests.get(f"{base}{january.slug}/standings/", timeout=TIMEOUT).json()
    assert table["tiebreak_order"] == ["BH", "SB"]
    assert all(set(row["tiebreaks"]) == {"BH", "SB"} for row in table["rows"])
    # Buchholz sums the opponents' points game by game: over the table it is the sum of
    # each player's points times their games' count of opponents, i.e. sum(points * games).
    total_bh = sum(row["tiebreaks"]["BH"] for row in table["rows"])
    assert total_bh == sum(row["points"] * row["games"] for row in table["rows"])
    # No fixture is left in January: no forecast.
    assert table["forecast"] is None
