"""Issue 34, item 2: with the cache's Redis down, the site serves without it.

The cache is a Redis server of the test's own (both aliases, as with ``LEAGUE_CACHE_URL``),
stopped in the middle of the test: pages, the API and a token POST of a result must answer as
before (nothing 5xx, the result stored and rated), the API throttle must still count (per
process), and the log must say so once, not per request, and once more when Redis is back.
Replays run eagerly in this process: no broker is involved.
"""

from __future__ import annotations

import datetime as dt
import logging
import time

import pytest
import redis
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient
from rest_framework.throttling import SimpleRateThrottle

from league import services as league_services
from league.models import Event
from ratings.models import Standing
from tests.faults.conftest import RedisServer

pytestmark = [pytest.mark.faults, pytest.mark.django_db(transaction=True)]

START = dt.date(2024, 1, 1)
#: Anonymous API requests allowed per minute in these tests.
ANON_RATE = 20
RETRY_SECONDS = 0.5
PAGES = [
    "/",
    "/riverside/",
    "/riverside/players/ann/",
    "/riverside/matches/",
    "/riverside/events/",
    "/riverside/seasons/",
]
API = ["/api/leagues/", "/api/leagues/riverside/standings/", "/api/leagues/riverside/players/"]
UNREACHABLE = "cannot be reached"
BACK = "answers again"


@pytest.fixture
def cache_server(redis_factory, settings, monkeypatch) -> RedisServer:
    """Both caches on a Redis server of the test's own, the throttle's rate within reach."""
    server = redis_factory()
    location = server.url(1)
    options = {"socket_connect_timeout": 1.0, "socket_timeout": 1.0}
    settings.CACHES = {
        "default": {
            "BACKEND": "config.cache.OptionalRedisCache",
            "LOCATION": location,
            "OPTIONS": options,
        },
        "pages": {
            "BACKEND": "config.cache.OptionalRedisCache",
            "LOCATION": location,
            "KEY_PREFIX": "pages",
            "OPTIONS": options,
        },
    }
    settings.CACHE_RETRY_SECONDS = RETRY_SECONDS
    settings.PAGE_CACHE = True
    monkeypatch.setattr(
        SimpleRateThrottle, "THROTTLE_RATES", {"anon": f"{ANON_RATE}/minute", "user": None}
    )
    return server


@pytest.fixture
def rated(league):
    """The league with three players and two results, rated (eagerly)."""
    ann, bob, cat = (league_services.register_player(league, n) for n in ("Ann", "Bob", "Cat"))
    league_services.record_match(league, player_a=ann, player_b=bob, score_a="1", played_at=START)
    league_services.record_match(league, player_a=bob, player_b=cat, score_a="0", played_at=START)
    return league, (ann, bob, cat)


def stored_keys(server: RedisServer) -> int:
    client = redis.Redis(port=server.port, db=1)
    try:
        return client.dbsize()
    finally:
        client.close()


def cache_messages(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "config.cache"]


def read_everything(address: str) -> list[tuple[str, int]]:
    """(path, status) of every page and API read, as an anonymous client at ``address``."""
    client = APIClient(REMOTE_ADDR=address)
    return [(path, client.get(path).status_code) for path in PAGES + API]


def test_with_the_cache_down_pages_the_api_and_a_result_post_answer_without_it(
    cache_server, rated, organiser, caplog
):
    league, (ann, bob, cat) = rated
    caplog.set_level(logging.WARNING, logger="config.cache")
    assert read_everything("198.51.100.1") == [(path, 200) for path in PAGES + API]
    assert stored_keys(cache_server) > 0, "the pages and the throttle use the Redis cache"

    cache_server.stop()
    for _ in range(2):
        assert read_everything("198.51.100.2") == [(path, 200) for path in PAGES + API]
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=organiser).key}")
    posted = client.post(
        "/api/leagues/riverside/matches/",
        {"player_a": ann.pk, "player_b": cat.pk, "score_a": 1, "played_on": "2024-01-03"},
        format="json",
    )

    assert posted.status_code == 201, posted.content
    assert Event.objects.live_matches().filter(league=league).count() == 3
    games = {s.player_id: s.games for s in Standing.objects.filter(config__league=league)}
    assert games == {ann.pk: 2, bob.pk: 2, cat.pk: 2}, "the result is rated"
    assert APIClient().get("/riverside/").status_code == 200
    messages = cache_messages(caplog)
    assert len(messages) == 1, "said once, not per request"
    assert messages[0].startswith(f"The cache at redis://127.0.0.1:{cache_server.port}/1 ")
    assert UNREACHABLE in messages[0]


def test_the_api_throttle_still_counts_while_the_cache_is_down(cache_server, rated):
    cache_server.stop()
    client = APIClient(REMOTE_ADDR="203.0.113.9")

    statuses = [client.get("/api/leagues/").status_code for _ in range(ANON_RATE + 1)]

    assert statuses == [200] * ANON_RATE + [429]


def test_the_cache_is_used_again_once_redis_is_back_and_the_log_says_so(
    cache_server, rated, caplog
):
    caplog.set_level(logging.WARNING, logger="config.cache")
    cache_server.stop()
    assert read_everything("198.51.100.3") == [(path, 200) for path in PAGES + API]

    cache_server.start()
    # The first request after the retry interval finds Redis again.
    time.sleep(RETRY_SECONDS + 0.1)
    assert read_everything("198.51.100.4") == [(path, 200) for path in PAGES + API]

    messages = cache_messages(caplog)
    assert [UNREACHABLE in m for m in messages] == [True, False]
    assert BACK in messages[1]
    assert stored_keys(cache_server) > 0, "pages and counters are stored in Redis again"
