"""An organiser runs a four-player double-elimination cup with a bracket reset from the
workspace in a real browser, at 1280 and 390 px: the cup created as double elimination,
the rounds of play paired from both brackets, a drawn losers' tie replayed, the losers'
bracket champion winning the grand final so that it is played again; then the public page
with the winners' and losers' brackets, each open tie's chances and the forecast, usable
from the keyboard and never scrolling sideways on a phone."""

from __future__ import annotations

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from league.models import Competition, Fixture
from tests.browser.conftest import enter_and_wait, screenshot
from tests.browser.test_cups_browser import _flash, _publish_next
from tests.browser.test_fixtures_browser import _no_sideways_scroll, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NAMES = ["P01", "P02", "P03", "P04"]


def _results(page, number: int, score: str = "1-0", *, draw_first: bool = False) -> None:
    """Each open game of the round gets ``score`` (the first drawn if asked), sent with
    Enter."""
    boxes = f"section[aria-labelledby='round-{number}-heading'] input[name='score']"
    first = True
    while page.locator(boxes).count():
        box = page.locator(boxes).first
        box.fill("d" if draw_first and first else score)
        enter_and_wait(page, box, "Recorded")
        first = False


def _bracket_page(page, live_server, league) -> None:
    page.goto(
        live_server.url + reverse("pages:competition_bracket", args=[league.slug, "spring-cup"])
    )


@pytest.mark.parametrize("width", [1280, 390])
def test_organiser_runs_a_double_elimination_cup_to_its_bracket_reset(
    watched_page, live_server, league, make_player, organiser, width
):
    page = watched_page
    page.set_viewport_size({"width": width, "height": 900})
    for name in NAMES:
        make_player(league, name)
    sign_in(page, live_server, organiser)
    page.goto(live_server.url + reverse("workspace:competitions", args=[league.slug]))
    page.fill("#id_name", "Spring Cup")
    page.select_option("#id_format", "knockout")
    page.fill("#id_planned_rounds", "2")
    page.check("#cup-settings input[name='double_elimination']")
    page.check("#cup-settings input[name='bracket_reset']")
    page.click("#create-competition button[type='submit']")
    _flash(page, "Created Spring Cup.")
    assert Competition.objects.get(league=league).planned_rounds == 5
    for index in reversed(range(4)):
        page.select_option("#enter-form select[name='player']", label=NAMES[index])
        rating_box = page.locator("#enter-form input[name='seed_rating']")
        rating_box.fill(str(2000 - 10 * index))
        enter_and_wait(page, rating_box, f"Entered {NAMES[index]}")

    # Round 1 of play: the winners' round 1, P01 v P04 and P02 v P03.
    _publish_next(page, 1)
    _results(page, 1)
    # Round 2: the winners' final P01 v P02 and the losers' round 1 P04 v P03, drawn, then
    # replayed.
    _publish_next(page, 2)
    round_two = page.inner_text("section[aria-labelledby='round-2-heading']")
    assert "P04" in round_two
    assert "P03" in round_two
    _results(page, 2)
    if width == 390:
        _no_sideways_scroll(page)

    # The public page now: both brackets, the next ties waiting, the forecast.
    _bracket_page(page, live_server, league)
    expect(page.locator("#bracket-winners")).to_contain_text("Winners' final")
    expect(page.locator("#bracket-losers")).to_contain_text("Losers' final")
    expect(page.locator("#bracket-final")).to_contain_text("Grand final")
    expect(page.locator("#cup-forecast")).to_contain_text("Monte Carlo standard error")
    page.locator("#bracket-losers").focus()
    expect(page.locator("#bracket-losers")).to_be_focused()
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.classList.contains('tie__name')")
    if width == 390:
        _no_sideways_scroll(page)
    page.go_back()
    page.wait_for_selector("#pair")

    # Round 3: the losers' final, the winners' final's loser P02 against P04: drawn first.
    _publish_next(page, 3)
    _results(page, 3, draw_first=True)
    page.click("section[aria-labelledby='round-3-heading'] .tie-game-form button")
    _flash(page, "Scheduled: Spring Cup, losers' round 2, tie 1: replay.")
    _results(page, 3)
    # Round 4: the grand final, which the losers' bracket champion wins ...
    _publish_next(page, 4)
    _bracket_page(page, live_server, league)
    expect(page.locator("#tie-4-1 .tie__chance")).to_have_count(2)
    screenshot(page, f"double-elimination-before-final-{width}")
    page.go_back()
    page.wait_for_selector("#pair")
    _results(page, 4, "0-1")
    # ... so it is played again, and the winners' bracket champion takes the cup.
    _publish_next(page, 5)
    _results(page, 5)
    expect(page.locator("#pair")).to_contain_text("Every planned round is paired.")
    cup = Competition.objects.get(league=league)
    # 2 + 2 + the losers' final and its replay + the grand final + its second game.
    assert Fixture.objects.filter(competition=cup).count() == 8
    page.click("#bracket-link")
    expect(page.locator("#cup-champion")).to_have_text("P01 wins the cup.")
    expect(page.locator("#tie-5-1")).to_contain_text("P01 wins the second game.")
    expect(page.locator("#tie-4-1")).to_contain_text("wins the grand final.")
    expect(page.locator("#tie-3-1")).to_contain_text("Replay:")
    expect(page.locator("#cup-forecast")).to_have_count(0)
    if width == 390:
        _no_sideways_scroll(page)
        rounds = page.locator("#bracket-winners .bracket__round")
        assert rounds.nth(1).bounding_box()["y"] > rounds.nth(0).bounding_box()["y"]
    screenshot(page, f"double-elimination-final-{width}")
