"""Benchmark: CSV import of a large results file on the embedded default (SQLite).

Generates a CSV of ``--rows`` results (streamed to disk), then in a scratch
``LEAGUE_VAR_DIR`` (a fresh SQLite database):

1. baseline: parse the file with a plain ``csv.reader`` (the floor for any CSV import);
2. import it with ``league.csv_import.import_results`` (all or nothing, one transaction);
3. import it again: every row is already recorded, so nothing new is stored.

Prints rows per second for each, the ratio of the import to the baseline measured in the
same run, and the process's peak resident memory (``ru_maxrss``) next to the file size,
which shows the file is streamed, not loaded. Target: at least 40,000 rows/s (wall clock).
The rows per CPU-second of this process are printed too: on a shared machine the wall
clock also measures the neighbours.

    .venv/bin/python bench/bench_import.py              # 1,000,000 rows
    .venv/bin/python bench/bench_import.py --rows 100000
    .venv/bin/python bench/bench_import.py --rows 200000 --players 5000 --new-players

With ``--new-players`` the players are not registered first: the import creates them
(``create_players``), as ``manage.py import_results … --create-players`` does on a new league.
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import os
import random
import resource
import secrets
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
#: Issue 20's target for 200,000 rows with 5,000 new players.
TARGET_ROWS_PER_SECOND = 40_000


def generate(path: Path, rows: int, players: int, seed: int) -> None:
    """Write ``rows`` random results between ``players`` players, one line at a time."""
    rng = random.Random(seed)
    names = [f"Player {i:05d}" for i in range(players)]
    first = dt.date(2000, 1, 1)
    span = (dt.date(2025, 12, 31) - first).days
    scores = ("1", "0", "0.5", "1-0", "0-1")
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "date", "player_a", "player_b", "score_a", "note"])
        for i in range(rows):
            a, b = rng.sample(names, 2)
            day = first + dt.timedelta(days=span * i // rows)
            writer.writerow([f"bench-{i}", day.isoformat(), a, b, rng.choice(scores), ""])


def check(condition: bool, message: str) -> None:
    if not condition:
        raise SystemExit(f"benchmark check failed: {message}")


def peak_rss_mib() -> float:
    # ru_maxrss is in KiB on Linux.
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--players", type=int, default=2_000)
    parser.add_argument("--seed", type=int, default=9)
    parser.add_argument(
        "--new-players",
        action="store_true",
        help="let the import register the players (no roster imported first)",
    )
    parser.add_argument("--keep", action="store_true", help="keep the scratch directory")
    args = parser.parse_args()
    if args.rows < 1 or args.players < 2:
        parser.error("--rows must be at least 1 and --players at least 2")

    scratch = Path(tempfile.mkdtemp(prefix="bench-import-", dir=ROOT / "var"))
    # The embedded default, whatever the caller's environment says.
    os.environ["LEAGUE_VAR_DIR"] = str(scratch)
    os.environ.pop("DATABASE_URL", None)
    os.environ["CELERY_BROKER_URL"] = "filesystem://"
    os.environ["DJANGO_DEBUG"] = "0"
    os.environ["DJANGO_SECRET_KEY"] = secrets.token_urlsafe(40)
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
    sys.path.insert(0, str(ROOT))
    try:
        return run(scratch, args)
    finally:
        if args.keep:
            print(f"scratch directory kept: {scratch}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)


def run(scratch: Path, args: argparse.Namespace) -> int:
    import django

    django.setup()
    from django.core.management import call_command

    from league.csv_import import import_results
    from league.models import Event, League

    (scratch / "broker" / "queue").mkdir(parents=True, exist_ok=True)
    (scratch / "broker" / "processed").mkdir(parents=True, exist_ok=True)
    call_command("migrate", verbosity=0)
    league = League.objects.create(
        name="Bench league", slug="bench", start_date=dt.date(2000, 1, 1)
    )

    path = scratch / "results.csv"
    started = time.perf_counter()
    generate(path, args.rows, args.players, args.seed)
    size_mib = path.stat().st_size / 2**20
    print(
        f"generated {args.rows:,} rows, {args.players:,} players, {size_mib:.1f} MiB "
        f"in {time.perf_counter() - started:.1f} s"
    )

    if not args.new_players:
        register_roster(scratch, league, args)
    rss_before = peak_rss_mib()

    started = time.perf_counter()
    with path.open(encoding="utf-8", newline="") as handle:
        parsed = sum(1 for _ in csv.reader(handle)) - 1
    baseline = parsed / (time.perf_counter() - started)

    events_before = Event.objects.filter(league=league).count()
    started, cpu_started = time.perf_counter(), time.process_time()
    with path.open("rb") as handle:
        report = import_results(league, handle, create_players=args.new_players)
    elapsed = time.perf_counter() - started
    cpu = time.process_time() - cpu_started
    check(report.ok, f"import refused: {[str(error) for error in report.errors[:5]]}")
    stored = Event.objects.filter(league=league).count() - events_before
    expected = args.rows + len(report.players_created)
    check(stored == expected, f"stored {stored}, expected {expected}")
    check(report.recorded == args.rows, f"recorded {report.recorded} of {args.rows}")
    rate = args.rows / elapsed
    rss_after = peak_rss_mib()
    if args.new_players:
        print(f"the import registered {len(report.players_created):,} players")

    started = time.perf_counter()
    with path.open("rb") as handle:
        again = import_results(league, handle)
    elapsed_again = time.perf_counter() - started
    check(
        again.ok and again.recorded == 0 and again.skipped == args.rows,
        f"second import: {again.summary()}",
    )
    rate_again = args.rows / elapsed_again
    report_rates(args, baseline, rate, elapsed, cpu, rate_again, elapsed_again, again.skipped)
    print(
        f"peak RSS: {rss_before:.0f} MiB before the import, {rss_after:.0f} MiB after "
        f"(file: {size_mib:.0f} MiB; SQLite's page cache alone may take 64 MiB)"
    )
    verdict = "meets" if rate >= TARGET_ROWS_PER_SECOND else "MISSES"
    print(f"target {TARGET_ROWS_PER_SECOND:,} rows/s: {verdict}")
    return 0 if rate >= TARGET_ROWS_PER_SECOND else 1


def register_roster(scratch: Path, league: Any, args: argparse.Namespace) -> None:
    """Players first (their registration is a separate, smaller cost)."""
    from league.csv_import import import_results

    roster = scratch / "players.csv"
    with roster.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["date", "player_a", "player_b", "score_a"])
        names = [f"Player {i:05d}" for i in range(args.players)]
        for a, b in zip(names[0::2], names[1::2], strict=False):
            writer.writerow(["2000-01-01", a, b, "0.5"])
        if len(names) % 2:
            writer.writerow(["2000-01-01", names[-1], names[0], "0.5"])
    started = time.perf_counter()
    with roster.open("rb") as handle:
        report = import_results(league, handle, create_players=True)
    check(report.ok, f"players not registered: {report.errors[:5]}")
    print(
        f"registered {len(report.players_created):,} players in "
        f"{time.perf_counter() - started:.2f} s"
    )


def report_rates(
    args: argparse.Namespace,
    baseline: float,
    rate: float,
    elapsed: float,
    cpu: float,
    rate_again: float,
    elapsed_again: float,
    skipped: int,
) -> None:
    print(f"baseline csv.reader parse:     {baseline:>12,.0f} rows/s")
    print(
        f"import_results (new rows):     {rate:>12,.0f} rows/s  ({elapsed:.1f} s, "
        f"{rate / baseline:.3f}x baseline; {args.rows / cpu:,.0f} rows per CPU-second)"
    )
    print(
        f"import_results (same file):    {rate_again:>12,.0f} rows/s  ({elapsed_again:.1f} s, "
        f"{rate_again / baseline:.3f}x baseline, all {skipped:,} skipped)"
    )


if __name__ == "__main__":
    sys.exit(main())
