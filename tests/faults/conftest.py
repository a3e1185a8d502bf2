"""Faults with real processes: a web instance whose broker is unreachable, a real worker, beat.

Reuses ``tests/worker``'s worker processes (``worker_factory``, ``wait_for``) and adds two
processes of its own, both against the test database:

- ``broken_web``: a second web instance (``manage.py runserver``) whose ``CELERY_BROKER_URL``
  points at a closed port, so every replay it queues is stored without its message;
- ``beat``: ``celery beat`` sending the stranded-replay sweep to the healthy broker.

The grace period before a queued replay counts as stranded (``REPLAY_RESEND_SECONDS``) is
:data:`GRACE_SECONDS` here, in this process and in every process these fixtures start.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import requests
from django.conf import settings

from tests.worker.conftest import ROOT, test_database_url, wait_for, worker_factory

__all__ = ["wait_for", "worker_factory"]

#: Seconds a queued replay waits for its message before it counts as stranded.
GRACE_SECONDS = 2
START_TIMEOUT = 60
#: Characters of each process's log shown after a failed test.
LOG_TAIL = 6000


def free_port() -> int:
    """A local TCP port nothing listens on (bound, then closed)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class ServiceProcess:
    """A project command (``manage.py …`` or ``celery …``) in its own session, with a log."""

    def __init__(self, log: Path, env: dict[str, str], command: list[str]) -> None:
        self.log = log
        self.handle = log.open("ab")
        self.process = subprocess.Popen(
            [sys.executable, *command],
            cwd=ROOT,
            env=env,
            stdout=self.handle,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def wait_until(self, ready: Callable[[], bool], what: str) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        while not ready():
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"{what} did not start:\n{self.tail()}")
            time.sleep(0.2)

    def tail(self) -> str:
        return self.log.read_text(errors="replace")[-LOG_TAIL:]

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(10)
        self.handle.close()


def process_env(broker_url: str) -> dict[str, str]:
    """The environment of a project process on the test database and ``broker_url``."""
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tests.settings",
        "CELERY_TASK_ALWAYS_EAGER": "0",
        "DATABASE_URL": test_database_url(),
        "LEAGUE_VAR_DIR": str(settings.VAR_DIR),
        "CELERY_BROKER_URL": broker_url,
        "LEAGUE_REPLAY_RESEND_SECONDS": str(GRACE_SECONDS),
        "DJANGO_CONN_MAX_AGE": "0",
    }


@pytest.fixture
def short_grace(settings, monkeypatch) -> None:
    """:data:`GRACE_SECONDS` in this process and in the workers ``worker_factory`` starts."""
    settings.REPLAY_RESEND_SECONDS = GRACE_SECONDS
    monkeypatch.setenv("LEAGUE_REPLAY_RESEND_SECONDS", str(GRACE_SECONDS))


@pytest.fixture
def broken_web(transactional_db, tmp_path) -> Iterator[str]:
    """The base URL of a web instance whose broker URL points at a closed port."""
    port = free_port()
    env = process_env(f"redis://127.0.0.1:{free_port()}/0")
    server = ServiceProcess(
        tmp_path / "broken-web.log",
        env,
        ["manage.py", "runserver", "--noreload", "--skip-checks", f"127.0.0.1:{port}"],
    )
    url = f"http://127.0.0.1:{port}"

    def answers() -> bool:
        try:
            return requests.get(f"{url}/api/leagues/", timeout=2).status_code == 200
        except requests.ConnectionError:
            return False

    server.wait_until(answers, "The broken web instance")
    yield url
    server.stop()
    print(f"----- {server.log.name} -----\n{server.tail()}")


@pytest.fixture
def beat(worker_factory, short_grace, tmp_path) -> Iterator[ServiceProcess]:
    """``celery beat`` sending the stranded-replay sweep to the healthy broker."""
    process = ServiceProcess(
        tmp_path / "beat.log",
        process_env(settings.CELERY_BROKER_URL),
        ["-m", "celery", "-A", "config", "beat", "-l", "info"],
    )
    process.wait_until(lambda: "beat: Starting" in process.log.read_text(), "Celery beat")
    yield process
    process.stop()
    print(f"----- {process.log.name} -----\n{process.tail()}")
