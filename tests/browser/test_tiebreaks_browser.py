"""Tie-breaks in Chromium at 1280 and 390 px: an organiser chooses a season's order with the
keyboard and the table follows it; an event's table with its round-by-round table, on the
screen and printed."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from tests.browser.conftest import ARTIFACTS, screenshot
from tests.functional.conftest import run_queued_replays
from tests.integration.test_event_tables import build_swiss
from tests.integration.test_season_tiebreaks import winter_club

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def sign_in(page, live_server, user) -> None:
    client = Client()
    client.force_login(user)
    page.context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}]
    )


def no_sideways_scroll(page) -> None:
    assert page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth") <= 0


def test_organiser_orders_a_season_by_tie_breaks(
    watched_page, live_server, league, make_player, organiser
):
    page = watched_page
    club = winter_club(league, make_player)
    season = club["season"]
    sign_in(page, live_server, organiser)
    page.goto(live_server.url + reverse("workspace:season", args=[league.slug, season.slug]))
    # A bad code first: refused on the field, with its name, and nothing saved.
    page.focus("#id_tiebreaks")
    page.keyboard.type("DE, XYZ")
    page.keyboard.press("Enter")
    assert "XYZ is not a season tie-break" in page.inner_text("#id_tiebreaks_error")
    page.fill("#id_tiebreaks", "DE, BH, SB")
    page.keyboard.press("Enter")
    page.wait_for_selector("text=saved")
    run_queued_replays(league)

    url = live_server.url + reverse("pages:season", args=[league.slug, season.slug])
    page.goto(url)
    headers = page.locator("#season-table thead th").all_inner_texts()
    assert [h for h in headers if h in ("DE", "BH", "SB")] == ["DE", "BH", "SB"]
    rows = page.locator("#season-table tbody tr")
    names = [rows.nth(i).locator("td").nth(1).inner_text() for i in range(rows.count())]
    # Cat ahead of Ann: level on points, DE and BH; Sonneborn-Berger 8 to 2.
    assert names == ["Bob", "Cat", "Ann", "Dan"]
    assert "FIDE tie-break regulations C.07, art. 9.1" in page.inner_text("#tiebreaks-heading + dl")
    screenshot(page, "season-tiebreaks-1280")
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(url)
    no_sideways_scroll(page)
    assert page.locator("#season-table thead th:has-text('SB')").is_visible()
    screenshot(page, "season-tiebreaks-390")
    assert page.watch.errors == []


def test_an_event_table_on_screen_and_on_paper(
    watched_page, live_server, league, make_player, organiser
):
    page = watched_page
    league.sport = "Chess"
    league.save(update_fields=["sport"])
    event, _ = build_swiss(league, make_player, organiser)
    url = live_server.url + reverse("pages:competition_table", args=[league.slug, event.slug])
    page.goto(url)
    first = page.locator("#event-standings tbody tr").first.locator("td").all_inner_texts()
    assert first[:3] == ["1", "Eve", "2½"]
    ann = page.locator("#round-table tbody tr:has-text('Ann') td").all_inner_texts()
    assert ann[1:4] == ["5w1", "4b1", "1w½"]
    screenshot(page, "event-table-1280")
    # Printed: no site header, every column of the round table shown.
    page.emulate_media(media="print")
    assert not page.locator(".site-header").is_visible()
    assert page.locator("#round-table").is_visible()
    page.pdf(path=str(ARTIFACTS / "event-table-print.pdf"))
    page.emulate_media(media="screen")
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(url)
    no_sideways_scroll(page)
    screenshot(page, "event-table-390")
    assert page.watch.errors == []
