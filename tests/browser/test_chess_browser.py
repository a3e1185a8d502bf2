"""A chess club's organiser in Chromium: a round entered from the keyboard as White, result,
Black (three Tab stops a game: no neutral-ground box), then the public pages in White and
Black. Every page is photographed at 1280 and 390 px, and none scrolls sideways on the
phone."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.urls import reverse

from league.models import Event
from tests.browser.test_workspace_browser import PASSWORD, assert_clean, photograph, type_row
from tests.functional.conftest import run_queued_replays

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_chess_round_from_the_keyboard_and_pages_in_white_and_black(
    watched_page, live_server, league, make_player, organiser
):
    page = watched_page
    league.records_points = False  # as ``create_league --sport chess --results-only`` makes it
    league.save()
    organiser.is_staff = True
    organiser.save()
    names = ["Anna Kowalska", "Boris Petrov", "Chloe Martin", "Dev Patel"]
    for name in names:
        make_player(league, name)

    page.goto(live_server.url + reverse("pages:league", args=[league.slug]))
    page.click("#sign-in-link")
    page.fill("#id_username", organiser.username)
    page.fill("#id_password", PASSWORD)
    page.click("#sign-in-password")
    page.wait_for_selector(".site-user")
    page.goto(live_server.url + reverse("workspace:round", args=[league.slug]))
    page.wait_for_selector("#id_results-0-player_a:focus")

    # Text as written (the style shows headers in capitals).
    headers = [t.strip() for t in page.locator(".round-table thead th").all_text_contents()]
    assert headers[1:] == ["White", "Result", "Black"]
    assert page.locator(".round-table input[type=checkbox]").count() == 0
    assert page.get_attribute("#id_results-0-player_a", "aria-label") == "White"
    assert page.get_attribute("#id_results-0-player_b", "aria-label") == "Black"
    photograph(page, "chess-round")

    # Three Tab stops a game: White, result, Black; the next Tab is the next row's White.
    games = [(names[0], "1-0", names[1]), (names[2], "½-½", names[3])]
    for white, result, black in games:
        type_row(page, white, result, black)
    assert page.evaluate("document.activeElement.id") == "id_results-2-player_a"
    page.keyboard.press("Enter")
    page.wait_for_selector("#echo")
    assert "Recorded: 2 results" in page.inner_text("#echo")
    recorded = Event.objects.matches().filter(league=league).order_by("seq")
    assert [(m.player_a.display_name, m.score_a, m.player_b.display_name) for m in recorded] == [
        (names[0], Decimal("1"), names[1]),
        (names[2], Decimal("0.5"), names[3]),
    ]
    photograph(page, "chess-round-echo")
    run_queued_replays(league)

    page.goto(live_server.url + reverse("pages:matches", args=[league.slug]))
    headers = [" ".join(t.split()) for t in page.locator("#matches thead th").all_text_contents()]
    assert headers[2:5] == ["White", "Result", "Black"]
    assert "\u00bd\u2013\u00bd" in page.inner_text("#matches")
    photograph(page, "chess-matches")

    anna = recorded[0].player_a
    page.goto(live_server.url + reverse("pages:player", args=[league.slug, anna.slug]))
    assert page.locator("#results td.colour").all_text_contents() == ["White"]
    photograph(page, "chess-player")
    assert_clean(page)
