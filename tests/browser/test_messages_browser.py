"""The messages' pages in Chromium, at 1280 px and on a 390 px phone, driven by the keyboard:
a player chooses what they receive, unsubscribes from a mail's link, and an organiser sets
the league's webhook and sends a test that reaches a real local receiver."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from notifications.models import Topic, Webhook
from notifications.preferences import unsubscribe_path, wants
from tests.browser.conftest import screenshot
from tests.messages_support import holder, http_receiver

pytestmark = pytest.mark.browser

SIZES = {"laptop": {"width": 1280, "height": 900}, "phone": {"width": 390, "height": 844}}


def open_as(chromium_browser, live_server, viewport, user=None):
    phone = viewport["width"] < 500
    context = chromium_browser.new_context(
        viewport=viewport, device_scale_factor=2 if phone else 1, is_mobile=phone, has_touch=phone
    )
    if user is not None:
        client = Client()
        client.force_login(user)
        context.add_cookies(
            [{"name": "sessionid", "value": client.cookies["sessionid"].value,
              "url": live_server.url}]
        )  # fmt: skip
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.errors = errors
    return page


def fits(page, width: int) -> None:
    """The page does not scroll sideways (a phone would zoom out to show it)."""
    assert page.evaluate("() => document.scrollingElement.scrollWidth") <= width


@pytest.mark.parametrize("size", SIZES, ids=SIZES)
def test_a_player_chooses_by_keyboard_and_unsubscribes_from_a_link(
    chromium_browser, live_server, league, size
):
    viewport = SIZES[size]
    ann = holder(league, "Ann Archer", "ann")
    page = open_as(chromium_browser, live_server, viewport, ann.account)
    page.goto(f"{live_server.url}/accounts/notifications/")
    fits(page, viewport["width"])
    digest = page.locator("#id_all_digest")
    digest.focus()
    page.keyboard.press("Space")
    fixture = page.locator(f"#id_league_{league.pk}_fixture")
    fixture.focus()
    fixture.select_option("off")
    page.locator("#mail-preferences button[type=submit]").focus()
    page.keyboard.press("Enter")
    page.wait_for_selector(".message--success")
    screenshot(page, f"messages-preferences-{size}")
    assert wants(ann.account_id, None, Topic.DIGEST)
    assert not wants(ann.account_id, league, Topic.FIXTURE)
    assert page.locator(f"#id_league_{league.pk}_fixture").input_value() == "off"

    anonymous = open_as(chromium_browser, live_server, viewport)
    anonymous.goto(live_server.url + unsubscribe_path(ann.account_id, Topic.RESULT, league.pk))
    fits(anonymous, viewport["width"])
    anonymous.locator("#unsubscribe-button").focus()
    anonymous.keyboard.press("Enter")
    anonymous.wait_for_selector("#unsubscribed")
    assert "Riverside Chess Club" in anonymous.inner_text("#unsubscribed")
    assert not wants(ann.account_id, league, Topic.RESULT)
    assert page.errors == anonymous.errors == []


@pytest.mark.parametrize("size", SIZES, ids=SIZES)
def test_an_organiser_sets_the_webhook_and_a_test_reaches_the_receiver(
    chromium_browser, live_server, league, organiser, size
):
    viewport = SIZES[size]
    page = open_as(chromium_browser, live_server, viewport, organiser)
    with http_receiver() as receiver:
        page.goto(f"{live_server.url}/{league.slug}/organise/webhook/")
        fits(page, viewport["width"])
        page.locator("#id_url").focus()
        page.keyboard.type(receiver.url)
        page.keyboard.press("Enter")  # submits the form
        page.wait_for_selector("#new-secret")
        secret = page.locator("#new-secret").input_value()
        assert Webhook.objects.get(league=league).secret == secret
        page.locator("#send-test").focus()
        page.keyboard.press("Enter")
        page.wait_for_selector(".message--success")
        page.reload()
        screenshot(page, f"messages-webhook-{size}")
        assert "HTTP 200" in page.inner_text("#deliveries")
        fits(page, viewport["width"])
    (call,) = receiver.calls
    assert json.loads(call.body)["kind"] == "test"
    assert page.errors == []
