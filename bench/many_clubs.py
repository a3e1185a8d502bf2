"""Issue 33's "many clubs on one server": a steady stream of results into 1,000 leagues.

``bench/bench_many_leagues.py --stream`` runs :func:`run`. The parts, each chosen so that
the benchmark's own cost stays out of the workers' way:

- **Loading.** ``--leagues`` leagues, sized like real clubs (:func:`club_sizes`: log-normal,
  median about 300 matches, most under 2,000, ``--huge`` of ``--huge-size``), each loaded in
  bulk by ``bench_replay.load_league`` (a COPY on PostgreSQL) on first use, with the event
  table analysed once at the end rather than once a league. Every league is then published
  by a full replay on the workers. A later run reuses both.
- **Senders.** ``--senders`` separate processes (:func:`send`) of ``--threads`` threads
  each (a thread is one user at a time, like a web server's thread), each thread its share
  of ``--rate`` on a fixed timetable (open loop: a slow result does not delay the next
  one's due time, it only makes its thread late, which is reported). Each records its result
  through ``league.services.record_match``, the service behind the workspace's form, the
  API and the imports: the same transaction, lock, event and queued replay as a user's
  POST, without the HTTP layer. The HTTP layer was left out on purpose: it adds a
  request's CPU to the machine, not a step to the result's way to the standings, and on a
  2-core machine that CPU would be taken from the workers being measured.
- **Configuration changes.** ``--config-changes`` a minute, from this process: a new
  version of a league under 2,000 matches (``ratings.services.create_config``; a full
  replay that publishes it).
- **No watcher.** Two triggers (:func:`install_log`) write a row into
  ``bench_publication_log`` each time a projection's position is written (a replay's pass
  or its finish) and each time a league's publication changes, with the database's clock
  at that moment (a few milliseconds before the commit). After the stream, the lag of each
  result is computed from the stored times (:func:`lags`): from the event's
  ``recorded_at`` to the first logged moment at which the league's published configuration
  had folded it in. Nothing polls while the stream runs.

Printed: lag p50 / p95 / max; the replays' queue wait and run time (small and huge leagues
apart); the workers' CPU (their process trees, from ``/proc``), the senders' and this
process's; the machine's load average and idle share over the stream; the database's size.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path

LOG_TABLE = "bench_publication_log"
#: Leagues at or above this many matches are "huge" in the report.
HUGE = 20_000


def club_sizes(count: int, huge: int, huge_size: int, seed: int = 33) -> list[int]:
    """League sizes like real clubs': log-normal (median 300), ``huge`` of ``huge_size``."""
    import numpy as np

    rng = np.random.default_rng(seed)
    sizes = np.clip(rng.lognormal(np.log(300), 1.0, count), 20, 20_000).astype(int).tolist()
    for i in range(min(huge, count)):
        sizes[i] = huge_size
    return sizes


def load(sizes: list[int]) -> list:
    """The club leagues (``club-{i}-{size}``), loaded in bulk where missing."""
    from django.db import connection

    from bench.bench_replay import load_league, week_anchor

    leagues = []
    for i, size in enumerate(sizes):
        players = max(8, min(2_000, size // 10))
        weeks = 104 if size < 100_000 else 520
        league, _ = load_league(
            size,
            players,
            weeks,
            anchor=week_anchor(weeks),
            slug=f"club-{i}-{size}",
            seed=i,
            analyze=False,
        )
        leagues.append(league)
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE league_event")
    return leagues


def install_log() -> None:
    """The log table and its triggers (made again, emptied): see the module docstring."""
    from django.db import connection

    from ratings.models import ProjectionState, Publication, RatingConfig

    state, publication = ProjectionState._meta.db_table, Publication._meta.db_table
    configs = RatingConfig._meta.db_table
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                f"CREATE TABLE IF NOT EXISTS {LOG_TABLE} (league_id bigint, config_id bigint, "
                "through_seq bigint, kind text, at double precision)"
            )
            cursor.execute(f"TRUNCATE {LOG_TABLE}")
            cursor.execute(
                "CREATE OR REPLACE FUNCTION bench_log_projection() RETURNS trigger "
                "LANGUAGE plpgsql AS $$ BEGIN "
                f"INSERT INTO {LOG_TABLE} SELECT c.league_id, NEW.config_id, NEW.through_seq, "
                f"'projection', extract(epoch FROM clock_timestamp()) FROM {configs} c "
                "WHERE c.id = NEW.config_id; RETURN NULL; END $$"
            )
            cursor.execute(
                "CREATE OR REPLACE FUNCTION bench_log_publication() RETURNS trigger "
                "LANGUAGE plpgsql AS $$ BEGIN "
                f"INSERT INTO {LOG_TABLE} VALUES (NEW.league_id, NEW.config_id, NULL, "
                "'publication', extract(epoch FROM clock_timestamp())); RETURN NULL; END $$"
            )
            for table, function in ((state, "projection"), (publication, "publication")):
                cursor.execute(f"DROP TRIGGER IF EXISTS bench_log ON {table}")
                cursor.execute(
                    f"CREATE TRIGGER bench_log AFTER INSERT OR UPDATE ON {table} "
                    f"FOR EACH ROW EXECUTE FUNCTION bench_log_{function}()"
                )
        else:
            now = "((julianday('now') - 2440587.5) * 86400.0)"
            cursor.execute(
                f"CREATE TABLE IF NOT EXISTS {LOG_TABLE} (league_id integer, config_id "
                "integer, through_seq integer, kind text, at real)"
            )
            cursor.execute(f"DELETE FROM {LOG_TABLE}")
            for table, kind, values in (
                (
                    state,
                    "projection",
                    f"SELECT c.league_id, NEW.config_id, NEW.through_seq, 'projection', {now} "
                    f"FROM {configs} c WHERE c.id = NEW.config_id",
                ),
                (
                    publication,
                    "publication",
                    f"VALUES (NEW.league_id, NEW.config_id, NULL, 'publication', {now})",
                ),
            ):
                for event in ("INSERT", "UPDATE"):
                    name = f"bench_log_{kind}_{event.lower()}"
                    cursor.execute(f"DROP TRIGGER IF EXISTS {name}")
                    cursor.execute(
                        f"CREATE TRIGGER {name} AFTER {event} ON {table} FOR EACH ROW "
                        f"BEGIN INSERT INTO {LOG_TABLE} {values}; END"
                    )
        # Where every league stands as the stream begins.
        cursor.execute(
            f"INSERT INTO {LOG_TABLE} SELECT p.league_id, p.config_id, s.through_seq, "
            f"'publication', 0 FROM {publication} p JOIN {state} s ON s.config_id = p.config_id"
        )


def remove_log() -> None:
    """Drop the triggers (the log table stays, for a look after the run)."""
    from django.db import connection

    from ratings.models import ProjectionState, Publication

    with connection.cursor() as cursor:
        for table in (ProjectionState._meta.db_table, Publication._meta.db_table):
            if connection.vendor == "postgresql":
                cursor.execute(f"DROP TRIGGER IF EXISTS bench_log ON {table}")
            else:
                for name in ("projection", "publication"):
                    for event in ("insert", "update"):
                        cursor.execute(f"DROP TRIGGER IF EXISTS bench_log_{name}_{event}")


def lags(league_ids: list[int], since: float) -> tuple[list[float], int, dict[int, float]]:
    """Each result's lag (seconds), how many never went live, and each league's worst lag.

    A result is live from the first logged moment at which its league's published
    configuration's projection reached its seq (a pass of the published configuration's
    replay, or the publication of a new configuration whose projection reaches it).
    """
    from django.db import connection

    from league.models import Event

    events: dict[int, list[tuple[int, float]]] = defaultdict(list)
    for league_id, seq, recorded in (
        Event.objects.filter(
            league_id__in=league_ids,
            kind="match_recorded",
            recorded_at__gte=dt.datetime.fromtimestamp(since, dt.UTC),
        )
        .order_by("league_id", "seq")
        .values_list("league_id", "seq", "recorded_at")
    ):
        events[league_id].append((seq, recorded.timestamp()))
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT league_id, config_id, through_seq, kind, at FROM {LOG_TABLE} "
            "ORDER BY at, kind DESC"
        )
        log = cursor.fetchall()
    published: dict[int, int] = {}
    reached: dict[int, int] = {}
    next_event: dict[int, int] = defaultdict(int)
    result: list[float] = []
    worst: dict[int, float] = defaultdict(float)
    for league_id, config_id, through_seq, kind, at in log:
        if kind == "publication":
            published[league_id] = config_id
            if through_seq is not None:
                reached[config_id] = through_seq
        else:
            reached[config_id] = through_seq
        config = published.get(league_id)
        waiting = events.get(league_id)
        if config is None or not waiting:
            continue
        covered = reached.get(config, 0)
        index = next_event[league_id]
        while index < len(waiting) and waiting[index][0] <= covered:
            lag = max(0.0, float(at) - waiting[index][1])
            result.append(lag)
            worst[league_id] = max(worst[league_id], lag)
            index += 1
        next_event[league_id] = index
    never = sum(len(waiting) - next_event[lg] for lg, waiting in events.items())
    return result, never, worst


def catch_up(leagues: list) -> None:
    """Bring every league's standings to its log's end before the stream (an earlier run
    stopped its workers with replays still queued, which this run's start superseded)."""
    from django.db import connections

    from ratings import services

    ids = [league.pk for league in leagues]
    late = set(behind(ids))
    if not late:
        return
    started = time.perf_counter()
    for league in leagues:
        if league.pk in late:
            services.request_catch_up(league)
    while left := behind(ids):
        if time.perf_counter() - started > 900:
            raise RuntimeError(f"{len(left)} leagues still behind after 900 s")
        time.sleep(1)
    print(f"{len(late)} leagues caught up in {time.perf_counter() - started:.1f} s", flush=True)
    connections.close_all()


def behind(league_ids: list[int]) -> list[int]:
    """The leagues whose published projection has not yet folded in their last event."""
    from django.db import connection

    from league.models import Event
    from ratings.models import ProjectionState, Publication

    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT p.league_id FROM {Publication._meta.db_table} p "
            f"JOIN {ProjectionState._meta.db_table} s ON s.config_id = p.config_id "
            f"WHERE p.league_id IN ({', '.join(map(str, league_ids))}) AND s.through_seq < "
            f"(SELECT max(e.seq) FROM {Event._meta.db_table} e WHERE e.league_id = p.league_id)"
        )
        return [row[0] for row in cursor.fetchall()]


def send(args: argparse.Namespace) -> None:
    """One sender process: its share of the rate on a fixed timetable; prints a JSON summary."""
    import django

    django.setup()
    from django.db import connection

    from league import services as league_services
    from league.models import League, Player

    leagues = list(League.objects.filter(slug__startswith="club-").order_by("pk"))
    weights = [int(league.slug.rsplit("-", 1)[1]) for league in leagues]
    rosters: dict[int, list[int]] = defaultdict(list)
    for league_id, pk in (
        Player.objects.filter(league__in=leagues).order_by("pk").values_list("league_id", "pk")
    ):
        if len(rosters[league_id]) < 200:
            rosters[league_id].append(pk)
    slots = args.senders * args.threads
    step = slots / args.rate
    sent, late, took = [0], [0.0], []
    lock = threading.Lock()

    def slot(number: int) -> None:
        # Slot ``number`` of ``slots``: every ``step`` seconds, offset by its number.
        rng = random.Random(number)
        due = args.begin + number * step / slots
        try:
            while due < args.begin + args.seconds:
                time.sleep(max(0.0, due - time.time()))
                behind = time.time() - due
                league = rng.choices(leagues, weights)[0]
                a, b = rng.sample(rosters[league.pk], 2)
                started = time.perf_counter()
                league_services.record_match(
                    league, player_a=a, player_b=b, score_a=rng.choice(("1", "0.5", "0")),
                    played_at=dt.datetime.now(dt.UTC),
                )  # fmt: skip
                with lock:
                    took.append(time.perf_counter() - started)
                    sent[0] += 1
                    late[0] = max(late[0], behind)
                due += step
        finally:
            connection.close()

    threads = [
        threading.Thread(target=slot, args=(args.index * args.threads + n,))
        for n in range(args.threads)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    connection.close()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    print(
        json.dumps(
            {
                "sent": sent[0],
                "late": late[0],
                "took": took,
                "cpu": usage.ru_utime + usage.ru_stime,
            }
        )
    )


def machine_idle() -> tuple[float, float]:
    """(idle, total) jiffies of the whole machine, from ``/proc/stat``."""
    fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return fields[3] + fields[4], sum(fields[:8])


def run(args: argparse.Namespace) -> None:
    """The whole benchmark (see the module docstring)."""
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connection, connections

    from bench.worker_processes import start_workers, tree_cpu
    from config.celery import app
    from ratings import services
    from ratings.models import Publication, Replay

    call_command("migrate", verbosity=0)
    var = Path(settings.VAR_DIR)
    var.mkdir(parents=True, exist_ok=True)
    sizes = club_sizes(args.leagues, args.huge, args.huge_size)
    started = time.perf_counter()
    leagues = load(sizes)
    print(
        f"{len(leagues)} leagues ({sum(sizes):,} matches; median {statistics.median(sizes):.0f},"
        f" {sum(size < 2_000 for size in sizes)} under 2,000, largest {max(sizes):,}) ready in "
        f"{time.perf_counter() - started:.1f} s",
        flush=True,
    )
    Replay.objects.filter(status__in=[Replay.Status.QUEUED, Replay.Status.RUNNING]).update(
        status=Replay.Status.SUPERSEDED
    )
    app.control.purge()
    ids = [league.pk for league in leagues]
    size_of = dict(zip(ids, sizes, strict=True))
    unpublished = [lg for lg in leagues if not Publication.objects.filter(league=lg).exists()]
    connections.close_all()
    if unpublished:
        publish(unpublished, var, args.workers)
    workers = start_workers(var, args.workers)
    try:
        catch_up(leagues)
        install_log()
        small = [lg for lg, size in zip(leagues, sizes, strict=True) if size < 2_000]
        connections.close_all()
        cpu_before = [tree_cpu(w.pid) for w in workers]
        idle_before, total_before = machine_idle()
        load_before = os.getloadavg()
        begin = time.time() + 3  # the senders' start-up (django.setup) before the first due
        senders = [
            subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "bench.many_clubs",
                    "send",
                    "--index",
                    str(n),
                    "--senders",
                    str(args.senders),
                    "--threads",
                    str(args.threads),
                    "--rate",
                    str(args.rate),
                    "--seconds",
                    str(args.seconds),
                    "--begin",
                    str(begin),
                ],
                cwd=Path(__file__).resolve().parents[1],
                env={**os.environ, "CELERY_TASK_ALWAYS_EAGER": "0"},
                stdout=subprocess.PIPE,
            )
            for n in range(args.senders)
        ]
        rng = random.Random(33)
        changes = 0
        if args.config_changes:
            every = 60 / args.config_changes
            next_change = begin + every / 2
            while next_change < begin + args.seconds:
                time.sleep(max(0.0, next_change - time.time()))
                services.create_config(rng.choice(small), tau=rng.choice((0.3, 0.5, 0.7)))
                changes += 1
                next_change += every
            connections.close_all()
        reports = [json.loads(sender.communicate()[0]) for sender in senders]
        stream_end = time.time()
        idle_after, total_after = machine_idle()
        load_after = os.getloadavg()
        deadline = time.time() + args.drain
        while (left := behind(ids)) and time.time() < deadline:
            time.sleep(0.5)
        elapsed = time.time() - begin
        cpu = [tree_cpu(w.pid) - before for w, before in zip(workers, cpu_before, strict=True)]
    finally:
        for worker in workers:
            worker.terminate()
        for worker in workers:
            worker.wait(timeout=60)
    remove_log()
    measured, never, worst = lags(ids, begin)
    measured.sort()
    sent = sum(r["sent"] for r in reports)
    took = sorted(t for r in reports for t in r["took"])
    late = max(r["late"] for r in reports)
    print(
        f"{sent} results at {sent / (stream_end - begin):.1f}/s over {args.seconds:.0f} s from "
        f"{args.senders} sender processes x {args.threads} threads (recording: p50 "
        f"{statistics.median(took):.3f} s, "
        f"p95 {took[int(0.95 * len(took))]:.3f} s; latest send {late:.2f} s behind its time), "
        f"{changes} configuration changes; "
        f"{len(measured)} live, {never} not live {args.drain:.0f} s after the stream"
        + (f" ({len(left)} leagues behind)" if left else "")
    )
    if measured:
        p95 = measured[min(len(measured) - 1, int(0.95 * len(measured)))]
        verdict = "ok" if p95 <= 1.0 else "MISSED"
        print(
            f"lag result -> published standings: p50 {statistics.median(measured):.3f} s, "
            f"p95 {p95:.3f} s, max {measured[-1]:.3f} s ({verdict}: target p95 <= 1 s)"
        )
        huge = [worst[k] for k in worst if size_of[k] >= HUGE]
        others = [w for k, w in worst.items() if size_of[k] < HUGE] or [0.0]
        print(
            f" worst lag per league: huge leagues {', '.join(f'{w:.2f}' for w in huge)} s; "
            f"the others' median {statistics.median(others):.3f} s, max {max(others):.2f} s"
        )
    replay_report(ids, size_of, begin)
    senders_cpu = sum(r["cpu"] for r in reports)
    own = os.times()
    print(
        f"CPU over {elapsed:.0f} s: workers {', '.join(f'{c:.1f} s' for c in cpu)} "
        f"({100 * sum(cpu) / elapsed:.0f} % of one core together); senders {senders_cpu:.1f} s "
        f"({100 * senders_cpu / elapsed:.0f} %); this process {own.user + own.system:.1f} s in all"
    )
    idle = (idle_after - idle_before) / max(1, total_after - total_before)
    print(
        f"machine over the stream: load average {load_before[0]:.1f} -> {load_after[0]:.1f}, "
        f"idle {100 * idle:.0f} % of its {os.cpu_count()} cores"
    )
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SELECT pg_database_size(current_database())")
            size = cursor.fetchone()[0]
        else:
            name = Path(settings.DATABASES["default"]["NAME"])
            size = sum(p.stat().st_size for p in name.parent.glob(name.name + "*"))
    print(f"database size: {size / 2**20:.0f} MiB ({connection.vendor})")


def publish(leagues: list, var: Path, count: int) -> None:
    """A full replay of each league on ``count`` workers that measure no coverage.

    The set-up, not the benchmark: each first version's coverage measurement (a simulation,
    about as long as the replay) would double it. The stream's workers measure as
    configured.
    """
    from django.db import connections

    from bench.worker_processes import start_workers
    from ratings import services
    from ratings.models import Replay

    os.environ["LEAGUE_MEASURE_COVERAGE"] = "0"
    try:
        workers = start_workers(var, count)
    finally:
        del os.environ["LEAGUE_MEASURE_COVERAGE"]
    try:
        first = time.perf_counter()
        pending = [services.request_full_replay(league).pk for league in leagues]
        while Replay.objects.filter(pk__in=pending, finished_at__isnull=True).exists():
            time.sleep(1)
        print(f"published {len(pending)} leagues in {time.perf_counter() - first:.1f} s")
    finally:
        for worker in workers:
            worker.terminate()
        for worker in workers:
            worker.wait(timeout=60)
        connections.close_all()


def replay_report(ids: list[int], size_of: dict[int, int], since: float) -> None:
    """Queue wait and run time of the replays queued during the stream, small and huge apart."""
    from ratings.models import Replay

    rows = Replay.objects.filter(
        config__league_id__in=ids,
        queued_at__gte=dt.datetime.fromtimestamp(since, dt.UTC),
        started_at__isnull=False,
        finished_at__isnull=False,
    ).values_list("kind", "config__league_id", "queued_at", "started_at", "finished_at")
    groups: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for kind, league_id, queued, started, finished in rows:
        group = f"{kind}, {'huge' if size_of[league_id] >= HUGE else 'small'} leagues"
        groups[group].append(
            ((started - queued).total_seconds(), (finished - started).total_seconds())
        )
    for group, values in sorted(groups.items()):
        waits = sorted(w for w, _ in values)
        runs = sorted(r for _, r in values)
        print(
            f" {len(values)} {group} replays: wait p50 {statistics.median(waits):.3f} s, "
            f"p95 {waits[int(0.95 * len(waits))]:.3f} s; run p50 {statistics.median(runs):.3f} "
            f"s, p95 {runs[int(0.95 * len(runs))]:.3f} s, max {runs[-1]:.2f} s"
        )


def main() -> None:
    """``python -m bench.many_clubs send …``: one sender (started by :func:`run`)."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("DJANGO_DEBUG", "1")
    parser = argparse.ArgumentParser()
    parser.add_argument("role", choices=["send"])
    parser.add_argument("--index", type=int, required=True)
    parser.add_argument("--senders", type=int, required=True)
    parser.add_argument("--threads", type=int, required=True)
    parser.add_argument("--rate", type=float, required=True)
    parser.add_argument("--seconds", type=float, required=True)
    parser.add_argument("--begin", type=float, required=True)
    send(parser.parse_args())


if __name__ == "__main__":
    main()
