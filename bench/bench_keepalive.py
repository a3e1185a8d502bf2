"""One keep-alive client against ``runserver`` (bin/run before) and gunicorn (bin/run now).

Both servers are started on free ports of 127.0.0.1 over the same database (the embedded
default under ``LEAGUE_VAR_DIR``, migrated; a league's page is read when there is one, else
the home page), with ``DJANGO_DEBUG=1`` as ``bin/run`` sets it, and gunicorn with
``bin/run``'s options. One client sends ``--requests`` GETs of each path back to back, in
turn on one keep-alive connection and on a new connection per request, alternating servers
in rounds so that a noisy neighbour slows both; the script prints p50 and p95 per server,
path and connection mode, and the ratios of runserver's keep-alive p50 to gunicorn's::

    LEAGUE_VAR_DIR=/tmp/var-live .venv/bin/python -m bench.bench_keepalive [--requests 200]
"""

from __future__ import annotations

import argparse
import http.client
import os
import signal
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HOST = "127.0.0.1"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


def environment() -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("LEAGUE_VAR_DIR", str(ROOT / "var" / "bench-keepalive"))
    env.update({"DJANGO_SETTINGS_MODULE": "config.settings", "DJANGO_DEBUG": "1"})
    return env


def start(kind: str, port: int) -> subprocess.Popen:
    if kind == "runserver":
        command = [sys.executable, "manage.py", "runserver", "--noreload", f"{HOST}:{port}"]
    else:  # bin/run's command line
        command = [
            sys.executable, "-m", "gunicorn", "config.wsgi", "--bind", f"{HOST}:{port}",
            "--workers", "2", "--worker-class", "gthread", "--threads", "4",
            "--keep-alive", "5", "--graceful-timeout", "3", "--no-control-socket",
        ]  # fmt: skip
    process = subprocess.Popen(
        command,
        cwd=ROOT,
        env=environment(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            connection = http.client.HTTPConnection(HOST, port, timeout=5)
            connection.request("GET", "/")
            connection.getresponse().read()
            connection.close()
            return process
        except OSError:
            time.sleep(0.2)
    raise SystemExit(f"{kind} did not answer within a minute")


def stop(process: subprocess.Popen) -> None:
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def timed(port: int, path: str, requests: int, *, keep_alive: bool) -> list[float]:
    samples = []
    connection = http.client.HTTPConnection(HOST, port, timeout=30)
    for _ in range(requests):
        if not keep_alive:
            connection = http.client.HTTPConnection(HOST, port, timeout=30)
        started = time.perf_counter()
        connection.request("GET", path)
        response = connection.getresponse()
        response.read()
        samples.append(time.perf_counter() - started)
        if response.status != 200:
            raise SystemExit(f"GET {path} answered {response.status}")
        if not keep_alive:
            connection.close()
    connection.close()
    return samples


def paths() -> list[str]:
    os.environ.update(environment())
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.core.management import call_command

    from league.models import League

    call_command("migrate", verbosity=0)
    league = League.objects.order_by("pk").first()
    page = league.get_absolute_url() if league else "/"
    return [page, "/static/css/league.css"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200, help="per path, mode and round")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    targets = paths()
    servers = {kind: free_port() for kind in ("runserver", "gunicorn")}
    processes = {kind: start(kind, port) for kind, port in servers.items()}
    results: dict[tuple[str, str, bool], list[float]] = {}
    try:
        for _round in range(args.rounds):
            for kind, port in servers.items():
                for path in targets:
                    for keep_alive in (True, False):
                        timed(port, path, 5, keep_alive=keep_alive)  # warm
                        samples = timed(port, path, args.requests, keep_alive=keep_alive)
                        results.setdefault((kind, path, keep_alive), []).extend(samples)
    finally:
        for process in processes.values():
            stop(process)
    print(f"{args.requests * args.rounds} GETs each, one client, ms")
    print(f"{'server':10} {'path':40} {'connection':12} {'p50':>8} {'p95':>8}")
    for (kind, path, keep_alive), samples in results.items():
        ordered = sorted(samples)
        p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
        mode = "keep-alive" if keep_alive else "new each"
        print(
            f"{kind:10} {path:40} {mode:12} {statistics.median(samples) * 1000:8.2f} "
            f"{p95 * 1000:8.2f}"
        )
    for path in targets:
        before = statistics.median(results[("runserver", path, True)])
        after = statistics.median(results[("gunicorn", path, True)])
        print(
            f"keep-alive p50 of {path}: runserver {before * 1000:.1f} ms, gunicorn "
            f"{after * 1000:.1f} ms ({before / after:.1f}x)"
        )


if __name__ == "__main__":
    main()
