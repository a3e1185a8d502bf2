"""Simulated leagues from known skills: the coverage benchmark's (bench/bench_coverage.py) and a
league's own coverage measurement's (``ratings.coverage``), one simulation for both.

True skills start from a normal with the configuration's initial rating and a given spread,
and drift as a random walk of ``drift`` per week on the Glicko-2 scale, in steps between the
rounds. Every period has ``rate`` rounds (games per player per period), spread over its
days as evenly as they go; in every round the players are split at random into matches of
``sides`` sides of ``size`` players:

* two sides: side A wins with probability 1 / (1 + exp(-(sum of A's skills - sum of B's)))
  on the Glicko-2 scale: the team-sum model of ``engine/TEAMS.md``;
* three or more sides: each finishes in the order of its skill plus a standard Gumbel draw
  (a Plackett-Luce order: every pair finishes in the order of the engine's own pairwise
  model, 1 / (1 + exp(-(skill_i - skill_j)))).

Results say nothing about where the whole pool stands, only about differences, and a rating
system keeps its pool's average near the initial rating: the true skills are put on the
rating scale with the pool's average at the initial rating.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from engine.errors import InvalidParameterError
from engine.params import CENTRE, SCALE, Glicko2Params
from engine.sides import SideMatches

FloatArray = npt.NDArray[np.float64]

#: How fast true skills drift, per week on the Glicko-2 scale (about 10 rating points): fixed,
#: not the configuration's volatility, so that a configuration is judged against one truth.
TRUE_DRIFT = 0.06


@dataclass(frozen=True)
class SimulatedLeague:
    """A simulated league: matches in played order, their moments within their periods (the
    share of the period gone by at the end of the match's day) and the true skills at every
    period's end, ``(periods, players)`` on the rating scale."""

    matches: SideMatches
    moment: FloatArray
    skill_at_end: FloatArray


def simulate_league(
    *,
    sides: int,
    size: int,
    rate: int,
    seed: int,
    players: int,
    periods: int,
    days: float,
    params: Glicko2Params,
    spread: float | None = None,
    drift: float = TRUE_DRIFT,
) -> SimulatedLeague:
    """One league: ``players`` (a multiple of ``sides * size``) over ``periods`` periods of
    ``days`` days, ``rate`` rounds a period; skills spread ``spread`` rating points (None:
    the configuration's initial RD). The same arguments always give the same league."""
    per_match = sides * size
    if sides < 2 or size < 1 or rate < 1 or periods < 1 or days <= 0:
        raise InvalidParameterError("a simulated league needs 2+ sides, players, rounds, days")
    if players < per_match or players % per_match:
        raise InvalidParameterError(f"{players} players do not split into matches of {per_match}")
    rng = np.random.default_rng([seed, rate, sides, size])
    sd = (params.initial_rd if spread is None else spread) / SCALE
    theta = rng.normal((params.initial_rating - CENTRE) / SCALE, sd, players)
    count = players // per_match
    step = drift * math.sqrt(days / 7.0 / rate)
    whole_days = max(1, round(days))
    period_of, moments, seats_of, places = [], [], [], []
    skill_at_end = np.empty((periods, players))
    for p in range(periods):
        for r in range(rate):
            theta = theta + rng.normal(0.0, step, players)
            seats = rng.permutation(players).reshape(count, sides, size)
            strength = theta[seats].sum(axis=2)
            if sides == 2:
                won = rng.random(count) < 1.0 / (1.0 + np.exp(strength[:, 1] - strength[:, 0]))
                place = np.stack([(~won).astype(np.int64), won.astype(np.int64)], axis=1)
            else:
                performance = strength + rng.gumbel(size=strength.shape)
                place = np.argsort(np.argsort(-performance, axis=1), axis=1)
            day = (r * whole_days) // rate
            period_of.append(np.full(count, p))
            moments.append(np.full(count, (day + 1) / whole_days))
            seats_of.append(seats)
            places.append(place)
        skill_at_end[p] = params.initial_rating + SCALE * (theta - theta.mean())
    period = np.concatenate(period_of).astype(np.int64)
    total = period.size
    matches = SideMatches(
        period,
        np.repeat(np.arange(total, dtype=np.int64), per_match),
        np.tile(np.repeat(np.arange(sides, dtype=np.int64), size), total),
        np.concatenate(seats_of).reshape(-1).astype(np.int64),
        np.repeat(np.concatenate(places), size, axis=1).reshape(-1).astype(np.int64),
    )
    return SimulatedLeague(matches, np.concatenate(moments), skill_at_end)
