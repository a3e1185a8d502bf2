"""The backtesting pages in a real browser: start a sweep, see the chart, adopt the best run."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from ratings.backtest.models import Sweep
from ratings.models import RatingConfig
from tests.browser.conftest import ARTIFACTS, LOCAL_HOSTS, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def sign_in(page, live_server, user) -> None:
    client = Client()
    client.force_login(user)
    page.context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}]
    )


def test_organiser_runs_a_sweep_sees_the_chart_and_adopts(
    watched_page, live_server, ladder, organiser
):
    page, league = watched_page, ladder["league"]
    sign_in(page, live_server, organiser)
    page.goto(live_server.url + reverse("workspace:config", kwargs={"league_slug": league.slug}))
    page.click("text=Backtest τ values on this league's history")

    page.fill("#id_tau", "0.3 0.6 1.2 2")
    page.click("form.sweep-form button[type='submit']")
    page.wait_for_selector("#results-heading")
    sweep = Sweep.objects.get()
    assert sweep.status == Sweep.Status.COMPLETE  # eager tasks ran on commit

    page.wait_for_function(
        "() => window.Chart && Chart.getChart(document.getElementById('backtest-chart'))"
    )
    points = page.evaluate(
        "() => Chart.getChart(document.getElementById('backtest-chart')).data.datasets[0]"
        ".data.map(p => p.x)"
    )
    # The grid's four τ values and the current configuration's (0.5), scored beside them.
    assert points == [0.3, 0.5, 0.6, 1.2, 2.0]
    assert page.locator("table.results tbody tr").count() == 5
    assert page.locator("table.results tr.current th").inner_text().startswith("0.5")
    screenshot(page, "backtest")

    page.click("text=Adopt this configuration")
    page.wait_for_selector(".message--success")
    assert (
        RatingConfig.objects.filter(league=league).latest("version").tau
        == (sweep.best_run.parameters["tau"])
    )
    assert page.watch.errors == [], f"console errors: {page.watch.errors}"
    assert page.watch.hosts <= LOCAL_HOSTS


@pytest.fixture
def home_advantage_league(league, make_player):
    """Sixteen players of graded strength over 30 weeks; the first-named side has a true
    advantage of 200 Elo points except on neutral ground (every fifth match or so)."""
    import datetime as dt
    import random
    from decimal import Decimal

    from league.event_store.bulk import NewMatch, append_matches_bulk
    from ratings import services as rating_services

    league.sport = "Football"  # home and away (a chess game is never neutral)
    league.save()
    rng = random.Random(19)
    people = [make_player(league, f"Player {i:02d}") for i in range(16)]
    strength = [rng.gauss(0, 200) for _ in people]
    rows = []
    for week in range(30):
        order = list(range(16))
        rng.shuffle(order)
        for k in range(0, 16, 2):
            a, b = order[k], order[k + 1]
            neutral = rng.random() < 0.2
            edge = strength[a] - strength[b] + (0 if neutral else 200)
            won = rng.random() < 1 / (1 + 10 ** (-edge / 400))
            rows.append(
                NewMatch(
                    player_a=people[a],
                    player_b=people[b],
                    score_a=Decimal("1" if won else "0"),
                    played=league.start_date + dt.timedelta(days=7 * week + rng.randrange(7)),
                    neutral=neutral,
                )
            )
    append_matches_bulk(league, rows)
    rating_services.create_config(league, tau=0.5, period_length=7)
    return league


def _sign_in_context(chromium_browser, live_server, user, width: int):
    viewport = {"width": width, "height": 900 if width > 500 else 844}
    context = chromium_browser.new_context(
        viewport=viewport, device_scale_factor=2 if width <= 500 else 1, is_mobile=width <= 500
    )
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))
    page.on("pageerror", lambda error: errors.append(str(error)))
    client = Client()
    client.force_login(user)
    context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}]
    )
    return context, page, errors


@pytest.mark.parametrize("width", [1280, 390])
def test_calibration_chart_marks_the_best_and_the_current_setting(
    chromium_browser, live_server, home_advantage_league, organiser, width
):
    from ratings.backtest import services

    league = home_advantage_league
    sweep = services.run_sweep_sync(league, {"tau": [0.5], "advantage": [0, 120]})
    best, current = sweep.best_run, sweep.runs.get(is_current=True)
    assert best != current  # the league has a real home advantage: modelling it wins
    context, page, errors = _sign_in_context(chromium_browser, live_server, organiser, width)
    page.goto(
        live_server.url
        + reverse(
            "workspace:backtest_sweep", kwargs={"league_slug": league.slug, "sweep_id": sweep.pk}
        )
    )
    page.wait_for_function(
        "() => window.Chart && Chart.getChart(document.getElementById('calibration-chart'))"
    )
    labels = page.evaluate(
        "() => Chart.getChart(document.getElementById('calibration-chart')).data.datasets"
        ".map(d => d.label)"
    )
    assert labels[0] == "Perfect calibration"
    assert labels[1].startswith("Best: τ 0.5")
    assert "advantage 120" in labels[1]
    assert labels[2].startswith("Current: τ 0.5")
    assert "advantage" not in labels[2]
    points = page.evaluate(
        "() => Chart.getChart(document.getElementById('calibration-chart')).data.datasets[1]"
        ".data.map(p => [p.x, p.y, p.n])"
    )
    expected = [
        [row["predicted"], row["observed"], row["count"]]
        for row in best.calibration
        if row["count"]
    ]
    assert points == expected
    text = page.locator("main").inner_text()
    assert "Log-loss is the average penalty" in text
    assert "Calibration checks the predictions' honesty" in text
    assert (
        page.locator("#verdict")
        .inner_text()
        .startswith(
            "Verdict on the whole history (in sample): The best setting predicts meaningfully "
            "better"
        )
    )
    assert page.locator("table.results tr.best th").inner_text().startswith("0.5 (best)")
    assert "(current)" in page.locator("table.results tr.current th").inner_text()
    # The page never scrolls sideways; wide tables scroll inside their wrappers.
    assert page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth") <= 0
    screenshot(page, f"backtest-calibration-{width}")
    assert errors == [], errors
    context.close()


@pytest.mark.parametrize("width", [1280, 390])
def test_walk_forward_shows_both_parts_and_the_out_of_sample_verdict(
    chromium_browser, live_server, home_advantage_league, organiser, width
):
    from ratings.backtest import services

    league = home_advantage_league
    sweep = services.run_sweep_sync(league, {"tau": [0.5], "advantage": [0, 120]})
    tuned = sweep.tuned_run
    assert tuned.parameters["advantage"] == 120  # the true advantage wins in sample
    outcome = sweep.walk_forward["comparisons"]["live"]["outcome"]
    context, page, errors = _sign_in_context(chromium_browser, live_server, organiser, width)
    page.goto(
        live_server.url
        + reverse(
            "workspace:backtest_sweep", kwargs={"league_slug": league.slug, "sweep_id": sweep.pk}
        )
    )
    section = page.locator("#walk-forward")
    section.scroll_into_view_if_needed()
    assert section.locator("h2").inner_text() == "Out of sample (walk-forward)"
    intro = section.locator("p").first.inner_text()
    assert f"before {sweep.holdout_from:%Y-%m-%d}" in intro
    verdicts = section.locator("#walk-verdict li").all_inner_texts()
    opening = {
        "better": "Better than the live configuration out of sample",
        "noise": "No better than the live configuration within the noise",
        "worse": "Worse than the live configuration out of sample",
    }[outcome]
    assert verdicts[1].startswith(opening)
    rows = section.locator("#walk-table tbody tr")
    assert rows.count() == 4  # the tuned run, and the default (= live) run: in and out
    tuned_out = section.locator("#walk-table tbody tr.walk-out").first
    assert tuned_out.locator("th").inner_text().startswith("Tuned · out of sample")
    assert f"{tuned.out_of_sample['log_loss']:.5f}" in tuned_out.inner_text()
    # Key cells lie within the viewport (cards on a phone, a table in its wrapper otherwise).
    for cell in (tuned_out.locator("th"), tuned_out.locator("td").nth(1)):
        box = cell.bounding_box()
        assert box is not None
        assert box["x"] >= 0
        assert box["x"] + box["width"] <= width + 1
    assert page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth") <= 0
    screenshot(page, f"backtest-walk-forward-{width}")
    ARTIFACTS.mkdir(exist_ok=True)
    section.screenshot(path=str(ARTIFACTS / f"backtest-walk-forward-section-{width}.png"))
    assert errors == [], errors
    context.close()
