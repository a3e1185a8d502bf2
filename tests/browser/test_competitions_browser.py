"""An organiser runs a five-player Swiss event over three rounds in a real browser, at
1280 and 390 px: entries, a pairing-allocated bye, a requested bye, a forfeit and a
withdrawal; results typed and sent from the keyboard; the public event page, its table and
the printable pairing list follow, and no page scrolls sideways on a phone."""

from __future__ import annotations

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from league.models import ByeKind, Competition, Event, RoundBye
from tests.browser.conftest import enter_and_wait, screenshot, send_and_wait, wait_for_message
from tests.browser.test_fixtures_browser import _no_sideways_scroll, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NAMES = ("Ann", "Bob", "Cem", "Dee", "Eve")


def _flash(page, text: str) -> None:
    wait_for_message(page, text)


def _publish_next(page, number: int) -> None:
    page.click("#preview-link")
    page.wait_for_selector("#publish-form")
    page.click(f"#publish-form button:has-text('Publish round {number}')")
    _flash(page, f"Published round {number}")


def _enter_results(page, number: int, *, forfeit_first: bool = False) -> None:
    """Type each open game's result and send it with Enter (the first by forfeit if asked)."""
    games = page.locator(f"section[aria-labelledby='round-{number}-heading'] li.fixture")
    for index in range(games.count()):
        game = page.locator(f"section[aria-labelledby='round-{number}-heading'] li.fixture").nth(
            index
        )
        if forfeit_first and index == 0:
            game.locator("summary").click()
            game.locator("select[name='winner']").select_option("second")
            forfeit = game.locator("button:has-text('Record forfeit')")
            send_and_wait(page, forfeit.click, "Recorded the forfeit")
            continue
        box = game.locator("input[name='score']")
        box.fill("1-0" if index % 2 == 0 else "0-1")
        enter_and_wait(page, box, "Recorded")


@pytest.mark.parametrize("width", [1280, 390])
def test_organiser_runs_a_five_player_swiss_with_bye_forfeit_and_withdrawal(
    watched_page, live_server, league, make_player, organiser, width
):
    page = watched_page
    page.set_viewport_size({"width": width, "height": 900})
    players = {name: make_player(league, name) for name in NAMES}
    sign_in(page, live_server, organiser)
    page.goto(live_server.url + reverse("workspace:hub", args=[league.slug]))
    page.click('.hub-sections a:has-text("Events")')
    page.fill("#id_name", "Club Swiss")
    page.select_option("#id_format", "swiss")
    page.fill("#id_planned_rounds", "3")
    page.click("#create-competition button[type='submit']")
    _flash(page, "Created Club Swiss.")
    if width == 390:
        _no_sideways_scroll(page)

    for rating, name in zip((2100, 2000, 1900, 1800, 1700), NAMES, strict=True):
        page.select_option("#enter-form select[name='player']", label=name)
        rating_box = page.locator("#enter-form input[name='seed_rating']")
        rating_box.fill(str(rating))
        # The keyboard sends the form.
        enter_and_wait(page, rating_box, f"Entered {name}")

    # The forbidden-pairing form names a bad choice (one player twice) and stores nothing.
    before = Event.objects.filter(league=league).count()
    page.select_option("#forbid-form select[name='players'] >> nth=0", label="Ann")
    page.select_option("#forbid-form select[name='players'] >> nth=1", label="Ann")
    page.click("#forbid-form button[type='submit']")
    _flash(page, "players: Ann is named twice.")
    assert Event.objects.filter(league=league).count() == before
    if width == 390:
        _no_sideways_scroll(page)

    _publish_next(page, 1)
    assert page.locator("section[aria-labelledby='round-1-heading'] li.fixture").count() == 2
    assert "(bye 1)" in page.inner_text("section[aria-labelledby='round-1-heading']")
    _enter_results(page, 1, forfeit_first=True)
    screenshot(page, f"event-workspace-round1-{width}")

    # Cem withdraws from round 2 on; Dee asks for a half-point bye in round 2.
    page.select_option("#withdraw-form select[name='player']", label="Cem")
    page.fill("#withdraw-form input[name='reason']", "Moved away")
    page.click("#withdraw-form button[type='submit']")
    _flash(page, "Withdrew Cem from round 2 on.")
    page.select_option("#bye-form select[name='player']", label="Dee")
    page.select_option("#bye-form select[name='kind']", "requested_half")
    page.click("#bye-form button[type='submit']")
    _flash(page, "Dee:")

    _publish_next(page, 2)
    round_two = page.inner_text("section[aria-labelledby='round-2-heading']")
    assert "Cem" not in round_two
    assert "Dee (bye ½)" in round_two
    _enter_results(page, 2)

    # A bye asked for a round already paired is refused with the reason, nothing stored.
    before = Event.objects.filter(league=league).count()
    page.select_option("#bye-form select[name='player']", label="Ann")
    page.fill("#bye-form input[name='round_number']", "2")
    page.click("#bye-form button[type='submit']")
    _flash(page, "must be requested before its round is paired")
    assert Event.objects.filter(league=league).count() == before

    _publish_next(page, 3)
    _enter_results(page, 3)
    assert "Every planned round is paired." in page.inner_text("#pair")
    if width == 390:
        _no_sideways_scroll(page)
    screenshot(page, f"event-workspace-done-{width}")

    competition = Competition.objects.get(league=league)
    assert competition.rounds_paired == 3
    kinds = set(RoundBye.objects.filter(competition=competition).values_list("kind", flat=True))
    assert kinds == {ByeKind.PAIRING_ALLOCATED, ByeKind.REQUESTED_HALF}
    assert Event.objects.filter(kind=Event.Kind.FORFEIT_RECORDED).count() == 1
    assert competition.entrants.get(player=players["Cem"]).withdrawn_from_round == 2

    # The public page: the table, the forfeit and the withdrawal; the printable list.
    page.goto(live_server.url + competition.get_absolute_url())
    # The tie-break standings say who withdrew; the round-by-round table shows the forfeit
    # (+) and the requested half-point bye.
    assert "withdrew from round 2" in page.inner_text("#event-standings")
    rounds = page.inner_text("#round-table")
    assert "+" in rounds
    assert "bye ½" in rounds
    page.click("#event-table-print a")
    page.wait_for_selector("#event-standings")
    page.go_back()
    if width == 390:
        _no_sideways_scroll(page)
    screenshot(page, f"event-public-{width}")
    page.click("text=Printable pairing list >> nth=0")
    page.wait_for_selector("h1:has-text('round 3')")
    page.emulate_media(media="print")
    # Waits for the style recalculation (an immediate is_visible once raced it at 390 px).
    expect(page.locator(".site-header")).to_be_hidden()
    page.emulate_media(media="screen")
    if width == 390:
        _no_sideways_scroll(page)
    assert page.watch.errors == []
