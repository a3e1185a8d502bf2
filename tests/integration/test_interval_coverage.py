"""A configuration's measured interval coverage: stored by a task when its replay completes
(``ratings.coverage_jobs``), and shown beside every interval's level (leaderboard, player
page, configuration page, API standings), or "not measured yet"."""

from __future__ import annotations

import datetime as dt
import logging

import pytest
from django.urls import reverse

from league import services as league_services
from ratings import coverage_jobs
from ratings import services as rating_services
from ratings.coverage import GRID
from ratings.models import IntervalCoverage, RatingConfig, Replay
from tests.functional.conftest import run_queued_replays

pytestmark = pytest.mark.django_db


@pytest.fixture
def measuring(settings, monkeypatch):
    """Replays measure coverage, on a small simulation (2 leagues of at least 24 players)."""
    settings.RATINGS_MEASURE_COVERAGE = True
    monkeypatch.setattr(coverage_jobs, "LEAGUES", 2)


@pytest.fixture
def rated(league, make_player) -> RatingConfig:
    """Four players, two results in the first week, a weekly configuration replayed."""
    ann, bob, cat, dan = (make_player(league, name) for name in ("Ann", "Bob", "Cat", "Dan"))
    for a, b, day in ((ann, bob, 2), (cat, dan, 3)):
        league_services.record_match(
            league, player_a=a, player_b=b, score_a="1", played_at=dt.date(2024, 1, day)
        )
    config = rating_services.create_config(league, period_length=7)
    run_queued_replays(league)
    return config


def store(config: RatingConfig, coverage: float = 0.941, error: float = 0.0049) -> None:
    """A stored measurement with ``coverage`` and ``error`` at every level."""
    IntervalCoverage.objects.create(
        config=config,
        coverage=[coverage] * GRID.size,
        error=[error] * GRID.size,
        leagues=6,
        players=120,
        periods=20,
        sides=2,
        side_size=1,
        games=2,
        period_days=7.0,
        spread=350.0,
        spread_from_league=False,
        seconds=1.5,
    )


def test_a_completed_replay_stores_its_configurations_coverage(
    league, make_player, measuring, django_capture_on_commit_callbacks
):
    ann, bob = make_player(league, "Ann"), make_player(league, "Bob")
    league_services.record_match(
        league, player_a=ann, player_b=bob, score_a="1", played_at=dt.date(2024, 1, 2)
    )
    with django_capture_on_commit_callbacks(execute=True):
        config = rating_services.create_config(league, period_length=7)
        run_queued_replays(league)
    assert Replay.objects.get(config=config).status == Replay.Status.COMPLETE
    stored = IntervalCoverage.objects.get(config=config)
    assert (stored.leagues, stored.players, stored.sides, stored.side_size) == (2, 24, 2, 1)
    assert len(stored.coverage) == len(stored.error) == GRID.size
    # The curve rises from 0 (z = 0) and the 95 % interval covers most true skills.
    assert stored.coverage[0] == 0.0
    assert stored.coverage == sorted(stored.coverage)
    assert 0.8 < stored.coverage[196] <= 1.0
    assert 0.0 <= stored.error[196] < 0.05


def test_the_same_shape_is_not_measured_again_and_a_new_one_is(rated, measuring, monkeypatch):
    first = coverage_jobs.measure_and_store(rated)
    assert first is not None
    assert coverage_jobs.measure_and_store(rated) is None
    monkeypatch.setattr(coverage_jobs, "MIN_PLAYERS", 30)
    assert coverage_jobs.measure_and_store(rated) is not None
    assert IntervalCoverage.objects.get(config=rated).players == 30


def test_a_failing_measurement_is_logged_and_the_replay_still_completes(
    league, make_player, measuring, monkeypatch, caplog, django_capture_on_commit_callbacks
):
    def broken(*args, **kwargs):
        raise RuntimeError("simulation broke")

    monkeypatch.setattr(coverage_jobs, "measure_coverage", broken)
    ann, bob = make_player(league, "Ann"), make_player(league, "Bob")
    league_services.record_match(
        league, player_a=ann, player_b=bob, score_a="1", played_at=dt.date(2024, 1, 2)
    )
    with (
        caplog.at_level(logging.ERROR, logger="ratings.coverage_jobs"),
        django_capture_on_commit_callbacks(execute=True),
    ):
        config = rating_services.create_config(league, period_length=7)
        run_queued_replays(league)
    assert Replay.objects.get(config=config).status == Replay.Status.COMPLETE
    assert not IntervalCoverage.objects.exists()
    assert "Measuring the interval coverage of configuration" in caplog.text


def test_a_broker_that_refuses_the_task_is_logged_not_raised(rated, monkeypatch, caplog):
    def refuse(**kwargs):
        raise ConnectionError("broker down")

    monkeypatch.setattr(coverage_jobs.measure_config_coverage, "apply_async", refuse)
    with caplog.at_level(logging.ERROR, logger="ratings.coverage_jobs"):
        coverage_jobs._send(rated.pk)
    assert "Could not send the coverage measurement" in caplog.text


def test_the_measurement_is_off_unless_switched_on(
    league, make_player, settings, django_capture_on_commit_callbacks
):
    settings.RATINGS_MEASURE_COVERAGE = False
    ann, bob = make_player(league, "Ann"), make_player(league, "Bob")
    league_services.record_match(
        league, player_a=ann, player_b=bob, score_a="1", played_at=dt.date(2024, 1, 2)
    )
    with django_capture_on_commit_callbacks(execute=True):
        rating_services.create_config(league, period_length=7)
        run_queued_replays(league)
    assert not IntervalCoverage.objects.exists()


# --- shown beside every interval's level ---------------------------------------------------


def test_the_leaderboard_shows_the_levels_measured_coverage(client, league, rated):
    store(rated)
    page = client.get(reverse("pages:league", args=[league.slug])).content.decode()
    assert (
        "95 % intervals: measured coverage 94.1 % ± 0.5 on simulated leagues like this one." in page
    )
    page = client.get(reverse("pages:league", args=[league.slug]), {"level": "68"})
    assert "68 % intervals: measured coverage 94.1 % ± 0.5" in page.content.decode()


def test_the_coverage_follows_the_level_chosen(client, league, rated):
    # Coverage rising along z: at z = 1 (68.27 %) the stored curve reads 0.5, at 1.96 0.98.
    IntervalCoverage.objects.create(
        config=rated,
        coverage=[min(1.0, 0.5 * z) for z in GRID],
        error=[0.001] * GRID.size,
        leagues=6, players=120, periods=20, sides=2, side_size=1, games=2,
        period_days=7.0, spread=350.0, spread_from_league=False, seconds=1.0,
    )  # fmt: skip
    page = client.get(reverse("pages:league", args=[league.slug]), {"level": "z1"})
    assert "68.27 % intervals: measured coverage 50.0 % ± 0.1" in page.content.decode()
    page = client.get(reverse("pages:league", args=[league.slug]))
    assert "95 % intervals: measured coverage 98.0 % ± 0.1" in page.content.decode()


def test_the_pages_say_when_coverage_is_not_measured_yet(client, league, rated, organiser):
    league_page = client.get(reverse("pages:league", args=[league.slug])).content.decode()
    assert "95 % intervals: coverage not measured yet." in league_page
    player = league.players.get(display_name="Ann")
    player_page = client.get(reverse("pages:player", args=[league.slug, player.slug]))
    assert "95 % intervals: coverage not measured yet." in player_page.content.decode()
    client.force_login(organiser)
    config_page = client.get(reverse("workspace:config", args=[league.slug])).content.decode()
    assert "99 % intervals: coverage not measured yet." in config_page
    body = client.get(reverse("api:standings", args=[league.slug])).json()
    assert body["interval_coverage"] is None


def test_the_player_page_shows_the_levels_measured_coverage(client, league, rated):
    store(rated, coverage=0.9, error=0.012)
    player = league.players.get(display_name="Ann")
    page = client.get(reverse("pages:player", args=[league.slug, player.slug]), {"level": "99"})
    assert "99 % intervals: measured coverage 90.0 % ± 1.2" in page.content.decode()


def test_the_configuration_page_lists_every_levels_coverage(client, league, rated, organiser):
    store(rated)
    client.force_login(organiser)
    page = client.get(reverse("workspace:config", args=[league.slug])).content.decode()
    for level in ("68 %", "90 %", "95 %", "99 %"):
        assert f"{level} intervals: measured coverage 94.1 % ± 0.5" in page
    assert "6 simulated leagues of 120 players over 20 rating periods" in page


def test_the_api_standings_carry_the_levels_coverage(client, league, rated):
    url = reverse("api:standings", args=[league.slug])
    before = client.get(url)
    store(rated)
    # The stored measurement is a change: the earlier ETag no longer matches.
    again = client.get(url, HTTP_IF_NONE_MATCH=before.headers["ETag"])
    assert again.status_code == 200
    coverage = again.json()["interval_coverage"]
    assert coverage["level_percent"] == pytest.approx(95.0, abs=0.01)
    assert coverage["coverage"] == pytest.approx(0.941, abs=1e-9)
    assert coverage["error"] == pytest.approx(0.0049, abs=1e-9)
    assert (coverage["leagues"], coverage["players"], coverage["periods"]) == (6, 120, 20)
    at_99 = client.get(url, {"level": "99"}).json()["interval_coverage"]
    assert at_99["level_percent"] == pytest.approx(99.0, abs=1e-9)


def test_a_cached_leaderboard_shows_a_measurement_stored_after_it(client, league, rated):
    url = reverse("pages:league", args=[league.slug])
    assert "not measured yet" in client.get(url).content.decode()
    store(rated)
    assert "measured coverage 94.1 %" in client.get(url).content.decode()


# --- how often a stream of results has the shape checked -----------------------------------


@pytest.fixture
def sent(rated, monkeypatch):
    """The measurements handed to a (non-eager) broker: (config id, countdown) each."""
    from django.core.cache import cache

    calls: list[tuple[int, int | None]] = []

    def apply_async(*, kwargs, countdown=None):
        calls.append((kwargs["config_id"], countdown))

    monkeypatch.setitem(coverage_jobs.measure_config_coverage.app.conf, "task_always_eager", False)
    monkeypatch.setattr(coverage_jobs.measure_config_coverage, "apply_async", apply_async)
    cache.delete(coverage_jobs._recheck_mark(rated.pk))
    yield calls
    cache.delete(coverage_jobs._recheck_mark(rated.pk))


def test_a_stream_of_results_has_the_shape_checked_once_a_window(rated, sent):
    for _result in range(3):
        coverage_jobs._send(rated.pk, at_once=False)
    assert sent == [(rated.pk, coverage_jobs.RECHECK_SECONDS)]
    # A new configuration version's full replay is measured at once, window or not.
    coverage_jobs._send(rated.pk, at_once=True)
    assert sent[1:] == [(rated.pk, None)]


def test_a_check_the_broker_refused_is_sent_by_the_next_result(rated, sent, monkeypatch):
    def refuse(**kwargs):
        raise ConnectionError("broker down")

    working = coverage_jobs.measure_config_coverage.apply_async
    monkeypatch.setattr(coverage_jobs.measure_config_coverage, "apply_async", refuse)
    coverage_jobs._send(rated.pk, at_once=False)
    monkeypatch.setattr(coverage_jobs.measure_config_coverage, "apply_async", working)
    coverage_jobs._send(rated.pk, at_once=False)
    assert sent == [(rated.pk, coverage_jobs.RECHECK_SECONDS)]


def test_a_full_replay_asks_at_once_and_a_results_replay_for_a_check(
    league, rated, measuring, monkeypatch, django_capture_on_commit_callbacks
):
    asked: list[tuple[int, bool]] = []
    monkeypatch.setattr(
        coverage_jobs, "_send", lambda config_id, *, at_once: asked.append((config_id, at_once))
    )
    ann, bob = league.players.order_by("pk")[:2]
    with django_capture_on_commit_callbacks(execute=True):  # a result: its replay runs
        league_services.record_match(
            league, player_a=ann, player_b=bob, score_a="0", played_at=dt.date(2024, 1, 4)
        )
    assert asked == [(rated.pk, False)]
    with django_capture_on_commit_callbacks(execute=True):
        newer = rating_services.create_config(league, period_length=14)
        run_queued_replays(league)
    assert asked[1:] == [(newer.pk, True)]
