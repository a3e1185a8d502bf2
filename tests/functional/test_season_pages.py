"""The public season pages, the season filter on the match list and player pages, the CSV."""

from __future__ import annotations

import csv
import datetime as dt
import io

import pytest
from django.urls import reverse

from league import seasons
from ratings.seasons.archive import close_season

pytestmark = pytest.mark.django_db


@pytest.fixture
def season(club):
    # The club's weeks 2 and 3: Ann ½ Cat, Bob 1 Cat (9 Jan); Ann 1 Bob (16 Jan).
    return seasons.create_season(
        club["league"], name="January", start_date="2024-01-08", end_date="2024-01-21"
    )


def test_season_page_shows_the_table_in_points_order(client, club, season):
    response = client.get(reverse("pages:season", args=[club["league"].slug, season.slug]))
    assert response.status_code == 200
    html = response.content.decode()
    table = html[html.index('id="season-table"') :]
    # Ann 3+1 = 4, Bob 3 + 0 = 3, Cat 1 + 0 = 1 under 3/1/0.
    assert table.index("Ann Archer") < table.index("Bob Baker") < table.index("Cat Cooper")
    assert "Dan Dyer" not in table
    assert "points for a win, draw and loss: 3/1/0" in html
    assert "Top of the table" in html


def test_season_list_links_every_season(client, club, season):
    response = client.get(reverse("pages:seasons", args=[club["league"].slug]))
    assert response.status_code == 200
    assert reverse("pages:season", args=[club["league"].slug, season.slug]) in (
        response.content.decode()
    )


def test_match_list_filtered_by_season(client, club, season):
    url = reverse("pages:matches", args=[club["league"].slug])
    everything = client.get(url).context["matches"]
    assert everything.total == 7
    narrowed = client.get(url, {"season": season.slug}).context["matches"]
    assert narrowed.total == 3
    assert {row.played_on for row in narrowed.items} == {dt.date(2024, 1, 9), dt.date(2024, 1, 16)}


def test_unknown_season_is_ignored_with_a_message_naming_the_parameter(client, club, season):
    response = client.get(reverse("pages:matches", args=[club["league"].slug]), {"season": "x\x00"})
    assert response.status_code == 200
    assert response.context["matches"].total == 7
    assert "season: no season" in response.content.decode()


def test_player_page_filtered_by_season_shows_their_line(client, club, season):
    url = reverse("pages:player", args=[club["league"].slug, club["ann"].slug])
    response = client.get(url, {"season": season.slug})
    assert response.status_code == 200
    assert response.context["results"].total == 2
    html = response.content.decode()
    line = html[html.index('id="season-line"') :]
    assert "position 1, 4 points from 2 games (1–1–0)" in " ".join(line.split())
    assert client.get(url).context["results"].total == 5


def test_season_csv_matches_the_page(client, club, season):
    response = client.get(reverse("pages:season_csv", args=[club["league"].slug, season.slug]))
    assert response.status_code == 200
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert [(r["position"], r["player"], r["points"]) for r in rows] == [
        ("1", "Ann Archer", "4.0"),
        ("2", "Bob Baker", "3.0"),
        ("3", "Cat Cooper", "1.0"),
    ]
    assert (rows[0]["wins"], rows[0]["draws"]) == ("1", "1")


def test_closing_changes_the_cached_page(client, club, season):
    url = reverse("pages:season", args=[club["league"].slug, season.slug])
    assert "kept up to date" in client.get(url).content.decode()
    close_season(season)
    html = client.get(url).content.decode()
    assert "archived table" in html
    assert "Archived when the season closed" in html


def test_the_record_of_a_table_names_who_derived_it_to_organisers_only(
    client, club, season, organiser
):
    from django.contrib.auth import get_user_model

    from ratings.seasons.archive import rederive_season

    clerk = get_user_model().objects.create_user("clerk-login-7", password="pw-clerk-1")
    club["league"].organisers.add(clerk)
    close_season(season, by=clerk)
    rederive_season(season, by=clerk, reason="A late correction")
    url = reverse("pages:season", args=[club["league"].slug, season.slug])

    def record(body: str) -> str:
        start = body.index('id="derivations"')
        return body[start : body.index("</ol>", start)]

    public = client.get(url).content.decode()
    assert "Re-derived" in record(public)
    assert "A late correction" in record(public)
    assert "clerk-login-7" not in public
    client.force_login(organiser)
    private = record(client.get(url).content.decode())
    assert private.count(" by clerk-login-7 ") == 2
