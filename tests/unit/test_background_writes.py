"""``BackgroundWrites``: statements run in order by a thread of their own, errors handed to the
caller, nothing run once its scope is left.

The connection here is a stand-in that records what its driver cursor runs and in which
thread, and holds a statement at a gate until the test opens it: the order of events is the
test's, not the scheduler's. (tests/integration/test_import_background_writes.py runs the
same on the real database, through an import.)
"""

from __future__ import annotations

import queue
import sqlite3
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import IntegrityError
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.utils import DatabaseErrorWrapper

from league.event_store.background_writes import BackgroundWrites, Write, copy, statements

FAILS = "INSERT INTO probe VALUES (1) -- a second time"
COPY_REFUSED = "COPY refused"
COPY_STUCK = "COPY that cannot even be abandoned"
WAIT_SECONDS = 10


class Driver:
    """The driver's connection: its cursors record (statement, thread name)."""

    def __init__(self) -> None:
        self.ran: list[tuple[str, str]] = []
        self.gates: dict[str, threading.Event] = {}
        #: Set when a statement with a gate has reached it.
        self.waiting = threading.Event()

    def cursor(self) -> Cursor:
        return Cursor(self)


class Cursor:
    def __init__(self, driver: Driver) -> None:
        self.driver = driver

    def execute(self, sql: str, params: Any) -> None:
        gate = self.driver.gates.get(sql)
        if gate is not None:
            self.driver.waiting.set()
        if gate is not None and not gate.wait(WAIT_SECONDS):
            raise AssertionError(f"the gate of {sql!r} was never opened")
        if sql == FAILS:
            raise sqlite3.IntegrityError("UNIQUE constraint failed: probe.n")
        self.driver.ran.append((sql, threading.current_thread().name))

    def copy(self, sql: str) -> Copy:
        return Copy(self.driver, sql)

    def close(self) -> None:
        pass


class Copy:
    """A COPY of the stand-in driver: records its start, rows and end (or abandonment)."""

    def __init__(self, driver: Driver, sql: str) -> None:
        self.driver, self.sql = driver, sql

    def __enter__(self) -> Copy:
        self.driver.ran.append((f"start {self.sql}", threading.current_thread().name))
        return self

    def write_row(self, row: tuple[Any, ...]) -> None:
        self.driver.ran.append((f"row {row[0]}", threading.current_thread().name))

    def __exit__(self, kind: Any, error: Any, traceback: Any) -> None:
        if error is not None:
            self.driver.ran.append((f"abandon {self.sql}", threading.current_thread().name))
            if self.sql == COPY_STUCK:
                raise OSError("the connection is gone")
            return
        if self.sql == COPY_REFUSED:
            # As a server refuses a row of a COPY: when it ends.
            raise sqlite3.IntegrityError("CHECK constraint failed: a row of the COPY")
        self.driver.ran.append((f"end {self.sql}", threading.current_thread().name))


class Connection:
    """What ``BackgroundWrites`` uses of Django's connection wrapper."""

    Database = sqlite3
    execute_wrapper = BaseDatabaseWrapper.execute_wrapper

    def __init__(self) -> None:
        self.connection = Driver()
        self.execute_wrappers: list[Any] = []
        self.errors_occurred = False

    def ensure_connection(self) -> None:
        pass

    @property
    def wrap_database_errors(self) -> DatabaseErrorWrapper:
        return DatabaseErrorWrapper(self)


def run(*names: str) -> Write:
    """The write that runs the statements ``names`` in turn."""
    return statements([(name, []) for name in names])


def open_later(gate: threading.Event) -> threading.Timer:
    timer = threading.Timer(0.05, gate.set)
    timer.start()
    return timer


def test_statements_run_in_order_in_a_thread_of_their_own_and_drain_waits_for_them():
    connection = Connection()
    driver = connection.connection
    gate = driver.gates["a1"] = threading.Event()
    writes = BackgroundWrites(connection)
    with writes.running():
        writes.submit(run("a1", "a2"))
        writes.submit(run("b1"))
        # The caller went on: nothing is written while the first statement waits.
        assert driver.ran == []
        open_later(gate)
        writes.drain()
        assert [sql for sql, _thread in driver.ran] == ["a1", "a2", "b1"]
        writes.submit(run("c1"))
    # Leaving the scope waits for the last one too.
    assert [sql for sql, _thread in driver.ran] == ["a1", "a2", "b1", "c1"]
    assert {thread for _sql, thread in driver.ran} == {"background-writes"}
    assert "background-writes" not in {thread.name for thread in threading.enumerate()}


def test_outside_its_scope_a_statement_runs_at_once_in_the_callers_thread():
    connection = Connection()
    writes = BackgroundWrites(connection)
    writes.submit(run("now"))
    assert connection.connection.ran == [("now", threading.current_thread().name)]


def test_a_failed_statement_reaches_the_caller_as_djangos_error_and_nothing_after_it_runs():
    connection = Connection()
    driver = connection.connection
    writes = BackgroundWrites(connection)

    def write() -> None:
        with writes.running():
            writes.submit(run("before"))
            writes.submit(run(FAILS, "same list, after"))
            writes.submit(run("next list"))

    with pytest.raises(IntegrityError, match="UNIQUE constraint failed") as raised:
        write()
    assert isinstance(raised.value.__cause__, sqlite3.IntegrityError)
    assert [sql for sql, _thread in driver.ran] == ["before"]
    # It stays failed: a later drain or submit says so again rather than writing on.
    with pytest.raises(IntegrityError):
        writes.drain()
    with pytest.raises(IntegrityError):
        writes.submit(run("later"))
    assert [sql for sql, _thread in driver.ran] == ["before"]


class OpensWhenStopped(queue.Queue):
    """The queue of writes, opening ``gate`` when the scope tells the thread to stop."""

    def __init__(self, gate: threading.Event, size: int) -> None:
        super().__init__(size)
        self.gate = gate

    def put(self, item: Any, block: bool = True, timeout: float | None = None) -> None:
        super().put(item, block, timeout)
        if item is None:
            self.gate.set()


def test_leaving_by_an_exception_throws_away_what_had_not_started():
    connection = Connection()
    driver = connection.connection
    gate = driver.gates["in flight"] = threading.Event()
    writes = BackgroundWrites(connection)
    # The statement under way ends only once the scope has been left (the thread told to
    # stop): the ones queued behind it are then certainly not wanted any more.
    writes._jobs = OpensWhenStopped(gate, BackgroundWrites.DEPTH + 1)

    def write() -> None:
        with writes.running():
            writes.submit(run("in flight"))
            assert driver.waiting.wait(WAIT_SECONDS)
            writes.submit(run("queued 1"))
            writes.submit(run("queued 2"))
            raise RuntimeError("the caller's own error")

    with pytest.raises(RuntimeError, match="the caller's own error"):
        write()
    # The statement under way finished (the scope waited for it); the others never ran, and
    # no thread is left to run anything on the connection after the rollback.
    assert [sql for sql, _thread in driver.ran] == ["in flight"]
    assert "background-writes" not in {thread.name for thread in threading.enumerate()}


def test_a_query_sent_through_django_in_the_scope_waits_for_the_statements_before_it():
    connection = Connection()
    driver = connection.connection
    gate = driver.gates["slow"] = threading.Event()
    writes = BackgroundWrites(connection)
    seen: list[list[str]] = []

    def query(sql: str, params: Any, many: bool, context: Any) -> None:
        seen.append([name for name, _thread in driver.ran])

    with writes.running():
        writes.submit(run("slow", "after slow"))
        open_later(gate)
        # What Django's cursor does with each query: through the connection's wrappers.
        wrapper = connection.execute_wrappers[-1]
        wrapper(query, "SELECT 1", None, False, {})
    assert seen == [["slow", "after slow"]]
    assert connection.execute_wrappers == []


def names(driver: Driver) -> list[str]:
    return [sql for sql, _thread in driver.ran]


def test_rows_for_one_copy_statement_go_into_one_copy_until_another_write_or_a_drain():
    connection = Connection()
    driver = connection.connection
    writes = BackgroundWrites(connection)
    with writes.running():
        writes.submit(copy("COPY t", [(1,), (2,)]))
        writes.submit(copy("COPY t", [(3,)]))
        writes.submit(copy("COPY u", [(4,)]))
        writes.submit(run("UPDATE v"))
        writes.submit(copy("COPY t", [(5,)]))
        writes.drain()
        assert names(driver)[-1] == "end COPY t"
        writes.submit(copy("COPY t", [(6,)]))
    assert names(driver) == [
        "start COPY t", "row 1", "row 2", "row 3", "end COPY t",
        "start COPY u", "row 4", "end COPY u",
        "UPDATE v",
        "start COPY t", "row 5", "end COPY t",
        "start COPY t", "row 6", "end COPY t",
    ]  # fmt: skip


def test_outside_its_scope_a_copy_is_whole_at_once():
    connection = Connection()
    writes = BackgroundWrites(connection)
    writes.submit(copy("COPY t", [(1,)]))
    writes.submit(copy("COPY t", [(2,)]))
    assert names(connection.connection) == [
        "start COPY t",
        "row 1",
        "end COPY t",
        "start COPY t",
        "row 2",
        "end COPY t",
    ]


def leave_by_an_exception_during_a_copy(sql: str) -> list[str]:
    """Open a COPY of ``sql`` in the thread (its first row sent), then leave the scope by an
    exception; what the stand-in driver ran."""
    connection = Connection()
    writes = BackgroundWrites(connection)
    sent = threading.Event()

    def rows() -> Iterator[tuple[int]]:
        yield (1,)
        sent.set()

    def write() -> None:
        with writes.running():
            writes.submit(copy(sql, rows()))
            assert sent.wait(WAIT_SECONDS)
            writes.submit(copy(sql, [(2,)]))
            raise RuntimeError("the caller's own error")

    with pytest.raises(RuntimeError, match="the caller's own error"):
        write()
    return names(connection.connection)


def test_leaving_by_an_exception_abandons_an_open_copy():
    ran = leave_by_an_exception_during_a_copy("COPY t")
    # The rows already sent go with the COPY's abandonment (the rollback follows); it is
    # never ended as stored.
    assert ran[0] == "start COPY t"
    assert ran[-1] == "abandon COPY t"
    assert "end COPY t" not in ran


def test_a_copy_refused_at_its_end_reaches_the_caller_and_nothing_after_it_runs():
    connection = Connection()
    driver = connection.connection
    writes = BackgroundWrites(connection)

    def write() -> None:
        with writes.running():
            writes.submit(copy(COPY_REFUSED, [(1,)]))
            writes.submit(copy(COPY_REFUSED, [(2,)]))
            writes.submit(run("after the COPY"))

    with pytest.raises(IntegrityError, match="a row of the COPY"):
        write()
    assert names(driver) == ["start COPY refused", "row 1", "row 2"]


@pytest.mark.timeout(30)
def test_a_copy_that_cannot_even_be_abandoned_still_lets_the_scope_end():
    ran = leave_by_an_exception_during_a_copy(COPY_STUCK)
    assert ran[-1] == f"abandon {COPY_STUCK}"
    assert "background-writes" not in {thread.name for thread in threading.enumerate()}
