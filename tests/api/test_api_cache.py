"""The API's public reads: served from the pages' cache with the pages' validators.

An anonymous JSON GET is computed once per state of its league and then read from the
``pages`` cache; its ETag moves with the league's state (a new result is a new ETag), a
conditional GET naming the ETag gets 304, and nothing an organiser sees is ever stored or
served to anyone else.
"""

from __future__ import annotations

import datetime as dt

import pytest
from django.core.cache import caches
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from config.response_cache import CACHE_ALIAS
from league import services as league_services

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def empty_page_cache(settings):
    settings.PAGE_CACHE = True
    caches[CACHE_ALIAS].clear()
    yield
    caches[CACHE_ALIAS].clear()


def standings_url(league) -> str:
    return reverse("api:standings", kwargs={"league_slug": league.slug})


def queries_of(call) -> int:
    """How many statements ``call()`` ran (it must also answer 200)."""
    with CaptureQueriesContext(connection) as captured:
        assert call().status_code == 200
    return len(captured.captured_queries)


def public_urls(league, players) -> dict[str, str]:
    ann, bob = players[0], players[1]
    kwargs = {"league_slug": league.slug}
    return {
        "leagues": reverse("api:league-list"),
        "league": reverse("api:league-detail", kwargs=kwargs),
        "players": reverse("api:player-list", kwargs=kwargs),
        "player": reverse("api:player-detail", kwargs={**kwargs, "player_id": ann.pk}),
        "history": reverse("api:player-history", kwargs={**kwargs, "player_id": ann.pk}),
        "matches": reverse("api:match-list", kwargs=kwargs),
        "side matches": reverse("api:side-match-list", kwargs=kwargs),
        "standings": standings_url(league),
        "standings, a page": standings_url(league) + "?ordering=rd&per_page=2",
        "head-to-head": reverse("api:head-to-head", kwargs=kwargs)
        + f"?player_a={ann.pk}&player_b={bob.pk}",
        "win probability": reverse("api:win-probability", kwargs=kwargs)
        + f"?player_a={ann.pk}&player_b={bob.pk}",
        "configs": reverse("api:config-list", kwargs=kwargs),
        "fixtures": reverse("api:fixture-list", kwargs=kwargs),
        "seasons": reverse("api:season-list", kwargs=kwargs),
    }


PUBLIC_READS = [
    "leagues",
    "league",
    "players",
    "player",
    "history",
    "matches",
    "side matches",
    "standings",
    "standings, a page",
    "head-to-head",
    "win probability",
    "configs",
    "fixtures",
    "seasons",
]


@pytest.mark.parametrize("name", PUBLIC_READS)
def test_every_public_read_is_served_from_the_cache_with_validators(
    anon, rated, players, name, django_assert_max_num_queries
):
    url = public_urls(rated, players)[name]
    first = anon.get(url)
    assert first.status_code == 200, first.content
    assert first["ETag"].startswith('"')
    assert first["Last-Modified"]
    # The second read: the league's state (one statement), no body computed.
    with django_assert_max_num_queries(1):
        second = anon.get(url)
    assert second.status_code == 200
    assert second.content == first.content
    assert second["ETag"] == first["ETag"]
    assert second["Content-Type"] == first["Content-Type"]


@pytest.mark.parametrize("name", ["standings", "players", "matches"])
def test_a_conditional_get_naming_the_etag_is_answered_304(
    anon, rated, players, name, django_assert_max_num_queries
):
    url = public_urls(rated, players)[name]
    etag = anon.get(url)["ETag"]
    with django_assert_max_num_queries(1):
        again = anon.get(url, HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 304
    assert again["ETag"] == etag
    assert again.content == b""
    assert anon.get(url, HTTP_IF_NONE_MATCH='"something else"').status_code == 200


def test_a_new_result_changes_the_etag_and_the_body(anon, rated, players):
    ann, _bob, _cat, dan = players
    url = standings_url(rated)
    matches_url = reverse("api:match-list", kwargs={"league_slug": rated.slug})
    before = anon.get(url)
    assert anon.get(url)["ETag"] == before["ETag"]  # cached
    count = anon.get(matches_url).json()["count"]

    league_services.record_match(
        rated, player_a=dan, player_b=ann, score_a="1", played_at=dt.date.today()
    )
    after = anon.get(url, HTTP_IF_NONE_MATCH=before["ETag"])
    assert after.status_code == 200
    assert after["ETag"] != before["ETag"]
    assert anon.get(matches_url).json()["count"] == count + 1


def test_a_rename_shows_at_once(anon, rated, players, organiser):
    url = reverse("api:player-list", kwargs={"league_slug": rated.slug})
    assert "Ann" in {row["display_name"] for row in anon.get(url).json()["results"]}
    league_services.rename_player(
        rated, players[0], "Annabel", reason="Full name", recorded_by=organiser
    )
    names = {row["display_name"] for row in anon.get(url).json()["results"]}
    assert "Annabel" in names
    assert "Ann" not in names


def test_an_organisers_private_fields_are_never_stored_nor_served_to_others(
    anon, org, rated, organiser
):
    url = reverse("api:match-list", kwargs={"league_slug": rated.slug})
    # The organiser first: their body names who recorded each match, and is not stored.
    mine = org.get(url)
    assert {row["recorded_by"] for row in mine.json()["results"]} == {organiser.username}
    assert "ETag" not in mine
    public = anon.get(url)
    assert {row["recorded_by"] for row in public.json()["results"]} == {None}
    assert public["ETag"]
    # The anonymous body is now cached: the organiser still gets their own.
    again = org.get(url, HTTP_IF_NONE_MATCH=public["ETag"])
    assert again.status_code == 200
    assert {row["recorded_by"] for row in again.json()["results"]} == {organiser.username}


def test_a_signed_in_session_is_not_served_the_anonymous_body(anon, rated, organiser):
    from rest_framework.test import APIClient

    url = reverse("api:match-list", kwargs={"league_slug": rated.slug})
    assert anon.get(url)["ETag"]
    session = APIClient()
    session.force_login(organiser)
    body = session.get(url).json()
    assert {row["recorded_by"] for row in body["results"]} == {organiser.username}


def test_the_browsable_api_is_not_cached(anon, rated):
    url = standings_url(rated)
    html = anon.get(url, HTTP_ACCEPT="text/html")
    assert html.status_code == 200
    assert html["Content-Type"].startswith("text/html")
    assert "ETag" not in html or html["ETag"] != anon.get(url)["ETag"]
    # The JSON stored after it is still JSON, and the HTML is not served from it.
    assert anon.get(url)["Content-Type"] == "application/json"
    assert anon.get(url, HTTP_ACCEPT="text/html")["Content-Type"].startswith("text/html")


def test_unknown_query_names_are_answered_afresh(anon, rated):
    url = standings_url(rated) + "?made_up=1"
    assert anon.get(url).status_code == 200
    assert queries_of(lambda: anon.get(url)) >= 3


def test_the_host_is_part_of_the_key(anon, rated, settings):
    settings.ALLOWED_HOSTS = ["testserver", "other.example"]
    url = reverse("api:player-list", kwargs={"league_slug": rated.slug}) + "?limit=1"
    here = anon.get(url).json()
    there = anon.get(url, HTTP_HOST="other.example").json()
    assert here["next"].startswith("http://testserver/")
    assert there["next"].startswith("http://other.example/")


@pytest.mark.parametrize("name", ["progress", "replay-list"])
def test_replays_and_progress_are_read_afresh(anon, rated, name):
    url = reverse(f"api:{name}", kwargs={"league_slug": rated.slug})
    assert anon.get(url).status_code == 200
    assert queries_of(lambda: anon.get(url)) >= 2
    assert "ETag" not in anon.get(url)


def test_the_cache_switched_off_computes_every_response(anon, rated, settings):
    settings.PAGE_CACHE = False
    url = standings_url(rated)
    anon.get(url)
    assert queries_of(lambda: anon.get(url)) >= 3


@pytest.mark.parametrize("validator", ['"*"', "*"])
def test_a_bad_query_is_refused_whatever_its_validators_say(anon, rated, validator):
    """A query the view refuses is refused before any 304: no 200 was ever stored for it
    (Schemathesis found `If-None-Match: *` turning a bad `period` into 304)."""
    url = standings_url(rated) + "?period=99999999"
    assert anon.get(url, HTTP_IF_NONE_MATCH=validator).status_code == 400
    assert anon.get(url).status_code == 400
    assert anon.get(url, HTTP_IF_NONE_MATCH=validator).status_code == 400
