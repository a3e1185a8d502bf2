"""The organisers' players page in Chromium: refused names, merge, unmerge and rename."""

from __future__ import annotations

import pytest
from django.urls import reverse

from league.models import Event, Player
from ratings.models import Publication, Standing
from tests.browser.conftest import LOCAL_HOSTS, screenshot
from tests.browser.test_backtest_browser import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _no_sideways_scroll(page) -> None:
    assert page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth") <= 0


def _standing_games(league) -> dict[str, int]:
    config = Publication.objects.get(league=league).config
    return dict(Standing.objects.filter(config=config).values_list("player__display_name", "games"))


def test_organiser_refuses_bad_names_merges_unmerges_and_renames(
    watched_page, live_server, ladder, organiser
):
    page, league = watched_page, ladder["league"]
    sign_in(page, live_server, organiser)
    page.goto(live_server.url + reverse("workspace:hub", args=[league.slug]))
    # The hub's link to the page (its ranking line also speaks of players).
    page.get_by_role("link", name="Players", exact=True).click()
    page.wait_for_selector("#register-heading")
    assert page.locator("table.players-table tbody tr").count() == 12
    screenshot(page, "workspace-players-1280")

    # Refused names: invisible only, a control character, a duplicate after normalisation.
    events_before = Event.objects.filter(league=league).count()
    for name, message in [
        ("\u200b\u2060", "The name has no visible character"),
        ("Alice\u0007Moreau", "control character (U+0007 at character 6)"),
        ("alice  MORÉAU", "as Alice Moreau"),
    ]:
        page.fill("#id_display_name", name)
        page.press("#id_display_name", "Enter")
        page.wait_for_selector("#id_display_name_error")
        assert message in page.inner_text("#id_display_name_error")
    assert Event.objects.filter(league=league).count() == events_before
    assert Player.objects.filter(league=league).count() == 12
    screenshot(page, "workspace-players-refused")

    before = _standing_games(league)
    goran, ivo = "Goran Petrov", "Ivo Novak"
    assert before[goran] > 0
    assert before[ivo] > 0

    # Merge Goran Petrov into Ivo Novak (they never played each other).
    page.click(f"text={goran}")
    page.wait_for_selector("#merge-heading")
    page.select_option("#id_merge_into", label=ivo)
    page.fill("#id_merge_reason", "one person, two records")
    page.click("form:has(#id_merge_reason) button[type='submit']")
    page.wait_for_selector(".message--success")
    assert f"{goran} is merged into {ivo}" in page.inner_text(".messages")
    merged = _standing_games(league)
    assert goran not in merged
    assert merged[ivo] == before[ivo] + before[goran]

    page.goto(live_server.url + reverse("pages:league", args=[league.slug]))
    assert goran not in page.inner_text("main")
    page.goto(live_server.url + reverse("pages:events", args=[league.slug]))
    first = page.locator(".event-log li").first.inner_text()
    assert f"{goran} merged into {ivo}" in first
    assert "Reason: one person, two records" in first
    page.goto(
        live_server.url
        + reverse("pages:player", args=[league.slug, Player.objects.get(display_name=goran).slug])
    )
    assert f"was merged into {ivo}" in page.inner_text(".merged-note")
    assert page.locator(".summary").count() == 0  # no rating of theirs to misread

    # Unmerge: the standings are as before.
    page.goto(
        live_server.url
        + reverse(
            "workspace:player",
            args=[league.slug, Player.objects.get(display_name=goran).slug],
        )
    )
    page.fill("#id_unmerge_reason", "two brothers after all")
    page.click("form:has(#id_unmerge_reason) button[type='submit']")
    page.wait_for_selector(".message--success")
    assert f"{goran} is unmerged from {ivo}" in page.inner_text(".messages")
    assert _standing_games(league) == before

    # Rename, from the keyboard.
    page.fill("#id_rename_name", "Goran Petrović")
    page.fill("#id_rename_reason", "spelling")
    page.press("#id_rename_reason", "Enter")
    page.wait_for_selector(".message--success")
    assert "Goran Petrov is now called Goran Petrović." in page.inner_text(".messages")
    screenshot(page, "workspace-player-1280")

    page.set_viewport_size({"width": 390, "height": 844})
    page.reload()
    _no_sideways_scroll(page)
    screenshot(page, "workspace-player-390")
    page.goto(live_server.url + reverse("workspace:players", args=[league.slug]))
    _no_sideways_scroll(page)
    screenshot(page, "workspace-players-390")
    page.goto(live_server.url + reverse("pages:events", args=[league.slug]))
    assert "Goran Petrov renamed to Goran Petrović" in page.inner_text(".event-log")
    _no_sideways_scroll(page)

    kinds = list(
        Event.objects.filter(league=league, seq__gt=events_before)
        .order_by("seq")
        .values_list("kind", "recorded_by", "reason")
    )
    assert kinds == [
        ("player_merged", organiser.pk, "one person, two records"),
        ("player_unmerged", organiser.pk, "two brothers after all"),
        ("player_renamed", organiser.pk, "spelling"),
    ]
    # The three refused names were answered 400 (the form again, with its message); the
    # browser logs each as a failed load. Nothing else went wrong.
    refused = "Failed to load resource: the server responded with a status of 400 (Bad Request)"
    assert page.watch.errors == [refused] * 3, f"console errors: {page.watch.errors}"
    assert page.watch.hosts <= LOCAL_HOSTS
