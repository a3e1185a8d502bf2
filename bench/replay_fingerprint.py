"""Fingerprints of replayed standings and history, to show that a change preserves them.

Builds three leagues in a fresh database through the public management commands only, each
run as ``manage.py`` in a subprocess of this checkout:

* ``international-football``: ``load_demo``;
* ``synthetic``: ``create_league`` + ``import_results --create-players`` of a synthetic CSV of
  200,000 one-vs-one matches among 5,000 players over 104 weekly periods (``bench.synthetic``);
* ``doubles``: ``create_league --format doubles`` + ``import_results --create-players`` of a
  synthetic CSV of 20,000 two-vs-two matches (``side_a``/``side_b``, draws included) among
  400 players over 104 weekly periods;

then runs ``replay --sync`` on each and prints one SHA-256 per league and table over every
standing and history row: floats written exactly (``float.hex``), players named, not
numbered, rows sorted in Python (code-point order, not the database's collation) and moments
in UTC, so that SQLite and PostgreSQL print comparable lines. The tables are read with plain
SQL; nothing of the rating code is imported here, so the same file runs on any code layout.
The CSV files are seeded (the same files every time). Only the hash lines go to standard
output; the timings of the steps go to standard error.

Run it on two checkouts on the same day (the current period depends on today) and compare
the lines. SQLite (the default: a new ``db.sqlite3`` under ``LEAGUE_VAR_DIR``, which must
not exist yet):

    LEAGUE_VAR_DIR=$(mktemp -d) .venv/bin/python bench/replay_fingerprint.py

PostgreSQL (an empty database of its own, made before and dropped after; the script runs
``manage.py migrate`` on it and refuses a database that already holds a league):

    createdb -h 127.0.0.1 -U postgres fp_before
    LEAGUE_VAR_DIR=$(mktemp -d) .venv/bin/python bench/replay_fingerprint.py \\
        --database-url postgres://postgres@127.0.0.1:5432/fp_before
    dropdb -h 127.0.0.1 -U postgres fp_before

Options: ``--matches/--players/--periods`` size the synthetic league, ``--doubles-matches``
and ``--doubles-players`` the doubles league, ``--only demo,doubles`` builds a subset (the
lines of a league do not depend on the others being there).
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import hashlib
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

ANCHOR = dt.date(2023, 1, 2)  # a Monday
LEAGUES = ("demo", "doubles", "synthetic")
SCORE_TEXT = {1.0: "1", 0.5: "0.5", 0.0: "0"}

#: The configuration the fingerprinted leagues are rated with besides their periods: the
#: paper's period updates and volatility (a new league's defaults are instant and 0.10).
PAPER = ("--update-mode", "period", "--initial-volatility", "0.06")


def synthetic_csv(path: Path, matches: int, players: int, periods: int) -> None:
    """The synthetic league as an import file (seeded: the same file every time)."""
    import numpy as np

    from bench.synthetic import synthetic_league

    league = synthetic_league(players, matches, periods, seed=7)
    rng = np.random.default_rng(8)
    days = league.matches.period * 7 + rng.integers(0, 7, matches)
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["date", "player_a", "player_b", "score_a", "id"])
        for i in range(matches):
            day = ANCHOR + dt.timedelta(days=int(days[i]))
            writer.writerow(
                [
                    day.isoformat(),
                    f"Player {int(league.matches.player_a[i]):05d}",
                    f"Player {int(league.matches.player_b[i]):05d}",
                    SCORE_TEXT[float(league.matches.score_a[i])],
                    f"m{i}",
                ]
            )


def doubles_csv(path: Path, matches: int, players: int, periods: int) -> None:
    """A doubles league as an import file in the side format (seeded: the same file every
    time). Four distinct players a match, two a side, in a uniformly random week; side A wins
    with the Elo probability of the sides' mean strengths, a draw most likely between equal
    sides. Sides list their players in random order, as people type them."""
    import numpy as np

    rng = np.random.default_rng(20)
    strengths = rng.normal(1500.0, 200.0, players)
    period = np.sort(rng.integers(0, periods, matches))
    days = period * 7 + rng.integers(0, 7, matches)
    four = np.argsort(rng.random((matches, players)), axis=1)[:, :4]
    side_a, side_b = four[:, :2], four[:, 2:]
    diff = strengths[side_a].mean(axis=1) - strengths[side_b].mean(axis=1)
    p = 1.0 / (1.0 + 10.0 ** (-diff / 400.0))
    draw = 0.2 * 4.0 * p * (1.0 - p)
    u = rng.random(matches)
    score = np.where(u < p - draw / 2.0, 1.0, np.where(u < p + draw / 2.0, 0.5, 0.0))

    def side(members: np.ndarray) -> str:
        return "; ".join(f"Player {int(m):04d}" for m in members)

    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["date", "side_a", "side_b", "score_a", "id"])
        for i in range(matches):
            day = ANCHOR + dt.timedelta(days=int(days[i]))
            writer.writerow(
                [
                    day.isoformat(),
                    side(side_a[i]),
                    side(side_b[i]),
                    SCORE_TEXT[float(score[i])],
                    f"d{i}",
                ]
            )


def command_env(database_url: str | None) -> dict[str, str]:
    """The environment of this checkout's ``manage.py``: its own packages first, debug
    settings, no worker or shared service reachable (queued replays stay queued)."""
    env = dict(os.environ)
    env["DJANGO_SETTINGS_MODULE"] = "config.settings"
    env["DJANGO_DEBUG"] = "1"
    env["CELERY_TASK_ALWAYS_EAGER"] = "0"
    for name in ("CELERY_BROKER_URL", "LEAGUE_CACHE_URL", "DATABASE_URL"):
        env.pop(name, None)
    if database_url:
        env["DATABASE_URL"] = database_url
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env


def manage(env: dict[str, str], *args: str) -> None:
    """``manage.py ARGS`` of this checkout in a subprocess; its output is shown on failure."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    elapsed = time.perf_counter() - started
    if done.returncode:
        sys.stderr.write(done.stdout + done.stderr)
        raise SystemExit(f"manage.py {' '.join(args)} failed (exit {done.returncode})")
    print(f"[{elapsed:7.1f} s] manage.py {' '.join(args)}", file=sys.stderr, flush=True)


def cell(value: object) -> str:
    """A value as hashed: floats exactly, moments in UTC without an offset (SQLite's raw
    rows are naive UTC, PostgreSQL's aware)."""
    if isinstance(value, float):
        return value.hex()
    if isinstance(value, dt.datetime) and value.tzinfo is not None:
        value = value.astimezone(dt.UTC).replace(tzinfo=None)
    return str(value)


QUERIES = {
    "standings": """
        SELECT p.display_name, s.rating, s.rd, s.volatility, s.last_period, s.games,
               s.wins, s.draws, s.losses, s.last_played_at
        FROM ratings_standing s
        JOIN league_player p ON p.id = s.player_id
        JOIN ratings_publication pub ON pub.config_id = s.config_id
        JOIN league_league l ON l.id = pub.league_id
        WHERE l.slug = %s""",
    "history": """
        SELECT p.display_name, h.period_index, h.rating, h.rd, h.volatility,
               h.rating_before, h.rd_before, h.games, h.wins, h.draws, h.losses
        FROM ratings_playerperiod h
        JOIN league_player p ON p.id = h.player_id
        JOIN ratings_publication pub ON pub.config_id = h.config_id
        JOIN league_league l ON l.id = pub.league_id
        WHERE l.slug = %s""",
}


def fingerprint(slug: str) -> dict[str, str]:
    """SHA-256 of the live configuration's standings and history rows, by player name
    (history rows by name, then period)."""
    from django.db import connection

    out = {}
    for name, sql in QUERIES.items():
        with connection.cursor() as cursor:
            cursor.execute(sql, [slug])
            rows = cursor.fetchall()
        lines = sorted(
            (row[0], row[1] if name == "history" else 0, "\x1f".join(map(cell, row)) + "\n")
            for row in rows
        )
        digest = hashlib.sha256()
        for *_, line in lines:
            digest.update(line.encode())
        out[name] = f"{len(lines)} rows sha256 {digest.hexdigest()}"
    return out


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=(__doc__ or "").splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="\n".join((__doc__ or "").splitlines()[1:]),
    )
    parser.add_argument("--matches", type=int, default=200_000, help="synthetic league")
    parser.add_argument("--players", type=int, default=5_000, help="synthetic league")
    parser.add_argument("--periods", type=int, default=104, help="both synthetic leagues")
    parser.add_argument("--doubles-matches", type=int, default=20_000)
    parser.add_argument("--doubles-players", type=int, default=400)
    parser.add_argument(
        "--database-url",
        metavar="URL",
        help="an empty database, e.g. postgres://postgres@127.0.0.1:5432/fp_before "
        "(default: a new SQLite file under LEAGUE_VAR_DIR)",
    )
    parser.add_argument(
        "--only",
        default=",".join(LEAGUES),
        help=f"comma-separated subset of {','.join(LEAGUES)} (default: all)",
    )
    args = parser.parse_args()
    args.only = [name.strip() for name in args.only.split(",") if name.strip()]
    unknown = sorted(set(args.only) - set(LEAGUES))
    if unknown or not args.only:
        parser.error(f"--only takes names from {', '.join(LEAGUES)}")
    if args.doubles_players < 4:
        parser.error("--doubles-players must be at least 4")
    return args


def main() -> None:
    args = parse_args()
    if "LEAGUE_VAR_DIR" not in os.environ:
        os.environ["LEAGUE_VAR_DIR"] = tempfile.mkdtemp(prefix="fingerprint-")
    var_dir = Path(os.environ["LEAGUE_VAR_DIR"])
    var_dir.mkdir(parents=True, exist_ok=True)
    if not args.database_url and (var_dir / "db.sqlite3").exists():
        raise SystemExit(f"{var_dir / 'db.sqlite3'} exists: use a fresh LEAGUE_VAR_DIR")
    env = command_env(args.database_url)
    started = time.perf_counter()

    manage(env, "migrate", "--no-input", "--verbosity", "0")

    # This process reads the tables with the same settings as the commands.
    os.environ.update(
        {key: env[key] for key in ("DJANGO_SETTINGS_MODULE", "DJANGO_DEBUG")},
        CELERY_TASK_ALWAYS_EAGER="0",
    )
    os.environ.pop("DATABASE_URL", None)
    if args.database_url:
        os.environ["DATABASE_URL"] = args.database_url
    import django

    django.setup()
    from django.db import connection

    def slugs() -> list[str]:
        with connection.cursor() as cursor:
            cursor.execute("SELECT slug FROM league_league")
            return sorted(slug for (slug,) in cursor.fetchall())

    if slugs():
        raise SystemExit(f"The database already holds leagues ({', '.join(slugs())})")
    connection.close()

    # The leagues state their update mode and volatility, so that a checkout whose new-league
    # defaults differ still fingerprints the same configurations.
    if "demo" in args.only:
        manage(env, "load_demo")
    if "doubles" in args.only:
        csv_path = var_dir / "doubles.csv"
        doubles_csv(csv_path, args.doubles_matches, args.doubles_players, args.periods)
        manage(
            env,
            "create_league",
            "doubles",
            "--name",
            "Doubles",
            "--format",
            "doubles",
            "--period-days",
            "7",
            "--period-anchor",
            ANCHOR.isoformat(),
            *PAPER,
        )
        manage(env, "import_results", "doubles", str(csv_path), "--create-players")
    if "synthetic" in args.only:
        csv_path = var_dir / "synthetic.csv"
        synthetic_csv(csv_path, args.matches, args.players, args.periods)
        manage(
            env,
            "create_league",
            "synthetic",
            "--name",
            "Synthetic",
            "--period-days",
            "7",
            "--period-anchor",
            ANCHOR.isoformat(),
            *PAPER,
        )
        manage(env, "import_results", "synthetic", str(csv_path), "--create-players")

    for slug in slugs():
        manage(env, "replay", slug, "--sync")
        for table, line in fingerprint(slug).items():
            print(f"{slug} {table}: {line}", flush=True)
        connection.close()
    print(f"[{time.perf_counter() - started:7.1f} s] total", file=sys.stderr)


if __name__ == "__main__":
    main()
