"""Admin for configurations and replays: per-league organiser scope, read-only versions."""

from __future__ import annotations

import pytest
from django.urls import reverse

from ratings import services
from ratings.models import RatingConfig


@pytest.fixture
def staff_organiser(organiser):
    organiser.is_staff = True
    organiser.save()
    return organiser


def test_organisers_see_only_their_leagues(client, staff_organiser, league, other_league):
    mine = services.create_config(league)
    theirs = services.create_config(other_league)
    client.force_login(staff_organiser)

    listing = client.get(reverse("admin:ratings_ratingconfig_changelist"))
    assert listing.status_code == 200
    assert str(mine) in listing.content.decode()
    assert str(theirs) not in listing.content.decode()
    assert client.get(
        reverse("admin:ratings_ratingconfig_change", args=[theirs.pk])
    ).status_code in (302, 403, 404)
    replays = client.get(reverse("admin:ratings_replay_changelist")).content.decode()
    assert f"{league.name} v1" in replays
    assert f"{other_league.name} v1" not in replays


def test_a_stored_version_is_read_only(client, staff_organiser, league):
    config = services.create_config(league)
    client.force_login(staff_organiser)
    page = client.get(reverse("admin:ratings_ratingconfig_change", args=[config.pk]))
    assert page.status_code == 200
    assert 'name="tau"' not in page.content.decode()
    client.post(reverse("admin:ratings_ratingconfig_change", args=[config.pk]), {"tau": "0.9"})
    config.refresh_from_db()
    assert config.tau == 0.5


def test_adding_leads_to_the_configuration_page_and_saves_nothing(
    client, staff_organiser, league, other_league
):
    services.create_config(league)
    client.force_login(staff_organiser)
    add = reverse("admin:ratings_ratingconfig_add")
    page = reverse("workspace:config", args=[league.slug])
    # The organiser's only league: straight to its page, the one form for a new version.
    assert client.get(add)["Location"] == page
    assert client.get(add, {"league": league.pk})["Location"] == page
    posted = client.post(add, {"league": league.pk, "tau": "0.9"})
    assert posted["Location"] == page
    assert list(RatingConfig.objects.values_list("league_id", "version")) == [(league.pk, 1)]
    # Another league's id is not offered: the organiser's own page again.
    assert client.get(add, {"league": other_league.pk})["Location"] == page
