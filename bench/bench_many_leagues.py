"""100 leagues replaying at once across 2 real Celery workers: throughput and fairness.

One big league (``--big`` matches, default 1,000,000 among 20,000 players over 520 weeks:
the league of ``bench_replay.py postgres``, reused when it is there) and 99 small ones
(``--small`` matches each, default 500 among 50 players) are loaded in bulk on first use.
Two worker processes start (``celery worker -P solo``: one replay at a time each, with the
project's settings: prefetch multiplier 1, acks late). Then a full replay of every league is
requested through ``ratings.services.request_full_replay`` (the path ``manage.py replay``
and the admin take), the big league first, and the benchmark waits until all 100 are done.

It prints leagues per second (from the first request to the last replay finished), each
small league's wait (queued -> started) and run (started -> finished) as median and maximum,
and the big replay's run. Fairness: with prefetch 1 and late acknowledgement the worker busy
with the big replay holds no other message, so the other worker drains every small league
while the big one runs; a small league held behind it would start only when it ends. The
benchmark measures how long, while the big replay ran, no small replay was running (the
other worker's idle time between jobs: near zero, and no single gap longer than a job's
pick-up, when nothing waits behind the big replay), and counts the small leagues finished
before the big replay did.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/league_many \\
    CELERY_BROKER_URL=redis://127.0.0.1:6379/5 .venv/bin/python bench/bench_many_leagues.py

``--stream`` is issue 33's benchmark, many clubs on one server (``bench/many_clubs.py``
says how it loads, sends and measures): ``--leagues`` leagues (1,000 by default) sized like
real clubs, results at ``--rate`` a second from ``--senders`` processes through
``league.services.record_match``, ``--config-changes`` new configuration versions a minute,
``--workers`` real workers; the lag of each result from its commit to its published
standings, computed after the stream from moments the database stored::

    DATABASE_URL=… CELERY_BROKER_URL=… .venv/bin/python bench/bench_many_leagues.py --stream \\
        [--leagues 1000] [--rate 20] [--seconds 120]

Target: p95 lag <= 1 s with 2 workers at 20 results/s.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("DJANGO_DEBUG", "1")
os.environ["CELERY_TASK_ALWAYS_EAGER"] = "0"

ANCHOR = dt.date(2020, 1, 6)  # the small leagues' (a Monday)

from bench.worker_processes import start_workers  # noqa: E402  (after sys.path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stream", action="store_true", help="issue 33's many-clubs run")
    parser.add_argument("--rate", type=float, default=20.0, help="--stream: results a second")
    parser.add_argument("--seconds", type=float, default=120.0, help="--stream: duration")
    parser.add_argument("--config-changes", type=float, default=3.0, help="--stream: a minute")
    parser.add_argument("--huge", type=int, default=3, help="--stream: leagues of --huge-size")
    parser.add_argument("--huge-size", type=int, default=100_000)
    parser.add_argument("--senders", type=int, default=3, help="--stream: sender processes")
    parser.add_argument("--threads", type=int, default=4, help="--stream: per sender")
    parser.add_argument("--workers", type=int, default=2, help="--stream: worker processes")
    parser.add_argument("--drain", type=float, default=60, help="--stream: seconds to wait")
    parser.add_argument("--leagues", type=int, default=None, help="100 (1,000 with --stream)")
    parser.add_argument("--big", type=int, default=1_000_000)
    parser.add_argument("--small", type=int, default=500)
    parser.add_argument("--timeout", type=float, default=900)
    args = parser.parse_args()
    if args.stream:
        from bench.many_clubs import run

        args.leagues = args.leagues or 1_000
        run(args)
        return
    args.leagues = args.leagues or 100

    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connections

    from bench.bench_replay import load_league, week_anchor
    from config.celery import app
    from league.models import League
    from ratings import services
    from ratings.models import Replay

    call_command("migrate", verbosity=0)
    var = Path(settings.VAR_DIR)
    var.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    big, _ = load_league(args.big, 20_000, 520, anchor=week_anchor(520))
    small = [
        load_league(args.small, 50, 104, anchor=ANCHOR, slug=f"many-{i}-{args.small}", seed=i)[0]
        for i in range(args.leagues - 1)
    ]
    print(f"{args.leagues} leagues ready in {time.perf_counter() - started:.1f} s")
    Replay.objects.filter(status__in=[Replay.Status.QUEUED, Replay.Status.RUNNING]).update(
        status=Replay.Status.SUPERSEDED
    )
    app.control.purge()
    connections.close_all()
    workers = start_workers(var, 2)
    try:
        first = time.perf_counter()
        replays = [services.request_full_replay(league) for league in [big, *small]]
        ids = [replay.pk for replay in replays]
        deadline = time.monotonic() + args.timeout
        while Replay.objects.filter(pk__in=ids, finished_at__isnull=True).exists():
            if time.monotonic() > deadline:
                sys.exit(f"not finished after {args.timeout} s")
            time.sleep(0.05)
        wall = time.perf_counter() - first
    finally:
        for worker in workers:
            worker.terminate()
        for worker in workers:
            worker.wait(timeout=60)

    rows = {r.pk: r for r in Replay.objects.filter(pk__in=ids)}
    failed = [r for r in rows.values() if r.status != Replay.Status.COMPLETE]
    if failed:
        sys.exit(f"{len(failed)} replay(s) did not complete: {failed[0].status} {failed[0].error}")

    def seconds(a: dt.datetime, b: dt.datetime) -> float:
        return (b - a).total_seconds()

    big_replay = rows[ids[0]]
    big_run = seconds(big_replay.started_at, big_replay.finished_at)
    waits = [seconds(rows[pk].queued_at, rows[pk].started_at) for pk in ids[1:]]
    runs = [seconds(rows[pk].started_at, rows[pk].finished_at) for pk in ids[1:]]
    done_before = sum(rows[pk].finished_at <= big_replay.finished_at for pk in ids[1:])
    # The other worker's idle stretches while the big replay ran (no small replay running).
    gaps, mark = [], big_replay.started_at
    for start, end in sorted((rows[pk].started_at, rows[pk].finished_at) for pk in ids[1:]):
        if end <= big_replay.started_at or start >= big_replay.finished_at:
            continue
        start, end = max(start, mark), min(end, big_replay.finished_at)
        if start > mark:
            gaps.append(seconds(mark, start))
        mark = max(mark, end)
    if mark < big_replay.finished_at and done_before < len(ids) - 1:
        gaps.append(seconds(mark, big_replay.finished_at))
    print(
        f"{args.leagues} full replays on 2 workers: {wall:.1f} s, "
        f"{args.leagues / wall:.1f} leagues/s"
    )
    print(
        f" big league ({args.big:,} matches): waited "
        f"{seconds(big_replay.queued_at, big_replay.started_at):.2f} s, ran {big_run:.2f} s"
    )
    print(
        f" {args.leagues - 1} small leagues ({args.small:,} matches each): wait median "
        f"{statistics.median(waits):.2f} s, max {max(waits):.2f} s; run median "
        f"{statistics.median(runs):.3f} s, max {max(runs):.3f} s"
    )
    print(
        f" while the big replay ran, no small replay running for {sum(gaps):.2f} s in all "
        f"(longest stretch {max(gaps, default=0.0):.2f} s) of {big_run:.2f} s; small leagues "
        f"finished before it: {done_before} of {len(waits)}"
    )
    print(f" leagues: {League.objects.count()} in the database")


if __name__ == "__main__":
    main()
