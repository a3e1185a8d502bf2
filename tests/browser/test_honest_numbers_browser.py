"""Honest numbers in Chromium at 1280 and 390 px: who is ranked, time-scaled charts whose
band reaches today, an explanation page that adds up, head to head, the ranking rules."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.test import Client
from django.urls import reverse

from league.models import League
from ratings.selectors.standings import LeaderboardQuery, leaderboard
from tests.browser.conftest import LOCAL_HOSTS, screenshot
from tests.functional.conftest import rate, record_results

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDTHS = [1280, 390]


def months_ago(months: int, day: int = 10) -> dt.date:
    today = dt.date.today()
    index = today.year * 12 + today.month - 1 - months
    return dt.date(index // 12, index % 12 + 1, day)


@pytest.fixture
def club(db, organiser, make_player):
    """Six regulars who played every month of the last year (ranked under the defaults),
    a newcomer with two games (provisional), and an old-timer who played in 2010, 2011
    and 2021 and never since (inactive): monthly periods from January 2010."""
    league = League.objects.create(
        name="Harbour Chess", slug="harbour", time_zone="UTC", start_date=dt.date(2010, 1, 1)
    )
    league.organisers.add(organiser)
    regulars = [make_player(league, name) for name in ("Ada", "Ben", "Cy", "Dee", "Eli", "Fay")]
    newcomer = make_player(league, "Newt")
    old = make_player(league, "Old Timer")
    results = []
    for month in range(12, 0, -1):
        for round_ in range(3):
            for i in range(0, 6, 2):
                a, b = regulars[(i + round_ + month) % 6], regulars[(i + 1 + round_ + month) % 6]
                score = ("1", "0.5", "0")[(i + round_ * 2 + month) % 3]
                results.append((a, b, score, months_ago(month, 5 + round_ * 7)))
    results += [
        (newcomer, regulars[0], "0", months_ago(1, 20)),
        (newcomer, regulars[1], "1", months_ago(1, 21)),
    ]
    for day, score in (
        (dt.date(2010, 3, 10), "1"),
        (dt.date(2011, 3, 10), "0"),
        (dt.date(2021, 3, 10), "1"),
    ):
        results.append((old, regulars[2], score, day))
        results.append((old, regulars[3], "0.5", day + dt.timedelta(days=1)))
    record_results(league, results)
    # The paper's period updates: the explanation takes a period apart with its formula.
    config = rate(
        league,
        period_unit="months",
        period_length=1,
        period_anchor=dt.date(2010, 1, 1),
        update_mode="period",
        initial_volatility=0.06,
    )
    return {
        "league": league,
        "config": config,
        "regulars": regulars,
        "newcomer": newcomer,
        "old": old,
    }


def open_page(browser, live_server, width: int, path: str, user=None):
    context = browser.new_context(viewport={"width": width, "height": 900})
    if user is not None:
        client = Client()
        client.force_login(user)
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
    hosts: set[str] = set()
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on(
        "request", lambda request: hosts.add(re.sub(r"^https?://([^:/]+).*$", r"\1", request.url))
    )
    response = page.goto(live_server.url + path)
    assert response.status == 200, path
    page.wait_for_load_state("networkidle")
    page.errors, page.hosts = errors, hosts
    return page


def assert_fits(page, name: str) -> None:
    """No sideways scroll, no console error, nothing fetched from elsewhere; a screenshot."""
    width = page.evaluate("document.scrollingElement.scrollWidth")
    viewport = page.evaluate("document.scrollingElement.clientWidth")
    assert width <= viewport, f"{name}: the page scrolls sideways ({width} > {viewport} px)"
    assert page.errors == [], page.errors
    assert page.hosts <= LOCAL_HOSTS | {"data"}, page.hosts
    screenshot(page, name)


@pytest.mark.parametrize("width", WIDTHS)
def test_the_leaderboard_and_home_rank_only_eligible_players(
    chromium_browser, live_server, club, width
):
    league = club["league"]
    page = open_page(
        chromium_browser, live_server, width, reverse("pages:league", args=[league.slug])
    )
    names = page.locator("#leaderboard tbody th.col-name a").all_inner_texts()
    assert sorted(names) == ["Ada", "Ben", "Cy", "Dee", "Eli", "Fay"]
    separate = leaderboard(league, LeaderboardQuery(listed="separate"))
    assert separate.total == 2
    assert page.inner_text("#separate-count") == "2"
    # On a phone the interval is shown, not the RD.
    assert page.locator("#leaderboard tbody td.col-low").first.is_visible()
    assert page.locator("#leaderboard tbody td.col-rd").first.is_visible() == (width > 600)
    assert_fits(page, f"honest-league-{width}")

    page.click("#separate-link")
    page.wait_for_url(re.compile(r"listed=separate"))
    reasons = dict(
        zip(
            page.locator("#leaderboard tbody th.col-name a").all_inner_texts(),
            page.locator("#leaderboard tbody td.col-reasons").all_inner_texts(),
            strict=True,
        )
    )
    assert "inactive" in reasons["Old Timer"]
    assert "provisional" in reasons["Newt"]
    assert_fits(page, f"honest-separate-{width}")

    home = open_page(chromium_browser, live_server, width, reverse("pages:home"))
    top = home.locator("table.board tbody th.col-name a").all_inner_texts()
    assert "Newt" not in top
    assert "Old Timer" not in top
    assert "2 more players" in home.inner_text("main")
    assert_fits(home, f"honest-home-{width}")


@pytest.mark.parametrize("width", WIDTHS)
def test_the_chart_has_a_time_axis_and_its_band_reaches_today(
    chromium_browser, live_server, club, width
):
    league, old = club["league"], club["old"]
    page = open_page(
        chromium_browser, live_server, width, reverse("pages:player", args=[league.slug, old.slug])
    )
    page.wait_for_function(
        "() => window.Chart && Chart.getChart(document.getElementById('rating-chart'))"
    )
    points = page.evaluate(
        """() => {
            const chart = Chart.getChart(document.getElementById('rating-chart'));
            const rating = chart.getDatasetMeta(2);
            const band = chart.data.datasets[1].data;
            return {
                xs: rating.data.map(p => p.x),
                times: chart.data.datasets[2].data.map(p => p.x),
                bandLast: band[band.length - 1].x,
                bandWidth: band[band.length - 1].y - chart.data.datasets[0].data[band.length - 1].y,
                max: chart.scales.x.max,
                tension: chart.data.datasets[2].tension,
            };
        }"""
    )
    # Played in March 2010, March 2011 and March 2021, then today's point.
    assert len(points["xs"]) == 4
    year_apart = points["xs"][1] - points["xs"][0]
    decade_apart = points["xs"][2] - points["xs"][1]
    assert decade_apart > 5 * year_apart
    ratio = (points["times"][2] - points["times"][1]) / (points["times"][1] - points["times"][0])
    assert decade_apart / year_apart == pytest.approx(ratio, rel=0.02)
    assert points["tension"] == 0  # no smoothing
    today = dt.date.today()
    today_ms = dt.datetime(today.year, today.month, today.day, tzinfo=dt.UTC).timestamp() * 1000
    assert points["bandLast"] == today_ms == points["max"]
    card_rd = float(page.inner_text("#card-rd"))
    assert points["bandWidth"] == pytest.approx(2 * 1.96 * card_rd, abs=0.2)
    page.click("button[data-range='5']")
    assert page.evaluate(
        "Chart.getChart(document.getElementById('rating-chart')).scales.x.min"
    ) == pytest.approx(today_ms - 5 * 365.25 * 24 * 3600 * 1000)
    page.wait_for_selector("#rank-history", state="attached")
    assert "Not ranked" in page.inner_text("#not-ranked")
    assert_fits(page, f"honest-player-{width}")


@pytest.mark.parametrize("width", WIDTHS)
def test_the_explanation_adds_up_to_the_change_on_the_player_page(
    chromium_browser, live_server, club, width
):
    league, ada = club["league"], club["regulars"][0]
    page = open_page(
        chromium_browser, live_server, width, reverse("pages:player", args=[league.slug, ada.slug])
    )
    shown = float(
        page.inner_text("#results .period-row .period-change >> nth=0").replace("\u2212", "-")
    )
    page.click("#results .period-row a.explain-link >> nth=0")
    page.wait_for_url(re.compile(r"/periods/\d+/"))
    effects = [float(text) for text in page.locator("#explanation .col-effect").all_inner_texts()]
    assert len(effects) >= 3
    total = float(page.inner_text("#effects-total"))
    explained = float(page.inner_text("#explained-change"))
    # Each effect is shown to 0.01: their sum is the total within their rounding.
    assert sum(effects) == pytest.approx(total, abs=0.005 * len(effects) + 1e-9)
    assert total == pytest.approx(explained, abs=0.011)
    # The player page shows the change to 0.1.
    assert explained == pytest.approx(shown, abs=0.051)
    assert_fits(page, f"honest-explanation-{width}")


@pytest.mark.parametrize("width", WIDTHS)
def test_head_to_head_rank_history_and_the_ranking_rules_page(
    chromium_browser, live_server, club, organiser, width
):
    league = club["league"]
    page = open_page(
        chromium_browser, live_server, width, reverse("pages:versus", args=[league.slug])
    )
    page.select_option("#id_a", "ada")
    page.select_option("#id_b", "ben")
    page.click("form.filters button[type='submit']")
    page.wait_for_url(re.compile(r"a=ada&b=ben"))
    expected = page.inner_text("#versus-expected")
    assert re.fullmatch(r"(< 1|> 99|\d{1,2}) %", expected), expected
    assert "100" not in page.inner_text("#versus-chances")
    assert "predicted from the ratings at the start of its period" in page.inner_text(
        "#versus-calibration"
    )
    assert page.locator("#shared-matches tbody tr").count() > 0
    assert_fits(page, f"honest-versus-{width}")

    ranks = open_page(
        chromium_browser,
        live_server,
        width,
        reverse("pages:player_ranks", args=[league.slug, "ada"]),
    )
    ranks.wait_for_function(
        "() => window.Chart && Chart.getChart(document.getElementById('rank-chart'))"
    )
    assert_fits(ranks, f"honest-ranks-{width}")

    rules = open_page(
        chromium_browser,
        live_server,
        width,
        reverse("workspace:ranking", args=[league.slug]),
        user=organiser,
    )
    # 36 games each; Ada and Ben played the newcomer, Cy and Dee the old-timer three times.
    rules.fill("#id_min_games", "38")
    rules.click("form.stacked-form button[type='submit']")
    rules.wait_for_selector(".message--success")
    assert_fits(rules, f"honest-rules-{width}")
    board = open_page(
        chromium_browser, live_server, width, reverse("pages:league", args=[league.slug])
    )
    ranked = int(board.inner_text("#ranked-count").split()[0])
    assert ranked == leaderboard(league).total == 2


@pytest.mark.parametrize("width", WIDTHS)
def test_the_explanation_says_where_the_home_advantage_and_margins_counted(
    chromium_browser, live_server, organiser, make_player, width
):
    """Advantage 100 and margin scale 1: each game's note in plain words, fitting at 390 px."""
    from league import services as league_services

    league = League.objects.create(
        name="Home and away", slug="home-away", time_zone="UTC", start_date=dt.date(2024, 1, 1)
    )
    league.organisers.add(organiser)
    spain, italy, ghana = (make_player(league, name) for name in ("Spain", "Italy", "Ghana"))
    for a, b, score, points, day, neutral in (
        (spain, italy, "1", "3-0", 2, False),
        (ghana, spain, "0.5", "1-1", 3, False),
        (spain, ghana, "0", "1-2", 4, True),
    ):
        league_services.record_match(
            league, player_a=a, player_b=b, score_a=score, points=points,
            played_at=dt.date(2024, 1, day), neutral=neutral,
        )  # fmt: skip
    rate(
        league,
        period_length=7,
        advantage=100.0,
        margin_scale=1.0,
        update_mode="period",
        initial_volatility=0.06,
    )
    path = reverse("pages:player_period", args=[league.slug, spain.slug, 0])
    page = open_page(chromium_browser, live_server, width, path)
    notes = page.locator("#explanation .game-note").all_inner_texts()
    assert notes == [
        "Home advantage: +100 points for Spain in this game",
        "won 3-0: counts as 0.998 with margins on",
        "Home advantage: +100 points for Ghana in this game",
        "lost 1-2: counts as 0.119 with margins on",
    ]
    effects = [float(text) for text in page.locator("#explanation .col-effect").all_inner_texts()]
    assert sum(effects) == pytest.approx(float(page.inner_text("#effects-total")), abs=0.016)
    assert float(page.inner_text("#effects-total")) == pytest.approx(
        float(page.inner_text("#explained-change")), abs=0.011
    )
    assert page.locator("#advantage-rule").is_visible()
    assert page.locator("#margin-rule").is_visible()
    assert_fits(page, f"honest-explanation-home-away-{width}")
