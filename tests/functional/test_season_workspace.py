"""The organisers' season and website pages: create, refuse, close, re-derive; who may."""

from __future__ import annotations

import datetime as dt

import pytest
from django.urls import reverse

from league import seasons
from league.models import Season, WebsiteAccess
from ratings.models import SeasonTable

pytestmark = pytest.mark.django_db


def test_organiser_creates_a_season(client, club, organiser):
    client.force_login(organiser)
    url = reverse("workspace:seasons", args=[club["league"].slug])
    response = client.post(
        url,
        {"name": "Spring 2024", "start_date": "2024-03-01", "end_date": "2024-05-31",
         "points_win": "1", "points_draw": "½", "points_loss": "0"},
    )  # fmt: skip
    assert response.status_code == 302
    season = Season.objects.get(league=club["league"])
    assert (season.name, season.points_draw, season.created_by) == (
        "Spring 2024",
        seasons.Decimal("0.5"),
        organiser,
    )


def test_an_overlapping_season_is_refused_on_the_form(client, club, organiser):
    seasons.create_season(
        club["league"], name="Spring", start_date="2024-03-01", end_date="2024-05-31"
    )
    client.force_login(organiser)
    response = client.post(
        reverse("workspace:seasons", args=[club["league"].slug]),
        {"name": "Late spring", "start_date": "2024-05-01", "end_date": "2024-06-30",
         "points_win": "3", "points_draw": "1", "points_loss": "0"},
    )  # fmt: skip
    assert response.status_code == 200
    errors = response.context["form"].errors
    assert "overlap the season “Spring”" in errors["start_date"][0]
    assert Season.objects.filter(league=club["league"]).count() == 1


def test_close_then_rederive_with_a_reason_from_the_page(client, club, organiser):
    season = seasons.create_season(
        club["league"], name="January", start_date="2024-01-01", end_date="2024-01-31"
    )
    client.force_login(organiser)
    url = reverse("workspace:season", args=[club["league"].slug, season.slug])
    assert client.post(url, {"action": "close"}).status_code == 302
    assert Season.objects.get(pk=season.pk).closed
    refused = client.post(url, {"action": "rederive", "reason": ""})
    assert refused.status_code == 200
    assert "Say why" in refused.context["rederive"].errors["reason"][0]
    assert client.post(url, {"action": "rederive", "reason": "Late result"}).status_code == 302
    newest = SeasonTable.objects.filter(season=season).order_by("-pk").first()
    assert (newest.kind, newest.reason, newest.derived_by) == (
        "rederived",
        "Late result",
        organiser,
    )
    public = client.get(reverse("pages:season", args=[club["league"].slug, season.slug]))
    assert "Why: Late result" in public.content.decode()


def test_closing_a_running_season_says_why_not(client, club, organiser):
    today = dt.date.today()
    season = seasons.create_season(
        club["league"], name="Now", start_date="2024-03-01", end_date=today
    )
    client.force_login(organiser)
    response = client.post(
        reverse("workspace:season", args=[club["league"].slug, season.slug]), {"action": "close"}
    )
    assert response.status_code == 200
    assert "still running" in response.context["close_errors"][0]


@pytest.mark.parametrize("name", ["workspace:seasons", "workspace:website"])
def test_other_leagues_organiser_and_anonymous_are_refused(client, club, other_organiser, name):
    url = reverse(name, args=[club["league"].slug])
    assert client.post(url, {"name": "X"}).status_code == 302  # to sign in
    client.force_login(other_organiser)
    assert client.post(url, {"name": "X", "frame_origins": "https://a.example"}).status_code == 403
    assert not Season.objects.exists()
    assert not WebsiteAccess.objects.exists()


def test_website_origins_are_checked_line_by_line(client, club, organiser):
    client.force_login(organiser)
    url = reverse("workspace:website", args=[club["league"].slug])
    response = client.post(
        url, {"frame_origins": "https://club.example\nhttps://evil.example/path", "api_origins": ""}
    )
    assert response.status_code == 200
    assert (
        "Entry 2, 'https://evil.example/path', is not an origin"
        in (response.context["form"].errors["frame_origins"][0])
    )
    assert not WebsiteAccess.objects.exists()
    ok = client.post(
        url,
        {"frame_origins": "HTTPS://Club.Example:443/", "api_origins": "http://localhost:8080"},
    )
    assert ok.status_code == 302
    access = WebsiteAccess.objects.get(league=club["league"])
    assert (access.frame_origins, access.api_origins) == (
        ["https://club.example"],
        ["http://localhost:8080"],
    )
