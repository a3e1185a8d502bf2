"""PostgreSQL: one partition of ``PlayerPeriod`` per configuration, swapped whole.

On PostgreSQL ``ratings_playerperiod`` is partitioned by list of ``config_id`` (migration
0008): each configuration's history is a table of its own, ``ratings_playerperiod_c<ID>``.
Readers and the incremental replay use the parent as before (PostgreSQL routes rows and
prunes partitions by ``config_id``). A full replay of a league of ``REPLAY_SWAP_MIN_MATCHES``
matches or more (``runner``) does not delete its configuration's rows through live indexes
(a smaller one does, cheaply): it builds the new partition beside the live one (a bare table filled
by COPY, as the fold produces the rows from ``REPLAY_STREAM_MIN_MATCHES`` matches on, then the
constraints and indexes built once over it) and puts it in the old one's place in one
transaction: a short one after the build, or, below that size, the transaction of the whole
build (``store._build_partition_at_once``). Either way the parent is locked only by the
attach's last statements. Other
configurations' partitions are not touched and their replays go on writing meanwhile.

Locks: the new table is made ``LIKE`` the live partition, never the parent, so the swap's
first lock on the parent is the ``ACCESS EXCLUSIVE`` that dropping the old partition takes,
for the last few milliseconds of the transaction: two swaps of different leagues cannot
each hold a weaker lock on the parent and wait for the other's (a deadlock). Readers and
other writers of the parent wait only for those milliseconds.

A partition is created with its configuration (``ratings.receivers``) and, if missing, before
a replay writes; it is dropped with its configuration. SQLite has no partitions: there,
``table_swap`` rebuilds the whole table when that pays.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from django.db import connection, transaction

from ratings.models import PlayerPeriod

# The suffix of a table (here a partition, its constraint and index) while its replacement
# is built: the same as the SQLite swap's.
from ratings.replay.table_swap import NEXT

#: The sequence of ``PlayerPeriod.id`` (migration 0008).
SEQUENCE = "ratings_playerperiod_id_seq"
#: The advisory lock under which blocks of ids are reserved (any fixed number of our own).
_RESERVE_IDS_LOCK = 0x504C5044  # "PLPD"


def partitioned() -> bool:
    """Whether this database keeps ``PlayerPeriod`` in one partition per configuration."""
    return connection.vendor == "postgresql"


def partition_name(config_id: int) -> str:
    """The table holding configuration ``config_id``'s history rows."""
    return f"{PlayerPeriod._meta.db_table}_c{int(config_id)}"


def _exists(cursor, name: str) -> bool:
    cursor.execute("SELECT to_regclass(%s) IS NOT NULL", [f'"{name}"'])
    return bool(cursor.fetchone()[0])


def ensure_partition(config_id: int) -> None:
    """Create configuration ``config_id``'s partition unless it exists (PostgreSQL only)."""
    if not partitioned():
        return
    name = partition_name(config_id)
    with connection.cursor() as cursor:
        # Checked first: CREATE … IF NOT EXISTS would still lock the parent.
        if _exists(cursor, name):
            return
        cursor.execute(
            f'CREATE TABLE IF NOT EXISTS "{name}" PARTITION OF '
            f'"{PlayerPeriod._meta.db_table}" FOR VALUES IN ({int(config_id)})'
        )


def drop_partition(config_id: int) -> None:
    """Drop configuration ``config_id``'s partition if it exists (PostgreSQL only)."""
    if not partitioned():
        return
    with connection.cursor() as cursor:
        cursor.execute(f'DROP TABLE IF EXISTS "{partition_name(config_id)}"')


def next_name(config_id: int) -> str:
    """The table that replaces configuration ``config_id``'s partition while it is built."""
    return f"{partition_name(config_id)}{NEXT}"


def prepare_partition(config_id: int) -> str:
    """Create the bare table that will replace configuration ``config_id``'s partition (any
    left by a replay that died is dropped first) and return its name.

    A large full replay calls it outside any transaction: it fills the table as the fold
    goes (progress saves, which must be seen, go between its COPY statements), and nobody
    reads it until :func:`attach_partition` puts it in place. A small one calls it inside
    the transaction that fills, indexes and attaches it (``store.write_full_partition``).
    The partition must exist (:func:`ensure_partition`). One round trip.
    """
    live = partition_name(config_id)
    new = next_name(config_id)
    # (config_id = N) lets ATTACH skip scanning the table for rows of other configurations.
    owned = f"{live}_config"
    with connection.cursor() as cursor:
        cursor.execute(
            f'DROP TABLE IF EXISTS "{new}"; '
            # LIKE the partition (see the module's docstring on locks); its CHECK constraints
            # come along, so each row is checked as it arrives rather than by a scan per check.
            f'CREATE TABLE "{new}" (LIKE "{live}" INCLUDING DEFAULTS INCLUDING CONSTRAINTS); '
            # Rows written straight into this table take their ids from the parent's
            # sequence (the parent's default, migration 0008).
            f"ALTER TABLE \"{new}\" ALTER COLUMN id SET DEFAULT nextval('{SEQUENCE}'::regclass), "
            f'DROP CONSTRAINT IF EXISTS "{owned}", '
            f'ADD CONSTRAINT "{owned}" CHECK (config_id = {int(config_id)})'
        )
    return new


def reserve_ids(count: int) -> int:
    """The first of ``count`` consecutive ``PlayerPeriod`` ids that the sequence will not
    hand out again (PostgreSQL).

    A full replay writes its rows with these ids instead of a ``nextval`` per row (a third
    of the COPY's time). Ids need only differ within a configuration (rows are deleted by
    ``config_id`` and id), and a configuration's writers take turns (the league's replay
    lock); what must hold is that the sequence never goes back, so later incremental rows
    never take an id of the block. Reservations take turns under an advisory lock, and the
    sequence only moves forward past whatever other writers took meanwhile.
    """
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [_RESERVE_IDS_LOCK])
        cursor.execute("SELECT nextval(%s)", [SEQUENCE])
        (first,) = cursor.fetchone()
        cursor.execute(
            f"SELECT setval(%s, GREATEST(%s, (SELECT last_value FROM {SEQUENCE})))",
            [SEQUENCE, first + count - 1],
        )
    return int(first)


def index_partition(config_id: int) -> None:
    """Build the filled replacement's unique constraint and index, matching the parent's.

    Once over the full table (a sort each), before the parent is locked; ATTACH then adopts
    them instead of building its own while it holds the parent. Outside a transaction (a
    large replay) the two indexes are built at the same time, each by a connection of its
    own (the process waits meanwhile, and ``CREATE INDEX`` locks let two run on one table);
    inside one (a small replay's, or a test's: no other connection can see the table) one
    after the other in one round trip. The unique one becomes the constraint afterwards,
    which only names it.
    """
    new = next_name(config_id)
    live = partition_name(config_id)
    unique = f"{live}_unique{NEXT}"
    statements = [
        f'CREATE UNIQUE INDEX "{unique}" ON "{new}" (config_id, player_id, period_index)',
        f'CREATE INDEX "{live}_by_period{NEXT}" ON "{new}" (config_id, period_index)',
    ]
    constraint = f'ALTER TABLE "{new}" ADD CONSTRAINT "{unique}" UNIQUE USING INDEX "{unique}"'
    if connection.in_atomic_block:
        with connection.cursor() as cursor:
            cursor.execute("; ".join([*statements, constraint]))
        return
    with ThreadPoolExecutor(max_workers=1) as pool:
        other = pool.submit(_run_on_own_connection, statements[1])
        with connection.cursor() as cursor:
            cursor.execute(statements[0])
        other.result()
    with connection.cursor() as cursor:
        cursor.execute(constraint)


def _run_on_own_connection(sql: str) -> None:
    """Run ``sql`` on this thread's own database connection, then close it."""
    try:
        with connection.cursor() as cursor:
            cursor.execute(sql)
    finally:
        connection.close()


def attach_partition(config_id: int) -> None:
    """Put the replacement in the place of configuration ``config_id``'s partition.

    Must run inside the replay's transaction: readers see the old partition until it
    commits, and nothing changes if it rolls back. One round trip; the parent is locked
    from its first statement (the old partition's drop) to the commit.
    """
    parent = PlayerPeriod._meta.db_table
    live = partition_name(config_id)
    new = next_name(config_id)
    with connection.cursor() as cursor:
        cursor.execute(
            f'DROP TABLE "{live}"; '
            f'ALTER TABLE "{new}" RENAME TO "{live}"; '
            f'ALTER TABLE "{live}" RENAME CONSTRAINT "{live}_unique{NEXT}" TO "{live}_unique"; '
            f'ALTER INDEX "{live}_by_period{NEXT}" RENAME TO "{live}_by_period"; '
            f'ALTER TABLE "{parent}" ATTACH PARTITION "{live}" FOR VALUES IN ({int(config_id)})'
        )


def discard_partition(config_id: int) -> None:
    """Drop a replacement that will not be attached (the replay failed)."""
    with connection.cursor() as cursor:
        cursor.execute(f'DROP TABLE IF EXISTS "{next_name(config_id)}"')


#: The history's columns that queries select rows by (the replay's reads, the selectors,
#: the exports, the seasons): the planner's statistics of the others are never used.
ANALYZED_COLUMNS = ("config_id", "player_id", "period_index")


def analyze_partition(config_id: int, *, table: str | None = None) -> None:
    """Refresh the planner's statistics of configuration ``config_id``'s partition (or of
    ``table``, its replacement: statistics belong to the table and follow it through the
    rename and the attach).

    Only the columns that queries filter, join or order on are sampled
    (``ANALYZED_COLUMNS``): the rating columns' statistics were two thirds of ANALYZE's time
    and no plan reads them. The row count and size are refreshed whatever the columns.
    """
    name = partition_name(config_id) if table is None else table
    with connection.cursor() as cursor:
        cursor.execute(f'ANALYZE "{name}" ({", ".join(ANALYZED_COLUMNS)})')
