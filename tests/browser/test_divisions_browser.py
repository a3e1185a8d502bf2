"""A season of three divisions in Chromium, at 1280 and 390 px: the organiser sets the
divisions from the workspace (a player typed in two divisions is refused on the form), fixes
them, results are played, the season ends; the public page marks the promotion and
relegation zones in words; the organiser proposes the next season's divisions, adjusts them
with the keyboard on a phone and fixes them."""

from __future__ import annotations

import datetime as dt

import pytest
from django.test import Client
from django.urls import reverse

from league import seasons
from ratings.seasons.divisions import division_members
from tests.browser.conftest import screenshot
from tests.functional.conftest import rate, record_results

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NAMES = ("A1", "A2", "A3", "B1", "B2", "B3", "C1", "C2", "C3")


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


def test_three_divisions_promotion_and_relegation_into_the_next_season(
    browser_page, live_server, league, make_player, organiser
):
    page = browser_page
    players = {name: make_player(league, f"Player {name}") for name in NAMES}
    ned = make_player(league, "Ned Newcomer")
    spring = seasons.create_season(
        league, name="Spring 2024", start_date="2024-03-01", end_date="2024-03-31"
    )
    # The next season is running now: its divisions' forecast shows once they are fixed.
    today = dt.date.today()
    autumn = seasons.create_season(
        league,
        name="Autumn",
        start_date=today - dt.timedelta(days=7),
        end_date=today + dt.timedelta(days=60),
    )
    sign_in(page, live_server, organiser)

    # 1280 px: the organiser sets the three divisions from the season's workspace page.
    page.goto(live_server.url + reverse("workspace:season", args=[league.slug, spring.slug]))
    page.click("#divisions-link")
    for number, letter in enumerate("ABC", start=1):
        typed = "\n".join(f"Player {letter}{i}" for i in (1, 2, 3))
        if number == 2:
            typed += "\nPlayer A1"  # a mistake: A1 is in division 1 too
        page.fill(f"#players_{number}", typed)
    page.fill("#promotion", "1")
    page.click("#setup-form button[type='submit']")
    assert "Player A1 is in division 1 and division 2" in page.inner_text("#players_2_error")
    assert division_members(spring) == []
    page.fill("#players_2", "Player B1\nPlayer B2\nPlayer B3")
    page.click("#setup-form button[type='submit']")
    page.wait_for_selector("text=Divisions of “Spring 2024” set.")
    page.click("#fix-form button")
    page.wait_for_selector("text=Divisions of “Spring 2024” fixed.")
    assert page.inner_text("#divisions-state") == "fixed"
    screenshot(page, "divisions-workspace-1280")

    # The season is played (in March 2024: it has ended) and rated.
    day = dt.date(2024, 3, 5)
    results = []
    for letter in "ABC":
        one, two, three = (players[f"{letter}{i}"] for i in (1, 2, 3))
        results += [(one, two, "1", day), (one, three, "1", day), (two, three, "1", day)]
    record_results(league, results)
    rate(league)

    public = live_server.url + reverse("pages:season_divisions", args=[league.slug, spring.slug])
    page.goto(public)
    middle = page.locator("#division-2-section tbody tr")
    rows = [middle.nth(i).locator("td").all_inner_texts() for i in range(middle.count())]
    assert [(row[1], row[2], row[5]) for row in rows] == [
        ("Player B1", "↑ Promotion", "6"),
        ("Player B2", "–", "3"),
        ("Player B3", "↓ Relegation", "0"),
    ]
    screenshot(page, "divisions-public-1280")

    # The season has ended: the organiser proposes the next season's divisions.
    page.goto(
        live_server.url + reverse("workspace:season_divisions", args=[league.slug, spring.slug])
    )
    page.click("#propose-next")
    page.wait_for_selector("text=Divisions of “Autumn” proposed")
    assert "Player B1" in page.inner_text("#ws-division-1")
    assert "Player A3" in page.inner_text("#ws-division-2")
    assert "Ned Newcomer" in page.inner_text("#ws-division-3")

    # 390 px: adjusted with the keyboard (Ned moves up a division), then fixed.
    page.set_viewport_size({"width": 390, "height": 844})
    no_sideways_scroll(page)
    page.focus("#move-player")
    page.select_option("#move-player", str(ned.pk))
    page.keyboard.press("Tab")
    page.select_option("#move-division", "2")
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    page.wait_for_selector("text=Player moved.")
    assert "Ned Newcomer" in page.inner_text("#ws-division-2")
    no_sideways_scroll(page)
    page.focus("#fix-form button")
    page.keyboard.press("Enter")
    page.wait_for_selector("text=Divisions of “Autumn” fixed.")
    assert page.inner_text("#divisions-state") == "fixed"
    assert page.locator("#move-form").count() == 0
    screenshot(page, "divisions-workspace-390")

    page.goto(public)
    no_sideways_scroll(page)
    assert page.locator("#division-1-section strong:has-text('↓ Relegation')").count() == 1
    screenshot(page, "divisions-public-390")
    page.goto(public.replace(spring.slug, autumn.slug))
    no_sideways_scroll(page)
    second = page.inner_text("#division-2-section")
    assert "Ned Newcomer" in second
    # The running season's forecast: chances with their errors, and what was simulated.
    # (Column heads are upper case by the style sheet.)
    assert "chance of promotion" in second.lower()
    assert "chance of relegation" in second.lower()
    assert "No fixtures are scheduled in this division" in second
    assert "Monte Carlo standard error at most" in second
    screenshot(page, "divisions-forecast-390")
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(public.replace(spring.slug, autumn.slug))
    assert page.locator("#division-1-section th:has-text('Chance of promotion')").count() == 0
    assert page.locator("#division-3-section th:has-text('Chance of relegation')").count() == 0
    screenshot(page, "divisions-forecast-1280")
