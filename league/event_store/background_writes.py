"""A connection's bulk writes, run in a thread of their own while the caller goes on.

The database does the work of a write with the GIL released: SQLite in ``sqlite3_step``,
PostgreSQL in its own process while the driver waits for the end of a COPY. So while one
batch of an import is written, the caller's thread can read and check the next one, and
on a machine of two cores the two overlap. ``BackgroundWrites`` is a queue of writes that
one thread runs in order, on the caller's own connection and so inside its transaction:

- ``submit(write)`` queues a write: a function given the driver's cursor
  (``statements(...)`` makes one of a list of (sql, parameters), ``copy(...)`` one of a
  PostgreSQL COPY); it blocks while ``DEPTH`` writes wait, so the rows held in memory stay
  bounded;
- ``drain()`` waits until everything submitted is written, and raises the first error a
  write met (as Django's database error, in the caller's thread); once one failed,
  every later ``submit`` and ``drain`` raises its error again and nothing more is run.
  Every other use of the connection must come after a drain: inside ``running()`` each
  query Django sends on it drains first (an execute wrapper; ``queries`` counts them), and
  a caller using the driver directly drains itself. Rows fetched later from a cursor
  opened before (a server-side ``iterator()``) are not covered: read them before writing;
- ``running()`` is the scope of the thread: it is left with everything written, or, when
  its block raised, with what had not started thrown away. Nothing runs on the connection
  once it is left, so the transaction's commit or rollback is the last word.

Outside ``running()``, ``submit`` runs the write at once (the same rows, the same
order): what a caller without the scope gets.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from typing import Any

from django.db.backends.base.base import BaseDatabaseWrapper

#: A write: given the driver's cursor, it runs its statements on it.
Write = Callable[[Any], None]


def statements(pairs: Sequence[tuple[str, Sequence[Any]]]) -> Write:
    """The write that runs each (sql, parameters) of ``pairs`` in turn (the driver's own
    placeholders)."""

    def write(cursor: Any) -> None:
        for sql, parameters in pairs:
            cursor.execute(sql, parameters)

    return write


@dataclass(frozen=True)
class CopyRows:
    """The write that streams ``rows`` into a PostgreSQL ``COPY … FROM STDIN`` (``sql``).

    In the thread, consecutive ones of the same ``sql`` go into one COPY, ended before any
    other write and at each ``drain``: a COPY ends with a wait for the server to have stored
    every row, during which it gets nothing more to do (100,000 rows took 2.0-2.1 s of
    writing in 2,000-row COPYs, 1.5-1.6 s in 50,000-row ones).
    """

    sql: str
    rows: Iterable[Sequence[Any]]

    def __call__(self, cursor: Any) -> None:
        with cursor.copy(self.sql) as stream:
            self.into(stream)

    def into(self, stream: Any) -> None:
        for row in self.rows:
            stream.write_row(row)


def copy(sql: str, rows: Iterable[Sequence[Any]]) -> Write:
    """The write that streams ``rows`` into a PostgreSQL ``COPY … FROM STDIN`` (``sql``)."""
    return CopyRows(sql, rows)


#: What ``drain`` queues: the thread ends a COPY it has open, and the queue then empties.
_END_OF_WRITES = object()


class BackgroundWrites:
    """Writes run in order by a thread of their own on ``connection`` (see the module)."""

    #: Writes that may wait in the queue before ``submit`` blocks.
    DEPTH = 2

    def __init__(self, connection: BaseDatabaseWrapper) -> None:
        self.connection = connection
        self._jobs: queue.Queue[Any] = queue.Queue(self.DEPTH)
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None
        self._cancelled = False
        # The thread's own: its cursor, and the COPY it holds open (sql, context, stream).
        self._cursor: Any = None
        self._copy: tuple[str, Any, Any] | None = None
        #: How many queries Django sent on the connection inside ``running()``.
        self.queries = 0

    @contextmanager
    def running(self) -> Iterator[BackgroundWrites]:
        """Run submitted writes in the thread while the block runs (see the module)."""
        if self._thread is not None:
            raise RuntimeError("These background writes are running already.")
        self.connection.ensure_connection()
        self._cancelled = False
        thread = threading.Thread(target=self._work, name="background-writes", daemon=True)
        thread.start()
        self._thread = thread
        try:
            with self.connection.execute_wrapper(self._drain_first):
                yield self
                self.drain()
        except BaseException:
            # What has not started is not wanted: the caller's transaction is rolled back.
            self._cancelled = True
            raise
        finally:
            self._jobs.put(None)
            _join(thread)
            self._thread = None

    @property
    def in_background(self) -> bool:
        """Whether writes are run by the thread now (inside ``running()``)."""
        return self._thread is not None

    def submit(self, write: Write) -> None:
        """Run ``write`` after those submitted before (see the module)."""
        self._raise_if_failed()
        if self._thread is None:
            self._run_here(write)
        else:
            self._jobs.put(write)

    def drain(self) -> None:
        """Wait until every write submitted is done; raise the first error met."""
        # Nothing queued or under way and no COPY open: nothing to wait for (Django's queries
        # in the scope all come here). The thread sets both before it says a write is done.
        if self._thread is not None and (self._jobs.unfinished_tasks or self._copy is not None):
            self._jobs.put(_END_OF_WRITES)
            self._jobs.join()
        self._raise_if_failed()

    def _raise_if_failed(self) -> None:
        if self._error is not None:
            with self.connection.wrap_database_errors:
                raise self._error

    def _drain_first(
        self, execute: Callable[..., Any], sql: str, params: Any, many: bool, context: Any
    ) -> Any:
        """Django's queries on the connection wait for the writes submitted before."""
        self.queries += 1
        self.drain()
        return execute(sql, params, many, context)

    def _run_here(self, write: Write) -> None:
        cursor = self.connection.connection.cursor()
        try:
            with self.connection.wrap_database_errors:
                write(cursor)
        finally:
            cursor.close()

    def _work(self) -> None:
        """The thread: run each write in turn until told to stop (None)."""
        try:
            while True:
                write = self._jobs.get()
                if write is None:
                    # Left early when a COPY is still open: its rows go with the rollback.
                    with suppress(BaseException):
                        self._end_copy(RuntimeError("the writes were left before their end"))
                    self._jobs.task_done()
                    return
                try:
                    if self._error is None and not self._cancelled:
                        self._run(write)
                except BaseException as error:  # handed to the caller's thread by drain()
                    if self._error is None:
                        self._error = error
                    # Should the COPY's own end fail too, the first error says why.
                    with suppress(BaseException):
                        self._end_copy(error)
                finally:
                    self._jobs.task_done()
        finally:
            if self._cursor is not None:
                self._cursor.close()
                self._cursor = None

    def _run(self, write: Write | object) -> None:
        """In the thread: one write, or the end of the writes so far (``_END_OF_WRITES``)."""
        if self._cursor is None:
            self._cursor = self.connection.connection.cursor()
        if type(write) is CopyRows:
            if self._copy is not None and self._copy[0] != write.sql:
                self._end_copy()
            if self._copy is None:
                context = self._cursor.copy(write.sql)
                self._copy = (write.sql, context, context.__enter__())
            write.into(self._copy[2])
            return
        self._end_copy()
        if write is not _END_OF_WRITES:
            write(self._cursor)  # type: ignore[operator]

    def _end_copy(self, error: BaseException | None = None) -> None:
        """In the thread: end the open COPY, if any: stored, or abandoned with ``error``."""
        if self._copy is None:
            return
        context, self._copy = self._copy[1], None
        if error is None:
            context.__exit__(None, None, None)
        else:
            context.__exit__(type(error), error, error.__traceback__)


def _join(thread: threading.Thread) -> None:
    """Wait for ``thread`` to end, even through a second Ctrl-C (raised once it has): the
    caller's rollback must not run while a write is under way."""
    interrupted: KeyboardInterrupt | None = None
    while thread.is_alive():
        try:
            thread.join()
        except KeyboardInterrupt as interruption:
            interrupted = interruption
    if interrupted is not None:
        raise interrupted
