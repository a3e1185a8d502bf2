"""A crowd on the leaderboard: 200 concurrent readers against gunicorn, page cache off and on.

The demo league (international football since 1990, loaded once into ``--var-dir`` on the
embedded default, or into ``DATABASE_URL``'s database when set) is served by gunicorn on a
free port of 127.0.0.1, twice in the same run: first with the page cache switched off
(``LEAGUE_PAGE_CACHE=0``: every request computes the leaderboard, as before the cache),
then with it on. Each time ``--clients`` threads, each on one keep-alive connection
(``http.client``), request the leaderboard back to back for ``--seconds`` or until
``--requests`` responses in all, whichever comes first (after ``--warmup`` seconds of the
same load, not counted); the script prints each side's p50, p95 and requests per second,
and the ratios. With ``LEAGUE_CACHE_URL`` set, the servers share that Redis cache.

    .venv/bin/python -m bench.bench_crowd [--clients 200] [--seconds 20] [--workers 4]

Target: p95 at least 5x better with the cache than without it.

``--api`` compares, with the cache on and on one server, the standings API
(``/api/leagues/<slug>/standings/``, JSON) with the cached leaderboard page under the same
crowd, one after the other (page, API, page, API: each side's figures are the two runs
together), and prints the ratio of their p95s::

    .venv/bin/python -m bench.bench_crowd --api --clients 50 [--seconds 15]

Target: the API's p95 within 1.5x the page's.
"""

from __future__ import annotations

import argparse
import datetime as dt
import http.client
import itertools
import os
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HOST = "127.0.0.1"  # never anywhere else
TARGET_P95_RATIO = 5.0
TARGET_API_RATIO = 1.5
DEMO_SINCE = dt.date(1990, 1, 1)


def server_environment(var_dir: Path, *, page_cache: bool) -> dict[str, str]:
    """The environment of the web server and of this script's own set-up."""
    env = dict(os.environ)
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "config.settings",
            # Development defaults (plain static files, no HTTPS redirect) on both sides.
            "DJANGO_DEBUG": "1",
            "DJANGO_ALLOWED_HOSTS": HOST,
            "LEAGUE_VAR_DIR": str(var_dir),
            "LEAGUE_PAGE_CACHE": "1" if page_cache else "0",
            # The load never records anything; replays of the set-up run in this process.
            "CELERY_TASK_ALWAYS_EAGER": "1",
            "DJANGO_LOG_LEVEL": "WARNING",
            # One address reads the API hundreds of times a second (the throttle still counts).
            "LEAGUE_API_ANON_RATE": "100000000/minute",
        }
    )
    return env


def prepare(var_dir: Path) -> str:
    """Migrate and load the demo league (once; later runs reuse it); its leaderboard path."""
    os.environ.update(server_environment(var_dir, page_cache=True))
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    from league.models import League
    from ratings.models import Publication

    call_command("migrate", verbosity=0)
    league = League.objects.filter(slug="international-football").first()
    if league is None or not Publication.objects.filter(league=league).exists():
        started = time.perf_counter()
        call_command("load_demo", since=DEMO_SINCE, verbosity=0)
        print(f"loaded the demo league in {time.perf_counter() - started:.1f} s")
        league = League.objects.get(slug="international-football")
    players = league.players.count()
    print(f"leaderboard of {league.name!r}: {players} players, database {connection.vendor}")
    connection.close()
    return league.get_absolute_url()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


@dataclass
class Server:
    """A gunicorn master this script started (and stops, by its own pid)."""

    process: subprocess.Popen
    port: int

    @classmethod
    def start(cls, var_dir: Path, args: argparse.Namespace, *, page_cache: bool) -> Server:
        port = free_port()
        command = [
            sys.executable, "-m", "gunicorn", "config.wsgi",
            "--workers", str(args.workers),
            "--worker-class", args.worker_class,
            "--threads", str(args.threads),
            "--keep-alive", "30",
            "--backlog", "2048",
            "--bind", f"{HOST}:{port}",
            "--log-level", "warning",
            "--no-control-socket",  # gunicorn 27: one per user by default, shared
        ]  # fmt: skip
        process = subprocess.Popen(
            command, cwd=ROOT, env=server_environment(var_dir, page_cache=page_cache)
        )
        server = cls(process, port)
        server.wait_until_ready()
        return server

    def wait_until_ready(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise SystemExit(f"gunicorn exited with {self.process.returncode}")
            try:
                connection = http.client.HTTPConnection(HOST, self.port, timeout=5)
                connection.request("GET", "/", headers={"Host": HOST})
                if connection.getresponse().status == 200:
                    connection.close()
                    return
            except OSError:
                time.sleep(0.2)
        raise SystemExit("gunicorn did not answer within a minute")

    def stop(self) -> None:
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@dataclass
class Load:
    """What the readers saw: one latency per response, and the failures."""

    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    elapsed: float = 0.0

    @property
    def rate(self) -> float:
        return len(self.latencies) / self.elapsed if self.elapsed else 0.0

    def percentile(self, q: float) -> float:
        ordered = sorted(self.latencies)
        if not ordered:
            return float("nan")
        return ordered[min(len(ordered) - 1, int(q / 100 * len(ordered)))]


def crowd(port: int, path: str, args: argparse.Namespace) -> Load:
    """``args.clients`` keep-alive readers of ``path`` until the time or the count runs out."""
    load = Load()
    tickets = itertools.count()  # next() is atomic under the GIL: one ticket per request
    lock = threading.Lock()
    start_line = threading.Barrier(args.clients + 1)
    deadline = 0.0

    def reader() -> None:
        connection = http.client.HTTPConnection(HOST, port, timeout=120)
        mine: list[float] = []
        start_line.wait()
        try:
            while time.monotonic() < deadline and next(tickets) < args.requests:
                started = time.perf_counter()
                try:
                    connection.request("GET", path, headers={"Host": HOST})
                    response = connection.getresponse()
                    response.read()
                except (OSError, http.client.HTTPException) as error:
                    with lock:
                        load.errors.append(repr(error))
                    connection.close()
                    continue
                if response.status != 200:
                    with lock:
                        load.errors.append(f"HTTP {response.status}")
                    continue
                mine.append(time.perf_counter() - started)
        finally:
            connection.close()
            with lock:
                load.latencies.extend(mine)

    threads = [threading.Thread(target=reader, daemon=True) for _ in range(args.clients)]
    for thread in threads:
        thread.start()
    began = time.monotonic()
    deadline = began + args.seconds
    start_line.wait()
    for thread in threads:
        thread.join()
    load.elapsed = time.monotonic() - began
    return load


def measure(var_dir: Path, path: str, args: argparse.Namespace, *, page_cache: bool) -> Load:
    server = Server.start(var_dir, args, page_cache=page_cache)
    try:
        # Every worker booted and answered before the clock starts (not counted).
        crowd(server.port, path, argparse.Namespace(**{**vars(args), "seconds": args.warmup}))
        return crowd(server.port, path, args)
    finally:
        server.stop()


def compare_api(var_dir: Path, path: str, args: argparse.Namespace) -> None:
    """The standings API against the cached leaderboard page, on one server (``--api``)."""
    slug = path.strip("/").split("/")[0]
    api_path = f"/api/leagues/{slug}/standings/"
    server = Server.start(var_dir, args, page_cache=True)
    page, api = Load(), Load()
    try:
        warm = argparse.Namespace(**{**vars(args), "seconds": args.warmup})
        crowd(server.port, path, warm)
        crowd(server.port, api_path, warm)
        for _round in range(2):
            for total, target in ((page, path), (api, api_path)):
                load = crowd(server.port, target, args)
                total.latencies += load.latencies
                total.errors += load.errors
                total.elapsed += load.elapsed
    finally:
        server.stop()
    print(f"\n{'':16} {'responses':>9} {'errors':>7} {'p50 ms':>9} {'p95 ms':>9} {'req/s':>10}")
    report("leaderboard page", page)
    report("standings API", api)
    ratio = api.percentile(95) / page.percentile(95)
    verdict = "ok" if ratio <= TARGET_API_RATIO else "MISSED"
    print(
        f"\nstandings API p95 = {ratio:.2f}x the cached page's ({verdict}: target <= "
        f"{TARGET_API_RATIO}x), p50 {api.percentile(50) / page.percentile(50):.2f}x"
    )
    for name, load in (("page", page), ("API", api)):
        if load.errors:
            print(f"{name}: {len(load.errors)} errors, e.g. {statistics.mode(load.errors)}")
    sys.exit(0 if verdict == "ok" and not (page.errors or api.errors) else 1)


def report(name: str, load: Load) -> None:
    print(
        f"{name:16} {len(load.latencies):>9} {len(load.errors):>7} "
        f"{load.percentile(50) * 1000:>9.0f} {load.percentile(95) * 1000:>9.0f} "
        f"{load.rate:>10.1f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=200, help="concurrent readers")
    parser.add_argument("--seconds", type=float, default=20.0, help="time limit of each side")
    parser.add_argument("--warmup", type=float, default=3.0, help="seconds not counted")
    parser.add_argument("--requests", type=int, default=50_000, help="response limit of each side")
    parser.add_argument("--workers", type=int, default=4, help="gunicorn worker processes")
    parser.add_argument("--worker-class", default="gthread", help="gthread keeps connections")
    parser.add_argument("--threads", type=int, default=4, help="threads per gunicorn worker")
    parser.add_argument(
        "--var-dir",
        type=Path,
        default=ROOT / "var" / "bench-crowd",
        help="where the embedded database lives (kept between runs)",
    )
    parser.add_argument(
        "--api",
        action="store_true",
        help="compare the standings API with the cached leaderboard page (cache on)",
    )
    args = parser.parse_args()
    args.var_dir.mkdir(parents=True, exist_ok=True)
    path = prepare(args.var_dir)
    if args.api:
        print(
            f"{args.clients} keep-alive readers, page {path} vs its standings API; gunicorn "
            f"{args.workers} x {args.worker_class} ({args.threads} threads) on {HOST}"
        )
        compare_api(args.var_dir, path, args)
    print(
        f"{args.clients} keep-alive readers of {path} for at most {args.seconds:.0f} s or "
        f"{args.requests} responses; gunicorn {args.workers} x {args.worker_class} "
        f"({args.threads} threads) on {HOST}"
    )
    without = measure(args.var_dir, path, args, page_cache=False)
    cached = measure(args.var_dir, path, args, page_cache=True)
    print(f"\n{'':16} {'responses':>9} {'errors':>7} {'p50 ms':>9} {'p95 ms':>9} {'req/s':>10}")
    report("cache off", without)
    report("cache on", cached)
    p95_ratio = without.percentile(95) / cached.percentile(95)
    p50_ratio = without.percentile(50) / cached.percentile(50)
    rate_ratio = cached.rate / without.rate if without.rate else float("inf")
    verdict = "ok" if p95_ratio >= TARGET_P95_RATIO else "MISSED"
    print(
        f"\np95 {p95_ratio:.1f}x better with the cache ({verdict}: target >= "
        f"{TARGET_P95_RATIO:.0f}x), p50 {p50_ratio:.1f}x, requests/s {rate_ratio:.1f}x"
    )
    for name, load in (("cache off", without), ("cache on", cached)):
        if load.errors:
            print(f"{name}: {len(load.errors)} errors, e.g. {statistics.mode(load.errors)}")
    sys.exit(0 if verdict == "ok" and not (without.errors or cached.errors) else 1)


if __name__ == "__main__":
    main()
