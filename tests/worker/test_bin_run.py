"""``bin/run`` as a process supervisor sees it: SIGTERM to its PID stops everything it started.

``bin/run`` runs in a copy of the project under ``tmp_path`` (its own ``var/``: a fresh
SQLite database and filesystem broker) on a free port, with a small demo (matches since
2024). The copy's ``.venv`` links to this interpreter's virtualenv, with the install stamp
that tells ``bin/setup`` nothing needs installing. The test waits until the site answers
and the worker is ready, sends SIGTERM to ``bin/run``'s PID alone (not its process group),
and checks that the web server and every worker process are gone. A second start then
finds nothing new to record and runs no replay.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

pytestmark = [pytest.mark.worker, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT = 180
#: The web server stops at once; Celery's warm shutdown on the filesystem broker takes a
#: few seconds of its own polling.
SERVER_STOP_TIMEOUT = 5
WORKER_STOP_TIMEOUT = 20
SKIPPED_DIRS = {".venv", "var", "staticfiles", "test-artifacts", ".git"}


def project_copy(destination: Path) -> Path:
    """The project's files (tracked and new, not ignored) copied to ``destination``."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    for name in filter(None, (item.decode() for item in listed)):
        source = ROOT / name
        if name.split("/", 1)[0] in SKIPPED_DIRS or not source.is_file():
            continue
        target = destination / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
    return destination


def linked_venv(project: Path) -> None:
    """A ``.venv`` whose parts link to this interpreter's virtualenv, marked installed."""
    venv = Path(sys.prefix)
    (project / ".venv").mkdir()
    for part in ("bin", "include", "lib", "lib64", "pyvenv.cfg"):
        if (venv / part).exists():
            (project / ".venv" / part).symlink_to(venv / part)
    digest = hashlib.sha256((project / "pyproject.toml").read_bytes()).hexdigest()[:16]
    (project / ".venv" / f".installed-{digest}").touch()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def descendants(pid: int) -> set[int]:
    """Every living process below ``pid``, from /proc."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(entry.name))
    found, pending = set(), [pid]
    while pending:
        for child in children.get(pending.pop(), []):
            found.add(child)
            pending.append(child)
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status == 200
    except (urllib.error.URLError, OSError):
        return False


class Run:
    """One ``bin/run`` process with its output in a file."""

    def __init__(self, project: Path, port: int, name: str) -> None:
        self.project, self.url = project, f"http://127.0.0.1:{port}/"
        self.output = project / f"{name}.log"
        env = {
            key: value
            for key, value in os.environ.items()
            if key not in {"DJANGO_SETTINGS_MODULE", "DATABASE_URL", "CELERY_BROKER_URL"}
            and not key.startswith(("LEAGUE_", "DJANGO_", "CELERY_", "PYTEST", "HYPOTHESIS"))
        }
        env.update(
            LEAGUE_PORT=str(port),
            LEAGUE_DEMO_SINCE="2024-01-01",
            PYTHONUNBUFFERED="1",
            # The stranded-replay sweep (worker -B) must not send a task during this test's
            # "nothing received on a second start" window, however slow the machine.
            LEAGUE_REPLAY_RESEND_SECONDS="600",
        )
        with self.output.open("wb") as sink:
            self.process = subprocess.Popen(
                ["bin/run"],
                cwd=project,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=sink,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def text(self) -> str:
        return self.output.read_text(errors="replace")

    def worker_log(self) -> str:
        log = self.project / "var" / "log" / "worker.log"
        return log.read_text(errors="replace") if log.exists() else ""

    def wait_until_serving(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                pytest.fail(f"bin/run exited with {self.process.returncode}:\n{self.text()}")
            if answers(self.url) and "ready." in self.worker_log():
                return
            time.sleep(0.5)
        pytest.fail(f"bin/run did not start within {START_TIMEOUT} s:\n{self.text()}")

    def wait_until_idle(self) -> None:
        """Until every replay task the worker received has finished."""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            log = self.worker_log()
            if log.count("] received") == log.count("] succeeded"):
                return
            time.sleep(0.5)
        pytest.fail(f"the worker did not finish its replays:\n{self.worker_log()[-4000:]}")

    def kill_group(self) -> None:
        """Clean-up after a failed test: everything in the group this test started."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)


@pytest.fixture
def project(tmp_path) -> Path:
    copy = project_copy(tmp_path / "project")
    linked_venv(copy)
    return copy


def stop_with_sigterm(run: Run) -> None:
    """SIGTERM to bin/run's PID only; the server, then the worker, must be gone in time."""
    below = descendants(run.process.pid)
    server = {pid for pid in below if b"gunicorn" in Path(f"/proc/{pid}/cmdline").read_bytes()}
    assert server, "no gunicorn process under bin/run"
    assert len(below) >= 4, below  # the server, the worker and its two pool processes
    os.kill(run.process.pid, signal.SIGTERM)

    deadline = time.monotonic() + SERVER_STOP_TIMEOUT
    while any(alive(pid) for pid in server) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(alive(pid) for pid in server), "the web server outlived SIGTERM"
    assert not answers(run.url)

    deadline = time.monotonic() + WORKER_STOP_TIMEOUT
    while any(alive(pid) for pid in below) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not [pid for pid in below if alive(pid)], "a worker process outlived SIGTERM"
    assert run.process.wait(timeout=5) == 128 + signal.SIGTERM


def test_sigterm_to_bin_run_stops_the_server_and_the_worker(project):
    port = free_port()
    first = Run(project, port, "first")
    try:
        first.wait_until_serving()
        # WhiteNoise serves the static files (DJANGO_DEBUG=1: from static/, no collectstatic).
        with urllib.request.urlopen(first.url + "static/css/league.css", timeout=10) as css:
            assert css.status == 200
            assert b"{" in css.read()
        first.wait_until_idle()
        stop_with_sigterm(first)
    finally:
        first.kill_group()
    output = first.text()
    assert re.search(r"\d+ matches recorded, 0 already there", output), output
    assert "No hostname was supplied" not in output + first.worker_log()
    # gunicorn (runserver stalled keep-alive clients), one master, no autoreloader.
    assert output.count("Starting gunicorn") == 1, output
    assert "Starting WSGI development server" not in output
    assert "Watching for file changes" not in output
    assert "Stopping the web server and the Celery worker" in output
    assert "] succeeded" in first.worker_log()  # the worker computed the demo's standings

    # A second start: nothing new to record, so no replay at all.
    second = Run(project, port, "second")
    try:
        second.wait_until_serving()
        time.sleep(3)  # time for a (wrongly) queued replay to reach the worker
        assert "] received" not in second.worker_log(), second.worker_log()[-3000:]
        stop_with_sigterm(second)
    finally:
        second.kill_group()
    assert re.search(r"\b0 matches recorded, [1-9]\d* already there", second.text())
    assert "Standings computed" not in second.text()
