"""The divisions pages: the organiser sets, proposes, adjusts and fixes a season's divisions
from the workspace; bad inputs are refused naming the field; the public page shows each
division's table with its zones in words; only the league's organisers may change them."""

from __future__ import annotations

import datetime as dt

import pytest
from django.urls import reverse

from league import seasons
from league.divisions import DivisionInput, set_divisions, setup_of
from league.models import Event
from ratings.seasons.divisions import division_members
from tests.divisions_support import three_divisions

pytestmark = pytest.mark.django_db


@pytest.fixture
def club(league, make_player):
    return three_divisions(league, make_player)


def _url(club, season):
    return reverse("workspace:season_divisions", args=[club["league"].slug, season.slug])


def test_the_organiser_proposes_adjusts_and_fixes_the_next_season(client, club, organiser):
    client.force_login(organiser)
    spring, autumn = club["spring"], club["autumn"]
    page = client.get(_url(club, spring))
    assert page.status_code == 200
    assert "Propose the divisions of Autumn 2024" in page.content.decode()
    response = client.post(_url(club, spring), {"action": "propose"})
    assert response.status_code == 302
    assert response["Location"] == _url(club, autumn)
    assert setup_of(autumn).proposed
    ned = club["players"]["Ned"]
    assert (
        client.post(
            _url(club, autumn), {"action": "move", "player": ned.pk, "division": "1"}
        ).status_code
        == 302
    )
    top = division_members(autumn)[0][1]
    assert ned in top
    assert client.post(_url(club, autumn), {"action": "fix"}).status_code == 302
    assert setup_of(autumn).fixed
    before = Event.objects.count()
    refused = client.post(_url(club, autumn), {"action": "move", "player": ned.pk, "division": "2"})
    assert refused.status_code == 200
    assert "fixed" in refused.context["errors"]["__all__"][0]
    again = client.post(
        _url(club, autumn),
        {"action": "set", "name_1": "One", "players_1": "Player A1\nPlayer A2", "promotion": "0"},
    )
    assert "are fixed; they can no longer change" in again.context["general_errors"][0]
    assert 'id="divisions-errors"' in again.content.decode()
    assert Event.objects.count() == before


def test_setting_divisions_by_names_and_the_refusals_on_the_form(
    client, league, make_player, organiser
):
    client.force_login(organiser)
    names = ["Ann", "Bob", "Cat", "Dan"]
    for name in names:
        make_player(league, name)
    season = seasons.create_season(
        league, name="Box 1", start_date="2024-02-01", end_date="2024-02-28"
    )
    url = reverse("workspace:season_divisions", args=[league.slug, season.slug])
    before = Event.objects.count()
    refused = client.post(
        url,
        {"action": "set", "name_1": "Top", "players_1": "Ann\nBob", "name_2": "Bottom",
         "players_2": "Bob\nNobody", "promotion": "1", "newcomers": "0"},
    )  # fmt: skip
    assert refused.status_code == 200
    message = refused.context["errors"]["players_2"][0]
    assert "“Nobody”" in message
    assert Event.objects.count() == before
    refused = client.post(
        url,
        {"action": "set", "name_1": "Top", "players_1": "Ann\nBob", "name_2": "Bottom",
         "players_2": "Bob\nCat", "promotion": "1", "newcomers": "0"},
    )  # fmt: skip
    assert "Bob is in division 1 and division 2" in refused.context["errors"]["players_2"][0]
    assert "players_2_error" in refused.content.decode()
    refused = client.post(
        url,
        {"action": "set", "name_1": "Top", "players_1": "Ann\nBob\nCat", "name_2": "Bottom",
         "players_2": "Dan", "promotion": "1", "newcomers": "0"},
    )  # fmt: skip
    assert "at least 2 players" in refused.context["errors"]["players_2"][0]
    refused = client.post(
        url,
        {"action": "set", "name_1": "Top", "players_1": "Ann\nBob", "name_2": "Bottom",
         "players_2": "Cat\nDan", "promotion": "3", "newcomers": "0"},
    )  # fmt: skip
    assert "more than division 1 holds" in refused.context["errors"]["promotion"][0]
    # The refusal is announced with a link to the field, whose message is tied to it.
    page = refused.content.decode()
    assert '<div class="form-errors" role="alert" id="divisions-errors">' in page
    assert '<li><a href="#promotion">' in page
    assert 'aria-describedby="promotion_error" aria-invalid="true"' in page
    assert Event.objects.count() == before
    assert setup_of(season) is None
    done = client.post(
        url,
        {"action": "set", "name_1": "Top", "players_1": "Ann\nBob", "name_2": "Bottom",
         "players_2": "Cat\nDan", "promotion": "1", "newcomers": "0"},
    )  # fmt: skip
    assert done.status_code == 302
    assert [[p.display_name for p in ps] for _d, ps in division_members(season)] == [
        ["Ann", "Bob"],
        ["Cat", "Dan"],
    ]


def test_only_the_leagues_organisers_change_divisions(client, club, other_organiser):
    url = _url(club, club["autumn"])
    assert client.get(url).status_code == 302  # anonymous: sign in first
    client.force_login(other_organiser)
    before = Event.objects.count()
    assert client.post(url, {"action": "fix"}).status_code == 403
    assert Event.objects.count() == before


def test_the_public_page_marks_the_zones_in_words(client, club):
    page = client.get(
        reverse("pages:season_divisions", args=[club["league"].slug, club["spring"].slug])
    )
    assert page.status_code == 200
    html = page.content.decode()
    assert html.count("<strong>↑ Promotion</strong>") == 2
    assert html.count("<strong>↓ Relegation</strong>") == 2
    assert "these tables are final" in html
    season_page = client.get(
        reverse("pages:season", args=[club["league"].slug, club["spring"].slug])
    )
    assert 'id="season-divisions-link"' in season_page.content.decode()


def test_a_running_season_shows_each_divisions_forecast_and_its_error(client, league, make_player):
    today = dt.date.today()
    players = [make_player(league, f"P{i}") for i in range(4)]
    season = seasons.create_season(
        league,
        name="Now",
        start_date=today - dt.timedelta(days=5),
        end_date=today + dt.timedelta(days=30),
    )
    set_divisions(
        season,
        [
            DivisionInput("Upper", (players[0].pk, players[1].pk)),
            DivisionInput("Lower", (players[2].pk, players[3].pk)),
        ],
        promotion=1,
    )
    html = client.get(
        reverse("pages:season_divisions", args=[league.slug, season.slug])
    ).content.decode()
    assert "Chance of first place" in html
    assert "Chance of relegation" in html
    assert "No fixtures are scheduled in this division" in html
    assert "played out 2000 times" in html
    assert "Monte Carlo standard error at most" in html


def test_a_divisions_round_robin_is_scheduled_through_the_pairings_page(client, club, organiser):
    client.force_login(organiser)
    page = client.get(_url(club, club["spring"]))
    html = page.content.decode()
    link = html.split("Schedule this division")[0].rsplit('href="', 1)[1].split('"')[0]
    link = link.replace("&amp;", "&")
    form = client.get(link).context["form"]
    chosen = {player.display_name for player in form.fields["players"].initial}
    assert chosen == {"Player A1", "Player A2", "Player A3"}
    assert form.fields["method"].initial == "round_robin"
    assert form.fields["series"].initial == "Division 1"
