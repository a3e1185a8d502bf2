"""The page cache: pages served per state of their data, never stale, never shared wrongly.

Every test starts with an empty ``pages`` cache. A page is served from the cache when its
second request reads (almost) nothing; it is fresh when a change made through the
services (a result and its incremental replay, a new configuration version, a rename)
shows on the next request.
"""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.core.cache import caches
from django.db import connection
from django.test import Client, TestCase
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from league import services as league_services
from league.models import League, Player
from ratings import services as rating_services
from ratings.models import Replay
from ratings.page_state import league_state, site_state
from tests.functional.conftest import rate, run_queued_replays
from web.public.page_cache import CACHE_ALIAS

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("everyone_ranked")]


@pytest.fixture(autouse=True)
def empty_page_cache(settings):
    settings.PAGE_CACHE = True
    caches[CACHE_ALIAS].clear()
    yield
    caches[CACHE_ALIAS].clear()


def league_url(league: League, query: str = "") -> str:
    url = reverse("pages:league", kwargs={"league_slug": league.slug})
    return f"{url}?{query}" if query else url


def player_url(player: Player) -> str:
    return reverse(
        "pages:player", kwargs={"league_slug": player.league.slug, "player_slug": player.slug}
    )


def board_names(html: str) -> list[str]:
    """The player names of the leaderboard table, top to bottom."""
    table = html.split('id="leaderboard"', 1)[1].split("</table>", 1)[0]
    return re.findall(r'<th scope="row" class="col-name"><a href="[^"]*">([^<]+)</a>', table)


def record_and_queue_replay(league: League, winner: Player, loser: Player) -> None:
    """Record a result today; its catch-up replay is queued (committed) and left to run."""
    with TestCase.captureOnCommitCallbacks() as callbacks:
        league_services.record_match(
            league, player_a=winner, player_b=loser, score_a="1", played_at=dt.date.today()
        )
    # The receiver's callback queues the replay; its own message is never sent here.
    for callback in callbacks:
        callback()
    assert Replay.objects.filter(config__league=league, status=Replay.Status.QUEUED).exists()


# --- Served from the cache ---------------------------------------------------------------


@pytest.mark.parametrize("page", ["home", "league", "player", "ranks"])
def test_the_second_request_is_served_from_the_cache(
    client, club, page, django_assert_max_num_queries
):
    urls = {
        "home": reverse("pages:home"),
        "league": league_url(club["league"]),
        "player": player_url(club["ann"]),
        "ranks": player_url(club["ann"]) + "ranks/",
    }
    first = client.get(urls[page])
    assert first.status_code == 200
    # One statement reads the state the page is keyed by; nothing is computed.
    with django_assert_max_num_queries(1):
        second = client.get(urls[page])
    assert second.status_code == 200
    assert second.content == first.content
    assert second["ETag"] == first["ETag"]


def test_a_miss_reads_the_league_once(client, club, django_assert_max_num_queries):
    # The page reuses the league row that the state read fetched.
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        assert client.get(league_url(club["league"])).status_code == 200
    league_reads = [
        query["sql"]
        for query in captured.captured_queries
        if query["sql"].startswith('SELECT "league_league"."id"')
    ]
    assert len(league_reads) == 1, league_reads


# --- Never stale ---------------------------------------------------------------------------


def test_a_new_result_and_its_incremental_replay_change_the_page(client, club):
    league, eve, ann = club["league"], club["eve"], club["ann"]
    before = client.get(league_url(league)).text
    assert "Eve Evans" not in board_names(before)
    assert client.get(league_url(league)).text == before  # cached

    record_and_queue_replay(league, eve, ann)
    queued = client.get(league_url(league)).text
    assert "Standings are being recomputed" in queued  # a queued replay is a new state

    run_queued_replays(league)
    after = client.get(league_url(league)).text
    assert "Standings are being recomputed" not in after
    assert "Eve Evans" in board_names(after)
    assert after != before


def test_a_new_publication_changes_the_page(client, club):
    league = club["league"]
    before = client.get(league_url(league)).text
    assert "Configuration version 1." in before
    rate(league, tau=0.9)
    after = client.get(league_url(league)).text
    assert "Configuration version 2." in after


def test_a_rename_changes_the_page_without_a_replay(client, club):
    league = club["league"]
    assert "Ann Archer" in board_names(client.get(league_url(league)).text)
    league_services.rename_player(
        league, club["ann"], "Ann Abbott", reason="married", recorded_by=None
    )
    names = board_names(client.get(league_url(league)).text)
    assert "Ann Abbott" in names
    assert "Ann Archer" not in names


def test_a_league_edit_changes_the_home_page(client, club):
    league = club["league"]
    assert "Riverside Chess Club" in client.get(reverse("pages:home")).text
    league.name = "Riverside Chess and Draughts"
    league.save(update_fields=["name"])
    assert "Riverside Chess and Draughts" in client.get(reverse("pages:home")).text


def test_the_next_day_is_a_new_state(club):
    """The current period, and the RDs grown to it, follow the league's local date."""
    slug = club["league"].slug
    today = dt.datetime(2025, 3, 10, 12, tzinfo=dt.UTC)
    same_day = league_state(slug, now=today + dt.timedelta(hours=6))
    next_day = league_state(slug, now=today + dt.timedelta(days=1))
    assert league_state(slug, now=today) == same_day
    assert league_state(slug, now=today) != next_day
    assert site_state(now=today) != site_state(now=today + dt.timedelta(days=1))


def test_the_date_is_the_leagues_local_one(club):
    # Europe/London: 23:30 UTC on 30 June is already 1 July there.
    slug = club["league"].slug
    evening = dt.datetime(2025, 6, 30, 22, 30, tzinfo=dt.UTC)
    late = dt.datetime(2025, 6, 30, 23, 30, tzinfo=dt.UTC)
    assert league_state(slug, now=evening) != league_state(slug, now=late)


# --- Query strings and audiences ------------------------------------------------------------


def test_different_query_strings_get_different_pages(client, club):
    league = club["league"]
    by_rank = board_names(client.get(league_url(league)).text)
    by_name = board_names(client.get(league_url(league, "sort=name")).text)
    searched = board_names(client.get(league_url(league, "q=bob")).text)
    assert by_name == sorted(by_rank)
    assert by_name != by_rank
    assert searched == ["Bob Baker"]
    # And each is served again as it was.
    assert board_names(client.get(league_url(league, "sort=name")).text) == by_name
    assert board_names(client.get(league_url(league)).text) == by_rank


def test_query_names_the_page_does_not_read_are_never_cached(
    client, club, django_assert_max_num_queries
):
    league = club["league"]
    assert client.get(league_url(league, "junk=1")).status_code == 200
    with CaptureQueriesContext(connection) as again:
        assert client.get(league_url(league, "junk=1")).status_code == 200
    assert len(again) > 1  # rendered afresh: nothing was stored for it
    client.get(league_url(league, "sort=name"))
    with django_assert_max_num_queries(1):
        client.get(league_url(league, "sort=name"))


def test_an_organiser_never_gets_the_anonymous_page_nor_the_reverse(
    client, league, organiser, make_player
):
    make_player(league, "Solo Player")  # no configuration yet: organisers see "Set one up"
    anonymous = client.get(league_url(league))
    assert "Set one up" not in anonymous.text
    assert 'id="sign-in-link"' in anonymous.text

    signed_in = Client()
    signed_in.force_login(organiser)
    for _ in range(2):
        page = signed_in.get(league_url(league))
        assert "Set one up" in page.text
        assert "Signed in as organiser" in page.text
        # Organisers' pages are neither cached nor validated.
        assert not page.has_header("ETag")

    again = client.get(league_url(league))
    assert again.content == anonymous.content
    assert "Set one up" not in again.text
    assert "Signed in as" not in again.text


def test_the_rank_history_fragment_and_page_are_cached_apart(client, club):
    url = player_url(club["ann"]) + "ranks/"
    page = client.get(url)
    fragment = client.get(url, headers={"HX-Request": "true"})
    assert fragment.content != page.content
    assert "<html" in page.text
    assert "<html" not in fragment.text
    assert client.get(url).content == page.content
    assert "HX-Request" in fragment["Vary"]


def test_pending_messages_are_shown_on_a_fresh_page(client, club):
    league = club["league"]
    client.get(league_url(league))  # cached without messages
    # A bad filter adds a warning in this request; the page shows it, and so does its copy.
    warned = client.get(league_url(league, "min_games=-3"))
    assert "Minimum games cannot be negative" in warned.text
    assert "Minimum games cannot be negative" in client.get(league_url(league, "min_games=-3")).text
    assert "Minimum games cannot be negative" not in client.get(league_url(league)).text


# --- Validators ---------------------------------------------------------------------------


def test_if_none_match_answers_304_until_the_page_changes(
    client, club, django_assert_max_num_queries
):
    league = club["league"]
    first = client.get(league_url(league))
    etag = first["ETag"]
    assert first.has_header("Last-Modified")
    assert first["Cache-Control"] == "no-cache"

    with django_assert_max_num_queries(1):
        not_modified = client.get(league_url(league), headers={"If-None-Match": etag})
    assert not_modified.status_code == 304
    assert not_modified.content == b""
    assert not_modified["ETag"] == etag
    assert client.get(league_url(league), headers={"If-None-Match": f"W/{etag}"}).status_code == 304

    # Another query string is another page, with another ETag.
    other = client.get(league_url(league, "sort=name"), headers={"If-None-Match": etag})
    assert other.status_code == 200
    assert other["ETag"] != etag

    record_and_queue_replay(league, club["eve"], club["ann"])
    run_queued_replays(league)
    changed = client.get(league_url(league), headers={"If-None-Match": etag})
    assert changed.status_code == 200
    assert changed["ETag"] != etag
    assert "Eve Evans" in board_names(changed.text)


def test_an_unknown_league_is_still_404(client, db):
    assert client.get("/nowhere/").status_code == 404


def test_switched_off_every_request_renders_the_page(client, club, settings):
    settings.PAGE_CACHE = False
    league = club["league"]
    first = client.get(league_url(league))
    assert not first.has_header("ETag")
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        second = client.get(league_url(league))
    assert not second.has_header("ETag")
    assert board_names(second.text) == board_names(first.text)
    assert len(captured.captured_queries) > 3


def test_no_page_is_shared_under_a_policy_that_trusts_nonces(client, club, settings):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext
    from django.utils.csp import CSP

    settings.SECURE_CSP = {**settings.SECURE_CSP, "script-src": [CSP.SELF, CSP.NONCE]}
    league = club["league"]
    client.get(league_url(league))
    with CaptureQueriesContext(connection) as captured:
        client.get(league_url(league))
    assert len(captured.captured_queries) > 3


def test_replay_progress_is_a_new_state_and_the_banner_shows_it(client, club):
    league = club["league"]
    client.get(league_url(league))
    replay = rating_services.request_full_replay(league)
    Replay.objects.filter(pk=replay.pk).update(status=Replay.Status.RUNNING, periods_total=10)
    started = league_state(league.slug)
    assert "0 of 10 periods" in client.get(league_url(league)).text
    Replay.objects.filter(pk=replay.pk).update(periods_done=4)
    assert league_state(league.slug) != started
    assert "4 of 10 periods" in client.get(league_url(league)).text


def test_last_modified_is_the_latest_stored_moment(club):
    state = league_state(club["league"].slug)
    finished = Replay.objects.filter(config__league=club["league"]).latest("finished_at")
    assert state.last_modified is not None
    assert state.last_modified >= finished.finished_at
