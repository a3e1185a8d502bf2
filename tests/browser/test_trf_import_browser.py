"""The workspace's TRF import in Chromium, on a laptop and on a phone (1280 and 390 px).

An organiser opens the TRF import from the CSV import page, uploads a file with two bad
lines: the preview names each line and column with its reason, offers no confirmation and
nothing scrolls sideways. The corrected file's preview lists every player with who they are
read as, each cell inside the viewport; confirming lands on the event's page, whose TRF
download is the file itself. Keyboard only: the form is filled and sent with Tab and Enter.
"""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from league import services
from league.models import Competition
from tests.browser.conftest import LOCAL_HOSTS, screenshot
from tests.functional.test_trf import EXPECTED

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

BAD = EXPECTED.replace("   6 w +", "   6 w *").replace("   3 b =", "   3 r =")
CELLS = ("th.import-line", "[data-label='Name in the file']", "td.import-outcome")


def sign_in(page, live_server, user) -> None:
    client = Client()
    client.force_login(user)
    page.context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}]
    )


def upload_by_keyboard(page, text: str) -> None:
    page.set_input_files(
        "#id_file",
        files=[{"name": "spring.trf", "mimeType": "text/plain", "buffer": text.encode()}],
    )
    page.focus("#id_file")
    page.keyboard.press("Tab")  # to the event choice
    assert page.evaluate("document.activeElement.id") == "id_event"
    page.keyboard.press("Tab")  # to the submit button
    page.keyboard.press("Enter")
    page.wait_for_selector("h1:has-text('TRF import preview')")


def assert_inside(page, selector: str) -> None:
    element = page.locator(selector)
    element.scroll_into_view_if_needed()
    box = element.bounding_box()
    assert box is not None, f"{selector} is not rendered"
    right = min(
        page.viewport_size["width"],
        page.evaluate("() => document.querySelector('.import-wrap').getBoundingClientRect().right"),
    )
    assert box["width"] > 0, f"{selector} has no width"
    assert box["x"] >= -0.5, f"{selector} starts left of the viewport"
    assert box["x"] + box["width"] <= right + 0.5, f"{selector} ends past the right edge"


def assert_no_sideways_scroll(page, width: int) -> None:
    overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the page scrolls sideways at {width} px by {overflow} px"


@pytest.mark.parametrize("width", [1280, 390])
def test_an_organiser_previews_and_imports_a_trf_file(
    watched_page, live_server, league, organiser, settings, tmp_path, width
):
    settings.VAR_DIR = tmp_path
    services.register_player(league, "Ann Able")
    page = watched_page
    page.set_viewport_size({"width": width, "height": 900 if width > 400 else 844})
    sign_in(page, live_server, organiser)
    page.goto(live_server.url + reverse("workspace:import", args=[league.slug]))
    page.click("text=Import a chess event from a TRF file")
    page.wait_for_selector("#id_file")

    # Two bad lines: each named with its column and reason; no way to confirm.
    upload_by_keyboard(page, BAD)
    problems = page.inner_text("#trf-problems")
    assert "2 problems in the file: nothing was recorded." in problems
    assert "Line 16, column 97: Unknown colour “r”" in problems
    assert "Line 17, column 99: Unknown result code “*”" in problems
    assert page.locator("button[name=confirm]").count() == 0
    assert_no_sideways_scroll(page, width)
    screenshot(page, f"workspace-trf-preview-bad-{width}")
    assert not Competition.objects.exists()

    # The corrected file: every player with who they are read as, then imported.
    page.click("text=Upload another file")
    page.wait_for_selector("#id_file")
    upload_by_keyboard(page, EXPECTED)
    assert "Would import Spring Swiss (spring-swiss): 7 players (6 new)" in page.inner_text(
        "#trf-summary"
    )
    assert "Ann Able (same name)" in page.inner_text("#line-13 td.import-outcome")
    assert "A new player, Gus Gray" in page.inner_text("#line-19 td.import-outcome")
    for line in (13, 19):
        for cell in CELLS:
            assert_inside(page, f"#line-{line} {cell}")
    assert_no_sideways_scroll(page, width)
    screenshot(page, f"workspace-trf-preview-{width}")
    page.focus("button[name=confirm]")
    page.keyboard.press("Enter")
    page.wait_for_selector("#event-trf")
    assert page.url == live_server.url + reverse(
        "pages:competition", args=[league.slug, "spring-swiss"]
    )
    assert "Imported Spring Swiss (spring-swiss)" in page.inner_text(".messages")
    assert_no_sideways_scroll(page, width)
    with page.expect_download() as download_info:
        page.click("#event-trf a")
    path = download_info.value.path()
    assert path is not None
    with open(path, "rb") as handle:
        assert handle.read() == EXPECTED.encode()
    assert download_info.value.suggested_filename == "riverside-spring-swiss.trf"
    assert page.watch.errors == [], f"console errors: {page.watch.errors}"
    assert page.watch.hosts <= LOCAL_HOSTS, f"requests left localhost: {page.watch.hosts}"
