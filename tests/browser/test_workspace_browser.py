"""An organiser's walk through the workspace in Chromium, from the public site's sign-in.

Sign in from the public page (and land back on it), open the hub, record a result from the
keyboard and read the echo, undo it, record a round of eight from the keyboard, find it at
the top of the event log, create and revoke an API token (checked over real HTTP), export the
results and import them into a new league with byte-identical standings. Every page is
photographed at 1280 and 390 px, and none scrolls sideways on the phone.
"""

from __future__ import annotations

import io
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import requests
from django.core.management import call_command
from django.urls import reverse

from league.models import Event, League
from ratings import services as rating_services
from ratings.models import RatingConfig
from ratings.parameters import PARAMETERS
from tests.browser.conftest import LOCAL_HOSTS, screenshot
from tests.functional.conftest import run_queued_replays

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "pw-organiser-1"  # tests/conftest.py's organiser


def assert_clean(page) -> None:
    assert page.watch.errors == [], f"console errors: {page.watch.errors}"
    assert page.watch.hosts <= LOCAL_HOSTS, f"requests left localhost: {page.watch.hosts}"


def photograph(page, name: str) -> None:
    """Screenshots at 1280 and 390 px; the phone layout never scrolls sideways."""
    page.set_viewport_size({"width": 1280, "height": 900})
    screenshot(page, f"{name}-1280")
    page.set_viewport_size({"width": 390, "height": 844})
    screenshot(page, f"{name}-390")
    overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"{name} scrolls sideways at 390 px by {overflow} px"
    page.set_viewport_size({"width": 1280, "height": 900})


def type_row(page, *cells: str) -> None:
    """Type one spreadsheet row: each cell, then Tab to the next."""
    for cell in cells:
        page.keyboard.type(cell)
        page.keyboard.press("Tab")


def standings_csv(slug: str) -> tuple[str, str]:
    out, history = io.StringIO(), io.StringIO()
    call_command("export_ratings", slug, stdout=out, stderr=io.StringIO())
    call_command("export_ratings", slug, "--history", stdout=history, stderr=io.StringIO())
    return out.getvalue(), history.getvalue()


def test_organiser_walks_through_the_workspace(
    watched_page, live_server, ladder, organiser, tmp_path: Path
):
    page = watched_page
    league = ladder["league"]
    league.sport = "Football"  # a sport with home grounds: the rows have a neutral box
    league.save()
    organiser.is_staff = True
    organiser.save()
    names = [player.display_name for player in ladder["players"]]
    public = live_server.url + reverse("pages:league", args=[league.slug])

    # Sign in from the public page and come back to it, with the hub and sign-out in the header.
    page.goto(public)
    page.click("#sign-in-link")
    page.fill("#id_username", organiser.username)
    page.fill("#id_password", PASSWORD)
    page.click("#sign-in-password")
    page.wait_for_url(public)
    assert "Sign out" in page.inner_text(".site-user"), page.inner_text(".site-user")
    page.click(".league-nav >> text=Organise")
    page.wait_for_selector("h1:has-text('Organise')")
    photograph(page, "workspace-hub")

    # One result from the keyboard: the first field has the focus; Enter saves.
    page.click("text=Record a result")
    page.wait_for_selector("#id_player_a:focus")  # the first field has the focus on arrival
    type_row(page, names[0], "3-1", names[1])
    page.keyboard.press("Enter")
    page.wait_for_selector("#echo")
    echo = page.inner_text("#echo")
    assert f"{names[0]} 3\u20131 {names[1]}: {names[0]} won" in echo
    assert "Played today," in echo
    assert "is being recomputed" in echo
    match = Event.objects.matches().filter(league=league).latest("seq")
    assert (match.player_a.display_name, match.points) == (names[0], "3\u20131")
    photograph(page, "workspace-record-echo")

    # Undo it in one click.
    page.click("#echo button:has-text('Undo')")
    page.wait_for_selector("#echo .badge--void")
    assert Event.objects.filter(league=league, voids=match).exists()

    # A round of eight from the keyboard, saved with Enter, found at the top of the log.
    page.click(".ws-nav >> text=Round")
    page.wait_for_selector("#id_results-0-player_a:focus")  # no click: the keyboard starts there
    pairs = [(names[i], f"{i % 4}-{(i + 1) % 3}", names[i + 4]) for i in range(8)]
    for index, (a, score, b) in enumerate(pairs):
        type_row(page, a, score, b)
        # The row's neutral-ground box is the last Tab stop; Space ticks it (third row).
        if index == 2:
            page.keyboard.press("Space")
        page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    page.wait_for_selector("#echo")
    assert "Recorded: 8 results" in page.inner_text("#echo")
    photograph(page, "workspace-round-echo")
    page.click("#echo >> text=See them in the event log")
    page.wait_for_selector(".event--new")
    # The texts are read once the page has its styles: before, innerText lays the items
    # out inline (spaces where the styled page has line breaks), and two reads taken either
    # side of the stylesheet's arrival differ in whitespace only.
    page.wait_for_load_state("load")

    def texts(selector: str) -> list[str]:
        return [" ".join(text.split()) for text in page.locator(selector).all_inner_texts()]

    top = texts(".event-log > li")[:8]
    new = texts(".event--new")
    assert len(new) == 8
    assert top == new
    stored = list(Event.objects.matches().filter(league=league).order_by("-seq")[:8])
    assert [(e.player_a.display_name, e.player_b.display_name) for e in reversed(stored)] == [
        (a, b) for a, _, b in pairs
    ]
    assert [e.neutral for e in reversed(stored)] == [False, False, True] + [False] * 5
    photograph(page, "workspace-log")

    # A token: created and named here, used over HTTP, revoked, refused.
    page.click(".ws-nav >> text=Tokens")
    page.fill("#id_name", "results bot")
    page.click("button:has-text('Create a token')")
    secret = page.input_value("#new-token")
    photograph(page, "workspace-tokens")
    api = live_server.url + reverse("api:match-list", args=[league.slug])
    headers = {"Authorization": f"Token {secret}"}
    # Signed in by the token, an empty body is a validation error, not "unauthenticated".
    assert requests.post(api, json={}, headers=headers, timeout=10).status_code == 400
    page.click("#tokens button:has-text('Revoke')")
    page.wait_for_selector(".message--success")
    assert "revoked" in page.inner_text("#tokens")
    assert requests.post(api, json={}, headers=headers, timeout=10).status_code == 401

    # Export, and import into a new league with the same parameters: identical standings.
    page.click(".ws-nav >> text=Export")
    photograph(page, "workspace-export")
    with page.expect_download() as download:
        page.click("text=Results")
    exported = tmp_path / "results.csv"
    download.value.save_as(exported)
    copy = League.objects.create(
        name="Copy", slug="copy", time_zone=league.time_zone, start_date=league.start_date
    )
    live = league.publication.config
    rating_services.create_config(copy, **{name: getattr(live, name) for name in PARAMETERS})
    call_command("import_results", "copy", str(exported), "--create-players", stdout=io.StringIO())
    run_queued_replays(league)
    run_queued_replays(copy)
    assert RatingConfig.objects.filter(league=copy).count() == 1
    original, imported = standings_csv(league.slug), standings_csv("copy")
    assert original[0].count("\n") == 13  # header and twelve players
    assert imported == original
    assert_clean(page)


def test_contradictions_are_refused_in_the_browser(watched_page, live_server, ladder, organiser):
    page = watched_page
    league = ladder["league"]
    organiser.is_staff = True
    organiser.save()
    names = [player.display_name for player in ladder["players"]]
    before = Event.objects.filter(league=league).count()
    page.goto(live_server.url + reverse("admin:login"))
    page.fill("#id_username", organiser.username)
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    page.wait_for_selector("#content")

    # The workspace's one box cannot contradict itself; what it cannot read is refused.
    page.goto(live_server.url + reverse("workspace:record", args=[league.slug]))
    page.wait_for_selector("#id_player_a:focus")
    type_row(page, names[0], "3-", names[1])
    page.keyboard.press("Enter")
    page.wait_for_selector(".field--error")
    assert "Type the score as the first player's points" in page.inner_text("main")
    photograph(page, "workspace-record-refused")
    assert Event.objects.filter(league=league).count() == before
    assert_clean(page)


def test_configuration_page_refreshes_its_live_panel_by_itself(
    watched_page, live_server, ladder, organiser
):
    from unittest import mock

    from django.test import Client

    page = watched_page
    league = ladder["league"]
    client = Client()
    client.force_login(organiser)
    page.context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}]
    )
    # No worker picks the new version's replay up until the test runs it.
    before = league.publication.config.version
    with mock.patch.object(rating_services, "send_replay"):
        new = rating_services.create_config(league, tau=0.9, period_anchor=league.start_date)
    assert new.version == before + 1
    config_path = reverse("workspace:config", args=[league.slug])
    polls: list[str] = []

    def is_poll(request) -> bool:
        """An htmx request of the configuration page for itself."""
        return (
            request.headers.get("hx-request") == "true"
            and urlsplit(request.url).path == config_path
        )

    page.on("request", lambda request: is_poll(request) and polls.append(request.url))
    page.goto(live_server.url + config_path)
    assert "Waiting for a worker to start" in page.inner_text("#config-live")
    assert "0 of 0" not in page.inner_text("main")
    # While the replay is queued the banner asks the page itself again every two seconds and
    # takes the banner and the live panel out of the answer.
    assert page.get_attribute("#config-live", "hx-trigger") == "every 2s"
    assert page.get_attribute("#config-live", "hx-get") == config_path
    assert page.get_attribute("#config-live", "hx-select") == "#config-live"
    assert page.get_attribute("#config-live", "hx-select-oob") == "#config-live-panel"
    live_version = "#config-live-panel .params-list dd"
    assert page.inner_text(live_version).startswith(f"{before},")
    photograph(page, "workspace-config-waiting")
    page.evaluate("() => { window.notReloaded = true; }")
    page.wait_for_function("() => window.htmx !== undefined")
    with page.expect_request(is_poll):
        pass  # a poll while the replay waits, and the page stays as it was
    assert "Waiting for a worker to start" in page.inner_text("#config-live")
    run_queued_replays(league)
    # Without a reload: the panel shows the new version live and the banner the finished replay.
    page.wait_for_function(
        f"() => document.querySelector('{live_version}').textContent.trim()"
        f".startsWith('{new.version},')",
        timeout=15_000,
    )
    page.wait_for_selector("#config-live >> text=Last replay")
    assert page.evaluate("() => window.notReloaded") is True
    # The finished replay's banner no longer polls: no trigger, and no request after it.
    assert page.get_attribute("#config-live", "hx-trigger") is None
    assert page.get_attribute("#config-live", "hx-get") is None
    asked = len(polls)
    page.wait_for_timeout(3_000)
    assert len(polls) == asked, f"{len(polls) - asked} polls after the replay finished"
    assert_clean(page)
