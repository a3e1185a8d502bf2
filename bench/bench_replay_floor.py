"""``manage.py replay SLUG --sync`` as a whole process against its raw I/O floor.

Issue 33's target: the whole ``replay --sync`` process at most 1.2x a floor that reads the
same events and writes the same rows with the database driver alone. The floor is a process
of its own (``--floor DUMP``) that imports only the driver (``sqlite3`` or ``psycopg``) and
NumPy, connects with the application's connection settings (SQLite: the pragmas of its
``init_command``, passed in the dump), and in one transaction:

- reads the league's live one-vs-one matches (seq, both players, score, moment: what the
  replay's snapshot reads) with one query, every row fetched into Python;
- writes the rows the replay wrote for the configuration, loaded from a ``.npz`` file of
  columns made before the clock starts: the history built beside the live table the way the
  replay's full pass builds it (a bare table made from the live one's definition, the rows
  inserted, then the live table's indexes built over it: SQLite's multi-row INSERTs through
  ``executemany``, PostgreSQL's binary ``COPY``), the standings deleted and inserted again;
- drops the table it built, which costs what the replay's drop of the old table costs (the
  database is left as the replay left it, so the rounds can alternate).

Not in the floor: Django's start-up, the computing (the engine's fold), ANALYZE, and the
replay's bookkeeping (its row in ``ratings_replay``, the lock, the publication), which is
the gap this measures. The parent loads the league once (``bench_replay.load_league``, the
league of ``bench_sync.py``), runs one ``replay --sync`` (warming the files and making the
rows), dumps the rows, then alternates the two processes ``--rounds`` times, timing each
from ``fork`` to exit (``os.wait4``: wall and CPU of the child, the database server's CPU
not included on PostgreSQL), and prints each round and the medians, min and max of the
ratios replay / floor::

    LEAGUE_VAR_DIR=var/bench .venv/bin/python bench/bench_replay_floor.py [--rounds 5] \\
        [--before ../main]
    DATABASE_URL=postgres://…/league_bench .venv/bin/python bench/bench_replay_floor.py \\
        --matches 1000000 --players 20000 --periods 520
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET_RATIO = 1.2
HISTORY_TABLE = "ratings_playerperiod"
STANDING_TABLE = "ratings_standing"
#: Rows per INSERT on SQLite (within its limit of 32,766 parameters at 14 columns).
ROWS_PER_STATEMENT = 500


# --- the floor: a process with the driver and NumPy alone --------------------------------


def connect(url: str, init: str = ""):
    """A driver connection: PostgreSQL for a ``postgres://`` URL, else a SQLite file path
    with the statements ``init`` run first."""
    if url.startswith("postgres"):
        import psycopg

        return psycopg.connect(url, autocommit=False)
    import sqlite3

    connection = sqlite3.connect(url, isolation_level=None)
    connection.executescript(init)
    return connection


def floor(dump: Path) -> None:
    """Read the league's matches and write the dumped rows (see the module docstring)."""
    import numpy as np

    data = np.load(dump, allow_pickle=False)
    url, league_id, config_id = (
        str(data["url"]),
        int(data["league_id"]),
        int(data["config_id"]),
    )
    history_columns = [str(c) for c in data["history_columns"]]
    standing_columns = [str(c) for c in data["standing_columns"]]
    # The application's own connection settings (its ``init_command``: the pragmas): the
    # floor differs from the replay in the code, not in how SQLite is told to write.
    connection = connect(url, str(data["init"]))
    postgres = url.startswith("postgres")
    cursor = connection.cursor()
    if not postgres:
        cursor.execute("BEGIN IMMEDIATE")
    mark = "%s" if postgres else "?"
    cursor.execute(
        "SELECT seq, player_a_id, player_b_id, score_a, played_at FROM league_event "
        f"WHERE league_id = {mark} AND kind = 'match_recorded' ORDER BY seq",
        [league_id],
    )
    matches = cursor.fetchall()
    if not matches:
        raise SystemExit("the floor read no match")
    history = [data[f"h_{name}"] for name in history_columns]
    standings = [data[f"s_{name}"] for name in standing_columns]
    if postgres:
        _write_postgres(cursor, config_id, history_columns, history, standing_columns, standings)
    else:
        _write_sqlite(cursor, config_id, history_columns, history, standing_columns, standings)
    connection.commit() if postgres else cursor.execute("COMMIT")
    connection.close()


def _write_sqlite(cursor, config_id, history_columns, history, standing_columns, standings):
    from itertools import chain

    (live_sql,) = cursor.execute(
        "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", [HISTORY_TABLE]
    ).fetchone()
    built = f"{HISTORY_TABLE}__floor"
    cursor.execute(live_sql.replace(f'"{HISTORY_TABLE}"', f'"{built}"', 1))
    index_sql = [
        sql.replace(f'"{HISTORY_TABLE}"', f'"{built}"').replace('INDEX "', 'INDEX "floor_', 1)
        for (sql,) in cursor.execute(
            "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? "
            "AND sql IS NOT NULL",
            [HISTORY_TABLE],
        ).fetchall()
    ]
    # The other configurations' rows go with the table, as in the replay's swap.
    cursor.execute(
        f'INSERT INTO "{built}" SELECT * FROM "{HISTORY_TABLE}" WHERE config_id != ?', [config_id]
    )
    _insert_many(cursor, built, history_columns, history)
    for sql in index_sql:
        cursor.execute(sql)
    cursor.execute(f'DELETE FROM "{STANDING_TABLE}" WHERE config_id = ?', [config_id])
    _insert_many(cursor, STANDING_TABLE, standing_columns, standings)
    cursor.execute(f'DROP TABLE "{built}"')
    del chain


def _insert_many(cursor, table: str, columns: list[str], values: list) -> None:
    """SQLite: the columns' rows in statements of ``ROWS_PER_STATEMENT`` rows."""
    from itertools import chain

    rows = list(zip(*(column.tolist() for column in values), strict=True))
    head = f'INSERT INTO "{table}" ({", ".join(columns)}) VALUES '
    one = "(" + ", ".join("?" * len(columns)) + ")"
    full = head + ", ".join([one] * ROWS_PER_STATEMENT)
    whole = len(rows) - len(rows) % ROWS_PER_STATEMENT
    cursor.executemany(
        full,
        (
            list(chain.from_iterable(rows[start : start + ROWS_PER_STATEMENT]))
            for start in range(0, whole, ROWS_PER_STATEMENT)
        ),
    )
    if whole < len(rows):
        rest = rows[whole:]
        cursor.execute(head + ", ".join([one] * len(rest)), list(chain.from_iterable(rest)))


def _write_postgres(cursor, config_id, history_columns, history, standing_columns, standings):
    live = f"{HISTORY_TABLE}_c{config_id}"
    built = f"{HISTORY_TABLE}_floor"
    cursor.execute(f'CREATE TABLE "{built}" (LIKE "{live}" INCLUDING DEFAULTS)')
    cursor.execute("SELECT indexdef FROM pg_indexes WHERE tablename = %s", [live])
    index_sql = [
        sql.replace(f"public.{live}", f"public.{built}").replace("INDEX ", "INDEX floor_", 1)
        for (sql,) in cursor.fetchall()
    ]
    cursor.execute(
        "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = %s",
        [live],
    )
    types = dict(cursor.fetchall())
    payload = _pg_binary([types[name] for name in history_columns], history)
    with cursor.copy(
        f'COPY "{built}" ({", ".join(history_columns)}) FROM STDIN (FORMAT binary)'
    ) as copy:
        copy.write(payload)
    for sql in index_sql:
        cursor.execute(sql)
    cursor.execute(f'DELETE FROM "{STANDING_TABLE}" WHERE config_id = %s', [config_id])
    rows = zip(*(column.tolist() for column in standings), strict=True)
    with cursor.copy(f'COPY "{STANDING_TABLE}" ({", ".join(standing_columns)}) FROM STDIN') as copy:
        for row in rows:
            copy.write_row(row)
    cursor.execute(f'DROP TABLE "{built}"')


#: PostgreSQL's binary form of each column type a history row has.
_PG_TYPES = {"integer": ">i4", "bigint": ">i8", "double precision": ">f8", "date": ">i4"}


def _pg_binary(types: list[str], columns: list) -> bytes:
    """The rows of ``columns`` in COPY's binary format (one NumPy record per row)."""
    import numpy as np

    n = len(columns[0])
    fields = [("count", ">i2")]
    for index, name in enumerate(types):
        fields += [(f"len{index}", ">i4"), (f"v{index}", _PG_TYPES[name])]
    records = np.empty(n, dtype=np.dtype(fields))
    records["count"] = len(types)
    epoch = np.datetime64("2000-01-01", "D")
    for index, (name, column) in enumerate(zip(types, columns, strict=True)):
        records[f"len{index}"] = np.dtype(_PG_TYPES[name]).itemsize
        if name == "date":
            column = (column.astype("datetime64[D]") - epoch).astype(np.int64)
        records[f"v{index}"] = column
    header = b"PGCOPY\n\xff\r\n\x00" + b"\x00" * 8
    return header + records.tobytes() + b"\xff\xff"


# --- the parent: load, dump, alternate ---------------------------------------------------


def prepare(args: argparse.Namespace, scratch: Path) -> tuple[str, Path]:
    """Load the league, run one replay, dump its rows; return (slug, dump path)."""
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("DJANGO_DEBUG", "1")
    os.environ["CELERY_TASK_ALWAYS_EAGER"] = "0"
    import numpy as np

    from bench.bench_sync import ANCHOR
    from bench.bench_sync import prepare as load

    slug = load(args.matches, args.players, args.periods)
    replay(slug)
    from django.conf import settings
    from django.db import connection

    from league.models import League
    from ratings.models import RatingConfig

    league = League.objects.get(slug=slug)
    config = RatingConfig.objects.filter(league=league).order_by("-version").first()
    if connection.vendor == "postgresql":
        url = os.environ["DATABASE_URL"]
    else:
        url = str(settings.DATABASES["default"]["NAME"])
    init = settings.DATABASES["default"].get("OPTIONS", {}).get("init_command", "")
    columns: dict[str, np.ndarray] = {}
    names: dict[str, list[str]] = {}
    with connection.cursor() as cursor:
        for prefix, table, order in (
            ("h", HISTORY_TABLE, "player_id, period_index"),
            ("s", STANDING_TABLE, "player_id"),
        ):
            cursor.execute(
                f'SELECT * FROM "{table}" WHERE config_id = %s ORDER BY {order}', [config.pk]
            )
            fields = [d[0] for d in cursor.description if d[0] != "id"]
            rows = cursor.fetchall()
            positions = [d[0] for d in cursor.description]
            names[prefix] = fields
            for name in fields:
                values = [row[positions.index(name)] for row in rows]
                moment = next((v for v in values if v is not None), None)
                if isinstance(moment, dt.datetime):
                    # In UTC, naive: NumPy keeps no time zone (the floor binds UTC moments).
                    values = [
                        v if v is None or v.tzinfo is None else v.astimezone(dt.UTC) for v in values
                    ]
                    values = [None if v is None else v.replace(tzinfo=None) for v in values]
                    columns[f"{prefix}_{name}"] = np.array(values, dtype="datetime64[us]")
                elif values and isinstance(values[0], dt.date):
                    columns[f"{prefix}_{name}"] = np.array(values, dtype="datetime64[D]")
                else:
                    columns[f"{prefix}_{name}"] = np.array(values)
    # SQLite stores dates and moments as text: the floor binds the same text.
    if connection.vendor == "sqlite":
        for key, column in columns.items():
            if column.dtype.kind == "M":
                text = column.astype(str)
                if column.dtype == np.dtype("datetime64[us]"):
                    text = np.char.replace(text, "T", " ")
                columns[key] = text
    dump = scratch / "rows.npz"
    np.savez(
        dump,
        url=np.array(url),
        init=np.array(init),
        league_id=np.array(league.pk),
        config_id=np.array(config.pk),
        history_columns=np.array(names["h"]),
        standing_columns=np.array(names["s"]),
        **columns,
    )
    print(
        f"{args.matches:,} matches, {args.players:,} players, {args.periods} periods from "
        f"{ANCHOR}, {connection.vendor}: {len(columns['h_player_id']):,} history rows, "
        f"{len(columns['s_player_id']):,} standings; load {os.getloadavg()[0]:.1f}",
        flush=True,
    )
    connection.close()
    return slug, dump


def timed(command: list[str], checkout: Path = ROOT) -> tuple[float, float]:
    """(wall, CPU) seconds of ``command`` from fork to exit, run in ``checkout`` (never
    eager: ``bench_replay``, imported for its loader, sets ``CELERY_TASK_ALWAYS_EAGER`` in
    this process's environment, and an eager replay would run its coverage check in the
    timed process)."""
    from bench.checkouts import environment

    started = time.perf_counter()
    # In the checkout's own directory, or it would import this one's packages.
    process = subprocess.Popen(
        command,
        stdout=subprocess.DEVNULL,
        cwd=checkout,
        env=environment(CELERY_TASK_ALWAYS_EAGER="0"),
    )
    _pid, status, usage = os.wait4(process.pid, 0)
    if status != 0:
        sys.exit(f"{' '.join(command)} failed ({status})")
    return time.perf_counter() - started, usage.ru_utime + usage.ru_stime


def settle() -> None:
    """SQLite: move the write-ahead log into the database file (and empty it) before a timed
    process, outside its clock. The replay and the floor each leave about 150 MB of log at
    1,000,000 matches, and whichever process next passes SQLite's automatic checkpoint
    copied it back: measured without this, the same replay took 12.4 s in one round and
    19.6 s in the next on an idle machine (its CPU 11.4 s and 18.4 s)."""
    from django.conf import settings
    from django.db import connection

    if connection.vendor != "sqlite":
        return
    import sqlite3

    with sqlite3.connect(str(settings.DATABASES["default"]["NAME"])) as database:
        database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    database.close()


def replay(slug: str, checkout: Path = ROOT) -> tuple[float, float]:
    return timed(
        [sys.executable, str(checkout / "manage.py"), "replay", slug, "--sync", "--verbosity", "0"],
        checkout,
    )


#: The project's packages, compiled as ``bin/setup`` compiles them.
PACKAGES = ("config", "engine", "league", "ratings", "notifications", "pairings", "web", "api")


def compile_checkout(checkout: Path) -> None:
    """Write the byte-code of ``checkout``'s modules, as ``bin/setup`` does for an install:
    where ``PYTHONDONTWRITEBYTECODE`` is set (as in the sessions' shells) a checkout without
    it compiles some 90 modules at every start (about 0.3 s of CPU, seconds of wall under
    load), which no installed league pays."""
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", *PACKAGES, "bench", "manage.py"],
        cwd=checkout,
        stdout=subprocess.DEVNULL,
        check=True,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=200_000)
    parser.add_argument("--players", type=int, default=5_000)
    parser.add_argument("--periods", type=int, default=104)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument(
        "--before",
        type=Path,
        help="another checkout (e.g. main before a change) whose replay --sync is timed in "
        "every round too, on the same database",
    )
    parser.add_argument("--floor", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.floor:
        floor(args.floor)
        return 0
    with tempfile.TemporaryDirectory(prefix="replay-floor-") as scratch:
        slug, dump = prepare(args, Path(scratch))
        for checkout in [ROOT] + ([args.before] if args.before else []):
            compile_checkout(checkout)
        run_floor = [sys.executable, str(Path(__file__).resolve()), "--floor", str(dump)]
        timed(run_floor)  # warm-up
        if args.before:
            replay(slug, args.before)  # warm-up
        contenders = ["replay"] + (["before"] if args.before else [])
        ratios: dict[str, dict[str, list[float]]] = {
            name: {"wall": [], "CPU": []} for name in contenders
        }
        for round_number in range(args.rounds):
            measures = [("replay", lambda: replay(slug)), ("floor", lambda: timed(run_floor))]
            if args.before:
                measures.append(("before", lambda: replay(slug, args.before)))
            # Each process first, middle and last in turn.
            shift = round_number % len(measures)
            measures = measures[shift:] + measures[:shift]
            got = {}
            for name, measure in measures:
                settle()
                got[name] = measure()
            line = []
            for name in contenders:
                for k, clock in enumerate(("wall", "CPU")):
                    ratios[name][clock].append(got[name][k] / got["floor"][k])
                line.append(
                    f"{name} {got[name][0]:.2f} s (CPU {got[name][1]:.2f} s): "
                    f"{ratios[name]['wall'][-1]:.2f}x wall, {ratios[name]['CPU'][-1]:.2f}x CPU"
                )
            print(
                f"round {round_number + 1}: floor {got['floor'][0]:.2f} s (CPU "
                f"{got['floor'][1]:.2f} s); "
                + "; ".join(line)
                + f"; load {os.getloadavg()[0]:.1f}",
                flush=True,
            )
        for name in contenders:
            for clock, values in ratios[name].items():
                median = statistics.median(values)
                verdict = "meets" if median <= TARGET_RATIO else "MISSES"
                print(
                    f"{name} --sync / floor, {clock}: median {median:.2f}x (min "
                    f"{min(values):.2f}, max {max(values):.2f}; {verdict} the target of "
                    f"{TARGET_RATIO}x)"
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
