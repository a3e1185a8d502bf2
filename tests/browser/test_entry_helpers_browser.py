"""The organiser's entry helpers in Chromium at 1280 and 390 px: the token table's Revoke
button on a phone, name completion on a prefix in the name boxes, and a block of rows
pasted from a spreadsheet into the round grid."""

from __future__ import annotations

import pytest
from django.urls import reverse

from league import api_tokens
from tests.browser.conftest import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "pw-organiser-1"  # tests/conftest.py's organiser
PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1280, "height": 900}
WIDTHS = [pytest.param(LAPTOP, id="1280"), pytest.param(PHONE, id="390")]

# Whether an element lies wholly inside the viewport (and is not clipped by a scroller).
INSIDE = """
(element) => {
  const rect = element.getBoundingClientRect();
  let left = 0, right = window.innerWidth;
  for (let box = element.parentElement; box && box !== document.body; box = box.parentElement) {
    if (getComputedStyle(box).overflowX === "visible") continue;
    const r = box.getBoundingClientRect();
    left = Math.max(left, r.left + box.clientLeft);
    right = Math.min(right, r.left + box.clientLeft + box.clientWidth);
  }
  return rect.width > 0 && rect.left >= left - 0.5 && rect.right <= right + 0.5;
}
"""


def sign_in(page, live_server, organiser) -> None:
    organiser.is_staff = True  # the sign-in page is the admin's
    organiser.save()
    page.goto(live_server.url + reverse("admin:login"))
    page.fill("#id_username", organiser.username)
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    page.wait_for_load_state()


def no_sideways_scroll(page) -> None:
    overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the page scrolls sideways by {overflow} px"


def test_the_revoke_button_is_on_screen_on_a_phone(watched_page, live_server, league, organiser):
    page = watched_page
    for name in ("Club website results widget (Saint Vincent and the Grenadines)", "cli"):
        api_tokens.create_token(organiser, name)
    sign_in(page, live_server, organiser)
    page.set_viewport_size(PHONE)
    page.goto(live_server.url + reverse("workspace:tokens", args=[league.slug]))
    buttons = page.locator("#tokens button:has-text('Revoke')")
    assert buttons.count() == 2
    for index in range(2):
        button = buttons.nth(index)
        button.scroll_into_view_if_needed()
        assert button.evaluate(INSIDE), f"Revoke button {index} is cut off at 390 px"
    no_sideways_scroll(page)
    screenshot(page, "tokens-390")
