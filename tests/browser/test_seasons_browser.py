"""Seasons and the club's website in Chromium: an organiser creates a season and its table
follows the results; another origin frames the embed and reads the API only when allowed.

The club's website is a second HTTP server on another port (another origin than the live
server): its page frames the embed, and scripts running in it fetch the API.
"""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Iterator
from decimal import Decimal
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from league import fixtures as fixture_services
from league import services as league_services
from league.website import set_website_access
from ratings.models import RankingRules
from tests.browser.conftest import screenshot
from tests.functional.conftest import run_queued_replays

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


class ClubSite:
    """A second origin: ``/`` serves whatever page the test sets."""

    def __init__(self) -> None:
        self.page = "<!doctype html><title>Club</title><p>Club site</p>"
        site = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                body = site.page.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.origin = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def club_site() -> Iterator[ClubSite]:
    site = ClubSite()
    yield site
    site.close()


@pytest.fixture
def browser_page(chromium_browser):
    context = chromium_browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    yield page
    context.close()


def sign_in(page, live_server, user) -> None:
    client = Client()
    client.force_login(user)
    page.context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}]
    )


def no_sideways_scroll(page) -> None:
    assert page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth") <= 0


def table_rows(page) -> list[list[str]]:
    rows = page.locator("#season-table tbody tr")
    return [rows.nth(i).locator("td").all_inner_texts() for i in range(rows.count())]


def test_organiser_creates_a_season_and_its_table_follows_the_results(
    browser_page, live_server, ladder, organiser
):
    page = browser_page
    league = ladder["league"]
    alice, bruno, chen = ladder["players"][:3]
    sign_in(page, live_server, organiser)
    page.goto(live_server.url + reverse("workspace:hub", args=[league.slug]))
    page.click('.hub-sections a:has-text("Seasons")')
    page.fill("#id_name", "Spring 2024")
    page.fill("#id_start_date", "2024-04-01")
    page.fill("#id_end_date", "2024-06-30")
    page.fill("#id_points_win", "3")
    page.fill("#id_points_draw", "1")
    page.fill("#id_points_loss", "0")
    page.click("#season-form button[type='submit']")
    page.wait_for_selector("text=Season “Spring 2024” created.")
    screenshot(page, "workspace-seasons")

    # An overlapping season is refused on the form, naming the other season.
    page.fill("#id_name", "Early summer")
    page.fill("#id_start_date", "2024-06-15")
    page.fill("#id_end_date", "2024-07-31")
    page.click("#season-form button[type='submit']")
    assert "overlap the season “Spring 2024”" in page.inner_text("#id_start_date_error")

    season_url = live_server.url + reverse("pages:season", args=[league.slug, "spring-2024"])
    page.goto(season_url)
    assert "No counted matches in this season yet." in page.inner_text("main")

    for a, b, score, day in [
        (alice, bruno, "1", dt.date(2024, 4, 2)),
        (chen, alice, "0.5", dt.date(2024, 4, 9)),
        (bruno, chen, "1", dt.date(2024, 4, 9)),
    ]:
        league_services.record_match(
            league, player_a=a, player_b=b, score_a=Decimal(score), played_at=day
        )
    run_queued_replays(league)
    page.goto(season_url)
    rows = table_rows(page)
    # Alice 3 + 1 = 4, Bruno 0 + 3 = 3, Chen 1 + 0 = 1.
    assert [(row[1], row[4]) for row in rows] == [
        ("Alice Moreau", "4"),
        ("Bruno Silva", "3"),
        ("Chen Wei", "1"),
    ]
    assert rows[0][3] == "1–1–0"
    screenshot(page, "season-1280")

    league_services.record_match(
        league, player_a=chen, player_b=bruno, score_a=Decimal("1"), played_at=dt.date(2024, 5, 7)
    )
    run_queued_replays(league)
    page.goto(season_url)
    assert [(row[1], row[4]) for row in table_rows(page)] == [
        ("Alice Moreau", "4"),
        ("Chen Wei", "4"),
        ("Bruno Silva", "3"),
    ] or [(row[1], row[4]) for row in table_rows(page)] == [
        ("Chen Wei", "4"),
        ("Alice Moreau", "4"),
        ("Bruno Silva", "3"),
    ]

    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(season_url)
    no_sideways_scroll(page)
    screenshot(page, "season-390")
    page.goto(live_server.url + reverse("workspace:seasons", args=[league.slug]))
    no_sideways_scroll(page)


def test_another_origin_frames_the_embed_only_when_allowed(
    browser_page, live_server, ladder, club_site
):
    page = browser_page
    league = ladder["league"]
    alice, bruno, chen, dana = ladder["players"][:4]
    # The ladder's 2024 games are long idle: rank everyone who played, as the leaderboard does.
    RankingRules.objects.create(league=league, min_games=1)
    soon = timezone.now() + dt.timedelta(days=3)
    fixture_services.schedule_fixture(league, player_a=alice, player_b=bruno, scheduled_at=soon)
    fixture_services.schedule_fixture(
        league, player_a=chen, player_b=dana, scheduled_at=soon + dt.timedelta(days=1)
    )
    embed = live_server.url + reverse("pages:embed_standings", args=[league.slug])
    fixtures = live_server.url + reverse("pages:embed_fixtures", args=[league.slug])
    club_site.page = (
        "<!doctype html><title>Club</title><h1>Our club</h1>"
        f'<iframe id="standings" src="{embed}" width="600" height="500"></iframe>'
        f'<iframe id="fixtures" src="{fixtures}" width="600" height="500"></iframe>'
    )

    def framed() -> tuple[bool, bool]:
        page.goto(club_site.origin + "/")
        page.wait_for_load_state("load")
        table = page.frame_locator("#standings").locator("#embed-standings").count() > 0
        listing = page.frame_locator("#fixtures").locator("#embed-fixtures").count() > 0
        return table, listing

    assert framed() == (False, False), "an embed was framed with no origin allowed"
    set_website_access(league, frame_origins="https://other.example", api_origins="")
    assert framed() == (False, False), "an embed was framed by an origin not listed"
    set_website_access(league, frame_origins=club_site.origin, api_origins="")
    assert framed() == (True, True), "an embed was not framed by the listed origin"
    rows = page.frame_locator("#standings").locator("#embed-standings tbody tr")
    assert rows.count() == 10
    items = page.frame_locator("#fixtures").locator("#embed-fixtures li")
    assert items.count() == 2
    first = items.nth(0).inner_text()
    assert alice.display_name in first
    assert f"{alice.display_name} wins" in first
    screenshot(page, "embed-framed")
    page.set_viewport_size({"width": 390, "height": 844})
    for address in (embed, fixtures):
        page.goto(address)
        no_sideways_scroll(page)
    screenshot(page, "embed-fixtures-390")


FETCH = """async (url) => {
  try {
    const response = await fetch(url);
    const body = await response.json();
    return {ok: true, status: response.status, rows: body.results.length};
  } catch (error) {
    return {ok: false, error: String(error)};
  }
}"""


def test_cross_origin_fetch_of_the_standings_succeeds_only_from_an_allowed_origin(
    browser_page, live_server, ladder, club_site
):
    page = browser_page
    league = ladder["league"]
    RankingRules.objects.create(league=league, min_games=1)  # all twelve ranked (see above)
    api = live_server.url + reverse("api:standings", kwargs={"league_slug": league.slug})
    page.goto(club_site.origin + "/")
    refused = page.evaluate(FETCH, api)
    assert refused["ok"] is False
    assert "Failed to fetch" in refused["error"]

    set_website_access(league, frame_origins="", api_origins=club_site.origin)
    allowed = page.evaluate(FETCH, api)
    assert allowed == {"ok": True, "status": 200, "rows": 12}

    # The same page on the live server's own origin is unaffected; another port is not.
    other = ClubSite()
    try:
        page.goto(other.origin + "/")
        assert page.evaluate(FETCH, api)["ok"] is False
    finally:
        other.close()
