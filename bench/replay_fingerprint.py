"""Fingerprints of replayed standings and history, to show that a change preserves them.

Builds two leagues in a fresh SQLite database through the public commands only
(``load_demo``; ``create_league`` + ``import_results --create-players`` of a synthetic CSV of
200,000 matches among 5,000 players over 104 weekly periods), runs ``replay --sync`` on each,
and prints one SHA-256 per league and table over every projection row, floats written
exactly (``float.hex``) and players named, not numbered. Run it on two checkouts on the same
day (the current period depends on today) and compare the lines:

    LEAGUE_VAR_DIR=$(mktemp -d) .venv/bin/python bench/replay_fingerprint.py [--matches N]
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import hashlib
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("DJANGO_DEBUG", "1")
os.environ.pop("DATABASE_URL", None)
os.environ["CELERY_TASK_ALWAYS_EAGER"] = "0"

ANCHOR = dt.date(2023, 1, 2)  # a Monday


def synthetic_csv(path: Path, matches: int, players: int, periods: int) -> None:
    """The synthetic league as an import file (seeded: the same file every time)."""
    import numpy as np

    from bench.synthetic import synthetic_league

    league = synthetic_league(players, matches, periods, seed=7)
    rng = np.random.default_rng(8)
    days = league.matches.period * 7 + rng.integers(0, 7, matches)
    text = {1.0: "1", 0.5: "0.5", 0.0: "0"}
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
                    text[float(league.matches.score_a[i])],
                    f"m{i}",
                ]
            )


def fingerprint(slug: str) -> dict[str, str]:
    """SHA-256 of the live configuration's standings and history rows, by player name."""
    from django.db import connection

    out = {}
    queries = {
        "standings": """
            SELECT p.display_name, s.rating, s.rd, s.volatility, s.last_period, s.games,
                   s.wins, s.draws, s.losses, s.last_played_at
            FROM ratings_standing s
            JOIN league_player p ON p.id = s.player_id
            JOIN ratings_publication pub ON pub.config_id = s.config_id
            JOIN league_league l ON l.id = pub.league_id
            WHERE l.slug = %s ORDER BY p.display_name""",
        "history": """
            SELECT p.display_name, h.period_index, h.rating, h.rd, h.volatility,
                   h.rating_before, h.rd_before, h.games, h.wins, h.draws, h.losses
            FROM ratings_playerperiod h
            JOIN league_player p ON p.id = h.player_id
            JOIN ratings_publication pub ON pub.config_id = h.config_id
            JOIN league_league l ON l.id = pub.league_id
            WHERE l.slug = %s ORDER BY p.display_name, h.period_index""",
    }
    for name, sql in queries.items():
        digest = hashlib.sha256()
        rows = 0
        with connection.cursor() as cursor:
            cursor.execute(sql, [slug])
            for row in cursor.fetchall():
                rows += 1
                cells = [v.hex() if isinstance(v, float) else str(v) for v in row]
                digest.update(("\x1f".join(cells) + "\n").encode())
        out[name] = f"{rows} rows sha256 {digest.hexdigest()}"
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=200_000)
    parser.add_argument("--players", type=int, default=5_000)
    parser.add_argument("--periods", type=int, default=104)
    args = parser.parse_args()
    if "LEAGUE_VAR_DIR" not in os.environ:
        os.environ["LEAGUE_VAR_DIR"] = tempfile.mkdtemp(prefix="fingerprint-")

    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    call_command("load_demo", verbosity=0)
    csv_path = Path(os.environ["LEAGUE_VAR_DIR"]) / "synthetic.csv"
    synthetic_csv(csv_path, args.matches, args.players, args.periods)
    call_command(
        "create_league",
        "synthetic",
        "--name",
        "Synthetic",
        "--period-days",
        "7",
        "--period-anchor",
        ANCHOR.isoformat(),
        verbosity=0,
    )
    call_command("import_results", "synthetic", str(csv_path), "--create-players", verbosity=0)

    from league.models import League

    for league in League.objects.order_by("slug"):
        call_command("replay", league.slug, "--sync", verbosity=0)
        for table, line in fingerprint(league.slug).items():
            print(f"{league.slug} {table}: {line}")


if __name__ == "__main__":
    main()
