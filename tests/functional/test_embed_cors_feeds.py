"""The league on a club's website: the embed's framing headers, CORS on the API, Atom feeds."""

from __future__ import annotations

import datetime as dt
import html
from html.parser import HTMLParser
from xml.etree import ElementTree

import feedparser
import pytest
from django.urls import reverse

from league import services as league_services
from league.website import set_website_access

# The embed's mechanics on a small league whose players are all provisional: every rated
# player is ranked (the embed follows the league's eligibility rules like the leaderboard).
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("everyone_ranked")]

CLUB_SITE = "https://club.example.org"


def test_embed_is_not_frameable_until_an_origin_is_listed(client, club):
    url = reverse("pages:embed_standings", args=[club["league"].slug])
    closed = client.get(url)
    assert closed.status_code == 200
    assert closed["X-Frame-Options"] == "DENY"
    assert "frame-ancestors 'none'" in closed["Content-Security-Policy"]
    set_website_access(club["league"], frame_origins=CLUB_SITE, api_origins="")
    opened = client.get(url)
    assert "X-Frame-Options" not in opened
    assert f"frame-ancestors {CLUB_SITE}" in opened["Content-Security-Policy"]
    # The rest of the site stays unframeable.
    page = client.get(reverse("pages:league", args=[club["league"].slug]))
    assert page["X-Frame-Options"] == "DENY"
    assert "frame-ancestors 'none'" in page["Content-Security-Policy"]


def test_embed_shows_the_top_rows_or_a_season(client, club):
    # The club's players are provisional and long idle: ranked here by the module's
    # ``everyone_ranked`` rules, as the league's leaderboard then ranks them too.
    url = reverse("pages:embed_standings", args=[club["league"].slug])
    body = client.get(url, {"rows": "2"}).content.decode()
    table = body[body.index('id="embed-standings"') :]
    assert table.count("<tr>") == 3  # the header and two players
    assert 'target="_top"' in table


def test_api_cors_only_for_a_listed_origin(client, club):
    url = reverse("api:standings", kwargs={"league_slug": club["league"].slug})
    refused = client.get(url, headers={"Origin": CLUB_SITE})
    assert refused.status_code == 200
    assert "Access-Control-Allow-Origin" not in refused
    set_website_access(club["league"], frame_origins="", api_origins=CLUB_SITE)
    allowed = client.get(url, headers={"Origin": CLUB_SITE})
    assert allowed["Access-Control-Allow-Origin"] == CLUB_SITE
    assert "Access-Control-Allow-Credentials" not in allowed
    other = client.get(url, headers={"Origin": "https://elsewhere.example"})
    assert "Access-Control-Allow-Origin" not in other
    # A preflight for a write is answered with the read methods only.
    preflight = client.options(
        url, headers={"Origin": CLUB_SITE, "Access-Control-Request-Method": "POST"}
    )
    assert set(preflight["Access-Control-Allow-Methods"].split(", ")) == {"GET", "HEAD", "OPTIONS"}


def test_another_leagues_list_does_not_open_this_league(client, club, other_league):
    set_website_access(other_league, frame_origins=CLUB_SITE, api_origins=CLUB_SITE)
    url = reverse("api:standings", kwargs={"league_slug": club["league"].slug})
    assert "Access-Control-Allow-Origin" not in client.get(url, headers={"Origin": CLUB_SITE})
    embed = client.get(reverse("pages:embed_standings", args=[club["league"].slug]))
    assert "frame-ancestors 'none'" in embed["Content-Security-Policy"]


def test_league_feed_is_valid_atom_with_the_counted_results(client, club):
    league = club["league"]
    voided = league_services.record_match(
        league, player_a=club["cat"], player_b=club["dan"], score_a="1",
        played_at=dt.date(2024, 2, 6),
    )  # fmt: skip
    league_services.void_match(league, voided, reason="Wrong players")
    response = client.get(reverse("pages:results_feed", args=[league.slug]))
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/atom+xml")
    feed = feedparser.parse(response.content)
    assert not feed.bozo, feed.get("bozo_exception")
    assert feed.version == "atom10"
    assert feed.feed.title == "Riverside Chess Club: results"
    titles = [entry.title for entry in feed.entries]
    # The club's seven results, newest played first; the voided one left out.
    assert len(titles) == 7
    assert titles[0] in {"Ann Archer 1–0 Dan Dyer", "Cat Cooper 0–1 Bob Baker"}
    assert "Cat Cooper 1–0 Dan Dyer" not in titles
    ids = [entry.id for entry in feed.entries]
    assert len(set(ids)) == 7
    assert all(entry_id.startswith("tag:honest-league,2024:riverside:match:") for entry_id in ids)
    assert feed.entries[-1].published_parsed[:3] == (2024, 1, 2)


def test_player_feed_carries_only_their_results_from_their_side(client, club):
    league, dan = club["league"], club["dan"]
    response = client.get(reverse("pages:player_results_feed", args=[league.slug, dan.slug]))
    feed = feedparser.parse(response.content)
    assert not feed.bozo, feed.get("bozo_exception")
    assert [entry.title for entry in feed.entries] == [
        "Loss against Ann Archer: Ann Archer 1–0 Dan Dyer"
    ]
    assert feed.feed.link.endswith(reverse("pages:player", args=[league.slug, dan.slug]))


def test_feeds_carry_team_matches_and_each_player_s_result_from_their_side(client, club):
    from league.models import MatchFormat

    league = club["league"]
    league.match_format = MatchFormat.ANY
    league.save()
    ann, bob, cat, dan = club["ann"], club["bob"], club["cat"], club["dan"]
    league_services.record_match(
        league, sides=[[ann, bob], [cat, dan]], score_a="0", points="15-21",
        played_at=dt.date(2024, 3, 5),
    )  # fmt: skip
    league_services.record_match(
        league, sides=[[ann], [bob], [cat], [dan]], places=[1, 2, 2, 4],
        played_at=dt.date(2024, 3, 6),
    )  # fmt: skip
    voided = league_services.record_match(
        league, sides=[[ann, cat], [bob, dan]], score_a="1", played_at=dt.date(2024, 3, 7)
    )
    league_services.void_match(league, voided, reason="never played")

    def titles(url: str) -> list[str]:
        feed = feedparser.parse(client.get(url).content)
        assert not feed.bozo, feed.get("bozo_exception")
        return [entry.title for entry in feed.entries]

    board = "1st Ann Archer, =2nd Bob Baker, =2nd Cat Cooper, 4th Dan Dyer"
    doubles = "Ann Archer & Bob Baker 0–1 Cat Cooper & Dan Dyer (15-21)"
    assert titles(reverse("pages:results_feed", args=[league.slug]))[:2] == [board, doubles]
    dan_titles = titles(reverse("pages:player_results_feed", args=[league.slug, dan.slug]))
    assert dan_titles[:2] == [
        f"4th of 4: {board}",
        f"Win with Cat Cooper against Ann Archer & Bob Baker: {doubles}",
    ]
    bob_titles = titles(reverse("pages:player_results_feed", args=[league.slug, bob.slug]))
    assert bob_titles[:2] == [
        f"=2nd of 4: {board}",
        f"Loss with Ann Archer against Cat Cooper & Dan Dyer: {doubles}",
    ]
    assert not any(
        "never played" in title or "Ann Archer & Cat Cooper" in title for title in bob_titles
    )


def test_unknown_league_or_player_feed_is_not_found(client, club):
    assert client.get(reverse("pages:results_feed", args=["nowhere"])).status_code == 404
    url = reverse("pages:player_results_feed", args=[club["league"].slug, "nobody"])
    assert client.get(url).status_code == 404


class _Tags(HTMLParser):
    """The start tags (with their attributes) an HTML reader would build from a text."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))


def _html_summaries(body: bytes) -> list[str]:
    """The text of every Atom ``<summary type="html">``: what a reader renders as markup."""
    atom = "{http://www.w3.org/2005/Atom}"
    root = ElementTree.fromstring(body)
    return [
        summary.text or ""
        for summary in root.iter(f"{atom}summary")
        if summary.get("type") == "html"
    ]


def test_feeds_show_hostile_names_points_and_notes_as_text_not_markup(client, club, make_player):
    league, ann = club["league"], club["ann"]
    league.records_points = True
    league.save()
    hostile = make_player(league, "<img src=x onerror=alert(1)> Mallory")
    note = '<script>alert("note")</script><b onclick="x()">bold</b>'
    league_services.record_match(
        league, player_a=hostile, player_b=ann, score_a="1", points="<i>3</i>-1",
        note=note, played_at=dt.date(2024, 3, 1),
    )  # fmt: skip
    urls = [
        reverse("pages:results_feed", args=[league.slug]),
        reverse("pages:player_results_feed", args=[league.slug, hostile.slug]),
    ]
    for url in urls:
        summaries = _html_summaries(client.get(url).content)
        hostile_ones = [text for text in summaries if "Mallory" in text]
        assert len(hostile_ones) == 1, url
        parser = _Tags()
        parser.feed(hostile_ones[0])
        parser.close()
        assert parser.tags == [], url
        # A reader shows the name, the points and the note as they were typed.
        shown = html.unescape(hostile_ones[0])
        assert "<img src=x onerror=alert(1)> Mallory" in shown
        assert "<i>3</i>-1" in shown
        assert note in shown


def _copied_snippet(body: str, element_id: str) -> str:
    """The text of the page's ``<pre id=element_id>``: what an organiser copies."""
    start = body.index(f'id="{element_id}">') + len(f'id="{element_id}">')
    return html.unescape(body[start : body.index("</pre>", start)])


@pytest.mark.parametrize(
    ("element_id", "title"),
    [("embed-snippet", "standings"), ("embed-fixtures-snippet", "upcoming fixtures")],
)
def test_the_embed_snippets_keep_a_hostile_league_name_inside_the_title(
    client, club, organiser, element_id, title
):
    league = club["league"]
    league.name = 'Club" onload="alert(1)" x="<b>'
    league.save()
    client.force_login(organiser)
    body = client.get(reverse("workspace:website", args=[league.slug])).content.decode()
    snippet = _copied_snippet(body, element_id)
    parser = _Tags()
    parser.feed(snippet)
    parser.close()
    assert len(parser.tags) == 1, snippet
    tag, attributes = parser.tags[0]
    assert tag == "iframe"
    assert [name for name, _ in attributes] == ["src", "title", "width", "height", "loading"]
    assert dict(attributes)["title"] == f"{league.name} {title}"


def _morning_zone(now: dt.datetime) -> str:
    """A fixed-offset zone in which ``now`` is about 08:00, so today's noon is hours away."""
    offset = 8 - now.hour
    if offset < -12:
        offset += 24
    # Etc/GMT signs are inverted: Etc/GMT+6 is six hours behind UTC.
    return "Etc/GMT" if offset == 0 else f"Etc/GMT{-offset:+d}"


def test_feed_last_modified_and_dates_are_never_in_the_future(client, club):
    # A match played this morning and recorded at once: "published" was the local noon of
    # its day, hours ahead, and the header's Last-Modified (the newest entry date) with it.
    from email.utils import parsedate_to_datetime

    from django.utils import timezone

    league = club["league"]
    now = timezone.now()
    league.time_zone = _morning_zone(now)
    league.save(update_fields=["time_zone"])
    league_services.record_match(
        league, player_a=club["ann"], player_b=club["bob"], score_a="1",
        played_at=now - dt.timedelta(minutes=5),
    )  # fmt: skip
    for url in (
        reverse("pages:results_feed", args=[league.slug]),
        reverse("pages:player_results_feed", args=[league.slug, club["ann"].slug]),
    ):
        response = client.get(url)
        after = timezone.now()
        last_modified = parsedate_to_datetime(response["Last-Modified"])
        # http_date has whole seconds: a second of tolerance.
        assert last_modified <= after + dt.timedelta(seconds=1), (last_modified, after)
        assert last_modified >= now - dt.timedelta(seconds=1)
        feed = feedparser.parse(response.content)
        newest = feed.entries[0]
        published = dt.datetime.fromisoformat(newest.published)
        assert published <= after, (published, after)
        assert dt.datetime.fromisoformat(newest.updated) <= after


def test_feed_links_lead_to_the_page_holding_each_match(client, club, monkeypatch):
    # The links pointed at the first page of the matches list with an anchor, which an
    # older match is not on.
    from web.public import pages

    monkeypatch.setattr(pages, "MATCHES_PER_PAGE", 3)
    league = club["league"]
    feed = feedparser.parse(client.get(reverse("pages:results_feed", args=[league.slug])).content)
    pages_seen = set()
    for entry in feed.entries:
        seq = entry.id.rsplit(":", 1)[1]
        response = client.get(entry.link, follow=True)
        assert response.status_code == 200
        path, _, anchor = response.redirect_chain[-1][0].partition("#")
        assert anchor == f"match-{seq}"
        assert f'id="match-{seq}"' in response.content.decode(), entry.link
        pages_seen.add(path)
    # Seven matches, three a page: the links lead to three different pages.
    assert len(pages_seen) == 3
    unknown = reverse("pages:results_feed", args=[league.slug]).replace("results.atom", "")
    assert client.get(f"{unknown}matches/99999/").status_code == 404
