"""``manage.py replay SLUG --sync`` as a whole process vs a pure-Python Glicko-2 loop.

The league of the issue: 200,000 matches among 5,000 players over 104 weekly periods from
2020-01-06 (so about 360 periods to today), loaded in bulk into a SQLite database under
``LEAGUE_VAR_DIR`` (or PostgreSQL with ``DATABASE_URL``) on first use. Each round runs, one
after the other on the same machine:

- ``manage.py replay SLUG --sync`` in a fresh interpreter, timed from ``fork`` to exit
  (start-up, reading, computing and writing the projection, publication);
- the pure-Python loop (``bench.bench_replay.pure_python_glicko2``) computing the same league
  in memory, timed around the loop only (its inputs are made before the clock starts).

Rounds alternate so a noisy neighbour slows both; the medians and the median of the per-round
ratios are printed. ``--before PATH`` also times ``PATH/manage.py replay --sync`` (another
checkout, e.g. main before a change, on the same database) in every round::

    LEAGUE_VAR_DIR=var/bench .venv/bin/python bench/bench_sync.py [--rounds 5] [--before ../main]
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.checkouts import environment  # noqa: E402

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("DJANGO_DEBUG", "1")
os.environ["CELERY_TASK_ALWAYS_EAGER"] = "0"

ANCHOR = dt.date(2020, 1, 6)  # a Monday


def prepare(matches: int, players: int, periods: int) -> str:
    """Migrate, load the league once, and return its slug."""
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from bench.bench_replay import load_league

    league, _anchor = load_league(matches, players, periods, anchor=ANCHOR)
    return league.slug


def time_command(slug: str, checkout: Path = ROOT) -> tuple[float, float]:
    """(wall, CPU) seconds of ``manage.py replay SLUG --sync`` in a fresh interpreter."""
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, str(checkout / "manage.py"), "replay", slug, "--sync", "--verbosity", "0"],
        stdout=subprocess.DEVNULL,
        # In the checkout's own directory, or it would import this one's packages.
        cwd=checkout,
        env=environment(CELERY_TASK_ALWAYS_EAGER="0"),
    )
    _pid, status, usage = os.wait4(process.pid, 0)
    if status != 0:
        sys.exit(f"replay --sync failed ({status})")
    return time.perf_counter() - started, usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=200_000)
    parser.add_argument("--players", type=int, default=5_000)
    parser.add_argument("--periods", type=int, default=104)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--before", type=Path, help="another checkout to time in each round")
    args = parser.parse_args()
    slug = prepare(args.matches, args.players, args.periods)

    from bench.bench_replay import pure_python_glicko2
    from bench.synthetic import synthetic_league

    synthetic = synthetic_league(args.players, args.matches, args.periods, seed=1).matches
    inputs = (
        synthetic.period.tolist(),
        synthetic.player_a.tolist(),
        synthetic.player_b.tolist(),
        synthetic.score_a.tolist(),
        args.players,
    )
    time_command(slug)  # warm the page cache of the database file and the .pyc files
    # (wall, CPU) per round of: this checkout's command, the loop, the other checkout's.
    rounds: list[tuple[tuple[float, float], tuple[float, float], tuple[float, float] | None]] = []
    for round_ in range(args.rounds):
        before = time_command(slug, args.before.resolve()) if args.before else None
        command = time_command(slug)
        started, cpu = time.perf_counter(), time.process_time()
        pure_python_glicko2(*inputs)
        loop = (time.perf_counter() - started, time.process_time() - cpu)
        rounds.append((command, loop, before))
        line = (
            f"round {round_ + 1}: replay --sync {command[0]:.3f} s (CPU {command[1]:.3f} s), "
            f"pure Python {loop[0]:.3f} s (CPU {loop[1]:.3f} s), "
            f"ratio {command[0] / loop[0]:.3f} (CPU {command[1] / loop[1]:.3f})"
        )
        if before:
            line += f"; before: {before[0]:.3f} s (CPU {before[1]:.3f} s)"
        print(line, flush=True)

    def median(values) -> float:
        return statistics.median(values)

    # Wall clock is what the target is about; CPU time is what survives a crowded machine.
    for k, clock in ((0, "wall"), (1, "CPU")):
        command = median(r[0][k] for r in rounds)
        print(
            f"median of {args.rounds}, {clock}: replay --sync {command:.3f} s, "
            f"pure-Python loop {median(r[1][k] for r in rounds):.3f} s, "
            f"ratio {median(r[0][k] / r[1][k] for r in rounds):.3f} (target <= 0.35)"
        )
        if args.before:
            print(
                f"  before ({args.before}): {median(r[2][k] for r in rounds):.3f} s, "
                f"ratio {median(r[2][k] / r[1][k] for r in rounds):.3f}"
            )


if __name__ == "__main__":
    main()
