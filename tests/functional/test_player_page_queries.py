"""The player page's uncached path reads a bounded number of statements.

With the page cache off (a cold cache, a signed-in reader), a player page runs the same
statements whatever the player's history: no statement per match, opponent or period.
"""

from __future__ import annotations

import datetime as dt

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from tests.functional.conftest import rate

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("everyone_ranked")]

#: Statements of one uncached player page (the league, its state and publication, the
#: player, standings, history, results, head-to-head, seasons, fixtures, the draw model).
MAX_QUERIES = 40


def player_url(player) -> str:
    return reverse(
        "pages:player", kwargs={"league_slug": player.league.slug, "player_slug": player.slug}
    )


def statements(client, url: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200
    return len(captured.captured_queries)


@pytest.fixture(autouse=True)
def uncached(settings):
    settings.PAGE_CACHE = False
    cache.clear()  # the draw model is fitted afresh


def test_the_player_page_reads_a_bounded_number_of_statements(
    client, club, django_assert_max_num_queries
):
    with django_assert_max_num_queries(MAX_QUERIES):
        assert client.get(player_url(club["ann"])).status_code == 200


def test_more_matches_and_opponents_add_no_statement(client, club, make_player, record):
    league, ann = club["league"], club["ann"]
    before = statements(client, player_url(ann))
    cache.clear()
    rivals = [make_player(league, f"Rival {n}") for n in range(12)]
    day = dt.date(2024, 2, 6)
    record(
        league,
        [
            (ann if n % 2 else rival, rival if n % 2 else ann, "1", day + dt.timedelta(days=n))
            for n, rival in enumerate(rivals * 3)
        ],
    )
    rate(league)
    after = statements(client, player_url(ann))
    assert after == before, (before, after)
    assert after <= MAX_QUERIES
