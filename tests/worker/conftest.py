"""A real Celery worker process against the test database.

The worker runs ``celery -A config worker`` with ``DJANGO_SETTINGS_MODULE=tests.settings``,
``CELERY_TASK_ALWAYS_EAGER=0`` and ``DATABASE_URL`` pointing at the test database (a file on
SQLite, ``test_…`` on PostgreSQL). The broker is ``CELERY_BROKER_URL`` when set (Redis in CI's
PostgreSQL pass), otherwise the filesystem broker under ``LEAGUE_VAR_DIR``. Tests send tasks
for real (eager mode off in this process too) and poll the database.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
from django.conf import settings
from django.db import connection

from config.celery import app as celery_app

ROOT = Path(__file__).resolve().parents[2]
READY_TIMEOUT = 60
#: Characters of each worker's log shown after a failed test.
LOG_TAIL = 6000


def test_database_url() -> str:
    """URL of the database this test process uses (the test database)."""
    db = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{db['NAME']}"
    user = quote(db.get("USER") or "")
    password = f":{quote(db['PASSWORD'])}" if db.get("PASSWORD") else ""
    host = db.get("HOST") or "127.0.0.1"
    port = db.get("PORT") or 5432
    return f"postgres://{user}{password}@{host}:{port}/{db['NAME']}"


class WorkerProcess:
    """One ``celery worker`` subprocess and its log file."""

    def __init__(self, log: Path, env: dict[str, str], args: list[str]) -> None:
        self.log = log
        self.handle = log.open("ab")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "config", "worker", *args],
            cwd=ROOT,
            env=env,
            stdout=self.handle,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + READY_TIMEOUT
        while " ready." not in log.read_text(errors="replace"):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"Celery worker did not start:\n{log.read_text()[-3000:]}")
            time.sleep(0.2)

    def kill(self) -> None:
        """SIGKILL the whole worker (pool processes included): no chance to clean up."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(10)

    def alive(self) -> bool:
        """True while the worker's main process runs."""
        return self.process.poll() is None

    def stop(self) -> None:
        """Warm shutdown (SIGTERM), then SIGKILL if it hangs."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.kill()
        self.handle.close()


@pytest.fixture
def worker_factory(transactional_db, tmp_path) -> Iterator[Callable[..., WorkerProcess]]:
    """Start workers with ``start(period_delay=0.0, pool="solo")``; all stopped at teardown.

    ``broker_url`` points a worker at another broker than this process's (``tests/faults``
    starts Redis servers of its own); ``env`` adds to or overrides its environment.
    """
    var_dir = Path(settings.VAR_DIR)
    if settings.CELERY_BROKER_URL.startswith("filesystem://"):
        shutil.rmtree(var_dir / "broker", ignore_errors=True)
        for sub in ("queue", "processed"):
            (var_dir / "broker" / sub).mkdir(parents=True, exist_ok=True)
    else:
        celery_app.control.purge()
        # The message a killed worker held stays "unacknowledged" in Redis and is delivered
        # again to the next worker, even one of a later session whose fresh test database
        # reuses its replay id: start without any.
        with celery_app.connection_for_write() as broker:
            channel = broker.default_channel
            channel.client.delete(channel.unacked_key, channel.unacked_index_key)
    eager = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = False
    started: list[WorkerProcess] = []

    def start(
        period_delay: float = 0.0,
        pool: str = "solo",
        concurrency: int = 1,
        broker_url: str | None = None,
        env: dict[str, str] | None = None,
    ) -> WorkerProcess:
        environment = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "tests.settings",
            "CELERY_TASK_ALWAYS_EAGER": "0",
            "DATABASE_URL": test_database_url(),
            "LEAGUE_VAR_DIR": str(var_dir),
            "CELERY_BROKER_URL": broker_url or settings.CELERY_BROKER_URL,
            "CELERY_VISIBILITY_TIMEOUT": "5",
            "LEAGUE_REPLAY_LEASE_SECONDS": "3",
            "LEAGUE_REPLAY_PERIOD_DELAY": str(period_delay),
            "DJANGO_CONN_MAX_AGE": "0",
            **(env or {}),
        }
        name = f"replay-test-{len(started)}-{os.getpid()}@%h"
        args = ["--pool", pool, "--concurrency", str(concurrency), "-n", name, "-l", "info"]
        process = WorkerProcess(tmp_path / f"worker-{len(started)}.log", environment, args)
        started.append(process)
        return process

    yield start
    for process in started:
        process.stop()
    celery_app.conf.task_always_eager = eager
    # Captured output of the teardown: pytest shows it only when the test failed.
    for process in started:
        print(
            f"----- {process.log.name} -----\n{process.log.read_text(errors='replace')[-LOG_TAIL:]}"
        )


def wait_for(condition: Callable[[], object], timeout: float, message: str) -> object:
    """Poll ``condition`` until it returns something truthy; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"Timed out after {timeout}s waiting for: {message}")
        time.sleep(0.1)
