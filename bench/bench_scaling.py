"""How cost grows with the number of matches: full replay, incremental replay, import, memory.

For each size (``--sizes``, default 10,000 100,000 1,000,000 matches; players = matches / 50,
520 weekly periods ending this week) on the database of ``DATABASE_URL`` (PostgreSQL) or the
embedded SQLite under ``LEAGUE_VAR_DIR``:

- **full replay**: ``manage.py replay SLUG --sync`` as a whole process (start-up, reading,
  computing, writing, publication), wall seconds and the process's peak RSS, median of
  ``--runs`` after one warm-up run (which creates the first projection: every timed run
  replaces an existing one, as an organiser's replay does);
- **incremental**: one new result in the current period recorded in this process (Celery
  eager), from the call to updated standings, median of ``--runs``;
- **import**: ``manage.py import_results NEW_SLUG FILE --create-players`` of a CSV of the same
  size with every player new, as a whole process: rows per second and peak RSS
  (``--no-import`` skips it).

The league's events are loaded in bulk by ``bench_replay.load_league`` on first use and kept.
Prints one Markdown table row per size::

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/league_scale \\
        .venv/bin/python bench/bench_scaling.py --sizes 10000 100000 1000000
    LEAGUE_VAR_DIR=var/scale .venv/bin/python bench/bench_scaling.py
"""

from __future__ import annotations

import argparse
import csv
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
# The incremental measure replays in this process as soon as the result is committed.
os.environ["CELERY_TASK_ALWAYS_EAGER"] = "1"

PERIODS = 520


def run_process(arguments: list[str]) -> tuple[float, float]:
    """(wall seconds, peak RSS in MiB) of ``manage.py ARGUMENTS`` in a fresh interpreter."""
    env = {**os.environ, "CELERY_TASK_ALWAYS_EAGER": "0"}
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, str(ROOT / "manage.py"), *arguments, "--verbosity", "0"],
        env=env,
        stdout=subprocess.DEVNULL,
    )
    _pid, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    if status != 0:
        sys.exit(f"manage.py {' '.join(arguments)} failed ({status})")
    return wall, usage.ru_maxrss / 1024


def incremental(league) -> float:
    """Seconds from recording one result in the current period to updated standings."""
    from league import services as league_services
    from league.models import Player
    from ratings.models import Replay

    a, b = Player.objects.filter(league=league).order_by("pk").values_list("pk", flat=True)[:2]
    started = time.perf_counter()
    league_services.record_match(
        league, player_a=a, player_b=b, score_a="1", played_at=dt.datetime.now(dt.UTC)
    )
    elapsed = time.perf_counter() - started
    replay = Replay.objects.filter(config__league=league).latest("pk")
    if replay.kind != Replay.Kind.INCREMENTAL or replay.status != Replay.Status.COMPLETE:
        sys.exit(f"the new result's replay is {replay.kind} {replay.status}: {replay.error}")
    return elapsed


def import_file(path: Path, matches: int, players: int) -> None:
    """A CSV of ``matches`` results among ``players`` new names (seeded)."""
    if path.exists():
        return
    from bench.synthetic import synthetic_league

    league = synthetic_league(players, matches, PERIODS, seed=11).matches
    anchor = dt.date(2015, 1, 5)
    text = {1.0: "1", 0.5: "0.5", 0.0: "0"}
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["date", "player_a", "player_b", "score_a"])
        for period, a, b, score in zip(
            league.period.tolist(),
            league.player_a.tolist(),
            league.player_b.tolist(),
            league.score_a.tolist(),
            strict=True,
        ):
            day = anchor + dt.timedelta(days=7 * period + (a + b) % 7)
            writer.writerow([day.isoformat(), f"Imported {a}", f"Imported {b}", text[score]])


def import_rate(var: Path, matches: int, players: int) -> tuple[float, float]:
    """(rows per second, peak RSS MiB) of importing a fresh CSV into a new league."""
    path = var / f"scaling-{matches}.csv"
    import_file(path, matches, players)
    slug = f"scaling-import-{matches}-{int(time.time())}"
    run_process(
        [
            "create_league",
            slug,
            "--name",
            slug,
            "--period-days",
            "7",
            "--period-anchor",
            "2015-01-05",
        ]
    )
    wall, rss = run_process(["import_results", slug, str(path), "--create-players"])
    return matches / wall, rss


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-import", action="store_true")
    args = parser.parse_args()
    if os.environ.get("DATABASE_URL", "").startswith("postgres"):
        from bench.bench_replay import ensure_postgres_database

        ensure_postgres_database()

    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connection

    from bench.bench_replay import load_league, week_anchor

    call_command("migrate", verbosity=0)
    var = Path(settings.VAR_DIR)
    var.mkdir(parents=True, exist_ok=True)
    print(f"database: {connection.vendor}; load average {os.getloadavg()}, {os.cpu_count()} cores")
    print(
        "| matches | players | full replay (process) | peak RSS | incremental | "
        "import | import peak RSS |"
    )
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for matches in args.sizes:
        players = max(matches // 50, 2)
        league, _ = load_league(matches, players, PERIODS, anchor=week_anchor(PERIODS))
        run_process(["replay", league.slug, "--sync"])  # warm-up: the first projection
        fulls = [run_process(["replay", league.slug, "--sync"]) for _ in range(args.runs)]
        connection.close()
        increments = [incremental(league) for _ in range(args.runs)]
        full = statistics.median(wall for wall, _ in fulls)
        rss = max(peak for _, peak in fulls)
        cells = [
            f"{matches:,}",
            f"{players:,}",
            f"{full:.2f} s",
            f"{rss:,.0f} MiB",
            f"{statistics.median(increments):.3f} s",
        ]
        if args.no_import:
            cells += ["-", "-"]
        else:
            rate, import_rss = import_rate(var, matches, players)
            cells += [f"{rate:,.0f} rows/s", f"{import_rss:,.0f} MiB"]
        print("| " + " | ".join(cells) + " |", flush=True)
    print(f"load average {os.getloadavg()}")


if __name__ == "__main__":
    main()
