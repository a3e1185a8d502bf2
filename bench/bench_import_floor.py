"""The CSV import with new players against its raw floor, alternated in one run.

Issue 33's target: ``import_results`` at least 0.8x the rows per second of a raw insert of
the same rows. The floor reads the same file with ``csv.reader`` and writes what the
import stores (a ``league_player`` row and a ``player_registered`` event for each new
player, a ``match_recorded`` event with its key for each row) with the database driver
alone, in one transaction: INSERTs of 500 rows a statement on SQLite, a ``COPY`` on
PostgreSQL; each date and score converted once, nothing checked. The table,
its indexes and its append-only trigger are the import's own, so their cost is in both.

Each round imports the file into a new league both ways (``import_results(...,
create_players=True)``, as ``manage.py import_results … --create-players`` does, and the
floor), the order alternating from one round to the next, so a busy neighbour slows both.
Printed: each round's rows per second, and the median of the per-round ratios
import / floor, by the wall clock and by this process's CPU time (on SQLite the database
works in this process, so the CPU ratio is the one a busy machine disturbs least). SQLite in
a scratch ``LEAGUE_VAR_DIR`` unless ``--database-url`` is given::

    .venv/bin/python bench/bench_import_floor.py [--rows 200000] [--players 5000] [--rounds 3]
    .venv/bin/python bench/bench_import_floor.py --database-url postgres://…/league_bench
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import os
import secrets
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET_RATIO = 0.8
#: Rows per INSERT statement on SQLite (within its limit of 32,766 parameters).
ROWS_PER_STATEMENT = 500
SCORES = {"1": "1", "0": "0", "0.5": "0.5", "1-0": "1", "0-1": "0", "½-½": "0.5"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--players", type=int, default=5_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--database-url", default="", help="PostgreSQL (default: SQLite)")
    args = parser.parse_args()

    scratch = Path(tempfile.mkdtemp(prefix="bench-import-floor-", dir=ROOT / "var"))
    os.environ["LEAGUE_VAR_DIR"] = str(scratch)
    if args.database_url:
        os.environ["DATABASE_URL"] = args.database_url
    else:
        os.environ.pop("DATABASE_URL", None)
    os.environ["CELERY_BROKER_URL"] = "filesystem://"
    os.environ["CELERY_TASK_ALWAYS_EAGER"] = "0"
    os.environ["DJANGO_DEBUG"] = "0"
    os.environ["DJANGO_SECRET_KEY"] = secrets.token_urlsafe(40)
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
    sys.path.insert(0, str(ROOT))
    try:
        return run(scratch, args)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def run(scratch: Path, args: argparse.Namespace) -> int:
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    from bench.bench_import import generate
    from league.csv_import import import_results
    from league.models import Event, League

    call_command("migrate", verbosity=0)
    path = scratch / "results.csv"
    generate(path, args.rows, args.players, args.seed)
    tag = f"{time.time_ns() % 10**9}"
    print(
        f"{args.rows:,} rows among {args.players:,} new players, {connection.vendor}; "
        f"load {os.getloadavg()[0]:.1f}"
    )

    def league(name: str) -> League:
        return League.objects.create(
            name=name, slug=f"{name}-{tag}", start_date=dt.date(2000, 1, 1), time_zone="UTC"
        )

    def the_import(target: League) -> None:
        with path.open("rb") as handle:
            report = import_results(target, handle, create_players=True)
        if not report.ok or report.recorded != args.rows:
            raise SystemExit(f"import refused: {report.summary()}")

    ratios, cpu_ratios = [], []
    for round_number in range(args.rounds):
        sides = [("import", the_import), ("floor", lambda target: floor(target, path))]
        if round_number % 2:
            sides.reverse()
        wall, cpu = {}, {}
        for name, measure in sides:
            target = league(f"{name}-{round_number}")
            started, cpu_started = time.perf_counter(), time.process_time()
            measure(target)
            wall[name] = time.perf_counter() - started
            cpu[name] = time.process_time() - cpu_started
            stored = Event.objects.filter(league=target).count()
            if stored != args.rows + args.players:
                raise SystemExit(f"{name}: {stored} events, expected {args.rows + args.players}")
        ratios.append(wall["floor"] / wall["import"])
        cpu_ratios.append(cpu["floor"] / cpu["import"])
        print(
            f"round {round_number + 1}: import {args.rows / wall['import']:,.0f} rows/s "
            f"({wall['import']:.2f} s, CPU {cpu['import']:.2f} s), floor "
            f"{args.rows / wall['floor']:,.0f} rows/s ({wall['floor']:.2f} s, CPU "
            f"{cpu['floor']:.2f} s): {ratios[-1]:.2f}x the floor ({cpu_ratios[-1]:.2f}x in CPU)"
        )
    median = statistics.median(ratios)
    verdict = "meets" if median >= TARGET_RATIO else "MISSES"
    print(
        f"import / floor: median {median:.2f}x wall clock, {statistics.median(cpu_ratios):.2f}x "
        f"in this process's CPU ({verdict} the target of {TARGET_RATIO}x)"
    )
    return 0


def floor(league, path: Path) -> None:
    """Store the file's rows in ``league`` with the driver alone (see the module docstring)."""
    from django.db import connection, transaction
    from django.utils.text import slugify

    ops = connection.ops
    now = ops.adapt_datetimefield_value(dt.datetime.now(dt.UTC))
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.reader(handle)
        next(reader)
        rows = list(reader)
    names: dict[str, None] = {}
    for row in rows:
        names.setdefault(row[2])
        names.setdefault(row[3])
    postgres = connection.vendor == "postgresql"
    mark = "%s" if postgres else "?"
    with transaction.atomic():
        raw = connection.connection.cursor()
        players = [(name, slugify(name), True, now, league.pk, "", "", "") for name in names]
        player_columns = (
            "display_name, slug, active, created_at, league_id, federation, fide_id, title"
        )
        if postgres:
            with raw.copy(f"COPY league_player ({player_columns}) FROM STDIN") as copy:
                for player in players:
                    copy.write_row(player)
        else:
            insert_many(raw, f"INSERT INTO league_player ({player_columns})", players)
        raw.execute(
            f"SELECT display_name, id FROM league_player WHERE league_id = {mark}", [league.pk]
        )
        ids = dict(raw.fetchall())
        columns = (
            "league_id, seq, kind, recorded_at, idempotency_key, played_at, player_id, "
            "player_a_id, player_b_id, score_a, points, reason, note, display_name, neutral, "
            "venue, seed_list"
        )
        moments: dict[str, object] = {}

        def moment(day: str) -> object:
            value = moments.get(day)
            if value is None:
                when = dt.datetime.combine(dt.date.fromisoformat(day), dt.time(12), dt.UTC)
                value = moments[day] = ops.adapt_datetimefield_value(when)
            return value

        pk = league.pk
        events = [
            (pk, seq, "player_registered", now, None, None, ids[name], None, None, None,
             "", "", "", name, False, "", "")
            for seq, name in enumerate(names, start=1)
        ]  # fmt: skip
        first = len(events) + 1
        events += [
            (pk, seq, "match_recorded", now, key, moment(day), None, ids[a], ids[b],
             SCORES[score], "", "", note, "", False, "", "")
            for seq, (key, day, a, b, score, note) in enumerate(rows, start=first)
        ]  # fmt: skip
        if postgres:
            with raw.copy(f"COPY league_event ({columns}) FROM STDIN") as copy:
                for event in events:
                    copy.write_row(event)
        else:
            insert_many(raw, f"INSERT INTO league_event ({columns})", events)
        raw.close()


def insert_many(cursor, head: str, rows: list[tuple]) -> None:
    """SQLite: ``rows`` in statements of ``ROWS_PER_STATEMENT`` rows each (one VALUES list),
    the fastest way through the driver (an ``executemany`` of one-row statements is slower)."""
    from itertools import chain

    width = len(rows[0])
    statements: dict[int, str] = {}
    for start in range(0, len(rows), ROWS_PER_STATEMENT):
        chunk = rows[start : start + ROWS_PER_STATEMENT]
        sql = statements.get(len(chunk))
        if sql is None:
            row = "(" + ", ".join("?" * width) + ")"
            sql = statements[len(chunk)] = f"{head} VALUES " + ", ".join([row] * len(chunk))
        cursor.execute(sql, list(chain.from_iterable(chunk)))


if __name__ == "__main__":
    sys.exit(main())
