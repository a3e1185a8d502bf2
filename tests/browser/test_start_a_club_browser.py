"""A club starts from an empty database in Chromium, at 1280 and at 390 px.

Ann creates an account from the home page (from the keyboard), starts a results-only chess
league, reads the hub's checklist, creates a co-organiser invitation and copies its link;
Sam opens the link in another browser, creates an account from it, accepts, registers six
players and records the first evening's results as a round; both see a ranked leaderboard
with every provisional rating marked P. No page scrolls sideways; each is photographed.
"""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache, caches
from django.urls import reverse

from league.models import Event, Invitation, League
from ratings.models import RatingConfig
from tests.browser.conftest import LOCAL_HOSTS, screenshot
from tests.functional.conftest import run_queued_replays

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORDS = {"ann": "riverside-Knight-42", "sam": "secretary-Rook-77"}
PLAYERS = ["Ana Ferreira", "Bartholomew Okonkwo-Smith", "Chiara Bianchi", "Dmitri Volkov",
           "Eun-ji Park", "Fionnuala Ní Bhriain"]  # fmt: skip
#: The first evening: (first player, result, second player), from the first player's side.
EVENING = [(0, "1-0", 1), (2, "½-½", 3), (4, "0-1", 5), (1, "1-0", 2), (3, "1-0", 4),
           (5, "0-1", 0), (0, "1-0", 3)]  # fmt: skip


def check(page, name: str, width: int) -> None:
    """No console errors, no request leaving the machine, no sideways scroll; a screenshot."""
    page.wait_for_load_state("load")
    assert page.watch.errors == [], f"console errors: {page.watch.errors}"
    assert page.watch.hosts <= LOCAL_HOSTS, f"requests left localhost: {page.watch.hosts}"
    overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"{name} scrolls sideways at {width} px by {overflow} px"
    screenshot(page, f"start-club-{name}-{width}")


def sign_up_from_the_keyboard(page, username: str) -> None:
    """The sign-up form typed as a person would: the name box has the focus, Tab moves on."""
    page.wait_for_selector("#id_username:focus")
    page.keyboard.type(username)
    page.keyboard.press("Tab")  # the optional e-mail address
    page.keyboard.press("Tab")
    page.keyboard.type(PASSWORDS[username])
    page.keyboard.press("Tab")
    page.keyboard.type(PASSWORDS[username])
    page.keyboard.press("Enter")


@pytest.fixture
def fresh_caches():
    cache.clear()
    caches["pages"].clear()
    yield
    cache.clear()
    caches["pages"].clear()


@pytest.mark.parametrize("width", [1280, 390])
def test_a_club_starts_from_an_empty_database(
    chromium_browser, watched_page, live_server, width, fresh_caches
):
    assert not get_user_model().objects.exists()
    assert not League.objects.exists()
    page = watched_page
    page.set_viewport_size({"width": width, "height": 900})

    # Ann: an account from the home page, then a league.
    page.goto(live_server.url + reverse("pages:home"))
    check(page, "home", width)
    page.click("text=Create an account and start a league")
    sign_up_from_the_keyboard(page, "ann")
    page.wait_for_selector("h1:has-text('Start a league')")
    check(page, "new-league", width)
    page.fill("#id_name", "Riverside Chess")
    page.fill("#id_slug", "riverside-chess")
    page.fill("#id_sport", "Chess")
    page.check("#id_results_only")
    page.select_option("#id_time_zone", "Europe/London")
    page.click("button:has-text('Start the league')")
    page.wait_for_selector("#checklist")
    league = League.objects.get(slug="riverside-chess")
    assert [u.username for u in league.organisers.all()] == ["ann"]
    assert RatingConfig.objects.filter(league=league).count() == 1
    checklist = page.inner_text("#checklist")
    assert "No players yet." in checklist
    assert "No result recorded yet." in checklist
    assert "The ratings have a configuration." in checklist
    check(page, "hub-new", width)

    # Ann invites Sam: the link is shown once, only its digest is stored.
    page.click(".hub-sections >> text=Organisers")
    page.fill("#id_label", "Sam, the club secretary")
    page.click("button:has-text('Create an invitation link')")
    page.wait_for_selector("#invitation-link")
    link = page.input_value("#invitation-link")
    token = link.rstrip("/").rsplit("/", 1)[1]
    assert Invitation.objects.get(league=league).digest != token
    assert page.locator("#invitations button:has-text('Revoke')").is_visible()
    check(page, "organisers", width)

    # Sam, in another browser: opens the link, creates an account from it, accepts.
    other = chromium_browser.new_context(viewport={"width": width, "height": 900})
    try:
        sam = other.new_page()
        sam.watch = page.watch
        sam.goto(link)
        sam.wait_for_selector("h1:has-text('Organise Riverside Chess')")
        sam.click("#sign-up-to-accept")
        sign_up_from_the_keyboard(sam, "sam")
        sam.wait_for_selector("#accept-invitation")
        check(sam, "invitation", width)
        sam.click("#accept-invitation")
        sam.wait_for_selector("h1:has-text('Organise')")
        assert league.is_organiser(get_user_model().objects.get(username="sam"))

        # Sam registers the players and records the first evening as a round.
        hub = sam.url
        sam.click(".hub-sections >> text=Players")
        for name in PLAYERS:
            sam.fill("#id_display_name", name)
            sam.press("#id_display_name", "Enter")
            sam.wait_for_selector(f".players-table >> text={name}")
        sam.goto(hub)
        sam.click(".ws-nav >> text=Round")
        sam.wait_for_selector("#id_results-0-player_a")
        for row, (a, result, b) in enumerate(EVENING):
            sam.fill(f"#id_results-{row}-player_a", PLAYERS[a])
            sam.fill(f"#id_results-{row}-score", result)
            sam.fill(f"#id_results-{row}-player_b", PLAYERS[b])
        sam.press(f"#id_results-{len(EVENING) - 1}-player_b", "Enter")
        sam.wait_for_selector("#echo")
        assert f"Recorded: {len(EVENING)} results" in sam.inner_text("#echo")
        assert Event.objects.matches().filter(league=league).count() == len(EVENING)
        check(sam, "round", width)
        sam.goto(hub)
        assert sam.locator("#checklist").count() == 0  # nothing left to do
    finally:
        other.close()

    # The ranked leaderboard: every player ranked, each provisional rating marked P.
    run_queued_replays(league)
    page.goto(live_server.url + reverse("pages:league", args=[league.slug]))
    page.wait_for_selector("#leaderboard tbody tr")
    rows = page.locator("#leaderboard tbody tr")
    assert rows.count() == len(PLAYERS)
    ranks = [int(text) for text in page.locator("#leaderboard tbody .col-rank").all_inner_texts()]
    assert ranks[0] == 1
    assert ranks == sorted(ranks)
    names = page.locator("#leaderboard tbody .col-name a").all_inner_texts()
    assert sorted(names) == sorted(PLAYERS)
    assert page.locator("#leaderboard .badge--prov").count() == len(PLAYERS)
    check(page, "leaderboard", width)
