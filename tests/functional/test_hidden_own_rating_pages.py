"""A player who chose not to see their own rating does not see it on the versus, season
and version-comparison pages either; everyone else (anonymous or signed in) does, and the
shared page cache never serves one variant to the other."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from league import seasons, services
from league.player_accounts import claim_player
from tests.functional.conftest import rank_everyone, rate

pytestmark = pytest.mark.django_db

HIDDEN = "my-hidden-rating"


@pytest.fixture
def person(db):
    return get_user_model().objects.create_user("pat", email="pat@example.org", password="pw-1")


@pytest.fixture
def rated(league, organiser, person):
    """Ann (Pat's player) beat Bob; two rating versions, a season around the match."""
    ann = services.register_player(league, "Ann Archer", recorded_by=organiser)
    bob = services.register_player(league, "Bob Baker", recorded_by=organiser)
    services.record_match(
        league, player_a=ann, player_b=bob, score_a="1", played_at=dt.date(2024, 2, 1)
    )
    rank_everyone(league)
    rate(league)
    rate(league, tau=0.3)
    claim_player(ann, person, by=person)
    season = seasons.create_season(
        league, name="February", start_date="2024-01-29", end_date="2024-02-25"
    )
    return {"league": league, "ann": ann, "bob": bob, "season": season}


@pytest.fixture
def hiding(person):
    client = Client()
    client.force_login(person)
    client.post(reverse("accounts:home"), {"action": "preferences", "hide_own_rating": "on"})
    return client


def _urls(rated) -> dict[str, str]:
    slug = rated["league"].slug
    return {
        "versus": reverse("pages:versus", args=[slug])
        + f"?a={rated['ann'].slug}&b={rated['bob'].slug}",
        "season": reverse("pages:season", args=[slug, rated["season"].slug]),
        "compare": reverse("pages:compare", args=[slug]) + "?a=1&b=2",
    }


def _row(page: str, name: str) -> str:
    """The table row naming ``name``."""
    start = page.index(name)
    return page[page.rindex("<tr", 0, start) : page.index("</tr>", start)]


def test_versus_hides_only_the_viewers_own_rating(rated, hiding, organiser):
    url = _urls(rated)["versus"]
    shown = re.compile(r"Ann Archer \d+ \(RD \d+")
    anonymous_before = Client().get(url).text  # stored in the shared cache
    assert shown.search(anonymous_before)
    page = hiding.get(url).text
    assert page.count(HIDDEN) == 1
    assert not shown.search(page)
    assert re.search(r"Bob Baker \d+ \(RD \d+", page)
    # Named second, the hidden side is still Pat's.
    swapped = hiding.get(
        reverse("pages:versus", args=[rated["league"].slug])
        + f"?a={rated['bob'].slug}&b={rated['ann'].slug}"
    ).text
    assert swapped.count(HIDDEN) == 1
    assert not shown.search(swapped)
    # The hidden variant is never served to anyone else, cached or signed in.
    for other in (Client().get(url).text, _signed_in(organiser).get(url).text):
        assert HIDDEN not in other
        assert shown.search(other)


def test_the_season_table_hides_only_the_viewers_own_ratings(rated, hiding, organiser):
    url = _urls(rated)["season"]
    anonymous_before = Client().get(url).text
    assert HIDDEN not in _row(anonymous_before, "Ann Archer")
    page = hiding.get(url).text
    ann_row = _row(page, "Ann Archer")
    assert ann_row.count(HIDDEN) == 2  # rating at start and at end
    assert not re.search(r"\d{3,}", ann_row)
    assert re.search(r"\d{3,} \(", _row(page, "Bob Baker"))
    for other in (Client().get(url).text, _signed_in(organiser).get(url).text):
        assert HIDDEN not in other
        assert re.search(r"\d{3,} \(", _row(other, "Ann Archer"))


def test_the_version_comparison_hides_only_the_viewers_own_ratings(rated, hiding, organiser):
    url = _urls(rated)["compare"]
    anonymous = Client().get(url).text
    assert re.search(r">\d{3,}<", _row(anonymous, "Ann Archer"))
    page = hiding.get(url).text
    ann_row = _row(page, "Ann Archer")
    assert ann_row.count(HIDDEN) == 2  # the rating under each version
    assert not re.search(r">\d{3,}<", ann_row)
    assert re.search(r">\d{3,}<", _row(page, "Bob Baker"))
    assert HIDDEN not in _signed_in(organiser).get(url).text


def test_turning_it_off_shows_the_numbers_again(rated, hiding):
    hiding.post(reverse("accounts:home"), {"action": "preferences"})
    for url in _urls(rated).values():
        assert HIDDEN not in hiding.get(url).text


def _signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client
