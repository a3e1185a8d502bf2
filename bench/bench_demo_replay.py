"""The demo's full replay on SQLite against PostgreSQL, as whole processes, alternated.

Issue 33 asks the demo-size full replay on PostgreSQL to be no slower than on SQLite. Each
round runs ``bench/replay_stages.py international-football`` (what ``manage.py replay SLUG
--sync`` runs, with its stages timed) once per database, in turn first, and prints each
process's wall and CPU time (fork to exit) and the replay's own reading, computing and
writing timers. Both databases must hold the demo (``manage.py load_demo``)::

    .venv/bin/python bench/bench_demo_replay.py --sqlite-var var/demo \\
        --database-url postgres://…/league_bench [--rounds 5]

The PostgreSQL runs keep this shell's ``CELERY_BROKER_URL`` and ``LEAGUE_VAR_DIR``.
``--env NAME=VALUE`` (repeatable) adds a contender: PostgreSQL with those settings
(e.g. ``LEAGUE_REPLAY_SWAP_MIN_MATCHES=40000``, the delete-and-insert path). ``--before DIR``
adds another: PostgreSQL replayed by the checkout in ``DIR`` (its own
``bench/replay_stages.py``), e.g. main before a change.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.checkouts import environment as checkout_environment  # noqa: E402

SLUG = "international-football"


def run(environment: dict[str, str | None], root: Path = ROOT) -> dict[str, float]:
    """One replay process: its wall and CPU seconds and the replay's stage timers
    (``environment``: variables to set, or with None to unset; ``root``: the checkout)."""
    child = checkout_environment(CELERY_TASK_ALWAYS_EAGER="0")
    for name, value in environment.items():
        if value is None:
            child.pop(name, None)
        else:
            child[name] = value
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, str(root / "bench" / "replay_stages.py"), SLUG],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        # In the checkout's own directory, or it would import this one's packages.
        cwd=root,
        env=child,
    )
    stderr = process.stderr.read() if process.stderr else b""
    _pid, status, usage = os.wait4(process.pid, 0)
    if status != 0:
        sys.exit(f"the replay failed ({status}): {stderr.decode()[-2000:]}")
    stages = json.loads(stderr.decode().strip().splitlines()[-1])
    timers = stages["replay timers"]
    return {
        "wall": time.perf_counter() - started,
        "CPU": usage.ru_utime + usage.ru_stime,
        # Fork to the command: the interpreter, Django, the command's import.
        "start-up": stages["interpreter"] + stages["django.setup"] + stages["command import"],
        **timers,
        # The command's own work around the replay's stages (request, claim, lock, publish).
        "bookkeeping": stages["command"] - sum(timers.values()),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sqlite-var", type=Path, required=True, help="LEAGUE_VAR_DIR")
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--env", action="append", default=[], help="NAME=VALUE")
    parser.add_argument("--before", type=Path, help="another checkout, replaying on PostgreSQL")
    args = parser.parse_args()
    # The embedded default (its own broker folder) against PostgreSQL with the broker given.
    sqlite: dict[str, str | None] = {
        "LEAGUE_VAR_DIR": str(args.sqlite_var.resolve()),
        "DATABASE_URL": None,
        "CELERY_BROKER_URL": None,
    }
    postgres: dict[str, str | None] = {"DATABASE_URL": args.database_url}
    contenders: dict[str, tuple[dict[str, str | None], Path]] = {
        "SQLite": (sqlite, ROOT),
        "PostgreSQL": (postgres, ROOT),
    }
    if args.env:
        contenders["PostgreSQL " + " ".join(args.env)] = (
            {**postgres, **dict(item.split("=", 1) for item in args.env)},
            ROOT,
        )
    if args.before:
        contenders["PostgreSQL before"] = (postgres, args.before.resolve())
    for environment, root in contenders.values():
        run(environment, root)  # warm-up
    results: dict[str, list[dict[str, float]]] = {name: [] for name in contenders}
    names = list(contenders)
    for round_number in range(args.rounds):
        shift = round_number % len(names)
        for name in names[shift:] + names[:shift]:
            results[name].append(run(*contenders[name]))
        print(
            f"round {round_number + 1}: "
            + "; ".join(
                f"{name} {results[name][-1]['wall']:.2f} s wall, {results[name][-1]['CPU']:.2f}"
                f" s CPU, writing {results[name][-1]['writing']:.3f} s"
                for name in names
            )
            + f"; load {os.getloadavg()[0]:.1f}",
            flush=True,
        )
    for name in names:
        medians = {
            key: statistics.median(r[key] for r in results[name]) for key in results[name][0]
        }
        print(f"{name}: medians " + ", ".join(f"{k} {v:.3f} s" for k, v in medians.items()))


if __name__ == "__main__":
    main()
