"""Players report and confirm in Chromium: a report at 1280 px, the confirmation on a
390 px phone, the leaderboard showing it; a disputed report reaching the organiser.

The players are held by their accounts (``league.player_accounts``); each signs in with a
session cookie in their own browser context. The buttons are pressed from the keyboard.
"""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from league.models import Event, Report, ReportStatus
from league.player_accounts import claim_player
from tests.browser.conftest import LOCAL_HOSTS, screenshot
from tests.browser.test_backtest_browser import sign_in
from tests.functional.conftest import rank_everyone, rate, run_queued_replays

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}


@pytest.fixture
def players_signed_up(league, organiser, make_player):
    """Ann and Bob, held by their accounts, in a rated league that ranks every rated player."""
    rank_everyone(league)
    rate(league)
    users, players = {}, {}
    for name in ("Ann", "Bob"):
        user = get_user_model().objects.create_user(name.lower(), password="pw-player-1")
        player = make_player(league, f"{name} Archer")
        claim_player(player, user, by=organiser)
        users[name], players[name] = user, player
    return users, players


def _no_sideways_scroll(page) -> None:
    assert page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth") <= 0


def _phone(chromium_browser, live_server, user):
    context = chromium_browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    sign_in(page, live_server, user)
    return context, page, errors


def _report(page, live_server, league, opponent: str, day: str) -> None:
    page.goto(live_server.url + reverse("workspace:my_games", args=[league.slug]))
    page.select_option("#id_opponents", label=opponent)
    page.select_option("#id_colour", value="white")  # the test league plays chess
    page.select_option("#id_score", value="1")  # "I won / we won"
    page.fill("#id_played_at", day)
    page.fill("#id_points", "3-1")
    page.focus("#report-form button[type='submit']")
    page.keyboard.press("Enter")
    page.wait_for_selector(".message--success")


def test_a_player_reports_the_opponent_confirms_on_a_phone_and_the_leaderboard_shows_it(
    watched_page, chromium_browser, live_server, league, players_signed_up
):
    users, _players = players_signed_up
    page = watched_page
    sign_in(page, live_server, users["Ann"])
    _report(page, live_server, league, "Bob Archer", "2024-03-02")
    assert "counts once your opponent confirms" in page.inner_text(".messages")
    report = Report.objects.get()
    assert page.locator(f"#my-report-{report.pk}").is_visible()
    screenshot(page, "my-games-reported-1280")

    context, phone, errors = _phone(chromium_browser, live_server, users["Bob"])
    try:
        phone.goto(live_server.url + reverse("workspace:my_games", args=[league.slug]))
        card = phone.locator(f"#report-{report.pk}")
        assert "Ann Archer 1–0 Bob Archer" in card.inner_text()
        _no_sideways_scroll(phone)
        screenshot(phone, "my-games-confirm-390")
        card.locator("button", has_text="Confirm").focus()
        phone.keyboard.press("Enter")
        phone.wait_for_selector(".message--success")
        assert "Confirmed: the result is recorded." in phone.inner_text(".messages")
        assert phone.locator("#nothing-waiting").is_visible()
        _no_sideways_scroll(phone)
        assert errors == []
    finally:
        context.close()

    assert Report.objects.get().status == ReportStatus.CONFIRMED
    run_queued_replays(league)
    page.goto(live_server.url + reverse("pages:league", args=[league.slug]))
    board = page.inner_text("#leaderboard")
    assert "Ann Archer" in board
    assert "Bob Archer" in board
    page.goto(live_server.url + reverse("pages:events", args=[league.slug]))
    log = page.inner_text("main")
    assert f"Report {report.pk} (Ann Archer 1–0 Bob Archer) confirmed by Bob Archer" in log
    assert page.watch.errors == []
    assert page.watch.hosts <= LOCAL_HOSTS


def test_a_disputed_report_reaches_the_organiser(
    watched_page, chromium_browser, live_server, league, organiser, players_signed_up
):
    users, _players = players_signed_up
    page = watched_page
    sign_in(page, live_server, users["Ann"])
    _report(page, live_server, league, "Bob Archer", "2024-03-09")
    report = Report.objects.get()

    context, phone, errors = _phone(chromium_browser, live_server, users["Bob"])
    try:
        phone.goto(live_server.url + reverse("workspace:my_games", args=[league.slug]))
        card = phone.locator(f"#report-{report.pk}")
        card.locator("summary").click()
        phone.fill(f"#dispute-{report.pk}", "I won 3-1, not Ann")
        card.locator("button", has_text="Send the dispute").focus()
        phone.keyboard.press("Enter")
        phone.wait_for_selector(".message--success")
        assert "the organisers will decide" in phone.inner_text(".messages")
        _no_sideways_scroll(phone)
        assert errors == []
    finally:
        context.close()

    sign_in(page, live_server, organiser)
    page.goto(live_server.url + reverse("workspace:hub", args=[league.slug]))
    page.get_by_role("link", name="Reported results and challenges").click()
    card = page.locator(f"#report-{report.pk}")
    assert "Disputed: I won 3-1, not Ann" in card.inner_text()
    screenshot(page, "reports-queue-1280")
    page.fill(f"#reject-{report.pk}", "Bob's account agrees with the scoresheet")
    card.locator("button", has_text="Reject").focus()
    page.keyboard.press("Enter")
    page.wait_for_selector(".message--success")
    assert page.locator("#queue-empty").is_visible()
    assert Report.objects.get().status == ReportStatus.REJECTED
    assert not Event.objects.filter(league=league).all_matches().exists()
    page.set_viewport_size(PHONE)
    page.reload()
    _no_sideways_scroll(page)
    assert page.watch.errors == []
