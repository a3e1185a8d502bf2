"""Coverage of the 95 % intervals on simulated leagues with known skills, both update modes.

The configuration is a new league's default (``ratings.parameters``: τ 0.5, initial RD 350,
volatility 0.10 for weekly periods, times (days / 7) ** (1/4) for other ``--days``);
every league is rated with both update modes (the default is instant). Run (the tables of
docs/intervals.md; one table in two to ten minutes on 2 cores, as busy as they are; time
printed):

    .venv/bin/python -m bench.bench_coverage
    .venv/bin/python -m bench.bench_coverage --seed-base 1000      # the check on other seeds
    .venv/bin/python -m bench.bench_coverage --spread 200          # a narrower pool of players

Each league has ``--players`` players and ``--periods`` rating periods of ``--days`` days
(7: the default configuration's weekly periods). True skills start from a normal with the
configuration's own initial rating and, by default, its initial RD as the spread (the
model's prior: ``--spread`` sets another) and drift as a random walk of ``--drift`` per
week on the Glicko-2 scale (0.06, about 10 rating points a week, whatever the configuration's
volatility), in steps between the rounds. Every period has k rounds (k = 2, 10, 30 games
per player per period), spread over its days as evenly as they go; in every round the
players are split at random into matches of the format:

* ``1v1``, ``2v2``, ``5v5``: two sides; side A wins with probability
  1 / (1 + exp(-(sum of A's skills - sum of B's))) on the Glicko-2 scale
  (skill = (rating - 1500) / 173.7178): the team-sum model of ``engine/TEAMS.md``;
* ``ffa6``: six players each for themselves, finishing in the order of skill plus a standard
  Gumbel draw (a Plackett-Luce order: every pair finishes in the order of the engine's own
  pairwise model, 1 / (1 + exp(-(skill_i - skill_j)))).

Game results say nothing about where the whole pool stands, only about differences, and a
rating system keeps its pool's average near the initial rating: true skills are put on the
rating scale with the pool's average at the initial rating.

Measured at every period's end, for every player: whether the true skill lies within
rating ± 1.96 RD (what the pages show as the 95 % interval). Coverage is the share over all
periods, players and seeds; its Monte Carlo error (±) is the standard error of the seeds'
means, each seed an independent league. Also: the log-loss of every match's prediction (every
pair of sides in ``ffa6``) made before it, from the values at the start of its period (period
updates) or just before it (instant updates), with the team-sum win probability.
"""

from __future__ import annotations

import argparse
import math
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from engine.glicko2 import g
from engine.instant import fold_sides_instant
from engine.params import CENTRE, SCALE, Glicko2Params
from engine.side_fold import fold_sides
from engine.sides import SideMatches, side_pairs
from engine.simulation import TRUE_DRIFT, simulate_league
from engine.simulation import SimulatedLeague as League
from engine.teams import DEFAULT_METHOD, METHODS, TeamMethod
from ratings.parameters import DEFAULTS, default_volatility

FloatArray = npt.NDArray[np.float64]

#: Format name -> (sides per match, players per side).
FORMATS: dict[str, tuple[int, int]] = {"1v1": (2, 1), "2v2": (2, 2), "5v5": (2, 5), "ffa6": (6, 1)}
RATES = (2, 10, 30)
MODES = ("period", "instant")
#: The 95 % interval's half-width in RDs, as the pages use it.
Z95 = 1.96


@dataclass(frozen=True)
class Task:
    """One simulated league and the configuration that rates it."""

    format: str
    rate: int
    seed: int
    players: int
    periods: int
    days: int
    params: Glicko2Params
    spread: float | None  # rating points; None: the configuration's initial RD
    drift: float  # per week, Glicko-2 scale
    method: TeamMethod = DEFAULT_METHOD
    rank_weight: bool = True


@dataclass(frozen=True)
class Outcome:
    task: Task
    coverage: dict[str, float]
    log_loss: dict[str, float]
    mean_rd: dict[str, float]
    seconds: dict[str, float]


def simulate(task: Task) -> League:
    """The league of ``task`` (``engine.simulation.simulate_league``): the same task always
    gives the same league."""
    sides, size = FORMATS[task.format]
    return simulate_league(
        sides=sides,
        size=size,
        rate=task.rate,
        seed=task.seed,
        players=task.players,
        periods=task.periods,
        days=task.days,
        params=task.params,
        spread=task.spread,
        drift=task.drift,
    )


def pair_log_loss(
    matches: SideMatches, row_rating: FloatArray, row_rd: FloatArray
) -> tuple[float, int]:
    """Summed log-loss over every pair of sides of every match, and the number of pairs.

    P(x ahead of y) = 1 / (1 + exp(-g(sqrt(Σφ_x² + Σφ_y²)) (Σμ_x - Σμ_y))) from each row's
    rating and RD (for one player a side: the engine's win probability); a tie counts half.
    """
    mu = (row_rating - CENTRE) / SCALE
    phi2 = (row_rd / SCALE) ** 2
    new_side = np.ones(matches.n_rows, dtype=bool)
    new_side[1:] = (matches.match[1:] != matches.match[:-1]) | (
        matches.side[1:] != matches.side[:-1]
    )
    side_of_row = np.cumsum(new_side) - 1
    starts = np.flatnonzero(new_side)
    mu_side = np.bincount(side_of_row, weights=mu)
    phi2_side = np.bincount(side_of_row, weights=phi2)
    place = matches.place[starts]
    x, y = side_pairs(matches.match[starts])
    z = g(np.sqrt(phi2_side[x] + phi2_side[y])) * (mu_side[x] - mu_side[y])
    p = np.clip(1.0 / (1.0 + np.exp(-z)), 1e-15, 1 - 1e-15)
    s = np.where(place[x] < place[y], 1.0, np.where(place[x] == place[y], 0.5, 0.0))
    loss = -(s * np.log(p) + (1.0 - s) * np.log1p(-p))
    return float(loss.sum()), int(loss.size)


def run(task: Task) -> Outcome:
    """Rate one league both ways and measure coverage, log-loss and the mean RD."""
    league = simulate(task)
    matches, n, params = league.matches, task.players, task.params
    last = task.periods - 1
    coverage, losses, mean_rd, seconds = {}, {}, {}, {}
    for mode in MODES:
        started = time.perf_counter()
        if mode == "period":
            history = fold_sides(matches, n, params, 0, last, method=task.method).history
            keys = history.period * n + history.player
            at = np.searchsorted(keys, matches.period[matches.match] * n + matches.player)
            row_rating, row_rd = history.rating_before[at], history.rd_before[at]
        else:
            rated = fold_sides_instant(
                matches,
                league.moment,
                n,
                params,
                0,
                last,
                method=task.method,
                rank_weight=task.rank_weight,
            )
            history, row_rating, row_rd = rated.fold.history, rated.row_rating, rated.row_rd
        seconds[mode] = time.perf_counter() - started
        # Every player plays in every period: a period's rows are everyone's values at its end.
        skill = league.skill_at_end[history.period, history.player]
        hits = np.abs(history.rating - skill) <= Z95 * history.rd
        total, pairs = pair_log_loss(matches, row_rating, row_rd)
        coverage[mode] = float(np.mean(hits))
        losses[mode] = total / pairs
        mean_rd[mode] = float(np.mean(history.rd))
    return Outcome(task, coverage, losses, mean_rd, seconds)


def table(outcomes: list[Outcome], formats: list[str], rates: list[int]) -> list[str]:
    """The Markdown table: coverage ± its Monte Carlo error, log-loss and mean RD per cell."""
    lines = [
        "| format | games a period | period updates: coverage | instant: coverage "
        "| log-loss period / instant | mean RD period / instant |",
        "|---|---|---|---|---|---|",
    ]
    for fmt in formats:
        for rate in rates:
            cell = [o for o in outcomes if o.task.format == fmt and o.task.rate == rate]
            text = [fmt, str(rate)]
            for mode in MODES:
                values = np.array([o.coverage[mode] for o in cell])
                error = values.std(ddof=1) / math.sqrt(values.size) if values.size > 1 else 0.0
                text.append(f"{100 * values.mean():.1f} % ± {100 * error:.1f}")
            text.append(" / ".join(f"{np.mean([o.log_loss[m] for o in cell]):.4f}" for m in MODES))
            text.append(" / ".join(f"{np.mean([o.mean_rd[m] for o in cell]):.0f}" for m in MODES))
            lines.append("| " + " | ".join(text) + " |")
    return lines


def main() -> None:
    defaults = Glicko2Params()
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--players", type=int, default=180)
    parser.add_argument("--periods", type=int, default=30)
    parser.add_argument("--days", type=int, default=7, help="days a rating period")
    parser.add_argument("--seeds", type=int, default=12)
    parser.add_argument("--seed-base", type=int, default=0)
    parser.add_argument(
        "--spread", type=float, default=None, help="sd of the true skills (default: initial RD)"
    )
    parser.add_argument("--drift", type=float, default=TRUE_DRIFT, help="skill drift a week")
    parser.add_argument("--tau", type=float, default=DEFAULTS["tau"])
    parser.add_argument("--initial-rd", type=float, default=DEFAULTS["initial_rd"])
    parser.add_argument(
        "--volatility",
        type=float,
        default=None,
        help="initial volatility (default: a new league's for --days: 0.1 for 7)",
    )
    parser.add_argument(
        "--volatility-ceiling",
        type=float,
        default=DEFAULTS["volatility_ceiling"],
        help="no volatility grows above it (default: a new league's, 0.2)",
    )
    parser.add_argument("--method", choices=METHODS, default=DEFAULT_METHOD)
    parser.add_argument(
        "--no-rank-weight",
        action="store_true",
        help="instant updates count a multi-side game's side results as whole games",
    )
    parser.add_argument("--formats", default=",".join(FORMATS))
    parser.add_argument("--rates", default=",".join(map(str, RATES)))
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    if args.volatility is None:
        args.volatility = default_volatility("days", args.days)
    params = replace(
        defaults,
        tau=args.tau,
        initial_rd=args.initial_rd,
        max_rd=max(defaults.max_rd, args.initial_rd),
        initial_volatility=args.volatility,
        volatility_ceiling=args.volatility_ceiling,
    )
    formats = args.formats.split(",")
    rates = [int(rate) for rate in args.rates.split(",")]
    tasks = [
        Task(
            fmt,
            rate,
            args.seed_base + seed,
            args.players,
            args.periods,
            args.days,
            params,
            args.spread,
            args.drift,
            args.method,
            not args.no_rank_weight,
        )
        for fmt in formats
        for rate in rates
        for seed in range(args.seeds)
    ]
    started = time.perf_counter()
    with ProcessPoolExecutor(args.workers) as pool:
        outcomes = list(pool.map(run, tasks))
    elapsed = time.perf_counter() - started
    spread = "the initial RD" if args.spread is None else f"{args.spread:g}"
    print(
        f"{args.players} players, {args.periods} periods of {args.days} days, seeds "
        f"{args.seed_base}..{args.seed_base + args.seeds - 1}; configuration: tau {args.tau:g}, "
        f"initial RD {args.initial_rd:g}, volatility {args.volatility:g}, {args.method}"
        f"{'' if not args.no_rank_weight else ', no rank weight'}; skills: sd {spread}, "
        f"drift {args.drift:g} a week"
    )
    print("\n".join(table(outcomes, formats, rates)))
    busy = sum(sum(o.seconds.values()) for o in outcomes)
    print(f"time: {elapsed:.0f} s on {args.workers} workers ({busy:.0f} s rating)")


if __name__ == "__main__":
    main()
