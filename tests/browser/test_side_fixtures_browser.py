"""An organiser schedules a doubles fixture and records its result from the fixture in a real
browser, at 1280 and 390 px: a player on both sides refused with the field named, the
fixture scheduled from the keyboard, the result page filled in with its sides, the fixture
played; no page scrolls sideways on a phone."""

from __future__ import annotations

import pytest
from django.urls import reverse

from league.models import Event, Fixture, MatchFormat
from tests.browser.conftest import screenshot
from tests.browser.test_fixtures_browser import _no_sideways_scroll, sign_in
from web.workspace.dates import league_today

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("width", [1280, 390])
def test_organiser_schedules_a_doubles_fixture_and_records_it(
    watched_page, live_server, league, make_player, organiser, width
):
    league.match_format = MatchFormat.FIXED
    league.side_size = 2
    league.save()
    for name in ("Ana", "Ben", "Cai", "Dee"):
        make_player(league, name)
    page = watched_page
    page.set_viewport_size({"width": width, "height": 900})
    sign_in(page, live_server, organiser)
    page.goto(live_server.url + reverse("workspace:fixtures", args=[league.slug]))
    page.click("text=Fixtures with sides (doubles, teams)")

    today = league_today(league)
    for slot, name in (("side_0_0", "Ana"), ("side_0_1", "Ben"), ("side_1_0", "Ana")):
        page.fill(f"#id_{slot}", name)
    page.fill("#id_side_1_1", "Dee")
    page.fill("#id_scheduled_at", f"{today.isoformat()}T00:00")
    page.press("#id_label", "Enter")  # the keyboard sends the form
    page.wait_for_selector("#side-fixture-form .form-errors[role='alert']")
    assert "Ana is on side A and side B" in page.inner_text("#side-fixture-form")
    assert not Fixture.objects.exists()
    if width == 390:
        _no_sideways_scroll(page)
    screenshot(page, f"side-fixture-refused-{width}")

    page.fill("#id_side_1_0", "Cai")
    page.fill("#id_scheduled_at", f"{today.isoformat()}T00:00")
    page.press("#id_label", "Enter")
    page.wait_for_selector(".messages >> text=Scheduled Ana & Ben v Cai & Dee.")
    fixture = Fixture.objects.get()
    assert "Ana & Ben v Cai & Dee" in page.inner_text("#open-fixtures")
    if width == 390:
        _no_sideways_scroll(page)
    screenshot(page, f"side-fixture-open-{width}")

    page.click(f"#open-fixtures [data-fixture='{fixture.pk}'] a.fixture__record")
    assert page.input_value("#id_side_0_1") == "Ben"
    assert page.input_value("#id_side_1_0") == "Cai"
    assert page.input_value("#id_played_on") == today.isoformat()
    page.fill("#id_score", "21-15")
    page.press("#id_score", "Enter")
    page.wait_for_selector("#echo")
    match = Event.objects.get(kind=Event.Kind.SIDE_MATCH_RECORDED)
    assert match.fixture_id == fixture.pk
    if width == 390:
        _no_sideways_scroll(page)

    page.goto(live_server.url + reverse("workspace:fixtures", args=[league.slug]))
    assert "No fixtures to be played." in page.inner_text("#open-heading + *")
    public = live_server.url + reverse("pages:fixtures", args=[league.slug])
    page.goto(public)
    assert "No upcoming fixtures." in page.inner_text("main")
    assert page.watch.errors == []
