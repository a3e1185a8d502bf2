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

        page.goto(live_server.url + reverse("pages:league", kwargs={"league_slug": "padel"}))
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
            live_server.url + reverse("api:standings", kwargs={"league_slug": "padel"})
        )
        assert response.status == 200
        body = json.loads(response.text())
        assert [row["player_id"] for row in body["results"]] == [s.player_id for s in standings]
        assert errors == []
        assert hosts <= LOCAL_HOSTS
        context.close()
