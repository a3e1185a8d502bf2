"""Fixtures for the functional (page) tests: leagues with real, replayed standings.

Results go through ``league.services`` and standings through ``ratings.services`` exactly
as in production; only the Celery hop is replaced by running the queued replays here,
synchronously, so each test sees finished projections.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest

from league import services as league_services
from league.models import League, Player
from ratings import services as rating_services
from ratings.models import RankingRules, RatingConfig, Replay


def run_queued_replays(league: League) -> None:
    """Run every queued replay of ``league``, oldest first, in this process."""
    queued = Replay.objects.filter(config__league=league, status=Replay.Status.QUEUED).order_by(
        "pk"
    )
    for replay_id in queued.values_list("pk", flat=True):
        rating_services.run_replay(replay_id)


def rank_everyone(league: League) -> None:
    """Rules that rank every rated player (no minimum, no activity or RD rule).

    For tests of the leaderboard's mechanics (sorting, filters, pages) on small leagues
    whose players are all provisional under the default rules.
    """
    RankingRules.objects.update_or_create(
        league=league, defaults={"min_games": 0, "active_periods": None, "max_rd": None}
    )


@pytest.fixture
def everyone_ranked(request: pytest.FixtureRequest) -> None:
    """Every rated player of the test's ``league`` is ranked (see :func:`rank_everyone`).

    Does nothing for a test without the ``league`` fixture (it creates no league).
    """
    if "league" in request.fixturenames:
        rank_everyone(request.getfixturevalue("league"))


def rate(league: League, **params: Any) -> RatingConfig:
    """Bring the league's standings up to date: a new version when ``params`` are given
    (or none exists yet), otherwise a full replay of the newest one."""
    if params or not RatingConfig.objects.filter(league=league).exists():
        config = rating_services.create_config(league, **params)
    else:
        rating_services.request_full_replay(league)
        config = RatingConfig.objects.filter(league=league).latest("version")
    run_queued_replays(league)
    return config


Result = tuple[Player, Player, str, dt.date]


def record_results(league: League, results: list[Result], **extra: Any) -> list:
    """Record results ``(player_a, player_b, score_a, day)`` through the write service."""
    return [
        league_services.record_match(
            league, player_a=a, player_b=b, score_a=Decimal(score), played_at=day, **extra
        )
        for a, b, score, day in results
    ]


@pytest.fixture
def record() -> Callable[..., list]:
    return record_results


@pytest.fixture
def club(league, make_player, record):
    """A small league with five weeks of results, rated with weekly period updates.

    Ann plays every week, Bob most weeks, Cat twice, Dan once (one game), and Eve is
    registered but has never played.
    """
    names = ["Ann Archer", "Bob Baker", "Cat Cooper", "Dan Dyer", "Eve Evans"]
    ann, bob, cat, dan, eve = (make_player(league, name) for name in names)
    week = dt.timedelta(days=7)
    first = dt.date(2024, 1, 2)
    record(
        league,
        [
            (ann, bob, "1", first),
            (ann, cat, "0.5", first + week),
            (bob, cat, "1", first + week),
            (ann, bob, "1", first + 2 * week),
            (bob, ann, "0", first + 3 * week),
            (ann, dan, "1", first + 4 * week),
            (cat, bob, "0", first + 4 * week),
        ],
    )
    # The paper's period updates and volatility, stated: the tests of this club were written
    # for them (a new league's defaults are instant updates and 0.10, tested on their own).
    config = rate(
        league,
        period_anchor=dt.date(2024, 1, 1),
        period_length=7,
        update_mode="period",
        initial_volatility=0.06,
    )
    return {
        "league": league,
        "config": config,
        "ann": ann,
        "bob": bob,
        "cat": cat,
        "dan": dan,
        "eve": eve,
    }
