"""An organiser runs a 16-entrant knockout cup from the workspace to the final in a real
browser, at 1280 and 390 px: the cup created with a replay for draws and a third-place
match, the entries seeded by rating, round 1 paired from the bracket, a drawn tie replayed
(the next round refused until it is decided), the rounds paired from the winners, results
sent from the keyboard; then the public bracket with each tie's chances and the cup's
forecast, usable from the keyboard, and no page scrolling sideways on a phone."""

from __future__ import annotations

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from league.models import Competition, Fixture
from tests.browser.conftest import enter_and_wait, screenshot, wait_for_message
from tests.browser.test_fixtures_browser import _no_sideways_scroll, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NAMES = [f"P{n:02d}" for n in range(1, 17)]


def _flash(page, text: str) -> None:
    wait_for_message(page, text)


def _publish_next(page, number: int) -> None:
    page.click("#preview-link")
    page.wait_for_selector("#publish-form")
    page.click(f"#publish-form button:has-text('Publish round {number}')")
    _flash(page, f"Published round {number}")


def _results(page, number: int, *, draw_first: bool = False) -> None:
    """Each open game: the first-named side wins (the first game drawn if asked), typed and
    sent with Enter."""
    boxes = f"section[aria-labelledby='round-{number}-heading'] input[name='score']"
    first = True
    while page.locator(boxes).count():
        box = page.locator(boxes).first
        box.fill("d" if draw_first and first else "1-0")
        enter_and_wait(page, box, "Recorded")
        first = False


@pytest.mark.parametrize("width", [1280, 390])
def test_organiser_runs_a_sixteen_player_cup_to_the_final(
    watched_page, live_server, league, make_player, organiser, width
):
    page = watched_page
    page.set_viewport_size({"width": width, "height": 900})
    for name in NAMES:
        make_player(league, name)
    sign_in(page, live_server, organiser)
    page.goto(live_server.url + reverse("workspace:hub", args=[league.slug]))
    page.click('.hub-sections a:has-text("Events")')
    page.fill("#id_name", "Winter Cup")
    page.select_option("#id_format", "knockout")
    page.fill("#id_planned_rounds", "4")
    page.select_option("#id_draw_rule", "replay")
    page.check("#cup-settings input[name='third_place']")
    page.click("#create-competition button[type='submit']")
    _flash(page, "Created Winter Cup.")
    if width == 390:
        _no_sideways_scroll(page)

    # Entered worst first: the seeding follows the ratings, not the order of entry.
    for index in reversed(range(16)):
        page.select_option("#enter-form select[name='player']", label=NAMES[index])
        rating_box = page.locator("#enter-form input[name='seed_rating']")
        rating_box.fill(str(2000 - 10 * index))
        enter_and_wait(page, rating_box, f"Entered {NAMES[index]}")
    expect(page.locator("#bye-form")).to_have_count(0)  # a cup has no requested byes

    page.click("#preview-link")
    page.wait_for_selector("#publish-form")
    first_rows = page.locator("#preview-pairings tbody tr")
    expect(first_rows).to_have_count(8)
    expect(first_rows.nth(0)).to_contain_text("P01")
    expect(first_rows.nth(0)).to_contain_text("P16")
    expect(first_rows.nth(1)).to_contain_text("P08")
    expect(first_rows.nth(1)).to_contain_text("P09")
    page.click("#publish-form button:has-text('Publish round 1')")
    _flash(page, "Published round 1: 8 games.")

    # P01 v P16 is drawn: round 2 is refused until the replay decides it.
    _results(page, 1, draw_first=True)
    page.click("#preview-link")
    _flash(page, "Round 1 still has ties without a winner (P01 v P16)")
    expect(page.locator("#publish-form")).to_have_count(0)
    page.click("section[aria-labelledby='round-1-heading'] .tie-game-form button")
    _flash(page, "Scheduled: Winter Cup, round 1, tie 1: replay.")
    _results(page, 1)
    screenshot(page, f"cup-workspace-round1-{width}")

    for number in (2, 3):
        _publish_next(page, number)
        _results(page, number)
    _publish_next(page, 4)
    final_round = page.inner_text("section[aria-labelledby='round-4-heading']")
    assert "P01" in final_round
    assert "P02" in final_round
    assert "P04" in final_round
    assert "P03" in final_round

    # The public bracket before the final: each open tie's chances and the forecast.
    page.goto(
        live_server.url + reverse("pages:competition_bracket", args=[league.slug, "winter-cup"])
    )
    expect(page.locator("#tie-4-1 .tie__chance")).to_have_count(2)
    expect(page.locator("#cup-forecast")).to_contain_text("Monte Carlo standard error")
    page.locator("#bracket").focus()
    expect(page.locator("#bracket")).to_be_focused()
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.classList.contains('tie__name')")
    if width == 390:
        _no_sideways_scroll(page)
    screenshot(page, f"cup-bracket-before-final-{width}")

    page.go_back()
    page.wait_for_selector("#pair")
    _results(page, 4)
    expect(page.locator("#pair")).to_contain_text("Every planned round is paired.")
    cup = Competition.objects.get(league=league)
    assert cup.rounds_paired == 4
    # 8 + 1 replay + 4 + 2 + final + third place.
    assert Fixture.objects.filter(competition=cup).count() == 17

    page.click("#bracket-link")
    expect(page.locator("#cup-champion")).to_have_text("P01 wins the cup.")
    expect(page.locator("#tie-4-2")).to_contain_text("P04 goes through.")
    expect(page.locator("#tie-1-1")).to_contain_text("Replay: 1–0")
    expect(page.locator("#cup-forecast")).to_have_count(0)
    if width == 390:
        _no_sideways_scroll(page)
        rounds = page.locator(".bracket__round")
        # Stacked: each round below the one before.
        assert rounds.nth(1).bounding_box()["y"] > rounds.nth(0).bounding_box()["y"]
    screenshot(page, f"cup-bracket-final-{width}")
