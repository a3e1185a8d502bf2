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

``--stream`` is issue 33's benchmark, many clubs on one server: ``--leagues`` leagues (1,000
by default) whose sizes are drawn like real clubs' (log-normal: median about 300 matches,
most under 2,000, ``--huge`` of them with ``--huge-size`` matches, 100,000 by default), each
loaded and published (a full replay on the workers) on first use. Then for ``--seconds``,
results arrive at ``--rate`` a second (20 by default) in leagues drawn in proportion to their
size, recorded through ``league.services.record_match`` (the path the pages and the API
take, which queues each league's incremental replay), and ``--config-changes`` a minute a
new configuration version of a small league (a full replay). Each result's lag runs from its
commit to the moment its league's published projection has folded it in (polled every
20 ms). Printed: lag p50, p95 and max; the workers' CPU seconds (their process trees, from
``/proc``) against the wall time; the database's size::

    DATABASE_URL=… CELERY_BROKER_URL=… .venv/bin/python bench/bench_many_leagues.py --stream \\
        [--leagues 1000] [--rate 20] [--seconds 120]

Target: p95 lag <= 1 s with 2 workers at 20 results/s.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("DJANGO_DEBUG", "1")
os.environ["CELERY_TASK_ALWAYS_EAGER"] = "0"

ANCHOR = dt.date(2020, 1, 6)  # the small leagues' (a Monday)


def start_workers(var: Path, count: int) -> list[subprocess.Popen]:
    """``count`` worker processes, each running one replay at a time; wait until ready."""
    workers = []
    for i in range(count):
        log = (var / f"many-worker{i}.log").open("w")
        workers.append(
            subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "celery",
                    "-A",
                    "config",
                    "worker",
                    "-P",
                    "solo",
                    "-n",
                    f"many{i}@%h",
                    "--without-gossip",
                    "--without-mingle",
                    "--without-heartbeat",
                    "-l",
                    "INFO",
                ],
                cwd=ROOT,
                # Real workers: ``bench_replay``, imported for its loader, switches eager
                # mode on in this process's environment, and an eager worker would run the
                # tasks it sends (coverage checks) inside the replay and never retry a busy
                # one. Until 2026-11-26 the workers here ran so.
                env={**os.environ, "CELERY_TASK_ALWAYS_EAGER": "0"},
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        )
    deadline = time.monotonic() + 120
    for i, worker in enumerate(workers):
        while "ready." not in (var / f"many-worker{i}.log").read_text():
            if worker.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError((var / f"many-worker{i}.log").read_text()[-2000:])
            time.sleep(0.2)
    return workers


def tree_cpu(pid: int) -> float:
    """CPU seconds (user + system) of ``pid`` and its live descendants, from ``/proc``."""
    ticks, total, todo = os.sysconf("SC_CLK_TCK"), 0.0, [pid]
    while todo:
        current = todo.pop()
        try:
            fields = Path(f"/proc/{current}/stat").read_text().rpartition(")")[2].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / ticks
        for task in Path(f"/proc/{current}/task").iterdir():
            with contextlib.suppress(OSError):
                todo += [int(c) for c in (task / "children").read_text().split()]
    return total


def club_sizes(count: int, huge: int, huge_size: int, seed: int = 33) -> list[int]:
    """League sizes like real clubs': log-normal (median 300), ``huge`` of ``huge_size``."""
    import numpy as np

    rng = np.random.default_rng(seed)
    sizes = np.clip(rng.lognormal(np.log(300), 1.0, count), 20, 20_000).astype(int).tolist()
    for i in range(min(huge, count)):
        sizes[i] = huge_size
    return sizes


def stream(args: argparse.Namespace) -> None:
    """Issue 33's many-clubs benchmark (the module docstring's ``--stream``)."""
    import random

    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connection, connections

    from bench.bench_replay import load_league, week_anchor
    from config.celery import app
    from league import services as league_services
    from league.models import Player
    from ratings import services
    from ratings.models import ProjectionState, Publication, Replay

    call_command("migrate", verbosity=0)
    var = Path(settings.VAR_DIR)
    var.mkdir(parents=True, exist_ok=True)
    sizes = club_sizes(args.leagues, args.huge, args.huge_size)
    started = time.perf_counter()
    leagues = []
    for i, size in enumerate(sizes):
        players = max(8, min(2_000, size // 10))
        weeks = 104 if size < 100_000 else 520
        league, _ = load_league(
            size, players, weeks, anchor=week_anchor(weeks), slug=f"club-{i}-{size}", seed=i
        )
        leagues.append(league)
    print(
        f"{len(leagues)} leagues ({sum(sizes):,} matches; median {statistics.median(sizes):.0f},"
        f" {sum(size < 2_000 for size in sizes)} under 2,000, largest {max(sizes):,}) ready in "
        f"{time.perf_counter() - started:.1f} s"
    )
    Replay.objects.filter(status__in=[Replay.Status.QUEUED, Replay.Status.RUNNING]).update(
        status=Replay.Status.SUPERSEDED
    )
    app.control.purge()
    unpublished = [lg for lg in leagues if not Publication.objects.filter(league=lg).exists()]
    connections.close_all()
    workers = start_workers(var, 2)
    try:
        if unpublished:
            first = time.perf_counter()
            ids = [services.request_full_replay(league).pk for league in unpublished]
            while Replay.objects.filter(pk__in=ids, finished_at__isnull=True).exists():
                time.sleep(0.5)
            print(f"published {len(ids)} leagues in {time.perf_counter() - first:.1f} s")
        rosters = {
            lg.pk: list(Player.objects.filter(league=lg).values_list("pk", flat=True)[:200])
            for lg in leagues
        }
        weights = sizes
        small = [lg for lg, size in zip(leagues, sizes, strict=True) if size < 2_000]
        pending: dict[int, list[tuple[int, float]]] = {}
        lags: list[float] = []
        lock = threading.Lock()
        stop = threading.Event()
        table = ProjectionState._meta.db_table
        publication = Publication._meta.db_table

        def poll() -> None:
            with lock:
                leagues_waiting = list(pending)
            if not leagues_waiting:
                return
            with connection.cursor() as cursor:
                cursor.execute(
                    f"SELECT p.league_id, s.through_seq FROM {publication} p JOIN {table} s "
                    f"ON s.config_id = p.config_id WHERE p.league_id IN "
                    f"({', '.join(str(k) for k in leagues_waiting)})"
                )
                rows = cursor.fetchall()
            now = time.perf_counter()
            with lock:
                for league_id, through in rows:
                    waiting = pending.get(league_id, [])
                    lags.extend(now - moment for seq, moment in waiting if seq <= through)
                    left = [(seq, moment) for seq, moment in waiting if seq > through]
                    if left:
                        pending[league_id] = left
                    else:
                        pending.pop(league_id, None)

        def watcher() -> None:
            # Its own thread (and database connection): the lag is read every 20 ms
            # however long the senders take.
            try:
                while not stop.is_set():
                    poll()
                    time.sleep(0.02)
            finally:
                connection.close()

        counts = {"sent": 0, "changes": 0}
        begun = time.perf_counter()

        def sender(number: int) -> None:
            # ``--senders`` threads share the rate: each sends every senders / rate seconds.
            rng = random.Random(number)
            step = args.senders / args.rate
            due = begun + number * step / args.senders
            change_every = 60 / args.config_changes if args.config_changes else float("inf")
            next_change = begun + change_every * (number + 1)
            try:
                while time.perf_counter() - begun < args.seconds:
                    time.sleep(max(0.0, due - time.perf_counter()))
                    due += step
                    league = rng.choices(leagues, weights)[0]
                    a, b = rng.sample(rosters[league.pk], 2)
                    event = league_services.record_match(
                        league, player_a=a, player_b=b, score_a=rng.choice(("1", "0.5", "0")),
                        played_at=dt.datetime.now(dt.UTC),
                    )  # fmt: skip
                    with lock:
                        pending.setdefault(league.pk, []).append((event.seq, time.perf_counter()))
                        counts["sent"] += 1
                    if number == 0 and time.perf_counter() >= next_change:
                        services.create_config(rng.choice(small), tau=rng.choice((0.3, 0.5, 0.7)))
                        counts["changes"] += 1
                        next_change += change_every
            finally:
                connection.close()

        cpu_before = [tree_cpu(w.pid) for w in workers]
        watch = threading.Thread(target=watcher)
        watch.start()
        senders = [threading.Thread(target=sender, args=(n,)) for n in range(args.senders)]
        for thread in senders:
            thread.start()
        for thread in senders:
            thread.join()
        sent, changes = counts["sent"], counts["changes"]
        rate = sent / (time.perf_counter() - begun)
        deadline = time.perf_counter() + 60
        while pending and time.perf_counter() < deadline:
            time.sleep(0.1)
        stop.set()
        watch.join()
        elapsed = time.perf_counter() - begun
        cpu = [tree_cpu(w.pid) - before for w, before in zip(workers, cpu_before, strict=True)]
    finally:
        for worker in workers:
            worker.terminate()
        for worker in workers:
            worker.wait(timeout=60)
    lags.sort()
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SELECT pg_database_size(current_database())")
            size = cursor.fetchone()[0]
        else:
            size = Path(settings.DATABASES["default"]["NAME"]).stat().st_size
    print(
        f"{sent} results at {rate:.1f}/s over {args.seconds:.0f} s, {changes} configuration "
        f"changes; {len(lags)} live, {sum(len(v) for v in pending.values())} not live after "
        f"60 s more"
    )
    if lags:
        p95 = lags[min(len(lags) - 1, int(0.95 * len(lags)))]
        verdict = "ok" if p95 <= 1.0 else "MISSED"
        print(
            f"lag result -> published standings: p50 {statistics.median(lags):.3f} s, "
            f"p95 {p95:.3f} s, max {lags[-1]:.3f} s ({verdict}: target p95 <= 1 s)"
        )
    print(
        f"workers' CPU: {', '.join(f'{c:.1f} s' for c in cpu)} in {elapsed:.0f} s "
        f"({100 * sum(cpu) / elapsed:.0f} % of one core in all)"
    )
    print(f"database size: {size / 2**20:.0f} MiB ({connection.vendor})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stream", action="store_true", help="issue 33's many-clubs run")
    parser.add_argument("--rate", type=float, default=20.0, help="--stream: results a second")
    parser.add_argument("--seconds", type=float, default=120.0, help="--stream: duration")
    parser.add_argument("--config-changes", type=float, default=3.0, help="--stream: a minute")
    parser.add_argument("--huge", type=int, default=3, help="--stream: leagues of --huge-size")
    parser.add_argument("--huge-size", type=int, default=100_000)
    parser.add_argument("--senders", type=int, default=4, help="--stream: recording threads")
    parser.add_argument("--leagues", type=int, default=None, help="100 (1,000 with --stream)")
    parser.add_argument("--big", type=int, default=1_000_000)
    parser.add_argument("--small", type=int, default=500)
    parser.add_argument("--timeout", type=float, default=900)
    args = parser.parse_args()
    if args.stream:
        args.leagues = args.leagues or 1_000
        stream(args)
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
