"""Admin for configurations and replays: per-league organiser scope, read-only versions."""

from __future__ import annotations

import pytest
from django.urls import reverse

from ratings import services
from ratings.models import RatingConfig, Replay


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


def test_adding_creates_a_new_version_with_its_replay(
    client, staff_organiser, league, other_league
):
    services.create_config(league)
    client.force_login(staff_organiser)
    data = {
        "league": league.pk,
        "tau": "0.9",
        "initial_rating": "1500",
        "initial_rd": "350",
        "initial_volatility": "0.06",
        "period_unit": "days",
        "period_length": "7",
        "period_anchor": "2024-01-01",
        "max_rd": "350",
        "volatility_ceiling": "",
        "rating_floor": "",
        "advantage": "0",
        "margin_scale": "",
        "note": "faster",
    }
    response = client.post(reverse("admin:ratings_ratingconfig_add"), data)
    assert response.status_code == 302
    v2 = RatingConfig.objects.get(league=league, version=2)
    assert (v2.tau, v2.note, v2.created_by) == (0.9, "faster", staff_organiser)
    assert Replay.objects.filter(config=v2, kind=Replay.Kind.FULL).exists()

    refused = client.post(reverse("admin:ratings_ratingconfig_add"), {**data, "tau": "0"})
    assert refused.status_code == 200
    assert "tau must be greater than 0" in refused.content.decode()
    foreign = client.post(
        reverse("admin:ratings_ratingconfig_add"), {**data, "league": other_league.pk}
    )
    assert foreign.status_code == 200
    assert not RatingConfig.objects.filter(league=other_league).exists()
