"""Pairing benchmarks: how a Swiss round's cost grows with the field, and a round robin's.

Run: .venv/bin/python -m bench.bench_pairings

A Swiss round is one maximum-weight matching over every pair of the field (Edmonds' blossom
algorithm in ``networkx``, cubic in the field). For fields of 20 to 120 players with random
scores, sides and earlier pairings (fixed seeds), the median of three runs, and the ratio to
the 20-player field measured in the same run: the organiser pages cap a Swiss field at 100
players and a round robin at 40 (``web/workspace/fixture_forms.py``) from these figures.
"""

from __future__ import annotations

import random
import statistics
import time

from pairings import SwissPlayer, round_robin, swiss_round

SIZES = (20, 40, 60, 100, 120)


def _field(n: int, seed: int) -> tuple[list[SwissPlayer], set[frozenset[int]]]:
    rng = random.Random(seed)
    players = [
        SwissPlayer(
            i,
            rng.randint(0, 8) / 2,
            i + 1,
            tuple(rng.choice(["first", "second"]) for _ in range(4)),
            had_bye=rng.random() < 0.1,
        )
        for i in range(n)
    ]
    played = {frozenset(rng.sample(range(n), 2)) for _ in range(2 * n)}
    return players, played


def _median_seconds(action, runs: int = 3) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    baseline = None
    print("Swiss round (one weighted matching), median of 3 runs:")
    for n in SIZES:
        players, played = _field(n, seed=n)
        seconds = _median_seconds(lambda p=players, q=played: swiss_round(p, q))
        baseline = baseline or seconds
        print(
            f"  {n:4d} players: {seconds:7.3f} s  ({seconds / baseline:6.1f}x the 20-player field)"
        )
    seconds = _median_seconds(lambda: round_robin(list(range(40)), double=True))
    print(f"Double round robin of 40 players (1,560 pairings): {seconds * 1000:.2f} ms")


if __name__ == "__main__":
    main()
