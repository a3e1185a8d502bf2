"""Fixtures in a real browser: an organiser creates a season, generates a Swiss round,
publishes it, enters the results against its fixtures by score, and the season table and the
standings update; the pages fit a phone."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from playwright.sync_api import expect

from league.models import Event, Fixture
from ratings.models import Publication, Standing
from tests.browser.conftest import LOCAL_HOSTS, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def sign_in(page, live_server, user) -> None:
    client = Client()
    client.force_login(user)
    page.context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}]
    )


def _games(league) -> dict[str, int]:
    config = Publication.objects.get(league=league).config
    return {
        s.player.display_name: s.games
        for s in Standing.objects.filter(config=config).select_related("player")
    }


def _no_sideways_scroll(page) -> None:
    overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"{page.url} scrolls sideways by {overflow}px at 390 px"


def test_organiser_creates_a_season_generates_a_swiss_round_enters_results_and_tables_update(
    watched_page, live_server, ladder, organiser
):
    page, league = watched_page, ladder["league"]
    before = _games(league)
    sign_in(page, live_server, organiser)
    today = timezone.now().astimezone(ZoneInfo(league.time_zone)).date()
    page.goto(live_server.url + reverse("workspace:hub", args=[league.slug]))
    page.click('.hub-sections a:has-text("Seasons")')
    page.fill("#id_name", "Autumn Club Nights")
    page.fill("#id_start_date", (today - dt.timedelta(days=30)).isoformat())
    page.fill("#id_end_date", (today + dt.timedelta(days=60)).isoformat())
    page.fill("#id_points_win", "3")
    page.fill("#id_points_draw", "1")
    page.fill("#id_points_loss", "0")
    page.click("#season-form button[type='submit']")
    page.wait_for_selector("text=Season “Autumn Club Nights” created.")
    season_url = live_server.url + reverse("pages:season", args=[league.slug, "autumn-club-nights"])
    page.goto(season_url)
    assert "No counted matches in this season yet." in page.inner_text("main")

    page.goto(live_server.url + reverse("workspace:hub", args=[league.slug]))
    page.click('.hub-sections a:has-text("Pairings")')
    page.select_option("#id_method", "swiss")
    page.fill("#id_series", "Autumn Swiss")
    page.click("button[value='generate']")
    page.wait_for_selector("#draft")
    pairings = page.locator(".draft-pairing")
    assert pairings.count() == 6
    # Every pairing shows both sides' chances (and the draw: this league has draws).
    for i in range(6):
        text = pairings.nth(i).locator(".fixture__chances").inner_text()
        assert text.count(" wins ") == 2, text
        assert "Draw" in text, text
    screenshot(page, "pairings-draft")

    # Adjust: swap the sides of the first pairing, then publish.
    first = pairings.nth(0).locator(".fixture__sides").inner_text()
    pairings.nth(0).locator("input[name='swap']").check()
    page.click("button[value='adjust']")
    page.wait_for_selector("#draft")
    swapped = page.locator(".draft-pairing").nth(0).locator(".fixture__sides").inner_text()
    a, b = (name.strip() for name in first.split(" v "))
    assert swapped.replace("\n", " ").split(" v ") == [b, a]
    page.click("#publish")
    page.wait_for_selector(".message--success")
    assert "Published 6 fixtures" in page.inner_text(".messages")
    assert Fixture.objects.filter(label="Autumn Swiss · round 1").count() == 6
    assert page.locator("#open-fixtures > li").count() == 6
    screenshot(page, "fixtures-organiser")

    # Enter every result by its score alone: first-named side wins, except one draw; each
    # is echoed with an Undo.
    for i in range(6):
        form = page.locator("#open-fixtures > li").first.locator("form.result-form")
        form.locator("input[name='score']").fill("2-2" if i == 0 else "3-1")
        form.locator("input[name='score']").press("Enter")
        # The page after this result (the one before it had an echo too: waiting for the
        # echo alone could read the old page).
        expect(page.locator("#open-fixtures > li")).to_have_count(5 - i)
        assert "Undo" in page.inner_text("#echo")
    assert page.locator("#open-fixtures > li").count() == 0
    assert page.locator("#recent-fixtures > li").count() == 6
    recorded = Event.objects.filter(kind=Event.Kind.MATCH_RECORDED, fixture__isnull=False)
    assert recorded.count() == 6

    # The season table: 3 points a win, 1 a draw, one game each.
    fixtures = list(Fixture.objects.filter(label="Autumn Swiss · round 1").order_by("pk"))
    expected = {}
    for fixture in fixtures:
        a, b = fixture.player_a.display_name, fixture.player_b.display_name
        drawn = Event.objects.get(fixture=fixture, kind=Event.Kind.MATCH_RECORDED).score_a == 0.5
        expected[a], expected[b] = (1, 1) if drawn else (3, 0)
    page.goto(season_url)
    rows = page.locator("#season-table tbody tr")
    table = [rows.nth(i).locator("td").all_inner_texts() for i in range(rows.count())]
    assert {row[1]: int(row[4]) for row in table} == expected
    assert sorted(int(row[4]) for row in table) == sorted(expected.values())
    screenshot(page, "season-after-swiss")

    # The replays ran on commit: every player of the round has one more game.
    after = _games(league)
    assert {name: after[name] - before.get(name, 0) for name in after} == dict.fromkeys(after, 1)
    # The winner's own page shows the new game count (the leaderboard may list a provisional
    # player apart under the league's ranking rules).
    winner = Fixture.objects.filter(label="Autumn Swiss · round 1").order_by("pk")[1].player_a
    page.goto(live_server.url + reverse("pages:player", args=[league.slug, winner.slug]))
    assert f"{after[winner.display_name]} (" in page.inner_text(".summary")
    screenshot(page, "player-after-swiss")
    assert page.watch.errors == [], f"console errors: {page.watch.errors}"
    assert page.watch.hosts <= LOCAL_HOSTS


def test_fixture_pages_fit_a_phone(chromium_browser, live_server, ladder, organiser):
    from league import fixtures as fixture_services
    from web.workspace.fixture_forms import next_evening

    league, players = ladder["league"], ladder["players"]
    when = next_evening(league)
    for a, b in zip(players[:6:2], players[1:6:2], strict=True):
        fixture_services.schedule_fixture(
            league,
            player_a=a,
            player_b=b,
            scheduled_at=when,
            venue="Riverside Community Hall, table 1",
            label="Autumn Swiss · round 1",
        )
    context = chromium_browser.new_context(
        viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True
    )
    page = context.new_page()
    sign_in(page, live_server, organiser)
    for name, url in (
        ("fixtures-public-390", reverse("pages:fixtures", args=[league.slug])),
        ("fixtures-organiser-390", reverse("workspace:fixtures", args=[league.slug])),
        ("pairings-390", reverse("workspace:pairings", args=[league.slug])),
        ("player-390", reverse("pages:player", args=[league.slug, players[0].slug])),
    ):
        page.goto(live_server.url + url)
        if name == "pairings-390":
            page.click("button[value='generate']")
            page.wait_for_selector("#draft")
        _no_sideways_scroll(page)
        screenshot(page, name)
    context.close()
