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


def time_command(slug: str, checkout: Path = ROOT) -> float:
    """Wall seconds of ``manage.py replay SLUG --sync`` in a fresh interpreter."""
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, str(checkout / "manage.py"), "replay", slug, "--sync", "--verbosity", "0"],
        check=True,
        stdout=subprocess.DEVNULL,
        env={**os.environ, "CELERY_TASK_ALWAYS_EAGER": "0"},
    )
    return time.perf_counter() - started


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
    commands, loops, ratios, befores = [], [], [], []
    for round_ in range(args.rounds):
        if args.before:
            befores.append(time_command(slug, args.before.resolve()))
            print(f"round {round_ + 1}: before {befores[-1]:.3f} s", flush=True)
        command = time_command(slug)
        started = time.perf_counter()
        pure_python_glicko2(*inputs)
        loop = time.perf_counter() - started
        commands.append(command)
        loops.append(loop)
        ratios.append(command / loop)
        print(
            f"round {round_ + 1}: replay --sync {command:.3f} s, pure Python {loop:.3f} s, "
            f"ratio {command / loop:.3f}",
            flush=True,
        )
    print(
        f"median of {args.rounds}: replay --sync {statistics.median(commands):.3f} s, "
        f"pure-Python loop {statistics.median(loops):.3f} s, "
        f"ratio {statistics.median(ratios):.3f} (target <= 0.35)"
    )
    if befores:
        before = statistics.median(befores)
        print(
            f"before ({args.before}): replay --sync {before:.3f} s, ratio to the loop "
            f"{before / statistics.median(loops):.3f}"
        )


if __name__ == "__main__":
    main()
