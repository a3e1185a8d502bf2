"""The pages in a real browser: sorting and filtering, the rating chart, no errors, no egress."""

from __future__ import annotations

import re
from unittest import mock

import pytest
from django.urls import reverse

from ratings import services as rating_services
from ratings.models import PlayerPeriod, RatingConfig
from tests.browser.conftest import LOCAL_HOSTS, screenshot
from tests.functional.conftest import run_queued_replays

# These test the pages' mechanics on a small league whose players are all provisional:
# every rated player is ranked (the default rules are tested in test_honest_numbers_browser).
pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("everyone_ranked"),
]


def column_texts(page, css_class: str) -> list[str]:
    return page.locator(f"#leaderboard tbody .{css_class}").all_inner_texts()


def assert_clean(page) -> None:
    assert page.watch.errors == [], f"console errors: {page.watch.errors}"
    assert page.watch.hosts <= LOCAL_HOSTS, f"requests left localhost: {page.watch.hosts}"


def test_leaderboard_sorts_and_filters(watched_page, live_server, ladder):
    page = watched_page
    league = ladder["league"]
    page.goto(live_server.url + reverse("pages:league", kwargs={"league_slug": league.slug}))
    ratings = [int(text) for text in column_texts(page, "col-rating")]
    assert len(ratings) == 12
    assert ratings == sorted(ratings, reverse=True)
    screenshot(page, "league")

    page.click("#leaderboard thead a[data-sort='name']")
    page.wait_for_url(re.compile(r"sort=name"))
    names = column_texts(page, "col-name")
    assert names == sorted(names)
    assert page.get_attribute("#leaderboard th.col-name", "aria-sort") == "ascending"
    page.click("#leaderboard thead a[data-sort='name']")
    page.wait_for_url(re.compile(r"sort=-name"))
    assert column_texts(page, "col-name") == sorted(names, reverse=True)

    page.click("#leaderboard thead a[data-sort='games']")
    page.wait_for_url(re.compile(r"sort=-games"))
    games = [int(text) for text in column_texts(page, "col-games")]
    assert games == sorted(games, reverse=True)

    # The filters are folded until one is in use: the table comes first.
    page.click("summary:has-text('Filters, interval and past standings')")
    page.fill("#id_min_games", "5")
    page.click("form.filters button[type='submit']")
    page.wait_for_url(re.compile(r"min_games=5"))
    games = [int(text) for text in column_texts(page, "col-games")]
    assert len(games) == 6
    assert all(count >= 5 for count in games)

    page.fill("#id_q", "ivo")
    page.click("form.filters button[type='submit']")
    page.wait_for_url(re.compile(r"q=ivo"))
    assert page.locator("#leaderboard").count() == 0
    assert "No players match these filters" in page.inner_text("main")
    assert_clean(page)


def test_player_chart_has_one_point_per_period_and_the_band(watched_page, live_server, ladder):
    page = watched_page
    league, config = ladder["league"], ladder["config"]
    player = ladder["players"][0]
    rows = list(
        PlayerPeriod.objects.filter(config=config, player=player)
        .order_by("period_index")
        .values_list("rating", "rd")
    )
    page.goto(
        live_server.url
        + reverse("pages:player", kwargs={"league_slug": league.slug, "player_slug": player.slug})
    )
    page.wait_for_function(
        "() => window.Chart && Chart.getChart(document.getElementById('rating-chart'))"
    )
    chart = page.evaluate(
        """() => {
            const chart = Chart.getChart(document.getElementById('rating-chart'));
            return chart.data.datasets.map(d => ({label: d.label, data: d.data, fill: d.fill}));
        }"""
    )
    low, high, rating = chart
    assert len(rows) == 9  # every week but the sixth, when the pairing would be themself
    assert rating["label"] == "Rating"
    # One point per period played, then today's rating (unchanged while idle).
    assert [p["y"] for p in rating["data"]] == pytest.approx(
        [r for r, _ in rows] + [rows[-1][0]], abs=0.006
    )
    played = {round(p["x"]): p["y"] for p in low["data"]}
    assert len(played) >= len(rows)
    assert high["fill"] == "-1"  # the band is the area between the two edges
    first_low = low["data"][0]["y"]
    assert first_low == pytest.approx(rows[0][0] - 1.96 * rows[0][1], abs=0.006)
    # Something was drawn: the canvas is not blank.
    painted = page.evaluate(
        """() => {
            const canvas = document.getElementById('rating-chart');
            const context = canvas.getContext('2d');
            const pixels = context.getImageData(0, 0, canvas.width, canvas.height).data;
            let opaque = 0;
            for (let i = 3; i < pixels.length; i += 4) { if (pixels[i] > 0) opaque++; }
            return opaque;
        }"""
    )
    assert painted > 1000
    # The rank history arrives after the page, through htmx.
    page.wait_for_selector("#rank-history tbody tr", state="attached")
    # Every period played, and today.
    assert page.locator("#rank-history tbody tr").count() == len(rows) + 1
    page.click("text=Rating by period as a table")
    assert page.locator("details[open] table tbody tr").count() == len(rows)
    screenshot(page, "player")
    assert_clean(page)


def test_every_page_loads_without_errors_or_external_requests(
    watched_page, live_server, ladder, organiser
):
    page = watched_page
    league = ladder["league"]
    slug = {"league_slug": league.slug}
    player = ladder["players"][7]
    urls = [
        reverse("pages:home"),
        reverse("pages:league", kwargs=slug) + "?period=3",
        reverse("pages:player", kwargs={**slug, "player_slug": player.slug}),
        reverse("pages:matches", kwargs=slug),
        reverse("pages:events", kwargs=slug),
        reverse("pages:compare", kwargs=slug),
    ]
    for url in urls:
        response = page.goto(live_server.url + url)
        assert response.status == 200, url
        page.wait_for_load_state("networkidle")
    assert_clean(page)


def test_phone_layout_fits_the_screen(chromium_browser, live_server, ladder):
    context = chromium_browser.new_context(
        viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True
    )
    page = context.new_page()
    league = ladder["league"]
    page.goto(live_server.url + reverse("pages:league", kwargs={"league_slug": league.slug}))
    # The page itself never scrolls sideways; only the table's own wrapper may.
    overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0
    screenshot(page, "league-phone")
    player = ladder["players"][1]
    page.goto(
        live_server.url
        + reverse("pages:player", kwargs={"league_slug": league.slug, "player_slug": player.slug})
    )
    page.wait_for_function(
        "() => window.Chart && Chart.getChart(document.getElementById('rating-chart'))"
    )
    assert page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth") <= 0
    screenshot(page, "player-phone")
    context.close()


def test_progress_banner_polls_until_the_replay_finishes(watched_page, live_server, ladder):
    page = watched_page
    league = ladder["league"]
    # No worker picks the replay up (the Celery hop is held back), so it stays queued
    # until this test runs it.
    with mock.patch.object(rating_services, "send_replay"):
        rating_services.request_full_replay(league)
    page.goto(live_server.url + reverse("pages:league", kwargs={"league_slug": league.slug}))
    banner = page.locator("#replay-progress")
    assert "Standings are being recomputed" in banner.inner_text()
    run_queued_replays(league)
    page.wait_for_selector("#replay-progress >> text=Standings updated", timeout=10_000)
    assert_clean(page)


def test_organiser_changes_the_configuration(chromium_browser, live_server, ladder, organiser):
    from django.test import Client

    client = Client()
    client.force_login(organiser)
    context = chromium_browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_cookies(
        [
            {
                "name": "sessionid",
                "value": client.cookies["sessionid"].value,
                "url": live_server.url,
            }
        ]
    )
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))
    league = ladder["league"]
    url = live_server.url + reverse("workspace:config", kwargs={"league_slug": league.slug})
    page.goto(url)
    assert "Live parameters" in page.inner_text("main")
    screenshot(page, "config")

    page.fill("#id_tau", "0")
    page.click("form.config-form button[type='submit']")
    assert "τ must be greater than 0." in page.inner_text("#id_tau_error")
    assert RatingConfig.objects.filter(league=league).count() == 2

    page.fill("#id_tau", "0.9")
    page.fill("#id_note", "Livelier ratings")
    page.click("form.config-form button[type='submit']")
    page.wait_for_selector(".message--success")
    assert "Version 3 saved" in page.inner_text(".messages")
    assert RatingConfig.objects.filter(league=league).latest("version").tau == 0.9
    assert errors == []
    context.close()
