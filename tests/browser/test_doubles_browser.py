"""A doubles league end to end in Chromium: created, filled from CSV, replayed, exported.

Its individual standings show on the league page and over the API; the match list and a
player's partners and opponents show at 1280 and 390 px without sideways scrolling.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import itertools
import json
import random
from urllib.parse import urlsplit

import pytest
from django.core.management import call_command
from django.urls import reverse

from league.models import League
from ratings.models import Standing
from tests.browser.conftest import LOCAL_HOSTS, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NAMES = [
    "Ana Silva", "Ben Okafor", "Cai Wong", "Dee Patel",
    "Eva Novak", "Femi Adeyemi", "Gus Lindqvist", "Hana Sato",
]  # fmt: skip


def doubles_csv() -> str:
    """Eight weeks of doubles with rotating partners; a player's strength is their index."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["date", "side_a", "side_b", "score_a", "points", "id"])
    first = dt.date(2024, 1, 6)
    shuffle = random.Random(14)
    number = itertools.count(1)
    for week in range(8):
        day = first + dt.timedelta(days=7 * week)
        order = list(NAMES)
        shuffle.shuffle(order)
        for i in range(0, 8, 4):
            a1, b1, a2, b2 = order[i], order[i + 1], order[i + 2], order[i + 3]
            strength_a = NAMES.index(a1) + NAMES.index(a2)
            strength_b = NAMES.index(b1) + NAMES.index(b2)
            # Lower index = stronger.
            score = "1" if strength_a < strength_b else "0" if strength_a > strength_b else "0.5"
            writer.writerow(
                [day.isoformat(), f"{a1}; {a2}", f"{b1}; {b2}", score, "", f"w{next(number)}"]
            )
    return out.getvalue()


def _no_sideways_scroll(page) -> None:
    assert page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth") <= 0


def test_a_doubles_league_from_csv_shows_individual_standings(
    chromium_browser, live_server, tmp_path
):
    out = io.StringIO()
    call_command(
        "create_league", "padel", "--name", "Padel Club", "--format", "doubles",
        "--start-date", "2024-01-01", "--period-days", "7", "--period-anchor", "2024-01-01",
        stdout=out,
    )  # fmt: skip
    path = tmp_path / "doubles.csv"
    text = doubles_csv()
    path.write_text(text, encoding="utf-8")
    rows = list(csv.DictReader(io.StringIO(text)))
    call_command("import_results", "padel", str(path), "--create-players", stdout=out)
    call_command("replay", "padel", "--sync", stdout=out)
    league = League.objects.get(slug="padel")
    standings = Standing.objects.filter(config__league=league).order_by("-rating")
    assert standings.count() == 8
    assert all(row.games == 8 for row in standings)
    exported = tmp_path / "standings.csv"
    call_command("export_ratings", "padel", "--output", str(exported), stdout=out)
    exported_names = [row["player"] for row in csv.DictReader(exported.open(encoding="utf-8"))]
    best = [row.player.display_name for row in standings]
    assert exported_names == best
    # The strongest player (index 0) leads, the weakest trails.
    assert best[0] == "Ana Silva"
    assert best[-1] == "Hana Sato"

    for width, height, label in ((1280, 900, "desktop"), (390, 844, "phone")):
        context = chromium_browser.new_context(viewport={"width": width, "height": height})
        page = context.new_page()
        errors: list[str] = []
        hosts: set[str] = set()
        page.on("console", lambda m, errors=errors: m.type == "error" and errors.append(m.text))
        page.on("request", lambda r, hosts=hosts: hosts.add(urlsplit(r.url).hostname or r.url))

        # Eight games each: still provisional under the default eligibility rules, so the
        # leaderboard and the API are asked to rank everyone.
        page.goto(
            live_server.url
            + reverse("pages:league", kwargs={"league_slug": "padel"})
            + "?everyone=on"
        )
        names = page.locator("#leaderboard tbody tr a").all_inner_texts()
        assert names[:8] == best
        _no_sideways_scroll(page)
        screenshot(page, f"doubles-league-{label}")

        page.goto(live_server.url + reverse("pages:matches", kwargs={"league_slug": "padel"}))
        assert page.locator("#matches tbody tr").count() == 16
        assert "Ana Silva & Cai Wong" in page.locator("#matches").inner_text()
        _no_sideways_scroll(page)
        screenshot(page, f"doubles-matches-{label}")

        ana = standings[0].player
        page.goto(
            live_server.url
            + reverse("pages:player", kwargs={"league_slug": "padel", "player_slug": ana.slug})
        )
        assert page.locator("#team-results tbody tr").count() == 8
        sides = [
            (row["side_a"].split("; "), row["side_b"].split("; "))
            for row in rows
            if ana.display_name in row["side_a"] + row["side_b"]
        ]
        partners = {n for a, b in sides for n in (a if ana.display_name in a else b)}
        rivals = {n for a, b in sides for n in (b if ana.display_name in a else a)}
        shown = page.locator("#partners tbody tr a").all_inner_texts()
        assert sorted(shown) == sorted(partners - {ana.display_name})
        shown = page.locator("#team-opponents tbody tr a").all_inner_texts()
        assert sorted(shown) == sorted(rivals)
        _no_sideways_scroll(page)
        screenshot(page, f"doubles-player-{label}")

        response = page.request.get(
            live_server.url
            + reverse("api:standings", kwargs={"league_slug": "padel"})
            + "?everyone=true"
        )
        assert response.status == 200
        body = json.loads(response.text())
        assert [row["player_id"] for row in body["results"]] == [s.player_id for s in standings]
        assert errors == []
        assert hosts <= LOCAL_HOSTS
        context.close()


def test_an_organiser_records_and_corrects_a_doubles_match_on_the_workspace_from_a_phone(
    watched_page, live_server, league, organiser
):
    """At 390 px: the team match form from the keyboard, the echo, the log's correction."""
    from league import services
    from league.event_store import fact_of
    from league.models import Event, MatchFormat

    league.match_format = MatchFormat.FIXED
    league.side_size = 2
    league.save()
    players = {name: services.register_player(league, name) for name in NAMES[:5]}
    page = watched_page
    page.set_viewport_size({"width": 390, "height": 844})
    team_page = live_server.url + reverse("workspace:team_match", args=[league.slug])
    organiser.is_staff = True
    organiser.save()
    # Sent to sign in, and back to the page.
    page.goto(team_page)
    page.fill("#id_username", organiser.username)
    page.fill("#id_password", "pw-organiser-1")
    page.click("#sign-in-password")
    page.wait_for_url(team_page)
    page.wait_for_load_state("load")
    # The first player's box has the focus: four names from the keyboard, then the score
    # box, as on the one-vs-one page (side A's games first: the result follows from them).
    for name in NAMES[:4]:
        page.keyboard.type(name)
        page.keyboard.press("Tab")
    page.keyboard.type("0-2")
    _no_sideways_scroll(page)
    screenshot(page, "workspace-team-match-390")
    with page.expect_navigation():
        page.click("form.entry-form button[type=submit]")
    echo = page.inner_text("#echo")
    assert "Ana Silva & Ben Okafor 0\u20132 Cai Wong & Dee Patel: Cai Wong & Dee Patel won" in echo
    _no_sideways_scroll(page)
    match = Event.objects.side_matches().get(league=league)

    # Eva played for Ben: corrected from the event log, the old match voided, the new linked.
    page.click("text=See it in the event log")
    with page.expect_navigation():
        page.click(f"text=Correct #{match.seq}")
    page.fill("#id_side_0_1", "Eva Novak")
    page.fill("#id_reason", "Eva played, not Ben")
    _no_sideways_scroll(page)
    screenshot(page, "workspace-team-correct-390")
    with page.expect_navigation():
        page.click("form.entry-form button[type=submit]")
    corrected = Event.objects.get(replaces=match)
    sides = fact_of(corrected).sides
    assert sides == (
        (players["Ana Silva"].pk, players["Eva Novak"].pk),
        (players["Cai Wong"].pk, players["Dee Patel"].pk),
    )
    assert f"Match #{match.seq} corrected" in page.inner_text("body")
    assert Event.objects.get(voids=match).reason == "Eva played, not Ben"
    _no_sideways_scroll(page)
    assert page.watch.errors == [], page.watch.errors
    assert page.watch.hosts <= LOCAL_HOSTS


def test_an_organiser_records_a_round_of_doubles_from_a_phone(
    watched_page, live_server, league, organiser
):
    """At 390 px: two blocks of a round from the keyboard, the echo, nothing off-screen."""
    from django.test import Client

    from league import services
    from league.models import Event, MatchFormat

    league.match_format = MatchFormat.FIXED
    league.side_size = 2
    league.save()
    for name in NAMES:
        services.register_player(league, name)
    client = Client()
    client.force_login(organiser)
    page = watched_page
    page.context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}]
    )
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(live_server.url + reverse("workspace:team_round", args=[league.slug]))
    page.wait_for_selector("#id_results-0-side_0_0:focus")
    for block in range(2):
        for name in NAMES[4 * block : 4 * block + 4]:
            page.keyboard.type(name)
            page.keyboard.press("Tab")
        # The one score box: side A's points first, the result follows from them.
        page.fill(f"#id_results-{block}-score", "21-17")
        page.focus(f"#id_results-{block + 1}-side_0_0")
    _no_sideways_scroll(page)
    screenshot(page, "workspace-team-round-390")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    echo = page.inner_text("#echo")
    assert "Recorded: 2 results" in echo
    assert "Ana Silva & Ben Okafor 21–17 Cai Wong & Dee Patel: Ana Silva & Ben Okafor won" in echo
    assert Event.objects.side_matches().filter(league=league).count() == 2
    _no_sideways_scroll(page)
    assert page.watch.errors == [], page.watch.errors
    assert page.watch.hosts <= LOCAL_HOSTS
