"""Where a ``manage.py replay SLUG --sync`` process spends its time, stage by stage.

Runs what ``manage.py`` runs, in this process, with a clock (wall and CPU of the process)
read at each boundary: the interpreter's start (from ``/proc/self/stat``), ``django.setup()``
(settings, apps, models), the command's import, the command itself split by the replay's
own stage timers (``Replay.timings``: reading, computing, writing; the rest of the command
is its bookkeeping: the request, claiming, the lock, publishing) and the exit. Prints one
JSON line on standard error, which ``bench_demo_replay.py`` collects (a replay that ended
without timers, failed or superseded, exits with a message instead)::

    LEAGUE_VAR_DIR=var/benchfloor .venv/bin/python bench/replay_stages.py SLUG
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _since_start() -> float:
    """Wall seconds since this process was started (Linux: its start time in clock ticks)."""
    with open("/proc/self/stat") as stat:
        started_ticks = int(stat.read().rsplit(")", 1)[1].split()[19])
    with open("/proc/uptime") as uptime:
        now = float(uptime.read().split()[0])
    return now - started_ticks / os.sysconf("SC_CLK_TCK")


TIMERS = ("reading", "computing", "writing")


def replay_timers(slug: str) -> dict[str, float]:
    """The stage timers of league ``slug``'s newest full replay (the one the command ran:
    another league's replay, or a result's, may have been queued since on a shared
    database). Exits with a message when it has none (failed or superseded)."""
    from ratings.models import Replay

    replay = (
        Replay.objects.filter(config__league__slug=slug, kind=Replay.Kind.FULL)
        .order_by("-pk")
        .values("pk", "status", "error", "timings")
        .first()
    )
    timings = (replay or {}).get("timings") or {}
    if not all(name in timings for name in TIMERS):
        what = "no full replay" if replay is None else f"replay {replay['pk']} ({replay['status']})"
        error = f": {replay['error']}" if replay and replay["error"] else ""
        sys.exit(f"{slug}: {what} without stage timers{error}")
    return {name: timings[name] for name in TIMERS}


def main() -> None:
    interpreter = _since_start()
    wall0, cpu0 = time.perf_counter(), time.process_time()
    marks: list[tuple[str, float, float]] = []

    def mark(name: str) -> None:
        marks.append((name, time.perf_counter() - wall0, time.process_time() - cpu0))

    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    mark("django.setup")
    from django.core.management import call_command

    from ratings.management.commands.replay import Command

    mark("command import")
    call_command(Command(), sys.argv[1], "--sync", "--verbosity", "0")
    mark("command")
    timers = replay_timers(sys.argv[1])
    stages = {"interpreter": interpreter}
    last_wall = last_cpu = 0.0
    for name, wall, cpu in marks:
        stages[name] = wall - last_wall
        stages[f"{name} (CPU)"] = cpu - last_cpu
        last_wall, last_cpu = wall, cpu
    stages["replay timers"] = timers
    print(json.dumps(stages), file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
