"""The backtesting pages in a real browser: start a sweep, see the chart, adopt the best run."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from ratings.backtest.models import Sweep
from ratings.models import RatingConfig
from tests.browser.conftest import LOCAL_HOSTS, screenshot

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
    page.goto(live_server.url + reverse("pages:config", kwargs={"league_slug": league.slug}))
    page.click("text=Backtest τ values on this league's history")

    page.fill("#id_tau", "0.3 0.6 1.2 3")
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
    assert points == [0.3, 0.6, 1.2, 3.0]
    assert page.locator("table.results tbody tr").count() == 4
    screenshot(page, "backtest")

    page.click("text=Adopt this configuration")
    page.wait_for_selector(".message--success")
    assert (
        RatingConfig.objects.filter(league=league).latest("version").tau
        == (sweep.best_run.parameters["tau"])
    )
    assert page.watch.errors == [], f"console errors: {page.watch.errors}"
    assert page.watch.hosts <= LOCAL_HOSTS
