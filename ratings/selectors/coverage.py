"""A configuration's measured interval coverage at a level (``IntervalCoverage``), as numbers.

The pages, the API and the configuration page show it beside an interval's level: "95 %
intervals: measured coverage 94.1 % ± 0.5 on simulated leagues like this one", or that it
is not measured yet (None here).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import numpy as np

from engine.intervals import ConfidenceLevel
from ratings.coverage import GRID
from ratings.models import IntervalCoverage, RatingConfig


@dataclass(frozen=True)
class CoverageAtLevel:
    """How often intervals at ``level_percent`` held the true skill on simulated leagues.

    ``coverage`` and ``error`` (its Monte Carlo standard error) are fractions; ``leagues``
    simulated leagues of ``players`` players over ``periods`` periods, ``games`` games per
    player per period.
    """

    level_percent: float
    z: float
    coverage: float
    error: float
    leagues: int
    players: int
    periods: int
    games: int
    measured_at: dt.datetime


def coverage_at(stored: IntervalCoverage, level: ConfidenceLevel) -> CoverageAtLevel:
    """``stored``'s coverage of ``level``'s intervals (interpolated on its grid of z)."""
    z = min(level.z, float(GRID[-1]))
    return CoverageAtLevel(
        level_percent=level.percent,
        z=level.z,
        coverage=float(np.interp(z, GRID, np.asarray(stored.coverage, dtype=float))),
        error=float(np.interp(z, GRID, np.asarray(stored.error, dtype=float))),
        leagues=stored.leagues,
        players=stored.players,
        periods=stored.periods,
        games=stored.games,
        measured_at=stored.measured_at,
    )


def interval_coverage(
    config: RatingConfig | None, level: ConfidenceLevel
) -> CoverageAtLevel | None:
    """``config``'s measured coverage at ``level``, or None when it is not measured yet."""
    if config is None:
        return None
    stored = stored_coverage(config)
    return None if stored is None else coverage_at(stored, level)


def stored_coverage(config: RatingConfig) -> IntervalCoverage | None:
    """``config``'s measurement: the one read with it when it was (``publication`` reads it
    with the live version), else from the database."""
    if RatingConfig.interval_coverage.is_cached(config):
        try:
            return config.interval_coverage
        except IntervalCoverage.DoesNotExist:
            return None
    return IntervalCoverage.objects.filter(config_id=config.pk).first()


def interval_coverage_levels(
    config: RatingConfig, levels: list[ConfidenceLevel]
) -> list[tuple[ConfidenceLevel, CoverageAtLevel | None]]:
    """``config``'s measured coverage at each of ``levels`` (None for each when not measured)."""
    stored = stored_coverage(config)
    return [(level, None if stored is None else coverage_at(stored, level)) for level in levels]


def coverage_by_config(
    configs: list[RatingConfig], level: ConfidenceLevel
) -> dict[int, CoverageAtLevel]:
    """The measured coverage at ``level`` of each of ``configs`` that has one, by config id."""
    stored = IntervalCoverage.objects.filter(config_id__in=[config.pk for config in configs])
    return {row.config_id: coverage_at(row, level) for row in stored}
