"""Season tie-breaks and the season forecast on the pages and the organisers' form.

The league and its hand-worked values: tests/integration/test_season_tiebreaks.py.
"""

from __future__ import annotations

import csv
import datetime as dt
import io

import pytest
from django.urls import reverse
from django.utils import timezone

from league import fixtures as fixture_services
from league import seasons
from league.models import Season
from tests.integration.test_season_tiebreaks import FIELDS, winter_club

pytestmark = pytest.mark.django_db


@pytest.fixture
def club(league, make_player):
    return winter_club(league, make_player)


def _form(**changes: str) -> dict[str, str]:
    return {
        "action": "save", **FIELDS, "points_win": "3", "points_draw": "1", "points_loss": "0",
        **changes,
    }  # fmt: skip


def test_organiser_chooses_the_order_and_the_page_shows_each_value(client, club, organiser):
    league, season = club["league"], club["season"]
    client.force_login(organiser)
    url = reverse("workspace:season", args=[league.slug, season.slug])
    response = client.post(url, _form(tiebreaks="DE, BH, SB"))
    assert response.status_code == 302
    assert Season.objects.get(pk=season.pk).tiebreaks == "DE,BH,SB"
    assert client.get(url).context["form"].initial["tiebreaks"] == "DE, BH, SB"
    client.logout()
    page = client.get(reverse("pages:season", args=[league.slug, season.slug]))
    html = page.content.decode()
    rows = page.context["rows"]
    # Cat is ahead of Ann on Sonneborn-Berger (8 to 2), the third tie-break.
    assert [(r["name"], r["position"], r["tiebreaks"]) for r in rows] == [
        ("Bob", "1", ["–", "8", "4"]),
        ("Cat", "2", ["1", "10", "8"]),
        ("Ann", "3", ["1", "10", "2"]),
        ("Dan", "4", ["–", "10", "0"]),
    ]
    assert [c["code"] for c in page.context["tiebreak_columns"]] == ["DE", "BH", "SB"]
    assert "FIDE C.07 art. 9.1" in html
    assert "ordered by DE (Direct encounter" in html
    assert 'id="tiebreaks-heading"' in html
    exported = client.get(reverse("pages:season_csv", args=[league.slug, season.slug]))
    rows = list(csv.DictReader(io.StringIO(b"".join(exported.streaming_content).decode())))
    assert [(r["player"], r["DE"], r["BH"], r["SB"]) for r in rows] == [
        ("Bob", "", "8.0", "4.0"),
        ("Cat", "1.0", "10.0", "8.0"),
        ("Ann", "1.0", "10.0", "2.0"),
        ("Dan", "", "10.0", "0.0"),
    ]


@pytest.mark.parametrize(
    ("typed", "fragment"),
    [("BH; XYZ", "XYZ is not a season tie-break"), ("SB, SB", "SB is given twice")],
)
def test_a_bad_order_is_refused_on_the_form_naming_the_field(
    client, club, organiser, typed, fragment
):
    league, season = club["league"], club["season"]
    client.force_login(organiser)
    response = client.post(
        reverse("workspace:season", args=[league.slug, season.slug]), _form(tiebreaks=typed)
    )
    assert response.status_code == 200
    assert fragment in response.context["form"].errors["tiebreaks"][0]
    assert Season.objects.get(pk=season.pk).tiebreaks == ""


def test_another_leagues_organiser_cannot_choose_the_order(client, club, other_organiser):
    league, season = club["league"], club["season"]
    client.force_login(other_organiser)
    response = client.post(
        reverse("workspace:season", args=[league.slug, season.slug]), _form(tiebreaks="SB")
    )
    assert response.status_code in (403, 404)
    assert Season.objects.get(pk=season.pk).tiebreaks == ""


def test_the_default_page_has_no_tie_break_columns_and_says_rating(client, club):
    league, season = club["league"], club["season"]
    page = client.get(reverse("pages:season", args=[league.slug, season.slug]))
    assert page.context["tiebreak_columns"] == []
    assert "ordered by rating at the end" in page.content.decode()
    assert page.context["forecast"] is None


def test_the_season_page_states_the_forecast_and_its_error(client, club):
    league, season = club["league"], club["season"]
    ann, bob, _cat, _dan = club["players"]
    fixture_services.schedule_fixture(
        league,
        player_a=ann,
        player_b=bob,
        scheduled_at="2024-01-27 18:00",
        deadline=(timezone.now() + dt.timedelta(days=7)).date().isoformat(),
    )
    seasons.touch(season)
    page = client.get(reverse("pages:season", args=[league.slug, season.slug]))
    forecast = page.context["forecast"]
    assert forecast["simulations"] == 2000
    assert forecast["remaining"] == 1
    percents = [row["percent"] for row in forecast["rows"]]
    assert percents == sorted(percents, reverse=True)
    assert {row["name"] for row in forecast["rows"]} == {"Ann", "Bob"}
    html = page.content.decode()
    assert "played out 2000 times" in html
    assert "Monte Carlo standard error at most" in html
