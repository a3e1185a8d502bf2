"""Replay benchmarks: full replay, incremental replay, and ``replay --sync`` vs pure Python.

Usage (sizes default to the targets; pass smaller ones for a quick run):

    # (a) full replay of 1,000,000 matches / 20,000 players / 520 weekly periods from events in
    # PostgreSQL to written projections, and (b) incremental replay after one new result in
    # the current period (commit -> updated standings):
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/league_bench \
        .venv/bin/python bench/bench_replay.py postgres [--matches N --players N --periods N]

    # (c) embedded default (SQLite): run_replay in-process (what ``replay --sync`` does) of
    # 200,000 matches / 5,000 players / 104 weekly periods vs a straightforward pure-Python
    # Glicko-2 loop over the same league in memory, in the same run:
    LEAGUE_VAR_DIR=var/bench .venv/bin/python bench/bench_replay.py sqlite [--matches N ...]

Events are loaded in bulk (PostgreSQL COPY, SQLite executemany: the event store refuses
UPDATE and DELETE, not INSERT) into a league named after the sizes, and reused on later runs.
Figures are printed as seconds and as ratios against a baseline measured in the same run.
"""

from __future__ import annotations

import argparse
import datetime as dt
import io
import math
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("DJANGO_DEBUG", "1")
# New results in (b) replay in this process, as soon as they are committed.
os.environ["CELERY_TASK_ALWAYS_EAGER"] = "1"


def ensure_postgres_database() -> None:
    """Create the database named in DATABASE_URL if it does not exist yet."""
    import dj_database_url
    import psycopg

    db = dj_database_url.parse(os.environ["DATABASE_URL"])
    params = {"host": db["HOST"] or "127.0.0.1", "port": db["PORT"] or 5432, "user": db["USER"]}
    if db.get("PASSWORD"):
        params["password"] = db["PASSWORD"]
    with psycopg.connect(dbname="postgres", autocommit=True, **params) as conn:
        exists = conn.execute(
            "SELECT 1 FROM pg_database WHERE datname = %s", [db["NAME"]]
        ).fetchone()
        if not exists:
            conn.execute(f'CREATE DATABASE "{db["NAME"]}"')


def setup_django(kind: str) -> None:
    if kind == "postgres":
        if not os.environ.get("DATABASE_URL", "").startswith("postgres"):
            sys.exit("The postgres benchmark needs DATABASE_URL=postgres://…/league_bench")
        ensure_postgres_database()
    else:
        os.environ.pop("DATABASE_URL", None)
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def week_anchor(periods: int) -> dt.date:
    """An anchor (a Monday) such that today falls in the last of ``periods`` weekly periods."""
    today = dt.datetime.now(dt.UTC).date()
    monday = today - dt.timedelta(days=today.weekday())
    return monday - dt.timedelta(weeks=periods - 1)


def load_league(
    matches: int,
    players: int,
    periods: int,
    anchor: dt.date | None = None,
    slug: str | None = None,
    seed: int = 1,
    analyze: bool = True,
):
    """The benchmark league (created and loaded in bulk on first use).

    Its matches spread over ``periods`` weeks from ``anchor`` (by default the anchor that
    puts today in the last of them); ``slug`` names it (by default after its sizes).
    ``analyze=False`` leaves the event table's statistics to the caller (PostgreSQL): a
    caller loading many leagues analyses once at the end rather than once a league, which
    took about three quarters of a small league's loading.
    """
    import numpy as np
    from django.db import connection, transaction

    from bench.synthetic import synthetic_league
    from league.models import Event, League, Player

    anchor = anchor or week_anchor(periods)
    slug = slug or f"bench-{matches}-{players}-{periods}-{anchor:%Y%m%d}"
    league = League.objects.filter(slug=slug).first()
    if league is not None and Event.objects.filter(league=league).count() >= matches:
        return league, anchor
    started = time.perf_counter()
    synthetic = synthetic_league(players, matches, periods, seed=seed)
    rng = np.random.default_rng(2)
    days = synthetic.matches.period * 7 + rng.integers(0, 7, matches)
    today = dt.datetime.now(dt.UTC).date()
    last_day = (today - anchor).days
    days = np.minimum(days, last_day)  # nothing in the future
    with transaction.atomic():
        league = League.objects.create(
            name=f"Benchmark {slug}", slug=slug, time_zone="UTC", start_date=anchor
        )
        Player.objects.bulk_create(
            [Player(league=league, display_name=f"P{i}", slug=f"p{i}") for i in range(players)],
            batch_size=5000,
        )
        ids = np.array(
            Player.objects.filter(league=league).order_by("pk").values_list("pk", flat=True)
        )
        a = ids[synthetic.matches.player_a]
        b = ids[synthetic.matches.player_b]
        scores = np.where(
            synthetic.matches.score_a == 1.0,
            "1.0",
            np.where(synthetic.matches.score_a == 0.5, "0.5", "0.0"),
        )
        base = dt.datetime.combine(anchor, dt.time(12), tzinfo=dt.UTC)
        moments = [(base + dt.timedelta(days=int(d))).isoformat() for d in range(last_day + 1)]
        recorded = dt.datetime.now(dt.UTC).isoformat()
        columns = (
            "league_id, seq, kind, recorded_at, played_at, player_a_id, player_b_id, "
            "score_a, points, reason, note, display_name, neutral, venue, seed_list"
        )
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                raw = cursor.cursor
                with raw.copy(f"COPY league_event ({columns}) FROM STDIN") as copy:
                    for start in range(0, matches, 100_000):
                        buffer = io.StringIO()
                        stop = min(matches, start + 100_000)
                        buffer.writelines(
                            f"{league.pk}\t{i + 1}\tmatch_recorded\t{recorded}\t"
                            f"{moments[days[i]]}\t{a[i]}\t{b[i]}\t{scores[i]}\t\t\t\t\tf\t\t\n"
                            for i in range(start, stop)
                        )
                        copy.write(buffer.getvalue())
        else:
            sql = f"INSERT INTO league_event ({columns}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
            adapt = connection.ops.adapt_datetimefield_value
            stamps = [adapt(dt.datetime.fromisoformat(m)) for m in moments]
            now = adapt(dt.datetime.now(dt.UTC))
            with connection.cursor() as cursor:
                cursor.cursor.executemany(
                    sql,
                    (
                        (
                            league.pk,
                            i + 1,
                            "match_recorded",
                            now,
                            stamps[days[i]],
                            int(a[i]),
                            int(b[i]),
                            scores[i],
                            "",
                            "",
                            "",
                            "",
                            False,
                            "",
                            "",
                        )
                        for i in range(matches)
                    ),
                )
    print(f"loaded {matches:,} match events in {time.perf_counter() - started:.1f} s")
    if analyze and connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE league_event")
    return league, anchor


def best_full_replay(league, anchor, tag: str, runs: int):
    """The fastest of ``runs`` full replays (the machine is shared: take the least disturbed)."""
    return min((full_replay(league, anchor, tag) for _ in range(runs)), key=lambda r: r[2])


def full_replay(league, anchor, tag: str):
    """Create a configuration version and run its full replay in this process."""
    from ratings import services
    from ratings.models import RatingConfig, Replay

    version = (RatingConfig.objects.filter(league=league).count()) + 1
    config = RatingConfig.objects.create(
        league=league, version=version, period_anchor=anchor, note=tag
    )
    replay = Replay.objects.create(config=config, kind=Replay.Kind.FULL)
    started = time.perf_counter()
    services.run_replay(replay.pk)
    elapsed = time.perf_counter() - started
    replay.refresh_from_db()
    if replay.status != Replay.Status.COMPLETE:
        sys.exit(f"replay ended {replay.status}: {replay.error}")
    return config, replay, elapsed


def shares(timings: dict) -> str:
    total = sum(timings[k] for k in ("reading", "computing", "writing"))
    return ", ".join(
        f"{k} {timings[k]:.2f} s ({100 * timings[k] / total:.0f}%)"
        for k in ("reading", "computing", "writing")
    )


def pure_python_glicko2(period, a, b, score, n_players, tau=0.5):
    """A straightforward Glicko-2 loop: dicts and floats, every player, every period.

    It computes what the replay stores: a history row per (player, period) played (values
    before and after, games, wins, draws, losses) and every rated player's final values.
    """
    scale = 173.7178
    rating = [1500.0] * n_players
    rd = [350.0] * n_players
    sigma = [0.06] * n_players
    rated = [False] * n_players
    history = []
    games: dict[int, list] = {}
    for p, x, y, s in zip(period, a, b, score, strict=True):
        games.setdefault(p, []).append((x, y, s))
    for p in range(max(games) + 1 if games else 0):
        results: dict[int, list] = {}
        for x, y, s in games.get(p, ()):
            results.setdefault(x, []).append((y, s))
            results.setdefault(y, []).append((x, 1.0 - s))
        new = {}
        for i in range(n_players):
            phi = rd[i] / scale
            if i not in results:
                if rated[i]:
                    new[i] = (
                        rating[i],
                        min(scale * math.sqrt(phi * phi + sigma[i] ** 2), 350.0),
                        sigma[i],
                    )
                continue
            mu = (rating[i] - 1500.0) / scale
            v_inv = delta_sum = 0.0
            for j, s in results[i]:
                phi_j = rd[j] / scale
                g = 1.0 / math.sqrt(1.0 + 3.0 * phi_j * phi_j / math.pi**2)
                e = 1.0 / (1.0 + math.exp(-g * (mu - (rating[j] - 1500.0) / scale)))
                v_inv += g * g * e * (1.0 - e)
                delta_sum += g * (s - e)
            v = 1.0 / v_inv
            delta = v * delta_sum
            a0 = math.log(sigma[i] ** 2)

            def f(x, phi=phi, v=v, delta=delta, a0=a0):
                ex = math.exp(x)
                return (
                    ex * (delta**2 - phi**2 - v - ex) / (2 * (phi**2 + v + ex) ** 2)
                    - (x - a0) / tau**2
                )

            big_a = a0
            if delta**2 > phi**2 + v:
                big_b = math.log(delta**2 - phi**2 - v)
            else:
                k = 1
                while f(a0 - k * tau) < 0:
                    k += 1
                big_b = a0 - k * tau
            fa, fb = f(big_a), f(big_b)
            while abs(big_b - big_a) > 1e-6:
                big_c = big_a + (big_a - big_b) * fa / (fb - fa)
                fc = f(big_c)
                if fc * fb <= 0:
                    big_a, fa = big_b, fb
                else:
                    fa /= 2
                big_b, fb = big_c, fc
            new_sigma = math.exp(big_a / 2)
            phi_star = math.sqrt(phi * phi + new_sigma**2)
            new_phi = 1.0 / math.sqrt(1.0 / phi_star**2 + 1.0 / v)
            new_mu = mu + new_phi**2 * delta_sum
            new[i] = (scale * new_mu + 1500.0, min(scale * new_phi, 350.0), new_sigma)
            outcomes = [s for _, s in results[i]]
            history.append(
                (
                    p,
                    i,
                    *new[i],
                    rating[i],
                    rd[i],
                    len(outcomes),
                    outcomes.count(1.0),
                    outcomes.count(0.5),
                    outcomes.count(0.0),
                )
            )
        for i, values in new.items():
            rating[i], rd[i], sigma[i] = values
            rated[i] = True
    return history, rating, rd, sigma


def bench_postgres(args) -> None:
    from django.db import connection

    from league import services as league_services
    from league.models import Player
    from ratings.models import Publication, Replay, Standing

    league, anchor = load_league(args.matches, args.players, args.periods)
    config, replay, elapsed = full_replay(league, anchor, "bench full")
    rows = Standing.objects.filter(config=config).count()
    print(
        f"(a) full replay, {args.matches:,} matches / {args.players:,} players / "
        f"{replay.periods_total} periods on {connection.vendor}: {elapsed:.1f} s "
        f"(target at 1,000,000 matches: 4 s; {rows:,} standings)"
    )
    print(f"    {shares(replay.timings)}")
    assert Publication.objects.get(league=league).config_id == config.pk

    a, b = Player.objects.filter(league=league).order_by("pk").values_list("pk", flat=True)[:2]
    started = time.perf_counter()
    league_services.record_match(
        league, player_a=a, player_b=b, score_a="1", played_at=dt.datetime.now(dt.UTC)
    )
    commit_to_standings = time.perf_counter() - started
    incremental = Replay.objects.filter(config=config, kind=Replay.Kind.INCREMENTAL).latest("pk")
    assert incremental.status == Replay.Status.COMPLETE, incremental.error
    print(
        f"(b) one new result in the current period -> standings updated: "
        f"{commit_to_standings:.3f} s (target 0.15 s; "
        f"from period {incremental.from_period}); "
        f"{shares(incremental.timings)}"
    )
    print(f"    incremental / full: {commit_to_standings / elapsed:.4f}")


def bench_sqlite(args) -> None:
    from bench.synthetic import synthetic_league

    league, anchor = load_league(args.matches, args.players, args.periods)
    _config, replay, elapsed = best_full_replay(league, anchor, "bench sync", args.runs)
    print(
        f"(c) run_replay in-process (replay --sync) on SQLite, {args.matches:,} matches / "
        f"{args.players:,} players / {replay.periods_total} periods: {elapsed:.2f} s; "
        f"{shares(replay.timings)}"
    )
    synthetic = synthetic_league(args.players, args.matches, args.periods, seed=1).matches
    inputs = (
        synthetic.period.tolist(),
        synthetic.player_a.tolist(),
        synthetic.player_b.tolist(),
        synthetic.score_a.tolist(),
        args.players,
    )
    baseline = math.inf
    for _ in range(args.runs):
        started = time.perf_counter()
        pure_python_glicko2(*inputs)
        baseline = min(baseline, time.perf_counter() - started)
    print(f"    pure-Python Glicko-2 loop in memory, same league: {baseline:.2f} s")
    print(f"    (best of {args.runs} runs each)")
    print(f"    replay --sync / pure Python = {elapsed / baseline:.3f} (must be < 1)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("database", choices=["postgres", "sqlite"])
    parser.add_argument("--matches", type=int)
    parser.add_argument("--players", type=int)
    parser.add_argument("--periods", type=int)
    parser.add_argument("--runs", type=int, default=3, help="(c): best of N runs of each side")
    args = parser.parse_args()
    big = args.database == "postgres"
    args.matches = args.matches or (1_000_000 if big else 200_000)
    args.players = args.players or (20_000 if big else 5_000)
    args.periods = args.periods or (520 if big else 104)
    setup_django(args.database)
    (bench_postgres if big else bench_sqlite)(args)


if __name__ == "__main__":
    main()
