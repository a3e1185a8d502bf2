"""Benchmark: a sweep of 10 τ values over 50,000 matches, on two workers.

Builds a fresh league in its own SQLite database (a temporary ``LEAGUE_VAR_DIR`` unless
one is set; ``DATABASE_URL``/``CELERY_BROKER_URL`` are honoured if set) with a synthetic
season of 50,000 results, then measures, in the same run:

1. one τ scored in this process (``run_sweep_sync``: read + fold + score + write) - the baseline;
2. 10 τ on a pool of two processes running the task's function (``services.score_run``);
3. 10 τ sent as a Celery group to two real worker processes (``celery worker -P solo``),
   from ``start_sweep`` until the last run marks the sweep complete.

    .venv/bin/python -m bench.bench_sweep [--matches 50000] [--taus 10] [--no-celery]

Target: 10 τ with two workers in at most 30 s.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _configure() -> tuple[Path, bool]:
    """Point Django at an isolated var dir before it is imported."""
    made = "LEAGUE_VAR_DIR" not in os.environ
    var = Path(os.environ.get("LEAGUE_VAR_DIR") or tempfile.mkdtemp(prefix="bench-sweep-"))
    os.environ["LEAGUE_VAR_DIR"] = str(var)
    os.environ.setdefault("DJANGO_DEBUG", "1")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("DJANGO_LOG_LEVEL", "WARNING")
    for sub in ("broker/queue", "broker/processed"):
        (var / sub).mkdir(parents=True, exist_ok=True)
    return var, made


def _build_league(n_matches: int, n_players: int, n_periods: int):
    import datetime as dt
    from decimal import Decimal

    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from bench.synthetic import synthetic_league
    from league.event_store.bulk import NewMatch, append_matches_bulk
    from league.models import League, Player

    call_command("migrate", verbosity=0)
    slug = f"bench-{int(time.time())}"
    league = League.objects.create(
        name=f"Benchmark {slug}", slug=slug, start_date=dt.date(2000, 1, 3)
    )
    user = get_user_model().objects.create_user(f"bench-{slug}")
    league.organisers.add(user)
    players = Player.objects.bulk_create(
        Player(league=league, display_name=f"P{i:04d}", slug=f"p{i:04d}") for i in range(n_players)
    )
    data = synthetic_league(n_players, n_matches, n_periods, seed=7).matches
    days = [league.start_date + dt.timedelta(days=7 * int(p) + int(p) % 7) for p in data.period]
    scores = {1.0: Decimal("1"), 0.5: Decimal("0.5"), 0.0: Decimal("0")}
    append_matches_bulk(
        league,
        (
            NewMatch(players[a], players[b], scores[float(s)], day)
            for a, b, s, day in zip(data.player_a, data.player_b, data.score_a, days, strict=True)
        ),
    )
    return league


def _pool_sweep(league, taus: list[float]) -> float:
    """Score every run on two forked processes running the task's function."""
    import multiprocessing

    from django.db import connections, transaction

    from ratings.backtest import services
    from ratings.backtest.models import Sweep

    started = time.perf_counter()
    with transaction.atomic():
        sweep, runs = services.create_sweep(league, {"tau": taus})
    connections.close_all()  # each child opens its own connection
    with multiprocessing.get_context("fork").Pool(2) as pool:
        pool.map(services.score_run, [run.pk for run in runs], chunksize=1)
    elapsed = time.perf_counter() - started
    sweep = Sweep.objects.get(pk=sweep.pk)
    assert sweep.status == Sweep.Status.COMPLETE, sweep.error
    return elapsed


def _start_workers(var: Path, count: int) -> list[subprocess.Popen]:
    workers = []
    for i in range(count):
        log = (var / f"worker{i}.log").open("w")
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
                    f"bench{i}@%h",
                    "--without-gossip",
                    "--without-mingle",
                    "--without-heartbeat",
                    "-l",
                    "INFO",
                ],
                cwd=ROOT,
                env=os.environ.copy(),
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        )
    deadline = time.monotonic() + 60
    for i, worker in enumerate(workers):
        while "ready." not in (var / f"worker{i}.log").read_text():
            if worker.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError((var / f"worker{i}.log").read_text()[-2000:])
            time.sleep(0.2)
    return workers


def _celery_sweep(league, taus: list[float], timeout: float = 600) -> float:
    from ratings.backtest import tasks
    from ratings.backtest.models import Sweep

    started = time.perf_counter()
    sweep = tasks.start_sweep(league, {"tau": taus})
    deadline = time.monotonic() + timeout
    while True:
        sweep.refresh_from_db()
        if sweep.finished:
            break
        if time.monotonic() > deadline:
            raise RuntimeError(f"sweep not finished after {timeout} s: {sweep.runs_done} done")
        time.sleep(0.05)
    elapsed = time.perf_counter() - started
    assert sweep.status == Sweep.Status.COMPLETE, sweep.error
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description="Sweep benchmark")
    parser.add_argument("--matches", type=int, default=50_000)
    parser.add_argument("--players", type=int, default=400)
    parser.add_argument("--periods", type=int, default=260)
    parser.add_argument("--taus", type=int, default=10)
    parser.add_argument("--no-celery", action="store_true", help="skip the real-worker run")
    args = parser.parse_args()

    var, made = _configure()
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from ratings.backtest import services

    workers: list[subprocess.Popen] = []
    try:
        started = time.perf_counter()
        league = _build_league(args.matches, args.players, args.periods)
        print(
            f"setup: {args.matches} matches, {args.players} players, {args.periods} weekly "
            f"periods stored in {time.perf_counter() - started:.1f} s ({var})"
        )
        taus = [round(0.2 + 0.1 * i, 2) for i in range(args.taus)]

        started = time.perf_counter()
        one = services.run_sweep_sync(league, {"tau": [0.5]})
        single = time.perf_counter() - started
        run = one.runs.get()
        print(
            f"one τ, in process:          {single:6.2f} s  (scoring {run.elapsed:.2f} s, "
            f"log-loss {run.log_loss:.4f}, Elo {run.elo_log_loss:.4f})"
        )

        started = time.perf_counter()
        services.run_sweep_sync(league, {"tau": taus})
        sequential = time.perf_counter() - started
        print(
            f"{len(taus)} τ, in process:        {sequential:6.2f} s  "
            f"= {sequential / single:.1f} x one τ"
        )

        pooled = _pool_sweep(league, taus)
        print(
            f"{len(taus)} τ, pool of 2 processes: {pooled:6.2f} s  = {pooled / single:.1f} x one τ"
        )

        if not args.no_celery:
            from django.db import connections

            from config.celery import app

            # Setup queued the league's own replay (events_appended); drop it so that the
            # workers measure the sweep alone.
            dropped = app.control.purge()
            print(f"(dropped {dropped} queued message(s) from setup before starting workers)")
            connections.close_all()
            workers = _start_workers(var, 2)
            celery = _celery_sweep(league, taus)
            print(
                f"{len(taus)} τ, 2 Celery workers:    {celery:6.2f} s  "
                f"= {celery / single:.1f} x one τ  (target <= 30 s: "
                f"{'met' if celery <= 30 else 'MISSED'})"
            )
    finally:
        for worker in workers:
            worker.terminate()
        for worker in workers:
            worker.wait(timeout=30)
        if made:
            shutil.rmtree(var, ignore_errors=True)


if __name__ == "__main__":
    main()
