"""Writing a pass's projection: its rows replace the stored ones in one transaction.

``PlayerPeriod`` and ``Standing`` rows go in bulk. PostgreSQL: ``COPY … FROM STDIN (FORMAT
BINARY)`` through psycopg 3, the rows packed by NumPy into PostgreSQL's binary tuple format in
one buffer (no per-row Python work; floats travel as their exact IEEE bits). SQLite:
multi-row INSERT statements in large batches. Replacing the old rows (deleting them, or for
a full replay building them anew beside the live ones: on PostgreSQL the configuration's own
partition, ``partitions.py``; on SQLite the whole table when the configuration's rows are
most of it, ``table_swap.py``), inserting the new ones and recording how far the projection
reaches happen in one transaction, so readers see the old projection or the new one, never
a mix. A large league's full replay fills the table that replaces the live one over several
transactions first, as the fold computes (``write_full_partition`` on PostgreSQL,
``write_full_table`` on SQLite); putting it in place is that one transaction.
"""

from __future__ import annotations

import datetime as dt
import logging
import queue
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import partial

import numpy as np
import numpy.typing as npt
from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from ratings.locks import LeagueReplayLock
from ratings.models import PlayerPeriod, ProjectionState, RatingConfig, Standing
from ratings.replay.columns import any_of
from ratings.replay.compute import HistoryRows, Projection, RowsSink, StandingRows
from ratings.replay.partitions import (
    analyze_partition,
    attach_partition,
    discard_partition,
    ensure_partition,
    index_partition,
    next_name,
    partitioned,
    prepare_partition,
    reserve_ids,
)
from ratings.replay.plan import ReplayPlan
from ratings.replay.table_swap import (
    discard,
    discard_builds,
    put_in_place,
    start_building,
    swap_pays,
    swap_table,
)
from ratings.replay.table_swap import reserve_ids as reserve_table_ids

logger = logging.getLogger(__name__)

SQLITE_BATCH = 50_000
#: A history built batch by batch (``HistoryBatches``) commits at least this often: the
#: fold's progress, saved in the same transaction, is seen that often.
SQLITE_COMMIT_SECONDS = 0.5
SQLITE_ROWS_PER_INSERT = 1000
# SQLite accepts 32766 bound parameters per statement since 3.32.
SQLITE_MAX_VARIABLES = 32_766
COPY_CHUNK_ROWS = 200_000
#: Batches of a full replay's history that may wait for the writer thread (about 100
#: bytes a row: 80 MB at most).
QUEUED_BATCHES = 4
PG_EPOCH_DAYS = np.datetime64("2000-01-01", "D")
PG_EPOCH_US = np.datetime64("2000-01-01T00:00:00", "us")
BINARY_HEADER = b"PGCOPY\n\xff\r\n\x00" + (0).to_bytes(4, "big") + (0).to_bytes(4, "big")
BINARY_TRAILER = (-1).to_bytes(2, "big", signed=True)


def write_projection(plan: ReplayPlan, projection: Projection, lock: LeagueReplayLock) -> None:
    """Replace the rows of ``projection`` and record how far it reaches, in one transaction.

    The lock is checked inside that transaction: on SQLite a lease that expired while this
    replay computed may already belong to another replay, and then nothing is written.
    (A full pass on PostgreSQL goes through :func:`write_full_partition` instead.)
    """
    config_id = plan.config.pk
    table = PlayerPeriod._meta.db_table
    full = projection.from_period is None
    write = partial(write_history, config_id, projection.history)
    swap = full and not partitioned() and swap_pays(table, config_id)
    if partitioned():
        # Normally made with the configuration; created in its own short transaction.
        ensure_partition(config_id)
    if full and not partitioned():
        discard_builds(table, _league_config_ids(plan))
    with transaction.atomic():
        lock.check_in_transaction()
        if swap:
            swap_table(table, config_id, write)
        else:
            delete_history(config_id, projection.from_period, projection.stale_history)
            write(table)
        _finish(plan, projection)
    if full:
        analyze(config_id)


def _league_config_ids(plan: ReplayPlan) -> list[int]:
    """The ids of every configuration of the pass's league."""
    return list(RatingConfig.objects.filter(league_id=plan.league_id).values_list("pk", flat=True))


def write_full_partition(
    plan: ReplayPlan,
    compute_into: Callable[[RowsSink | None], Projection],
    lock: LeagueReplayLock,
    *,
    matches: int | None = None,
) -> tuple[Projection, float]:
    """A full pass on PostgreSQL: the configuration's partition built anew beside the live
    one and put in its place.

    ``compute_into(sink)`` runs the fold, handing ``sink`` each period's rows, and returns the
    projection (its standings; its history went to the sink); ``compute_into(None)`` returns
    the whole projection, history included. With
    ``settings.REPLAY_STREAM_MIN_MATCHES`` ``matches`` or more (or ``matches`` not given) the
    rows go by COPY, while the fold computes (``HistoryCopy``), into the bare table that will
    replace the partition; its two indexes are built once it is full, side by side, and its
    statistics gathered; then one short transaction replaces the standings and puts it in
    place (``partitions.py``). A smaller league's history is held until the fold ends and
    the whole build is that one transaction (:func:`_build_partition_at_once`). Returns the
    projection and the seconds spent writing: the fold's waits for the writer and everything
    after the fold (the rest of the call is computing).
    """
    config_id = plan.config.pk
    ensure_partition(config_id)
    if matches is not None and matches < settings.REPLAY_STREAM_MIN_MATCHES:
        return _build_partition_at_once(plan, compute_into, lock)
    sink = HistoryCopy(config_id, prepare_partition(config_id))
    try:
        projection = compute_into(sink)
        computed, copied = time.perf_counter(), sink.seconds
        sink.flush()
        index_partition(config_id)
        # Statistics belong to the table: gathered before the parent is locked, live with it.
        analyze_partition(config_id, table=next_name(config_id))
        _swap_in(plan, projection, lock)
    except BaseException:
        sink.abandon()
        try:
            discard_partition(config_id)
        except Exception:
            # The replay's own error matters more; the next replay drops it anyway.
            logger.exception("Could not drop the unfinished partition of config %s", config_id)
        raise
    analyze_standings()
    return projection, copied + (time.perf_counter() - computed)


def write_full_table(
    plan: ReplayPlan,
    compute_into: Callable[[RowsSink | None], Projection],
    lock: LeagueReplayLock,
) -> tuple[Projection, float]:
    """A full pass on SQLite that swaps the table (``table_swap``) for a league of
    ``settings.REPLAY_STREAM_MIN_MATCHES`` matches or more: ``compute_into(sink)`` runs the
    fold, handing ``sink`` each period's rows, which go into a table built beside the live
    one, a batch at a time (``HistoryBatches``); then one transaction copies the other
    configurations' rows over, puts it in place and replaces the standings.

    The caller computes the fold in a process of its own (``compute_full(…,
    elsewhere=True)``), so the rows of one period are inserted here while the next ones are
    computed on the other core. They go in the fold's order, period by period, and their ids
    follow it, as on PostgreSQL. The fold's progress is committed with the batches. SQLite
    has one writer: the replay holds the write lock from its first batch to the swap, the
    gaps between batches being too short for a waiting writer's retries to catch, so a
    result recorded meanwhile waits for the swap, as it waited for the one-transaction
    write (measured at 1,000,000 matches: the first of eight results recorded during the
    build waited 8.7 s on a loaded machine, the others a few milliseconds). A failure
    removes the half-built table; a kill leaves it to the
    league's next full replay (``table_swap.discard_builds``), and the live table as it
    was. Returns the projection and the seconds spent writing (the rest of the call is
    computing).
    """
    config_id = plan.config.pk
    table = PlayerPeriod._meta.db_table
    started = time.perf_counter()
    discard_builds(table, _league_config_ids(plan))
    new = start_building(table, config_id)
    sink = HistoryBatches(config_id, table, new)
    built = time.perf_counter()
    try:
        with checkpoints_deferred():
            projection = compute_into(sink)
            computed = time.perf_counter()
            sink.flush()
        with transaction.atomic():
            lock.check_in_transaction()
            put_in_place(table, config_id, new)
            _finish(plan, projection)
    except BaseException:
        try:
            sink.abandon()
            discard(new)
        except Exception:
            # The replay's own error matters more; the next full replay drops it anyway.
            logger.exception("Could not drop the unfinished table %s", new)
        raise
    return projection, (built - started) + sink.seconds + (time.perf_counter() - computed)


@contextmanager
def checkpoints_deferred() -> Iterator[None]:
    """No automatic checkpoint of SQLite's write-ahead log on this connection's commits
    until the block ends (the next commit after it checkpoints as usual).

    SQLite copies the log back into the database at the first commit after it passes 1,000
    pages. A history built batch by batch would pay that copy, and its fsync, some twenty
    times at 1,000,000 matches (about 0.6 s more than one transaction); deferred, the log is
    copied once, as after one transaction (by the first commit after the block, or by another
    connection's commit meanwhile: the setting is this connection's). Readers read the log
    meanwhile.
    """
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA wal_autocheckpoint")
        (pages,) = cursor.fetchone()
        cursor.execute("PRAGMA wal_autocheckpoint = 0")
    try:
        yield
    finally:
        try:
            with connection.cursor() as cursor:
                cursor.execute(f"PRAGMA wal_autocheckpoint = {int(pages)}")
        except Exception:
            # A broken connection: the replay's own error (being raised) matters more, and
            # the setting goes with the connection.
            logger.exception("Could not restore the write-ahead log's checkpoints")


class HistoryBatches:
    """A sink of history rows that inserts them into the table being built (``table``'s
    replacement, ``new``) as they come, with ids reserved from ``table``'s sequence, and
    commits every ``SQLITE_BATCH`` rows or ``SQLITE_COMMIT_SECONDS``, whichever comes
    first; ``seconds``: the time it took.

    Outside a transaction (a replay in a worker or a command) the rows go into one
    ``transaction.atomic`` block at a time (``BEGIN IMMEDIATE``: the ids are reserved
    under the write lock), which the next batch's first rows open: the fold's progress,
    saved in between, is committed with them. Inside one (a test's) they are part of it.
    """

    def __init__(self, config_id: int, table: str, new: str) -> None:
        self.config_id = config_id
        self.table = table
        self.new = new
        self.count = 0
        self.seconds = 0.0
        self._own = not connection.in_atomic_block
        self._batch: transaction.Atomic | None = None
        self._committed_at = time.monotonic()

    def __call__(self, rows: HistoryRows) -> None:
        started = time.perf_counter()
        if self._own and self._batch is None:
            # Held open across calls, so entered and left by hand (``flush``, ``abandon``).
            self._batch = transaction.atomic()
            self._batch.__enter__()
        first_id = reserve_table_ids(self.table, len(rows))
        write_history(self.config_id, rows, self.new, ordered=False, first_id=first_id)
        self.count += len(rows)
        if (
            self.count >= SQLITE_BATCH
            or time.monotonic() - self._committed_at >= SQLITE_COMMIT_SECONDS
        ):
            self.flush()
        self.seconds += time.perf_counter() - started

    def flush(self) -> None:
        """Commit the rows inserted so far (and what else the replay wrote meanwhile)."""
        self.count = 0
        self._committed_at = time.monotonic()
        batch, self._batch = self._batch, None
        if batch is not None:
            batch.__exit__(None, None, None)

    def abandon(self) -> None:
        """Roll back the rows not committed yet (the replay failed)."""
        batch, self._batch = self._batch, None
        if batch is not None:
            failure = RuntimeError("the history's build was abandoned")
            batch.__exit__(type(failure), failure, None)


def _build_partition_at_once(
    plan: ReplayPlan,
    compute_into: Callable[[RowsSink | None], Projection],
    lock: LeagueReplayLock,
) -> tuple[Projection, float]:
    """:func:`write_full_partition` for a league below ``settings.REPLAY_STREAM_MIN_MATCHES``:
    the fold keeps its rows (as for the delete path: no rows made period by period), then
    one transaction creates
    the new table, COPYs them in (frozen: the table is the transaction's own), builds its
    indexes on this connection, gathers its statistics, replaces the standings and puts it
    in place.

    One commit instead of a dozen, no second connection, and nothing to clean up after a
    crash (a killed replay's transaction leaves no table behind). The parent is locked only
    by the last statements (``attach_partition``); the live partition, which the new table
    is made ``LIKE``, stays readable throughout.
    """
    config_id = plan.config.pk
    projection = compute_into(None)
    started = time.perf_counter()
    history = projection.history
    # Its own short transaction (the sequence's advisory lock is not held through the build).
    first_id = reserve_ids(len(history))
    # COPY FREEZE needs the table made in the current transaction, not in a savepoint of an
    # outer one (a test's).
    freeze = not connection.in_atomic_block
    with transaction.atomic():
        lock.check_in_transaction()
        new = prepare_partition(config_id)
        columns = _history_columns(with_id=True)
        values = _history_values(config_id, history, first_id)
        _copy_postgres(new, columns, values, freeze=freeze)
        index_partition(config_id)
        analyze_partition(config_id, table=new)
        _swap_in(plan, projection, lock, checked=True)
    analyze_standings()
    return projection, time.perf_counter() - started


def _swap_in(
    plan: ReplayPlan, projection: Projection, lock: LeagueReplayLock, *, checked: bool = False
) -> None:
    """Replace the standings, record the projection's reach and put the built partition in
    place, in one transaction (the caller's, or one of its own).

    The standings go first: the parent is locked from the attach's first statement to the
    commit, and nothing else happens in between. Their statistics are gathered after the
    commit (``analyze_standings``, by the callers): inside it, ANALYZE's lock on the
    standings would last until the commit, and another league's swap would queue behind a
    swap whose attach waits for a long reader of the parent.
    """
    with transaction.atomic():
        if not checked:
            lock.check_in_transaction()
        _finish(plan, projection)
        attach_partition(plan.config.pk)


class HistoryCopy:
    """A sink of history rows that COPYs them into ``table`` as the fold produces them.

    The rows go in the fold's order, period by period, a batch of ``COPY_CHUNK_ROWS`` at a
    time, each batch with ids reserved for it (``reserve_ids``: no ``nextval`` per row).
    Nothing is sorted: the unique (config, player, period) index costs as much to build over
    rows in period order as over rows sorted by player, and the (config, period) index then
    finds them in its own order (half its time at 1,000,000 matches).

    Where the table is committed (a replay outside any transaction, as in the workers), a
    thread of its own with a connection of its own holds one COPY open for the whole fold
    and writes each batch while the fold computes the next periods, so the server stores
    rows on the other core meanwhile. The fold waits only when ``QUEUED_BATCHES`` batches are
    waiting, so memory stays bounded whatever the league's size. Inside a transaction (a
    test's) no other connection could see the table: each batch is then one COPY on the
    replay's connection. (A league below ``settings.REPLAY_STREAM_MIN_MATCHES`` has no
    sink of this kind: ``_build_partition_at_once``.)
    """

    def __init__(self, config_id: int, table: str) -> None:
        self.config_id = config_id
        self.table = table
        self.pending: list[HistoryRows] = []
        self.count = 0
        #: Seconds the fold spent writing or waiting for the writer.
        self.seconds = 0.0
        self._batches: queue.Queue[tuple[HistoryRows, int] | None] | None = None
        self._writer: threading.Thread | None = None
        self._failure: BaseException | None = None
        self._abandoned = False
        if not connection.in_atomic_block:
            self._batches = queue.Queue(maxsize=QUEUED_BATCHES)
            self._writer = threading.Thread(
                target=self._write_batches, name=f"history-copy-{config_id}", daemon=True
            )
            self._writer.start()

    def __call__(self, rows: HistoryRows) -> None:
        self.pending.append(rows)
        self.count += len(rows)
        if self.count >= COPY_CHUNK_ROWS:
            self._send()

    def flush(self) -> None:
        """Write the rows still waiting and wait for the writer to finish (raising its
        error, if it failed)."""
        started = time.perf_counter()
        if self.pending:
            self._send()
        if self._writer is not None:
            self._stop()
            if self._failure is not None:
                raise self._failure
        self.seconds += time.perf_counter() - started

    def abandon(self) -> None:
        """Stop the writer without finishing its COPY (the replay failed)."""
        self.pending = []
        if self._writer is not None:
            self._stop(abandon=True)

    def _send(self) -> None:
        started = time.perf_counter()
        rows = HistoryRows.concat(self.pending)
        self.pending, self.count = [], 0
        first_id = reserve_ids(len(rows))
        if self._batches is None:
            write_history(self.config_id, rows, self.table, ordered=False, first_id=first_id)
        else:
            if self._failure is not None:
                raise self._failure
            self._batches.put((rows, first_id))
        self.seconds += time.perf_counter() - started

    def _stop(self, *, abandon: bool = False) -> None:
        assert self._batches is not None
        assert self._writer is not None
        if abandon:
            self._abandoned = True
            # Let a writer blocked on nothing see the end at once.
            while True:
                try:
                    self._batches.get_nowait()
                except queue.Empty:
                    break
        self._batches.put(None)
        self._writer.join()
        self._writer = None

    def _write_batches(self) -> None:
        """The writer thread: one COPY of every batch, on this thread's own connection."""
        batches = self._batches
        assert batches is not None
        ended = False
        try:
            columns = _history_columns(with_id=True)
            sql = _copy_sql(self.table, [name for name, _ in columns], freeze=True)
            with transaction.atomic(), connection.cursor() as cursor:
                # Emptied in the COPY's own transaction, which lets it write the rows frozen:
                # the index builds and ANALYZE that read them next need not set their
                # hint bits (writing every page again).
                cursor.execute(f'TRUNCATE "{self.table}"')
                with cursor.cursor.copy(sql) as copy:
                    copy.write(BINARY_HEADER)
                    while (batch := batches.get()) is not None:
                        rows, first_id = batch
                        _copy_rows(copy, columns, _history_values(self.config_id, rows, first_id))
                    ended = True
                    if self._abandoned:
                        raise _Abandoned
                    copy.write(BINARY_TRAILER)
        except BaseException as error:  # handed to the fold's thread
            if not isinstance(error, _Abandoned):
                self._failure = error
            # The fold may be waiting to put a batch: take what comes until the end.
            while not ended:
                ended = batches.get() is None
        finally:
            connection.close()


class _Abandoned(Exception):
    """Raised inside the writer's COPY to make psycopg abort it (the replay failed)."""


def _finish(plan: ReplayPlan, projection: Projection) -> None:
    """Replace the standings and record how far the projection reaches (in the caller's
    transaction)."""
    config_id = plan.config.pk
    delete_standings(config_id, projection.replaced_players)
    write_standings(config_id, projection.standings)
    position = {
        "complete": True,
        "through_seq": plan.through_seq,
        "through_period": plan.through_period,
        "computed_at": timezone.now(),
    }
    # One UPDATE where the row exists (every pass but a configuration's first): the
    # replay's lock keeps any other writer of this row out, so no SELECT ... FOR UPDATE in a
    # savepoint (``update_or_create``: three more statements on every result's replay).
    if not ProjectionState.objects.filter(config=plan.config).update(**position):
        ProjectionState.objects.create(config=plan.config, **position)


# (field name, PostgreSQL binary dtype) in column order; the config id is a constant column.
_HISTORY_COLUMNS: tuple[tuple[str, str], ...] = (
    ("config", ">i8"),
    ("player", ">i8"),
    ("period_index", ">i4"),
    ("period_start", ">i4"),
    ("period_end", ">i4"),
    ("rating", ">f8"),
    ("rd", ">f8"),
    ("volatility", ">f8"),
    ("rating_before", ">f8"),
    ("rd_before", ">f8"),
    ("games", ">i4"),
    ("wins", ">i4"),
    ("draws", ">i4"),
    ("losses", ">i4"),
)
_STANDING_COLUMNS: tuple[tuple[str, str], ...] = (
    ("config", ">i8"),
    ("player", ">i8"),
    ("rating", ">f8"),
    ("rd", ">f8"),
    ("volatility", ">f8"),
    ("last_period", ">i4"),
    ("games", ">i4"),
    ("wins", ">i4"),
    ("draws", ">i4"),
    ("losses", ">i4"),
    ("last_played_at", ">i8"),
)


def _history_columns(*, with_id: bool) -> tuple[tuple[str, str], ...]:
    """The history's (field, binary dtype) columns, led by ``id`` when ids are given."""
    return (("id", ">i8"), *_HISTORY_COLUMNS) if with_id else _HISTORY_COLUMNS


def _history_values(
    config_id: int, rows: HistoryRows, first_id: int | None = None
) -> list[np.ndarray]:
    """The columns of ``rows`` (``_history_columns``), with ids from ``first_id`` on when
    given."""
    n = len(rows)
    ids = [] if first_id is None else [np.arange(first_id, first_id + n, dtype=np.int64)]
    return [
        *ids,
        # A constant column: a zero-stride view, not n copies of the id.
        np.broadcast_to(np.int64(config_id), n),
        rows.player,
        rows.period,
        rows.period_start,
        rows.period_end,
        rows.rating,
        rows.rd,
        rows.volatility,
        rows.rating_before,
        rows.rd_before,
        rows.games,
        rows.wins,
        rows.draws,
        rows.losses,
    ]


def _standing_values(config_id: int, rows: StandingRows) -> list[np.ndarray]:
    n = len(rows)
    return [
        np.full(n, config_id, dtype=np.int64),
        rows.player,
        rows.rating,
        rows.rd,
        rows.volatility,
        rows.last_period,
        rows.games,
        rows.wins,
        rows.draws,
        rows.losses,
        rows.last_played_at,
    ]


def _columns(model, names: Sequence[str]) -> list[str]:
    return [model._meta.get_field(name).column for name in names]


def _pg_binary(columns: Sequence[tuple[str, str]], values: list[np.ndarray]) -> bytes:
    """The rows in PostgreSQL's binary COPY format (header, tuples, trailer)."""
    n = int(values[0].size)
    fields: list[tuple[str, str]] = [("count", ">i2")]
    for index, (_name, dtype) in enumerate(columns):
        fields += [(f"len{index}", ">i4"), (f"val{index}", dtype)]
    packed = np.empty(n, dtype=np.dtype(fields))
    packed["count"] = len(columns)
    for index, ((_name, dtype), column) in enumerate(zip(columns, values, strict=True)):
        packed[f"len{index}"] = np.dtype(dtype).itemsize
        if column.dtype.kind == "M" and column.dtype == np.dtype("datetime64[D]"):
            column = (column - PG_EPOCH_DAYS).astype(np.int64)
        elif column.dtype.kind == "M":
            column = (column.astype("datetime64[us]") - PG_EPOCH_US).astype(np.int64)
        packed[f"val{index}"] = column
    return packed.tobytes()


def _chunk(
    values: list[np.ndarray], order: npt.NDArray[np.intp] | None, start: int, stop: int
) -> list[np.ndarray]:
    """Rows ``start:stop`` of the columns, taken in ``order`` when given: the sorted rows
    are gathered a chunk at a time, never as a sorted copy of the whole projection."""
    if order is None:
        return [column[start:stop] for column in values]
    rows = order[start:stop]
    return [column[rows] for column in values]


def _copy_sql(
    table: str, fields: Sequence[str], model=PlayerPeriod, *, freeze: bool = False
) -> str:
    """The binary COPY of ``model``'s ``fields`` into ``table`` (``freeze``: rows written
    frozen, for a table created or emptied in the same transaction)."""
    options = "FORMAT BINARY, FREEZE" if freeze else "FORMAT BINARY"
    return f"COPY {table} ({', '.join(_columns(model, fields))}) FROM STDIN ({options})"


def _copy_postgres(
    table: str,
    columns: Sequence[tuple[str, str]],
    values: list[np.ndarray],
    order: npt.NDArray[np.intp] | None = None,
    model=PlayerPeriod,
    *,
    freeze: bool = False,
) -> None:
    """COPY the rows of ``values`` (``columns``: ``model``'s fields) into ``table``
    (``freeze``: see ``_copy_sql``)."""
    n = int(values[0].size)
    if n == 0:
        return
    sql = _copy_sql(table, [name for name, _ in columns], model, freeze=freeze)
    with connection.cursor() as cursor, cursor.cursor.copy(sql) as copy:
        copy.write(BINARY_HEADER)
        _copy_rows(copy, columns, values, order)
        copy.write(BINARY_TRAILER)


def _copy_rows(
    copy,
    columns: Sequence[tuple[str, str]],
    values: list[np.ndarray],
    order: npt.NDArray[np.intp] | None = None,
) -> None:
    """Write the rows of ``values`` (in ``order`` when given) into an open binary ``copy``,
    ``COPY_CHUNK_ROWS`` at a time."""
    n = int(values[0].size)
    for start in range(0, n, COPY_CHUNK_ROWS):
        copy.write(_pg_binary(columns, _chunk(values, order, start, start + COPY_CHUNK_ROWS)))


def _sqlite_column(column: np.ndarray) -> np.ndarray | list:
    """A column as values the sqlite3 driver binds (numbers stay arrays: NumPy converts them
    to Python numbers when they are put in the object table)."""
    if column.dtype == np.dtype("datetime64[D]"):
        # Few distinct days (period bounds): format each once.
        days, inverse = np.unique(column, return_inverse=True)
        return days.astype(str).astype(object)[inverse.reshape(-1)]
    if column.dtype.kind == "M":
        adapt = connection.ops.adapt_datetimefield_value
        moments = column.astype("datetime64[us]").astype(dt.datetime)
        return [adapt(moment.replace(tzinfo=dt.UTC)) for moment in moments]
    return column


def _insert_sqlite(
    table: str,
    names: list[str],
    values: list[np.ndarray],
    order: npt.NDArray[np.intp] | None = None,
) -> None:
    """Multi-row INSERT statements (a quarter faster than ``executemany`` of single rows)."""
    n = int(values[0].size)
    if n == 0:
        return
    per_statement = min(SQLITE_ROWS_PER_INSERT, SQLITE_MAX_VARIABLES // len(names))
    row = f"({', '.join('?' * len(names))})"

    def statement(rows: int) -> str:
        return f"INSERT INTO {table} ({', '.join(names)}) VALUES {', '.join([row] * rows)}"

    full = statement(per_statement)
    connection.ensure_connection()
    # The driver's own cursor, in the same transaction: Django's wrapper would rewrite
    # placeholders in every (long) statement.
    raw = connection.connection.cursor()
    try:
        width = len(names)
        for start in range(0, n, SQLITE_BATCH):
            count = min(SQLITE_BATCH, n - start)
            # Row-major parameters in one C pass: an object table filled column by column.
            grid = np.empty((count, width), dtype=object)
            for j, column in enumerate(_chunk(values, order, start, start + count)):
                grid[:, j] = _sqlite_column(column)
            flat = grid.ravel().tolist()
            whole = count - count % per_statement
            step = per_statement * width
            for first in range(0, whole * width, step):
                raw.execute(full, flat[first : first + step])
            if whole < count:
                raw.execute(statement(count - whole), flat[whole * width :])
    finally:
        raw.close()


def write_history(
    config_id: int,
    rows: HistoryRows,
    table: str,
    *,
    ordered: bool = True,
    first_id: int | None = None,
) -> None:
    """Insert ``rows`` for configuration ``config_id`` into ``table`` (``PlayerPeriod``'s,
    or the one built to replace it); ``ordered=False`` keeps the rows' own order (a table
    whose indexes are built after it is filled gains nothing from sorting). With
    ``first_id`` the rows take the ids from it on (reserved: ``reserve_ids``), else the
    table's default."""
    columns = _history_columns(with_id=first_id is not None)
    values = _history_values(config_id, rows, first_id)
    order = _index_order(rows) if ordered else None
    if connection.vendor == "postgresql":
        _copy_postgres(table, columns, values, order)
    else:
        names = _columns(PlayerPeriod, [name for name, _ in columns])
        _insert_sqlite(table, names, values, order)


def _index_order(rows: HistoryRows) -> npt.NDArray[np.intp]:
    """The rows' order in the unique (config, player, period) index.

    Appending to a B-tree is far cheaper than inserting all over it, and a player's rows
    (what a player page reads) share pages. The fold yields its rows period by period, so a
    stable sort on the player alone is enough (a third of the time of sorting on both keys).
    """
    if np.all(rows.period[1:] >= rows.period[:-1]):
        return np.argsort(rows.player, kind="stable")
    return np.lexsort((rows.period, rows.player))


def write_standings(config_id: int, rows: StandingRows) -> None:
    """Insert ``rows`` into ``Standing`` for configuration ``config_id``."""
    values = _standing_values(config_id, rows)
    if connection.vendor == "postgresql":
        _copy_postgres(Standing._meta.db_table, _STANDING_COLUMNS, values, model=Standing)
    else:
        names = _columns(Standing, [column for column, _ in _STANDING_COLUMNS])
        _insert_sqlite(Standing._meta.db_table, names, values)


def delete_history(
    config_id: int, from_period: int | None = None, ids: npt.NDArray[np.int64] | None = None
) -> None:
    """Delete the config's ``PlayerPeriod`` rows: those with ``ids`` when given, else those
    from ``from_period`` on, or all."""
    if ids is not None:
        if not ids.size:
            return
        condition, params = any_of("id", ids)
        # The period bound narrows the search to the (config, period) index's range: on
        # PostgreSQL the partitions have no index on id.
        since = "" if from_period is None else " AND period_index >= %s"
        with connection.cursor() as cursor:
            cursor.execute(
                f"DELETE FROM {PlayerPeriod._meta.db_table} "
                f"WHERE config_id = %s{since} AND {condition}",
                [config_id, *([] if from_period is None else [from_period]), *params],
            )
        return
    rows = PlayerPeriod.objects.filter(config_id=config_id)
    if from_period is not None:
        rows = rows.filter(period_index__gte=from_period)
    rows.delete()


def delete_standings(config_id: int, players: npt.NDArray[np.int64] | None = None) -> None:
    """Delete the config's ``Standing`` rows (of ``players`` only, or all)."""
    if players is None:
        Standing.objects.filter(config_id=config_id).delete()
        return
    if not players.size:
        return
    # One array parameter, not thousands of placeholders (and no ORM delete collector).
    condition, params = any_of("player_id", players)
    with connection.cursor() as cursor:
        cursor.execute(
            f"DELETE FROM {Standing._meta.db_table} WHERE config_id = %s AND {condition}",
            [config_id, *params],
        )


def analyze(config_id: int) -> None:
    """Refresh PostgreSQL's statistics of the projection tables after a bulk rewrite.

    Without them the planner of the next incremental replay's queries still believes the
    tables are small and scans them. Only the configuration's own partition is sampled (its
    key columns: ``partitions.analyze_partition``).
    """
    if connection.vendor != "postgresql":
        return
    analyze_partition(config_id)
    analyze_standings()


def analyze_standings() -> None:
    """Refresh PostgreSQL's statistics of ``Standing`` (in the caller's transaction, if any:
    ANALYZE's lock lets readers and other configurations' writers on)."""
    with connection.cursor() as cursor:
        cursor.execute(f"ANALYZE {Standing._meta.db_table}")
