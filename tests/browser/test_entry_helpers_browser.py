"""The organiser's entry helpers in Chromium at 1280 and 390 px: the token table's Revoke
button on a phone, name completion on a prefix in the name boxes, and a block of rows
pasted from a spreadsheet into the round grid."""

from __future__ import annotations

import pytest
from django.urls import reverse

from league import api_tokens
from league.models import Event
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


NAMES = ["Alice Moreau", "Alan Turing", "Bruno Silva", "Chen Wei", "Dara Okafor", "Élodie Roux"]


@pytest.fixture
def club(league, make_player):
    league.sport = "Table tennis"
    league.save()
    return [make_player(league, name) for name in NAMES]


def value(page, selector: str) -> str:
    return page.locator(selector).input_value()


@pytest.mark.parametrize("viewport", WIDTHS)
def test_a_name_box_completes_a_unique_prefix(
    watched_page, live_server, league, club, organiser, viewport
):
    page = watched_page
    sign_in(page, live_server, organiser)
    page.set_viewport_size(viewport)
    page.goto(live_server.url + reverse("workspace:record", args=[league.slug]))
    page.wait_for_selector("#id_player_a:focus")
    # Two names start "Al": nothing is completed until the prefix is one player's.
    page.keyboard.type("al")
    assert value(page, "#id_player_a") == "al"
    page.keyboard.type("a")
    assert value(page, "#id_player_a") == "Alan Turing"
    page.keyboard.press("Tab")
    page.keyboard.type("3-1")
    page.keyboard.press("Tab")
    # Backspace takes the completion away (the typed part now spelled as the player's
    # name) and does not bring it back.
    page.keyboard.type("bru")
    assert value(page, "#id_player_b") == "Bruno Silva"
    page.keyboard.press("Backspace")
    assert value(page, "#id_player_b") == "Bru"
    page.keyboard.type("n")
    assert value(page, "#id_player_b") == "Bruno Silva"
    # Accents and case are ignored, as the server's lookup ignores them.
    page.fill("#id_player_a", "")
    page.focus("#id_player_a")
    page.keyboard.type("elo")
    assert value(page, "#id_player_a") == "Élodie Roux"
    page.keyboard.press("Enter")
    page.wait_for_selector("#echo")
    assert "Élodie Roux 3\u20131 Bruno Silva" in page.inner_text("#echo")
    no_sideways_scroll(page)
    assert page.watch.errors == []


def paste(page, selector: str, text: str) -> None:
    """A paste of ``text`` into the box ``selector``, as a spreadsheet's copy gives it."""
    page.locator(selector).evaluate(
        """(box, text) => {
          box.focus();
          const data = new DataTransfer();
          data.setData("text/plain", text);
          box.dispatchEvent(new ClipboardEvent("paste", {
            clipboardData: data, bubbles: true, cancelable: true }));
        }""",
        text,
    )


@pytest.mark.parametrize("viewport", WIDTHS)
def test_a_block_of_rows_pasted_from_a_spreadsheet_fills_the_round(
    watched_page, live_server, league, club, organiser, viewport
):
    page = watched_page
    sign_in(page, live_server, organiser)
    page.set_viewport_size(viewport)
    page.goto(live_server.url + reverse("workspace:round", args=[league.slug]))
    page.wait_for_selector("#id_results-0-player_a:focus")
    rows = 12  # the page's rows at first: the block below needs more, which it adds
    assert page.locator("tbody tr").count() == rows
    pairs = [(NAMES[i % 6], NAMES[(i + 1) % 6], f"{i % 4}-{(i + 2) % 3}") for i in range(14)]
    # Copied from a spreadsheet: player A, player B, score, one row a line (Windows ends).
    block = "\r\n".join("\t".join(row) for row in pairs) + "\r\n"
    paste(page, "#id_results-0-player_a", block)
    assert page.locator("tbody tr").count() == 14
    for index, (a, b, score) in enumerate(pairs):
        assert value(page, f"#id_results-{index}-player_a") == a
        assert value(page, f"#id_results-{index}-score") == score
        assert value(page, f"#id_results-{index}-player_b") == b
    assert "14" in page.inner_text("#paste-status")
    no_sideways_scroll(page)
    screenshot(page, f"round-pasted-{viewport['width']}")
    page.click("button:has-text('Save the round')")
    page.wait_for_selector("#echo")
    stored = list(Event.objects.matches().filter(league=league).order_by("seq"))
    assert [(m.player_a.display_name, m.player_b.display_name) for m in stored] == [
        (a, b) for a, b, _ in pairs
    ]
    assert page.watch.errors == []


def test_a_pasted_block_in_grid_order_and_from_a_later_row(
    watched_page, live_server, league, club, organiser
):
    page = watched_page
    sign_in(page, live_server, organiser)
    page.goto(live_server.url + reverse("workspace:round", args=[league.slug]))
    # The grid's own order (A, score, B) is recognised too, and the block starts at the row
    # pasted into; a single cell is an ordinary paste.
    paste(page, "#id_results-2-player_a", "Chen Wei\t1-0\tDara Okafor\nAlan Turing\td\tChen Wei")
    assert [value(page, f"#id_results-2-{name}") for name in ("player_a", "score", "player_b")] == [
        "Chen Wei",
        "1-0",
        "Dara Okafor",
    ]
    assert value(page, "#id_results-3-score") == "d"
    assert value(page, "#id_results-0-player_a") == ""
    assert page.locator("tbody tr").count() == 12
