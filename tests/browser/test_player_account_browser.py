"""A player claims an invitation from a link and signs in by an e-mailed link, in Chromium
at 1280 and at 390 px.

The organiser makes an invitation to claim "Ana Ferreira"; Pat, who has an account but no
password at hand, opens the link, chooses to sign in, asks for a sign-in link from the
keyboard, reads the mail (Django's in-memory outbox: the live server runs in this process
and the mail task runs when the request's transaction commits), follows it, presses the
button, comes back to the invitation, claims the player and finds it on "My account" and
on the standings. No page scrolls sideways; each is photographed.
"""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache, caches
from django.urls import reverse

from league import services
from league.invitations import create_player_invitation
from league.models import Event, Player
from tests.browser.conftest import LOCAL_HOSTS, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LINK = re.compile(r"(http://\S+/accounts/sign-in/link/\S+/)")


def check(page, name: str, width: int) -> None:
    """No console errors, no request leaving the machine, no sideways scroll; a screenshot."""
    page.wait_for_load_state("load")
    assert page.watch.errors == [], f"console errors: {page.watch.errors}"
    assert page.watch.hosts <= LOCAL_HOSTS, f"requests left localhost: {page.watch.hosts}"
    overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"{name} scrolls sideways at {width} px by {overflow} px"
    screenshot(page, f"player-account-{name}-{width}")


@pytest.fixture
def fresh_caches():
    cache.clear()
    caches["pages"].clear()
    yield
    cache.clear()
    caches["pages"].clear()


@pytest.mark.parametrize("width", [1280, 390])
def test_a_player_claims_an_invitation_and_signs_in_by_mailed_link(
    watched_page, live_server, league, organiser, mailoutbox, width, fresh_caches
):
    ana = services.register_player(league, "Ana Ferreira", recorded_by=organiser)
    services.register_player(league, "Bruno Silva", recorded_by=organiser)
    pat = get_user_model().objects.create_user("pat", email="pat@example.org", password=None)
    _invitation, token = create_player_invitation(league, ana, organiser)
    invitation = live_server.url + reverse("workspace:invitation", args=[token])

    page = watched_page
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(invitation)
    page.wait_for_selector("h1:has-text('Play in Riverside Chess Club')")
    check(page, "invitation-anonymous", width)
    page.click("#sign-in-to-accept")
    page.wait_for_selector("#link-heading")
    check(page, "sign-in", width)

    # Asked from the keyboard: the address, then Enter.
    page.focus("#id_email")
    page.keyboard.type("pat@example.org")
    page.keyboard.press("Enter")
    page.wait_for_selector("#link-sent")
    check(page, "link-sent", width)
    (message,) = mailoutbox
    assert message.to == ["pat@example.org"]
    (link,) = LINK.findall(message.body)

    page.goto(link)
    page.wait_for_selector("#use-link")
    check(page, "link", width)
    page.keyboard.press("Tab")  # the skip link first, as on every page
    page.focus("#use-link")
    page.keyboard.press("Enter")
    page.wait_for_selector("#accept-invitation")  # back at the invitation, signed in
    assert "pat" in page.inner_text(".site-user")
    check(page, "invitation-signed-in", width)
    page.click("#accept-invitation")
    page.wait_for_selector("#my-players")
    assert "Ana Ferreira" in page.inner_text("#my-players")
    check(page, "my-account", width)
    assert Player.objects.get(pk=ana.pk).account == pat
    assert Event.objects.filter(kind="player_claimed", player=ana, account=pat).count() == 1

    # The link worked once: opening it again and pressing the button says so.
    page.goto(link)
    page.click("#use-link")
    page.wait_for_selector("#refusal")
    # The browser logs the answer's status (410 Gone), the one error this step expects.
    assert page.watch.errors == [
        "Failed to load resource: the server responded with a status of 410 (Gone)"
    ]
    page.watch.errors.clear()
    check(page, "link-used", width)

    # From "My account" to the player's own page.
    page.goto(live_server.url + reverse("accounts:home"))
    page.click("#my-players >> text=Ana Ferreira")
    page.wait_for_selector("h1:has-text('Ana Ferreira')")
    check(page, "player", width)
