"""Measuring a configuration's interval coverage after its replay completes, and storing it.

When a replay completes, :func:`schedule_coverage` (called by the replay's finalising
transaction) sends the ``measure_config_coverage`` task once that transaction commits: the
replay never waits for the measurement, and a broker that cannot be reached is logged, never
raised into the replay. A full replay (a new configuration version) sends it at once. An
incremental one (a result) sends it :data:`RECHECK_SECONDS` later, and only when no such
check is already on its way for the configuration (the ``default`` cache holds the mark): a
league taking a stream of results is checked once a window (ten minutes), on its shape at
the window's end, instead of once a result. Each check cost a worker 0.02-0.3 s that the
next league's replay waited for (``bench_many_leagues.py --stream``, docs/benchmarks.md).

The task measures the configuration on simulated leagues like its
league (``ratings.coverage``: its match shape, game rate, period length and skill spread),
small enough to take a few seconds (:data:`LEAGUES` leagues of at most ``PLAYERS`` players,
as many as the league has rated, at least :data:`MIN_PLAYERS`), and stores the result as the
configuration's ``IntervalCoverage`` with its Monte Carlo error. It measures again only when
the league's shape has changed since (an incremental replay after every result would
otherwise simulate again every time). Any failure is logged and stores nothing.

``settings.RATINGS_MEASURE_COVERAGE`` switches the scheduling off (the test suite's settings
do, so that its many eager replays do not each run a simulation).
"""

from __future__ import annotations

import logging
import math
from functools import partial

from celery import shared_task
from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.utils import timezone

from ratings.coverage import LEAGUES, PLAYERS, LeagueShape, league_shape, measure_coverage
from ratings.models import IntervalCoverage, RatingConfig, Standing

logger = logging.getLogger(__name__)

#: The fewest players a simulated league has (fewer make the Monte Carlo error large).
MIN_PLAYERS = 24
#: Decimals kept of each stored coverage and error (a thousandth of a point).
DECIMALS = 5
#: A spread that changed by less than this share is the same shape (no new measurement).
SPREAD_TOLERANCE = 0.1


#: Seconds an incremental replay's check of its configuration's shape waits (see above):
#: at most one check a configuration in this time, however many results it takes. A figure
#: a few minutes behind a change of shape is fine; at 20 results/s a check a result took
#: more than the 2 workers (docs/benchmarks.md, "Many clubs").
RECHECK_SECONDS = 600


def schedule_coverage(config_id: int, *, at_once: bool = True) -> None:
    """Measure configuration ``config_id`` once the current transaction commits (if enabled):
    at once, or with ``at_once`` false :data:`RECHECK_SECONDS` later unless a check is
    already on its way."""
    if getattr(settings, "RATINGS_MEASURE_COVERAGE", True):
        transaction.on_commit(partial(_send, config_id, at_once=at_once))


def _recheck_mark(config_id: int) -> str:
    return f"coverage-recheck:{config_id}"


def _send(config_id: int, *, at_once: bool = True) -> None:
    """Hand the measurement to the broker; log, never raise (the replay is already stored)."""
    countdown = None
    if not at_once and not measure_config_coverage.app.conf.task_always_eager:
        # The mark outlives the countdown a little, so the check it stands for has started
        # (and reads the shape as it is then) by the time another can be sent.
        if not cache.add(_recheck_mark(config_id), True, timeout=RECHECK_SECONDS + 5):
            return
        countdown = RECHECK_SECONDS
    try:
        measure_config_coverage.apply_async(kwargs={"config_id": config_id}, countdown=countdown)
    except Exception:
        if countdown is not None:
            cache.delete(_recheck_mark(config_id))  # the next result sends it again
        logger.exception("Could not send the coverage measurement of configuration %s", config_id)


def simulated_players(config: RatingConfig) -> int:
    """Players of each simulated league: the league's rated players, within the bounds."""
    rated = Standing.objects.filter(config=config, games__gt=0).count()
    return max(MIN_PLAYERS, min(PLAYERS, rated))


def _same_shape(stored: IntervalCoverage, shape: LeagueShape, players: int) -> bool:
    return (
        stored.sides == shape.sides
        and stored.side_size == shape.size
        and stored.games == shape.games
        and math.isclose(stored.period_days, shape.period_days, rel_tol=1e-9)
        and stored.spread_from_league == shape.spread_from_league
        and abs(stored.spread - shape.spread) <= SPREAD_TOLERANCE * stored.spread
        and stored.players == _rounded_players(shape, players)
    )


def _rounded_players(shape: LeagueShape, players: int) -> int:
    """``players`` rounded up to whole matches, as ``measure_coverage`` simulates them."""
    per_match = shape.sides * shape.size
    return per_match * max(1, math.ceil(players / per_match))


def measure_and_store(config: RatingConfig, *, force: bool = False) -> IntervalCoverage | None:
    """Measure ``config`` on simulated leagues like its league and store the result.

    Returns the stored result, or None when the stored one already fits the league's shape
    (and ``force`` is not set).
    """
    shape = league_shape(config.league, config)
    players = simulated_players(config)
    stored = IntervalCoverage.objects.filter(config=config).first()
    if stored is not None and not force and _same_shape(stored, shape, players):
        return None
    measure = measure_coverage(config, shape, leagues=LEAGUES, players=players)
    values = {
        "coverage": [round(value, DECIMALS) for value in measure.coverage],
        "error": [round(value, DECIMALS) for value in measure.error],
        "leagues": measure.leagues,
        "players": measure.players,
        "periods": measure.periods,
        "sides": shape.sides,
        "side_size": shape.size,
        "games": shape.games,
        "period_days": shape.period_days,
        "spread": shape.spread,
        "spread_from_league": shape.spread_from_league,
        "seconds": measure.seconds,
        "measured_at": timezone.now(),
    }
    result, _created = IntervalCoverage.objects.update_or_create(config=config, defaults=values)
    return result


@shared_task(ignore_result=True)
def measure_config_coverage(*, config_id: int) -> str:
    """Measure and store configuration ``config_id``'s coverage; failures are logged only."""
    try:
        config = RatingConfig.objects.select_related("league").filter(pk=config_id).first()
        if config is None:
            return "missing"
        result = measure_and_store(config)
    except Exception:
        logger.exception("Measuring the interval coverage of configuration %s failed", config_id)
        return "failed"
    if result is None:
        return "unchanged"
    logger.info(
        "Configuration %s: interval coverage measured on %s simulated leagues in %.1f s",
        config_id,
        result.leagues,
        result.seconds,
    )
    return "measured"
