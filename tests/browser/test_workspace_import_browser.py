"""The workspace's CSV import in Chromium, on a laptop and on a phone (1280 and 390 px).

An organiser uploads a file saved by a European spreadsheet (semicolons, day-first dates)
with the demo's longest names and two bad rows: the preview shows each bad row's line, its
message and its key cells (the date and both players) fully inside the viewport at both
widths, and nothing scrolls sideways. The corrected file is then imported, the page ends on
the workspace, and "Undo this import" voids its matches in one step.
"""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from league.models import Event
from tests.browser.conftest import LOCAL_HOSTS, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# The longest names of the demo league (international football).
LONG = ("Saint Vincent and the Grenadines", "United States Virgin Islands")
BAD_FILE = (
    "Date;Player_A;Player_B;Score_A;Note\n"
    f"02/03/2024;{LONG[0]};{LONG[1]};1;friendly, played at home\n"
    f"03/03/2024;{LONG[1]};{LONG[1]};0,5;a player against themselves\n"
    f"31/03/2024;{LONG[0]};Wallis Islands and Futuna;0;an unknown opponent\n"
).encode()
GOOD_FILE = (
    "Date;Player_A;Player_B;Score_A;Note\n"
    f"02/03/2024;{LONG[0]};{LONG[1]};1;friendly, played at home\n"
    f"31/03/2024;{LONG[1]};{LONG[0]};0,5;the return match\n"
).encode()
KEY_CELLS = ("th.import-line", "td.import-outcome", "[data-label='Date']")
KEY_CELLS += ("[data-label='Player_A']", "[data-label='Player_B']")


def sign_in(page, live_server, user) -> None:
    client = Client()
    client.force_login(user)
    page.context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}]
    )


def upload(page, data: bytes) -> None:
    page.set_input_files(
        "#id_file", files=[{"name": "club.csv", "mimeType": "text/csv", "buffer": data}]
    )
    page.click("button:has-text('Upload and preview')")
    page.wait_for_selector("h1:has-text('Import preview')")


def assert_fully_visible(page, selector: str) -> None:
    """The element is inside the viewport's width and not clipped by its scrolling table."""
    element = page.locator(selector)
    element.scroll_into_view_if_needed()
    box = element.bounding_box()
    assert box is not None, f"{selector} is not rendered"
    right = min(
        page.viewport_size["width"],
        page.evaluate("() => document.querySelector('.import-wrap').getBoundingClientRect().right"),
    )
    assert box["width"] > 0, f"{selector} has no width"
    assert box["x"] >= -0.5, f"{selector} starts {-box['x']:.0f} px left of the viewport"
    assert box["x"] + box["width"] <= right + 0.5, (
        f"{selector} ends {box['x'] + box['width'] - right:.0f} px past the right edge"
    )


def assert_no_sideways_scroll(page, width: int) -> None:
    overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the page scrolls sideways at {width} px by {overflow} px"


@pytest.mark.parametrize("width", [1280, 390])
def test_an_organiser_imports_a_spreadsheets_file_and_undoes_it(
    watched_page, live_server, league, organiser, make_player, settings, tmp_path, width
):
    settings.VAR_DIR = tmp_path
    for name in LONG:
        make_player(league, name)
    page = watched_page
    page.set_viewport_size({"width": width, "height": 900 if width > 400 else 844})
    sign_in(page, live_server, organiser)
    page.goto(live_server.url + reverse("workspace:hub", args=[league.slug]))
    page.click("text=Import a CSV file")
    page.wait_for_selector("#id_file")

    # The file with two bad rows: each shown whole, its message beside it.
    upload(page, BAD_FILE)
    assert "semicolons between its cells" in page.inner_text("main")
    assert "31/03/2024 is 2024-03-31" in page.inner_text("#date-order")
    assert page.locator("#import-preview tr.import-error").count() == 2
    assert "cannot play themselves" in page.inner_text("#line-3 td.import-outcome")
    assert "has no player named “Wallis Islands and Futuna”" in page.inner_text("#line-4")
    assert page.inner_text("#line-4 [data-label='Player_B']") == "Wallis Islands and Futuna"
    for line in (3, 4):
        for cell in KEY_CELLS:
            assert_fully_visible(page, f"#line-{line} {cell}")
    assert_no_sideways_scroll(page, width)
    assert page.locator("button[name=confirm]").count() == 0
    screenshot(page, f"workspace-import-preview-{width}")

    # The corrected file: recorded on confirmation, the page ends on the workspace.
    page.click("text=Upload another file")
    upload(page, GOOD_FILE)
    for cell in KEY_CELLS:
        assert_fully_visible(page, f"#line-3 {cell}")
    assert_no_sideways_scroll(page, width)
    page.click("button:has-text('Record 2 results')")
    page.wait_for_selector("#imported")
    assert page.url.startswith(live_server.url + reverse("workspace:import", args=[league.slug]))
    assert "club.csv: 2 results recorded." in page.inner_text(".messages")
    matches = list(Event.objects.matches().filter(league=league))
    assert len(matches) == 2
    assert_no_sideways_scroll(page, width)
    screenshot(page, f"workspace-import-done-{width}")

    # Undone in one step: both matches voided, with the import's name as the reason.
    page.click("#imported button:has-text('Undo this import')")
    page.wait_for_selector(".message--success")
    assert "2 matches voided" in page.inner_text(".messages")
    voids = Event.objects.filter(league=league, voids__in=matches)
    assert (
        sorted(voids.values_list("reason", flat=True))
        == ["Import of club.csv undone by the organiser."] * 2
    )
    assert page.watch.errors == [], f"console errors: {page.watch.errors}"
    assert page.watch.hosts <= LOCAL_HOSTS, f"requests left localhost: {page.watch.hosts}"
