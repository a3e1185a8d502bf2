"""Faults with real processes: a web instance whose broker is unreachable, a real worker, beat.

Reuses ``tests/worker``'s worker processes (``worker_factory``, ``wait_for``) and adds
processes of its own, all against the test database:

- ``broken_web``: a second web instance (``manage.py runserver``) whose ``CELERY_BROKER_URL``
  points at a closed port, so every replay it queues is stored without its message;
- ``beat``: ``celery beat`` sending the stranded-replay sweep to the healthy broker;
- ``redis_factory``: Redis servers of the test's own, on free ports, which it stops and
  starts again (the machine's Redis is never touched);
- ``web_factory`` and ``beat_factory``: a web instance or ``celery beat`` on any broker
  (one of those servers), with an environment of the test's choosing.

The grace period before a queued replay counts as stranded (``REPLAY_RESEND_SECONDS``) is
:data:`GRACE_SECONDS` here, in this process and in every process these fixtures start, unless
a test passes its own.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import redis
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


def process_env(broker_url: str, env: dict[str, str] | None = None) -> dict[str, str]:
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
        **(env or {}),
    }


class RedisServer:
    """A ``redis-server`` of the test's own on a free local port, without persistence."""

    def __init__(self, directory: Path) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            pytest.fail("These tests start Redis servers of their own: install redis-server.")
        self.binary = binary
        self.directory = directory
        self.directory.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    def url(self, db: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"

    def answers(self) -> bool:
        client = redis.Redis(port=self.port, socket_connect_timeout=0.5, socket_timeout=0.5)
        try:
            return bool(client.ping())
        except redis.RedisError:
            return False
        finally:
            client.close()

    def start(self) -> None:
        """Start the server (again, on the same port) and wait until it answers."""
        self.process = subprocess.Popen(
            [
                self.binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.directory),
                "--logfile",
                str(self.directory / "redis.log"),
            ],
            start_new_session=True,
        )
        deadline = time.monotonic() + START_TIMEOUT
        while not self.answers():
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"redis-server did not start on port {self.port}")
            time.sleep(0.05)

    def stop(self) -> None:
        """Stop the server as an operator would (SIGTERM) and wait until it is gone."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        self.process = None


@pytest.fixture
def redis_factory(tmp_path) -> Iterator[Callable[[], RedisServer]]:
    """Start Redis servers of the test's own with ``start()``; all stopped at teardown."""
    servers: list[RedisServer] = []

    def start() -> RedisServer:
        server = RedisServer(tmp_path / f"redis-{len(servers)}")
        servers.append(server)
        server.start()
        return server

    yield start
    for server in servers:
        server.stop()


@pytest.fixture
def web_factory(transactional_db, tmp_path) -> Iterator[Callable[..., str]]:
    """Start web instances with ``start(broker_url, env=None)`` (returns the base URL)."""
    started: list[ServiceProcess] = []

    def start(broker_url: str, env: dict[str, str] | None = None) -> str:
        port = free_port()
        server = ServiceProcess(
            tmp_path / f"web-{len(started)}.log",
            process_env(broker_url, env),
            ["manage.py", "runserver", "--noreload", "--skip-checks", f"127.0.0.1:{port}"],
        )
        started.append(server)
        url = f"http://127.0.0.1:{port}"

        def answers() -> bool:
            try:
                return requests.get(f"{url}/api/leagues/", timeout=5).status_code == 200
            except requests.RequestException:  # not listening yet, or busy starting
                return False

        server.wait_until(answers, "The web instance")
        return url

    yield start
    for server in started:
        server.stop()
        print(f"----- {server.log.name} -----\n{server.tail()}")


@pytest.fixture
def beat_factory(tmp_path) -> Iterator[Callable[..., ServiceProcess]]:
    """Start ``celery beat`` with ``start(broker_url, env=None)``; stopped at teardown."""
    started: list[ServiceProcess] = []

    def start(broker_url: str, env: dict[str, str] | None = None) -> ServiceProcess:
        process = ServiceProcess(
            tmp_path / f"beat-{len(started)}.log",
            process_env(broker_url, env),
            ["-m", "celery", "-A", "config", "beat", "-l", "info"],
        )
        started.append(process)
        process.wait_until(lambda: "beat: Starting" in process.log.read_text(), "Celery beat")
        return process

    yield start
    for process in started:
        process.stop()
        print(f"----- {process.log.name} -----\n{process.tail()}")


@pytest.fixture
def short_grace(settings, monkeypatch) -> None:
    """:data:`GRACE_SECONDS` in this process and in the workers ``worker_factory`` starts."""
    settings.REPLAY_RESEND_SECONDS = GRACE_SECONDS
    monkeypatch.setenv("LEAGUE_REPLAY_RESEND_SECONDS", str(GRACE_SECONDS))


@pytest.fixture
def broken_web(web_factory) -> str:
    """The base URL of a web instance whose broker URL points at a closed port."""
    return web_factory(f"redis://127.0.0.1:{free_port()}/0")


@pytest.fixture
def beat(worker_factory, short_grace, beat_factory) -> ServiceProcess:
    """``celery beat`` sending the stranded-replay sweep to the healthy broker."""
    return beat_factory(settings.CELERY_BROKER_URL)
