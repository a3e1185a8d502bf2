"""How often a configuration's intervals cover true skills, measured on simulated leagues like
the league's own (``manage.py measure_coverage``).

A league's players have no known true skill, so an interval's promise ("95 %") is checked on
simulated leagues whose skills are known (``engine.simulation``, the coverage benchmark's
simulation, docs/intervals.md): the league's match shape (sides and players a side, the most
common among its recent matches), its games per player per period (the median over its
recent history rows), its period length, and true skills spread like its settled players'
ratings (the configuration's initial RD while fewer than 20 are settled), drifting about 10
rating points a week. Each simulated league is rated with the configuration (its update
mode, τ, initial values, RD cap and volatility ceiling; no advantage or margins, which the
simulated results do not have), and at every period's end every player's |rating - skill| /
RD is recorded: the share within z is the coverage of the interval rating ± z RD, at every
level at once. The spread of the leagues' own coverages gives the Monte Carlo error.
"""

from __future__ import annotations

import math
import statistics
import time
from collections import Counter
from dataclasses import dataclass, replace

import numpy as np
from django.conf import settings

from engine.instant import fold_sides_instant
from engine.intervals import ConfidenceLevel
from engine.side_fold import fold_sides
from engine.simulation import TRUE_DRIFT, simulate_league
from league.models import Event, League, MatchParticipant
from ratings.models import PlayerPeriod, RatingConfig, Standing
from ratings.parameters import period_days
from ratings.time import engine_params

#: Coverage is kept at z = 0, 0.01, …, 5 RDs (any level's by interpolation).
GRID_STEP = 0.01
GRID = np.round(np.arange(0, 501) * GRID_STEP, 2)
#: The simulated leagues' size: enough for a Monte Carlo error near one point in a few seconds.
PLAYERS = 120
PERIODS = 20
LEAGUES = 6
#: The most games a player a period simulated (the cost grows with it).
MAX_GAMES = 30
#: Settled players (RD at most the provisional threshold) needed to take the league's spread.
SETTLED_FOR_SPREAD = 20
#: Recent matches and periods read to find the league's shape and game rate.
RECENT_MATCHES = 2000
RECENT_PERIODS = 12


@dataclass(frozen=True)
class LeagueShape:
    """What a simulated league copies from the real one."""

    sides: int
    size: int
    games: int
    period_days: float
    spread: float
    spread_from_league: bool


@dataclass(frozen=True)
class CoverageMeasure:
    """Coverage of rating ± z RD at every z of ``GRID``: the mean over ``leagues`` simulated
    leagues and its standard error."""

    shape: LeagueShape
    update_mode: str
    leagues: int
    players: int
    periods: int
    coverage: tuple[float, ...]
    error: tuple[float, ...]
    seconds: float

    def at(self, level: ConfidenceLevel) -> tuple[float, float]:
        """The coverage of ``level``'s intervals and its Monte Carlo error (fractions)."""
        z = min(level.z, float(GRID[-1]))
        return (
            float(np.interp(z, GRID, self.coverage)),
            float(np.interp(z, GRID, self.error)),
        )


def _match_shape(league: League) -> tuple[int, int]:
    """(sides, players a side) most common among the league's recent matches (1 v 1 if none)."""
    shapes: Counter[tuple[int, int]] = Counter()
    recent = Event.objects.live_all_matches().filter(league=league).order_by("-played_at", "-seq")
    kinds = list(recent.values_list("pk", "kind")[:RECENT_MATCHES])
    shapes[(2, 1)] = sum(1 for _pk, kind in kinds if kind == Event.Kind.MATCH_RECORDED)
    side_events = [pk for pk, kind in kinds if kind == Event.Kind.SIDE_MATCH_RECORDED]
    rows = MatchParticipant.objects.filter(event_id__in=side_events).values_list("event_id", "side")
    by_event: dict[int, Counter[int]] = {}
    for event_id, side in rows:
        by_event.setdefault(event_id, Counter())[side] += 1
    for sides in by_event.values():
        shapes[(len(sides), max(sides.values()))] += 1
    (sides, size), count = shapes.most_common(1)[0]
    return (sides, size) if count else (2, 1)


def league_shape(league: League, config: RatingConfig) -> LeagueShape:
    """The shape, game rate, period length and skill spread of ``league`` under ``config``."""
    sides, size = _match_shape(league)
    latest = (
        PlayerPeriod.objects.filter(config=config)
        .order_by("-period_index")
        .values_list("period_index", flat=True)
        .first()
    )
    games = 2
    if latest is not None:
        counts = list(
            PlayerPeriod.objects.filter(
                config=config, period_index__gt=latest - RECENT_PERIODS
            ).values_list("games", flat=True)
        )
        games = max(1, min(MAX_GAMES, round(statistics.median(counts))))
    days = period_days(config.period_unit, config.period_length)
    settled = list(
        Standing.objects.filter(
            config=config, games__gt=0, rd__lte=settings.PROVISIONAL_RD
        ).values_list("rating", flat=True)
    )
    if len(settled) >= SETTLED_FOR_SPREAD:
        return LeagueShape(sides, size, games, days, float(np.std(settled)), True)
    return LeagueShape(sides, size, games, days, float(config.initial_rd), False)


def measure_coverage(
    config: RatingConfig,
    shape: LeagueShape,
    *,
    leagues: int = LEAGUES,
    players: int = PLAYERS,
    periods: int = PERIODS,
    seed: int = 0,
) -> CoverageMeasure:
    """Rate ``leagues`` simulated leagues of ``shape`` with ``config`` and measure how often
    rating ± z RD holds the true skill at every period's end, at every z of ``GRID``."""
    started = time.perf_counter()
    per_match = shape.sides * shape.size
    players = per_match * max(1, math.ceil(players / per_match))
    params = replace(engine_params(config), advantage=0.0, margin_scale=None)
    instant = config.update_mode == RatingConfig.UpdateMode.INSTANT
    curves = []
    for index in range(leagues):
        league = simulate_league(
            sides=shape.sides,
            size=shape.size,
            rate=shape.games,
            seed=seed + index,
            players=players,
            periods=periods,
            days=shape.period_days,
            params=params,
            spread=shape.spread,
            drift=TRUE_DRIFT,
        )
        if instant:
            history = fold_sides_instant(
                league.matches, league.moment, players, params, 0, periods - 1
            ).fold.history
        else:
            history = fold_sides(league.matches, players, params, 0, periods - 1).history
        skill = league.skill_at_end[history.period, history.player]
        errors = np.sort(np.abs(history.rating - skill) / history.rd)
        curves.append(np.searchsorted(errors, GRID, side="right") / errors.size)
    stacked = np.array(curves)
    error = stacked.std(axis=0, ddof=1) / math.sqrt(leagues) if leagues > 1 else np.zeros(GRID.size)
    return CoverageMeasure(
        shape=shape,
        update_mode=config.update_mode,
        leagues=leagues,
        players=players,
        periods=periods,
        coverage=tuple(float(value) for value in stacked.mean(axis=0)),
        error=tuple(float(value) for value in error),
        seconds=time.perf_counter() - started,
    )
