"""The configuration page offers the update mode: saved with a version, shown when live."""

from __future__ import annotations

from django.urls import reverse

from ratings.models import RatingConfig
from tests.functional.test_pages import valid_post


def test_organiser_switches_to_instant_updates_and_sees_them_live(
    client, club, organiser, django_capture_on_commit_callbacks
):
    league = club["league"]
    client.force_login(organiser)
    url = reverse("workspace:config", kwargs={"league_slug": league.slug})
    page = client.get(url)
    assert 'name="update_mode"' in page.text
    assert "as in Glickman" in page.text  # the table's help text
    with django_capture_on_commit_callbacks(execute=True):
        saved = client.post(url, valid_post(update_mode="instant"))
    assert saved.status_code == 302
    newest = RatingConfig.objects.filter(league=league).order_by("-version").first()
    assert newest.update_mode == "instant"
    live = client.get(url)
    assert "instant: each game when it is played" in live.text
    # A form posted without the field keeps the newest version's mode.
    with django_capture_on_commit_callbacks(execute=True):
        client.post(url, valid_post(tau="0.8"))
    assert RatingConfig.objects.filter(league=league).order_by("-version").first().update_mode == (
        "instant"
    )


def test_an_unknown_update_mode_is_refused_on_the_page(client, club, organiser):
    league = club["league"]
    client.force_login(organiser)
    url = reverse("workspace:config", kwargs={"league_slug": league.slug})
    before = RatingConfig.objects.filter(league=league).count()
    refused = client.post(url, valid_post(update_mode="sometimes"))
    assert refused.status_code == 200
    assert 'id="id_update_mode_error"' in refused.text
    assert RatingConfig.objects.filter(league=league).count() == before


def test_the_explanation_page_says_when_games_were_rated_one_by_one(
    client, club, django_capture_on_commit_callbacks
):
    from ratings.models import PlayerPeriod
    from ratings.services import create_config

    league, ann = club["league"], club["ann"]
    row = PlayerPeriod.objects.filter(player=ann).order_by("period_index").first()
    url = reverse("pages:player_period", args=[league.slug, ann.slug, row.period_index])
    before = client.get(url)
    assert 'id="instant-note"' not in before.text
    assert "the period's change." in before.text
    with django_capture_on_commit_callbacks(execute=True):
        create_config(league, update_mode="instant")
    after = client.get(url)
    assert after.context["e"].instant
    assert 'id="instant-note"' in after.text
    assert "the period's change." not in after.text


def test_the_level_picker_offers_95_percent_once(client, club):
    # The default level (± 1.96 RD) is the 95 % option, not a second one beside it.
    league, ann = club["league"], club["ann"]
    for url in (
        reverse("pages:league", args=[league.slug]),
        reverse("pages:player", args=[league.slug, ann.slug]),
    ):
        for query in ({}, {"level": "95"}):
            page = client.get(url, query).content.decode()
            assert page.count(">95 %</option>") == 1
            assert page.count("selected>95 %</option>") == 1
