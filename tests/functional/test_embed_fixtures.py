"""The upcoming-fixtures embed: framed only by listed origins, the fixtures page's words,
the league's time zone, hostile query values answered without a 5xx, and the page cache."""

from __future__ import annotations

import datetime as dt
import re
from zoneinfo import ZoneInfo

import pytest
from django.test import override_settings
from django.urls import reverse
from django.utils import timezone

from league import fixtures as fixture_services
from league.website import set_website_access

pytestmark = pytest.mark.django_db

CLUB_SITE = "https://club.example.org"
LONDON = ZoneInfo("Europe/London")  # the test league's zone


def _at(days: int, hour: int = 19) -> dt.datetime:
    day = timezone.localdate(timezone=LONDON) + dt.timedelta(days=days)
    return dt.datetime.combine(day, dt.time(hour), LONDON)


def _schedule(league, a, b, days: int, **extra):
    return fixture_services.schedule_fixture(
        league, player_a=a, player_b=b, scheduled_at=_at(days), **extra
    )


def _url(club) -> str:
    return reverse("pages:embed_fixtures", args=[club["league"].slug])


def _items(body: str) -> list[str]:
    listing = body[body.index('id="embed-fixtures"') :]
    listing = listing[: listing.index("</ul>")]
    return listing.split('<li class="fixture')[1:]


def test_fixtures_embed_is_framed_only_by_the_listed_origins(client, club):
    league = club["league"]
    closed = client.get(_url(club))
    assert closed.status_code == 200
    assert closed["X-Frame-Options"] == "DENY"
    assert "frame-ancestors 'none'" in closed["Content-Security-Policy"]
    other = "http://localhost:8080"
    set_website_access(league, frame_origins=f"{CLUB_SITE}\n{other}", api_origins="")
    opened = client.get(_url(club))
    assert "X-Frame-Options" not in opened
    policy = opened["Content-Security-Policy"]
    ancestors = re.search(r"frame-ancestors ([^;]*)", policy)
    assert ancestors is not None
    assert set(ancestors.group(1).split()) == {CLUB_SITE, other}
    # Still no inline code: scripts and styles from the site's own files only.
    assert "'unsafe-inline'" not in policy
    body = opened.content.decode()
    assert "<script" not in body
    assert "style=" not in body
    # Emptying the list closes it again at once (the header is not cached with the page).
    set_website_access(league, frame_origins="", api_origins="")
    again = client.get(_url(club))
    assert again["X-Frame-Options"] == "DENY"
    assert "frame-ancestors 'none'" in again["Content-Security-Policy"]


def test_fixtures_embed_shows_upcoming_fixtures_as_the_fixtures_page_does(client, club):
    league = club["league"]
    ann, bob, cat, dan = (club[name] for name in ("ann", "bob", "cat", "dan"))
    _schedule(league, cat, dan, 5)
    _schedule(league, ann, bob, 3, venue="Board 1")
    _schedule(league, bob, cat, 0)  # its deadline is its day: overdue two days later
    when = _at(3)
    later = timezone.now() + dt.timedelta(days=2)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(timezone, "now", lambda: later)
        body = client.get(_url(club)).content.decode()
        page = client.get(reverse("pages:fixtures", args=[league.slug])).content.decode()
    assert 'id="overdue"' in page  # the public page lists the overdue one apart
    items = _items(body)
    assert len(items) == 2  # upcoming only: the overdue fixture is not in the embed
    assert "Ann Archer" in items[0]
    assert "Board 1" in items[0]
    assert "Cat Cooper" in items[1]
    assert "Dan Dyer" in items[1]
    # The date and hour in the league's zone, with its abbreviation.
    assert f"{when:%a} {when.day} {when:%b %Y}, 19:00 {when.tzname()}" in items[0]
    # The chances in the same words and figures as the public fixtures page.
    upcoming = page.split('id="upcoming"')[1].split('id="overdue"')[0]
    chances = re.findall(r'<p class="fixture__chances">.*?</p>', upcoming)
    assert len(chances) == 2
    assert "Ann Archer wins <strong>" in chances[0]
    assert "Bob Baker wins <strong>" in chances[0]
    assert chances[0] in items[0]
    assert chances[1] in items[1]
    # Links leave the frame: to the players and back to the league's fixtures.
    assert items[0].count('target="_top"') == 2
    assert f'href="{reverse("pages:fixtures", args=[league.slug])}" target="_top"' in body


def test_fixtures_embed_rows_and_player(client, club):
    league = club["league"]
    ann, bob, cat, dan = (club[name] for name in ("ann", "bob", "cat", "dan"))
    for days in range(1, 5):
        _schedule(league, cat, dan, days)
    _schedule(league, ann, bob, 6)
    assert len(_items(client.get(_url(club), {"rows": "2"}).content.decode())) == 2
    assert len(_items(client.get(_url(club)).content.decode())) == 5
    mine = client.get(_url(club), {"player": ann.slug}).content.decode()
    assert len(_items(mine)) == 1
    assert "Bob Baker" in _items(mine)[0]
    assert "upcoming fixtures of Ann Archer" in mine
    assert f'href="{reverse("pages:player", args=[league.slug, ann.slug])}" target="_top"' in mine


def test_fixtures_embed_without_fixtures_says_so(client, club):
    body = client.get(_url(club)).content.decode()
    assert "No upcoming fixtures." in body
    assert 'id="embed-fixtures"' not in body


@pytest.mark.parametrize(
    "query",
    [
        {"rows": "-3"},
        {"rows": "abc"},
        {"rows": "9" * 40},
        {"rows": "0"},
        {"rows": ""},
        {"player": "../../etc/passwd"},
        {"player": "<script>alert(1)</script>"},
        {"player": "nobody"},
        {"player": "x" * 5000},
        {"player": "ann\x00"},
        {"rows": "1e9", "player": "' OR 1=1 --"},
        {"unknown": "value"},
    ],
)
def test_fixtures_embed_answers_hostile_queries_without_a_5xx(client, club, query):
    league = club["league"]
    _schedule(league, club["ann"], club["bob"], 1)
    _schedule(league, club["cat"], club["dan"], 2)
    response = client.get(_url(club), query)
    assert response.status_code in (200, 400)
    if response.status_code == 200:
        body = response.content.decode()
        assert "<script>alert" not in body
        # An unknown player is ignored (the league's fixtures, no player's name in the title).
        assert 1 <= len(_items(body)) <= 2
        assert "upcoming fixtures of" not in body


def test_fixtures_embed_unknown_league_is_not_found(client, club):
    assert client.get(reverse("pages:embed_fixtures", args=["no-such-league"])).status_code == 404


@override_settings(PAGE_CACHE=True)
def test_fixtures_embed_is_cached_per_league_state(client, club):
    league = club["league"]
    _schedule(league, club["ann"], club["bob"], 1)
    first = client.get(_url(club))
    assert first.status_code == 200
    assert "ETag" in first
    unchanged = client.get(_url(club), headers={"If-None-Match": first["ETag"]})
    assert unchanged.status_code == 304
    # Framing is decided per request even for a cached page.
    set_website_access(league, frame_origins=CLUB_SITE, api_origins="")
    cached = client.get(_url(club))
    assert cached.content == first.content
    assert f"frame-ancestors {CLUB_SITE}" in cached["Content-Security-Policy"]
    # A new fixture moves the league's state: a fresh page, not the stored one.
    _schedule(league, club["cat"], club["dan"], 2)
    moved = client.get(_url(club), headers={"If-None-Match": first["ETag"]})
    assert moved.status_code == 200
    assert moved["ETag"] != first["ETag"]
    assert len(_items(moved.content.decode())) == 2


def test_website_page_gives_the_fixtures_embed_snippet(client, club, organiser):
    client.force_login(organiser)
    league = club["league"]
    body = client.get(reverse("workspace:website", args=[league.slug])).content.decode()
    snippet = body[body.index('id="embed-fixtures-snippet"') :]
    snippet = snippet[: snippet.index("</pre>")]
    address = "http://testserver" + reverse("pages:embed_fixtures", args=[league.slug])
    assert f"&lt;iframe src=&quot;{address}&quot;" in snippet
    assert "?player=SLUG" in body
    # The standings snippet stays beside it.
    assert 'id="embed-snippet"' in body
