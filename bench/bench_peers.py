"""Our engine against the ``glicko2`` package on PyPI and our own scalar twin, same league.

The league of ``bench/bench_sync.py`` (synthetic, seeded: 200,000 matches among 5,000 players
over 104 weekly periods; ``--matches`` etc. for another size), computed in memory three ways
in the same run, each timed around its loop only:

- **engine**: ``engine.fold`` (vectorised, lazy idle RD growth);
- **scalar twin**: ``tests/unit/scalar_glicko2.py`` period by period (Glickman's formulas,
  one player at a time, the engine's lazy idle growth) as in ``bench/bench_engine.py``;
- **glicko2 (PyPI)**: one ``glicko2.Player`` per player, ``update_player`` for each player
  who played in a period, ``did_not_compete`` for every rated player who did not (the
  package's own way to age an idle player: eager, one call per player and period).

Rounds alternate the three; medians are printed with ratios to the engine. The final ratings
are compared with the engine's (the package has no RD ceiling and ages idle players eagerly,
so small differences are expected there; the scalar twin must agree to rounding)::

    .venv/bin/python -m bench.bench_peers [--rounds 3]
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.bench_engine import scalar_lazy_fold  # noqa: E402
from bench.synthetic import synthetic_league  # noqa: E402
from engine import Glicko2Params, fold  # noqa: E402

PARAMS = Glicko2Params()


def by_period(period, a, b, score) -> dict[int, list[tuple[int, int, float]]]:
    games: dict[int, list[tuple[int, int, float]]] = {}
    for p, x, y, s in zip(period, a, b, score, strict=True):
        games.setdefault(p, []).append((x, y, s))
    return games


def package_loop(games: dict[int, list[tuple[int, int, float]]], n_players: int) -> list:
    """The league through the ``glicko2`` package, period by period."""
    import glicko2

    glicko2.Player._tau = PARAMS.tau
    players: dict[int, glicko2.Player] = {}
    for period in range(max(games) + 1 if games else 0):
        results: dict[int, list[tuple[int, float]]] = {}
        for x, y, s in games.get(period, ()):
            results.setdefault(x, []).append((y, s))
            results.setdefault(y, []).append((x, 1.0 - s))
        # Everyone's values before the period, then every update.
        before = {i: (p.rating, p.rd) for i, p in players.items()}
        for i in results:
            players.setdefault(i, glicko2.Player())
        for i, player in players.items():
            mine = results.get(i)
            if mine is None:
                player.did_not_compete()
                continue
            ratings = [before[j][0] if j in before else 1500.0 for j, _ in mine]
            rds = [before[j][1] if j in before else 350.0 for j, _ in mine]
            player.update_player(ratings, rds, [s for _, s in mine])
    return [players[i].rating if i in players else math.nan for i in range(n_players)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=200_000)
    parser.add_argument("--players", type=int, default=5_000)
    parser.add_argument("--periods", type=int, default=104)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print(f"load average (1, 5, 15 min): {os.getloadavg()}, cores: {os.cpu_count()}")
    matches = synthetic_league(args.players, args.matches, args.periods, seed=1).matches
    last = int(matches.period.max())
    columns = (
        matches.period.tolist(),
        matches.player_a.tolist(),
        matches.player_b.tolist(),
        matches.score_a.tolist(),
    )
    rows = list(zip(*columns, strict=True))
    games = by_period(*columns)

    times: dict[str, list[float]] = {"engine": [], "scalar twin": [], "glicko2 (PyPI)": []}
    for _ in range(args.rounds):
        started = time.perf_counter()
        result = fold(matches, args.players, PARAMS, 0, last)
        times["engine"].append(time.perf_counter() - started)
        started = time.perf_counter()
        scalar_lazy_fold(rows, PARAMS.max_rd)
        times["scalar twin"].append(time.perf_counter() - started)
        started = time.perf_counter()
        package = package_loop(games, args.players)
        times["glicko2 (PyPI)"].append(time.perf_counter() - started)

    engine = statistics.median(times["engine"])
    print(
        f"== {args.matches:,} matches, {args.players:,} players, {args.periods} weekly periods; "
        f"median of {args.rounds} rounds"
    )
    for name, seconds in times.items():
        median = statistics.median(seconds)
        print(
            f" {name:15s} {median:7.3f} s  ({args.matches / median:12,.0f} matches/s; "
            f"{median / engine:6.1f}x the engine)"
        )
    state = result.final_state
    rated = state.last_period >= 0
    gap = np.abs(np.asarray(package)[rated] - state.rating[rated])
    print(
        f" final ratings, glicko2 (PyPI) vs engine: median gap {np.median(gap):.2f}, "
        f"max {gap.max():.2f} rating points over {int(rated.sum()):,} players "
        "(no RD ceiling, eager idle ageing)"
    )
    print(f"load average (1, 5, 15 min): {os.getloadavg()}")


if __name__ == "__main__":
    main()
