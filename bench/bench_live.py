"""How soon a recorded result is live, and what an idle worker costs, per broker poll interval.

Two measurements, each against real ``celery -A config worker -B --concurrency=2`` processes
started as ``bin/run`` starts its worker (with ``LEAGUE_BROKER_POLL_SECONDS`` set for each):

- ``idle``: one worker per poll interval, all started together and left idle; after
  ``--settle`` seconds the CPU seconds of each worker's whole process tree (its pool and its
  beat, read from ``/proc``) are counted over ``--seconds``. Printed as CPU seconds and as a
  share of one core.
- ``lag``: the demo league (loaded once since ``--since`` into ``LEAGUE_VAR_DIR``, or into
  ``DATABASE_URL``'s database), a worker, and ``--results`` results POSTed to the API one at a
  time by a signed-in organiser (``django.test.Client``: the whole Django stack, no network),
  each at a random moment of a second so that the broker's poll finds it at any phase. After
  each POST an anonymous client reads the standings API (``?search=`` the player) every
  ``--every`` seconds until the player's game count has moved: that moment minus the
  moment before the POST is the lag. p50, p95 and max per poll interval, with the medians
  of its parts the replay row records: queued -> started (the broker's pickup) and started
  -> finished (the replay).

On the embedded default (SQLite, filesystem broker)::

    LEAGUE_VAR_DIR=/tmp/var-live .venv/bin/python -m bench.bench_live idle --polls 0.05,0.1,0.2,1
    LEAGUE_VAR_DIR=/tmp/var-live .venv/bin/python -m bench.bench_live lag --polls 0.1,1

On PostgreSQL + Redis (the poll interval does not apply: Redis wakes the worker)::

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/league_live \\
    CELERY_BROKER_URL=redis://127.0.0.1:6379/5 LEAGUE_VAR_DIR=/tmp/var-live \\
        .venv/bin/python -m bench.bench_live lag

Targets (issue 33): lag p95 <= 0.25 s on the embedded default, <= 0.15 s on PostgreSQL +
Redis; idle CPU small (a few tenths of a per cent of a core).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("DJANGO_DEBUG", "1")
os.environ["CELERY_TASK_ALWAYS_EAGER"] = "0"
os.environ.setdefault("LEAGUE_VAR_DIR", str(ROOT / "var" / "bench-live"))
# The reader polls the standings API hundreds of times a minute from one address.
os.environ.setdefault("LEAGUE_API_ANON_RATE", "1000000/minute")
os.environ.setdefault("LEAGUE_API_USER_RATE", "1000000/minute")

DEMO_SLUG = "international-football"
TARGETS = {"sqlite": 0.25, "postgresql": 0.15}
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def start_worker(poll: float | None, log: Path, var: Path | None = None) -> subprocess.Popen:
    """A worker as ``bin/run`` starts it, with the broker polled every ``poll`` seconds
    (and its own database and broker folder under ``var`` if given)."""
    env = dict(os.environ)
    if var is not None:
        env["LEAGUE_VAR_DIR"] = str(var)
    if poll is not None:
        env["LEAGUE_BROKER_POLL_SECONDS"] = str(poll)
    return subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "-B", "--loglevel=info",
         "--concurrency=2", "--hostname", f"live{poll}@%h"],
        cwd=ROOT, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT,
        start_new_session=True,
    )  # fmt: skip


def stop(process: subprocess.Popen) -> None:
    """Stop a worker this script started: its own process group, by its id (a beat process
    outlives a worker whose main process died, so the group is swept even then)."""
    try:
        os.killpg(process.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=30)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def wait_ready(log: Path, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if log.exists() and " ready." in log.read_text(errors="replace"):
            return
        time.sleep(0.2)
    raise SystemExit(f"the worker did not get ready within {timeout:.0f} s (see {log})")


def tree_cpu(pid: int) -> float:
    """CPU seconds (user + system) of ``pid`` and every live descendant, from ``/proc``."""
    total, todo = 0.0, [pid]
    while todo:
        current = todo.pop()
        try:
            stat = Path(f"/proc/{current}/stat").read_text()
        except OSError:
            continue
        fields = stat.rpartition(")")[2].split()
        total += (int(fields[11]) + int(fields[12])) / CLOCK_TICKS  # utime, stime
        for task in Path(f"/proc/{current}/task").iterdir():
            with contextlib.suppress(OSError):
                todo += [int(c) for c in (task / "children").read_text().split()]
    return total


def idle(args: argparse.Namespace, var: Path) -> None:
    workers = {}
    for poll in args.polls:
        # A database and a broker folder of its own: no worker runs another's beat sweeps.
        own = var / f"idle-{poll}"
        own.mkdir(exist_ok=True)
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--no-input", "-v", "0"],
            cwd=ROOT, env={**os.environ, "LEAGUE_VAR_DIR": str(own)}, check=True,
        )  # fmt: skip
        log = own / "worker.log"
        workers[poll] = (start_worker(poll, log, own), log)
    try:
        for _process, log in workers.values():
            wait_ready(log)
        time.sleep(args.settle)
        before = {poll: tree_cpu(process.pid) for poll, (process, _) in workers.items()}
        started = time.monotonic()
        time.sleep(args.seconds)
        elapsed = time.monotonic() - started
        after = {poll: tree_cpu(process.pid) for poll, (process, _) in workers.items()}
    finally:
        for process, _log in workers.values():
            stop(process)
    print(f"idle workers (-B, --concurrency=2), CPU over {elapsed:.0f} s, all running together")
    print(f"{'poll s':>8} {'CPU s':>8} {'% of a core':>12}")
    for poll in args.polls:
        cpu = after[poll] - before[poll]
        print(f"{poll:8.3f} {cpu:8.2f} {100 * cpu / elapsed:12.2f}")


def prepare(since: dt.date):
    """The demo league (loaded once) and a signed-in organiser's and an anonymous client."""
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.test import Client

    from league.models import League

    call_command("migrate", verbosity=0)
    league = League.objects.filter(slug=DEMO_SLUG).first()
    if league is None:
        started = time.perf_counter()
        call_command("load_demo", since=since, verbosity=0, no_replay=True)
        call_command("replay", DEMO_SLUG, sync=True, verbosity=0)
        print(f"loaded the demo league in {time.perf_counter() - started:.1f} s")
        league = League.objects.get(slug=DEMO_SLUG)
    user, _ = get_user_model().objects.get_or_create(
        username="bench-live", defaults={"is_superuser": True, "is_staff": True}
    )
    settings.DEBUG = False  # no query log
    organiser = Client(HTTP_HOST="localhost")
    organiser.force_login(user)
    return league, organiser, Client(HTTP_HOST="localhost")


def games_of(reader, league, player) -> int | None:
    response = reader.get(
        f"/api/leagues/{league.slug}/standings/",
        {"search": player.display_name, "everyone": "true", "per_page": "100"},
    )
    if response.status_code != 200:
        raise SystemExit(f"standings answered {response.status_code}")
    for row in json.loads(response.content)["results"]:
        if row["player_id"] == player.pk:
            return row["games"]
    return None


def lag(args: argparse.Namespace, var: Path) -> None:
    league, organiser, reader = prepare(args.since)
    from django.db import connection

    from league.models import Player
    from ratings.models import Replay

    vendor = connection.vendor
    players = list(Player.objects.filter(league=league, active=True).order_by("pk")[:40])
    redis = not os.environ.get("CELERY_BROKER_URL", "filesystem").startswith("filesystem")
    polls = [None] if redis else args.polls
    rng = random.Random(33)
    summary = []
    for poll in polls:
        log = var / f"lag-worker-{poll}.log"
        worker = start_worker(poll, log)
        try:
            wait_ready(log)
            lags, pickups, runs = [], [], []
            for number in range(args.results + 3):
                a, b = rng.sample(players, 2)
                before = games_of(reader, league, a)
                time.sleep(rng.random())  # any phase of the broker's poll
                started = time.perf_counter()
                response = organiser.post(
                    f"/api/leagues/{league.slug}/matches/",
                    {"player_a": a.pk, "player_b": b.pk, "score_a": 1,
                     "played_at": dt.datetime.now(dt.UTC).isoformat()},
                    content_type="application/json",
                )  # fmt: skip
                if response.status_code != 201:
                    raise SystemExit(f"POST answered {response.status_code}: {response.content!r}")
                while games_of(reader, league, a) == before:
                    if time.perf_counter() - started > 30:
                        raise SystemExit(f"result {number} not live after 30 s (see {log})")
                    time.sleep(args.every)
                if number >= 3:  # the first few warm the worker's pool processes
                    lags.append(time.perf_counter() - started)
                    replay = Replay.objects.filter(config__league=league).latest("pk")
                    pickups.append((replay.started_at - replay.queued_at).total_seconds())
                    runs.append((replay.finished_at - replay.started_at).total_seconds())
        finally:
            stop(worker)
        lags.sort()
        p95 = lags[min(len(lags) - 1, int(0.95 * len(lags)))]
        summary.append(
            (poll, statistics.median(lags), p95, lags[-1], statistics.median(pickups),
             statistics.median(runs))
        )  # fmt: skip
    target = TARGETS[vendor]
    broker = "Redis" if redis else "filesystem broker"
    print(f"{args.results} results POSTed -> visible in the standings API ({vendor}, {broker})")
    print(
        f"{'poll s':>8} {'p50 s':>8} {'p95 s':>8} {'max s':>8} {'pickup':>8} {'replay':>8}"
        f"  target p95 <= {target}"
    )
    for poll, p50, p95, top, pickup, run in summary:
        shown = "-" if poll is None else f"{poll:.3f}"
        verdict = "ok" if p95 <= target else "MISSED"
        print(f"{shown:>8} {p50:8.3f} {p95:8.3f} {top:8.3f} {pickup:8.3f} {run:8.3f}  {verdict}")
    print(
        "pickup: the replay's queued -> started (the broker), replay: started -> finished "
        "(medians); the rest of the lag is the POST and the reads"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=("idle", "lag"))
    parser.add_argument(
        "--polls",
        type=lambda text: [float(x) for x in text.split(",")],
        default=[0.05, 0.1, 0.2, 1.0],
        help="broker poll intervals in seconds (filesystem broker only)",
    )
    parser.add_argument("--seconds", type=float, default=60.0, help="idle: seconds counted")
    parser.add_argument("--settle", type=float, default=10.0, help="idle: seconds not counted")
    parser.add_argument("--results", type=int, default=50, help="lag: results timed")
    parser.add_argument("--every", type=float, default=0.005, help="lag: seconds between reads")
    parser.add_argument(
        "--since", type=dt.date.fromisoformat, default=dt.date(2010, 1, 1), help="lag: demo"
    )
    args = parser.parse_args()
    var = Path(os.environ["LEAGUE_VAR_DIR"])
    var.mkdir(parents=True, exist_ok=True)
    (idle if args.mode == "idle" else lag)(args, var)


if __name__ == "__main__":
    main()
