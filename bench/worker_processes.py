"""Real Celery worker processes for the many-leagues benchmarks, and their CPU from /proc.

Shared by ``bench_many_leagues.py`` (100 leagues replaying at once) and ``many_clubs.py``
(its ``--stream``: many clubs on one server).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def start_workers(var: Path, count: int) -> list[subprocess.Popen]:
    """``count`` worker processes, each running one replay at a time; wait until ready."""
    workers = []
    for i in range(count):
        log = (var / f"many-worker{i}.log").open("w")
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
                    f"many{i}@%h",
                    "--without-gossip",
                    "--without-mingle",
                    "--without-heartbeat",
                    "-l",
                    "INFO",
                ],
                cwd=ROOT,
                # Real workers: ``bench_replay``, imported for its loader, switches eager
                # mode on in this process's environment, and an eager worker would run the
                # tasks it sends (coverage checks) inside the replay and never retry a busy
                # one. Until 2026-11-26 the workers here ran so.
                env={**os.environ, "CELERY_TASK_ALWAYS_EAGER": "0"},
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        )
    deadline = time.monotonic() + 120
    for i, worker in enumerate(workers):
        while "ready." not in (var / f"many-worker{i}.log").read_text():
            if worker.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError((var / f"many-worker{i}.log").read_text()[-2000:])
            time.sleep(0.2)
    return workers


def tree_cpu(pid: int) -> float:
    """CPU seconds (user + system) of ``pid`` and its live descendants, from ``/proc``."""
    ticks, total, todo = os.sysconf("SC_CLK_TCK"), 0.0, [pid]
    while todo:
        current = todo.pop()
        try:
            fields = Path(f"/proc/{current}/stat").read_text().rpartition(")")[2].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / ticks
        for task in Path(f"/proc/{current}/task").iterdir():
            with contextlib.suppress(OSError):
                todo += [int(c) for c in (task / "children").read_text().split()]
    return total
