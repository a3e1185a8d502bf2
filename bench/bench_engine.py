"""Engine benchmarks: one big rating period, and the fold over a large synthetic league.

Run: .venv/bin/python -m bench.bench_engine

1. One period of 10,000 players x 20 games each (100,000 games): player-updates per second of
   the vectorised engine and of the scalar reference (tests/unit/scalar_glicko2.py) in the
   same run, and their ratio. Targets: >= 1,000,000 updates/s and >= 30x scalar.
2. The fold over 1,000,000 matches, 20,000 players, 520 weekly periods (engine only): wall
   time (target <= 10 s), peak traced memory, and ratios against baselines measured in the same
   run: a stable argsort of the same period array, and the scalar per-period loop on a 1%
   sample of the matches, extrapolated linearly.
"""

from __future__ import annotations

import os
import resource
import statistics
import time
import tracemalloc
from collections.abc import Callable

import numpy as np

from bench.synthetic import synthetic_league
from engine import Glicko2Params, PeriodGames, RatingState, fold, grown_rd, rate_period
from tests.unit import scalar_glicko2

PARAMS = Glicko2Params()


def timed(work: Callable[[], object], repeat: int) -> tuple[list[float], list[float]]:
    """Wall-clock and CPU (process) seconds of each of ``repeat`` runs.

    CPU time excludes the time spent waiting for a core, so it is the steadier figure when
    other processes share the machine; both are printed.
    """
    wall, cpu = [], []
    for _ in range(repeat):
        start_wall, start_cpu = time.perf_counter(), time.process_time()
        work()
        wall.append(time.perf_counter() - start_wall)
        cpu.append(time.process_time() - start_cpu)
    return wall, cpu


def report(label: str, seconds: list[float], units: float, unit_name: str) -> float:
    """Print the median (and best) of ``seconds``; return the median."""
    median = statistics.median(seconds)
    per_second = units / median
    print(
        f"  {label:<22} {median * 1e3:9.2f} ms  {per_second:>11,.0f} {unit_name}/s"
        f"  (median of {len(seconds)}, best {min(seconds) * 1e3:.2f} ms)"
    )
    return median


def one_period(n_players: int = 10_000, games_each: int = 20, seed: int = 1) -> None:
    rng = np.random.default_rng(seed)
    state = RatingState(
        rating=rng.normal(1500, 250, n_players),
        rd=rng.uniform(40, 350, n_players),
        volatility=rng.uniform(0.04, 0.09, n_players),
        last_period=np.zeros(n_players, dtype=np.int64),
    )
    # games_each rounds of a random perfect matching: every player plays exactly games_each.
    rounds = [rng.permutation(n_players).reshape(-1, 2) for _ in range(games_each)]
    pairs = np.concatenate(rounds)
    scores = rng.choice([0.0, 0.5, 1.0], size=len(pairs), p=[0.4, 0.2, 0.4])
    games = PeriodGames(pairs[:, 0], pairs[:, 1], scores)
    values = {
        p: (float(state.rating[p]), float(state.rd[p]), float(state.volatility[p]))
        for p in range(n_players)
    }
    game_list = list(zip(pairs[:, 0].tolist(), pairs[:, 1].tolist(), scores.tolist(), strict=True))

    vector_wall, vector_cpu = timed(lambda: rate_period(state, games, PARAMS, 1), repeat=30)
    scalar_wall, scalar_cpu = timed(
        lambda: scalar_glicko2.rate_period(values, game_list, PARAMS.tau), repeat=3
    )

    outcome = rate_period(state, games, PARAMS, 1)
    reference = scalar_glicko2.rate_period(values, game_list, PARAMS.tau)
    expected = np.array([reference[p] for p in outcome.players.tolist()])
    gap_rating = np.max(np.abs(outcome.rating - expected[:, 0]))
    gap_rd = np.max(np.abs(outcome.rd - np.minimum(expected[:, 1], PARAMS.max_rd)))

    print(f"== one period: {n_players:,} players x {games_each} games ({len(games):,} games)")
    print(" wall clock:")
    vector = report("vectorised engine", vector_wall, n_players, "player-updates")
    scalar = report("scalar reference", scalar_wall, n_players, "player-updates")
    print(f"  speed-up: {scalar / vector:.1f}x")
    print(" CPU time of this process:")
    vector = report("vectorised engine", vector_cpu, n_players, "player-updates")
    scalar = report("scalar reference", scalar_cpu, n_players, "player-updates")
    print(f"  speed-up: {scalar / vector:.1f}x")
    print(" targets: >= 1,000,000 player-updates/s, >= 30x the scalar reference")
    print(f" max |engine - scalar|: rating {gap_rating:.1e}, RD {gap_rd:.1e}")


def scalar_lazy_fold(rows: list[tuple[int, int, int, float]], max_rd: float) -> None:
    """The scalar per-period loop, with the engine's lazy idle growth (for the baseline)."""
    state: dict[int, tuple[float, float, float, int]] = {}
    by_period: dict[int, list[tuple[int, int, float]]] = {}
    for period, a, b, s in rows:
        by_period.setdefault(period, []).append((a, b, s))
    for period in sorted(by_period):
        games = by_period[period]
        before = {}
        for player in {a for a, _, _ in games} | {b for _, b, _ in games}:
            if player in state:
                rating, rd, sigma, last = state[player]
                before[player] = (rating, grown_rd(rd, sigma, period - 1 - last, max_rd), sigma)
            else:
                before[player] = (1500.0, 350.0, 0.06)
        for player, (rating, rd, sigma) in scalar_glicko2.rate_period(before, games, 0.5).items():
            state[player] = (rating, min(rd, max_rd), sigma, period)


def big_fold(n_matches: int = 1_000_000, n_players: int = 20_000, n_periods: int = 520) -> None:
    league = synthetic_league(n_players, n_matches, n_periods, seed=0)
    matches = league.matches
    last = n_periods - 1
    fold_wall, fold_cpu = timed(lambda: fold(matches, n_players, PARAMS, 0, last), repeat=3)

    tracemalloc.start()
    result = fold(matches, n_players, PARAMS, 0, last)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    arrays = (matches.period, matches.player_a, matches.player_b, matches.score_a)
    input_bytes = sum(a.nbytes for a in arrays)

    sort_wall, sort_cpu = timed(lambda: np.argsort(matches.period, kind="stable"), repeat=5)

    sample = np.random.default_rng(0).random(len(matches)) < 0.01
    rows = list(
        zip(
            matches.period[sample].tolist(),
            matches.player_a[sample].tolist(),
            matches.player_b[sample].tolist(),
            matches.score_a[sample].tolist(),
            strict=True,
        )
    )
    scalar_wall, scalar_cpu = timed(lambda: scalar_lazy_fold(rows, PARAMS.max_rd), repeat=1)
    scale_up = len(matches) / len(rows)

    rated = int((result.final_state.last_period >= 0).sum())
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"== fold: {n_matches:,} matches, {n_players:,} players, {n_periods} weekly periods")
    for label, engine, sort, scalar in (
        ("wall clock", fold_wall, sort_wall, scalar_wall),
        ("CPU time", fold_cpu, sort_cpu, scalar_cpu),
    ):
        median = statistics.median(engine)
        runs = ", ".join(f"{x:.2f}" for x in engine)
        sort_median = statistics.median(sort)
        extrapolated = scalar[0] * scale_up
        print(f" {label}: engine fold {median:.2f} s (median of runs {runs} s; target <= 10 s)")
        print(f"  baseline, stable argsort of the period array: {sort_median * 1e3:.1f} ms", end="")
        print(f" -> fold = {median / sort_median:.0f}x a sort")
        print(f"  baseline, scalar per-period loop on a 1% sample ({len(rows):,} matches):", end="")
        print(f" {scalar[0]:.2f} s, x{scale_up:.0f} = {extrapolated:.0f} s", end="")
        print(f" -> engine {extrapolated / median:.0f}x faster")
    print(f" history rows: {len(result.history):,}; rated players: {rated:,}")
    print(f" peak traced memory in the fold: {peak / 2**20:.0f} MiB", end=" ")
    print(f"(input arrays {input_bytes / 2**20:.0f} MiB); process peak RSS {rss:.0f} MiB")


if __name__ == "__main__":
    # The machine is shared: print the load so the figures can be read in context.
    print(f"load average (1, 5, 15 min): {os.getloadavg()}, cores: {os.cpu_count()}")
    one_period()
    big_fold()
    print(f"load average (1, 5, 15 min): {os.getloadavg()}")
