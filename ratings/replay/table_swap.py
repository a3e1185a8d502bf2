"""SQLite: rebuilding the projection table beside the live one and renaming it in (the swap).

A full replay replaces every ``PlayerPeriod`` row of its configuration. Deleting them one by
one costs as much as writing them (every row leaves the table and each of its indexes). When
the configuration's rows are most of the table, it is cheaper to build the table anew beside
the live one: create an empty copy of its definition, copy the other configurations' rows
into it, write the new rows, build the indexes, then drop the live table and rename the new
one in its place. SQLite's DDL is transactional, so readers see the old table until the
commit that puts the new one in place and the new one after.

Two ways to build it:

- :func:`swap_table` (:func:`building`): everything in the caller's one transaction; a
  process killed half-way leaves the old table exactly as it was.
- :func:`start_building` … :func:`put_in_place`: for a large league whose rows are written
  as the fold computes them (``store.write_full_table``). The new table (named for the
  configuration and the build: a replay that lost its lease cannot drop its successor's)
  fills in transactions of its own, a batch at a time, with ids reserved from the live
  table's sequence (:func:`reserve_ids`); the other configurations' rows are copied and the
  table put in place in one last transaction. The replay's progress is committed with the
  batches. A replay killed while building leaves the live table as it was and the
  half-built table behind, which the league's next full replay, by either way, drops first
  (:func:`discard_builds`: the league's replay lock keeps its builds one at a time).

The new table has no UNIQUE table constraint: each one is built after the rows as a unique
index of the same name and columns (:func:`_without_unique_constraints`).

:func:`swap_pays` is the rule: swap when the rows of other configurations (the ones copied)
are no more than the rows replaced; a league among many keeps the delete path.

PostgreSQL keeps each configuration's history in a partition of its own and swaps only that
(``partitions.py``).
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager

from django.db import connection

#: Suffix of the table while it is built (followed by the configuration's id and the build's
#: own suffix when built in several transactions: ``building_prefix``).
NEXT = "__next"


def swap_pays(table: str, config_id: int) -> bool:
    """True when rebuilding ``table`` beats deleting ``config_id``'s rows from it (SQLite).

    Counts the configuration's rows (an index range), then at most as many of the others;
    a table of this configuration alone (two probes of the index) needs no count.
    """
    with connection.cursor() as cursor:
        if not _others_exist(cursor, table, config_id):
            return True
        cursor.execute(f"SELECT count(*) FROM {table} WHERE config_id = %s", [config_id])
        replaced = cursor.fetchone()[0]
        cursor.execute(
            f"SELECT count(*) FROM (SELECT 1 FROM {table} WHERE config_id <> %s LIMIT %s) t",
            [config_id, replaced + 1],
        )
        others = cursor.fetchone()[0]
    return others <= replaced


def _others_exist(cursor, table: str, config_id: int) -> bool:
    """Whether ``table`` holds rows of another configuration (two probes of the index)."""
    cursor.execute(
        f'SELECT EXISTS (SELECT 1 FROM "{table}" WHERE config_id < %s) '
        f'OR EXISTS (SELECT 1 FROM "{table}" WHERE config_id > %s)',
        [config_id, config_id],
    )
    return bool(cursor.fetchone()[0])


def swap_table(table: str, config_id: int, write: Callable[[str], None]) -> None:
    """Replace ``table`` by a copy without ``config_id``'s rows plus what ``write`` writes.

    ``write(name)`` inserts the configuration's new rows into the table called ``name``.
    Must run inside a transaction (SQLite).
    """
    with building(table, config_id) as new:
        write(new)


@contextmanager
def building(table: str, config_id: int) -> Iterator[str]:
    """:func:`swap_table` for a caller that writes the new rows itself, in its transaction:
    yields the name of the table to write them into, and puts it in place of ``table`` when
    the block ends without an error."""
    new = f"{table}{NEXT}"
    create_beside(table, new)
    with connection.cursor() as cursor:
        # The new rows' ids come after every id the live table handed out or a build of
        # another configuration reserved, not only after the rows copied.
        _carry_sequence(cursor, table, new)
        _copy_others(cursor, table, new, config_id)
    yield new
    _put_in_place(table, new)


def building_prefix(table: str, config_id: int) -> str:
    """How the tables a configuration's history is built in over several transactions
    begin (each build adds a suffix of its own)."""
    return f"{table}{NEXT}{config_id}_"


def start_building(table: str, config_id: int) -> str:
    """Make the empty table that ``config_id``'s new history goes into, batch by batch;
    returns its name (this build's own)."""
    new = f"{building_prefix(table, config_id)}{uuid.uuid4().hex[:12]}"
    create_beside(table, new)
    return new


def discard_builds(table: str, config_ids: Iterable[int]) -> list[str]:
    """Drop the half-built tables of ``config_ids`` (a league's configurations: its replay
    lock, which the caller holds, lets none of them be built meanwhile, but a replay that
    lost its lease may still be filling one, and then fails when it writes on); returns
    their names."""
    prefixes = tuple(building_prefix(table, config_id) for config_id in config_ids)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE %s",
            [f"{table}{NEXT}%"],
        )
        names = [name for (name,) in cursor.fetchall() if name.startswith(prefixes)]
        for name in names:
            cursor.execute(f'DROP TABLE IF EXISTS "{name}"')
    return names


def put_in_place(table: str, config_id: int, new: str) -> None:
    """Copy the other configurations' rows into ``new`` and put it in place of ``table``
    (inside the caller's transaction)."""
    with connection.cursor() as cursor:
        _copy_others(cursor, table, new, config_id)
    _put_in_place(table, new)


def discard(new: str) -> None:
    """Drop a table that was being built (the replay failed)."""
    with connection.cursor() as cursor:
        cursor.execute(f'DROP TABLE IF EXISTS "{new}"')


def reserve_ids(table: str, count: int) -> int:
    """Take ``count`` ids from ``table``'s sequence (AUTOINCREMENT) for rows written
    elsewhere; returns the first. In the caller's transaction, which must hold SQLite's
    write lock from its start (``BEGIN IMMEDIATE``, as ``transaction.atomic`` does here):
    a sequence read before the lock could be handed out by another writer too.

    Rows inserted into the live table afterwards get ids above them, so the rows copied
    over when the built table is put in place never collide with these.
    """
    with connection.cursor() as cursor:
        # One statement: the sequence read and moved on together.
        cursor.execute(
            "UPDATE sqlite_sequence SET seq = seq + %s WHERE name = %s RETURNING seq",
            [count, table],
        )
        row = cursor.fetchone()
        if row is not None:
            return int(row[0]) - count + 1
        # No sequence yet (the table never had a row): it starts after the largest id.
        cursor.execute(f'SELECT coalesce(max(id), 0) FROM "{table}"')
        last = int(cursor.fetchone()[0])
        cursor.execute(
            "INSERT INTO sqlite_sequence (name, seq) VALUES (%s, %s)", [table, last + count]
        )
    return last + 1


def create_beside(table: str, new: str) -> None:
    """Create ``new`` (dropped first if it exists) with ``table``'s columns and checks, but no
    UNIQUE table constraint and no index (:func:`_put_in_place` builds them)."""
    with connection.cursor() as cursor:
        create, _uniques = _without_unique_constraints(_schema(cursor, table)[0], table)
        cursor.execute(f'DROP TABLE IF EXISTS "{new}"')
        cursor.execute(create.replace(f'"{table}"', f'"{new}"', 1))


def _copy_others(cursor, table: str, new: str, config_id: int) -> None:
    # Same columns in the same order: the other configurations' rows as they are.
    if _others_exist(cursor, table, config_id):
        cursor.execute(
            f'INSERT INTO "{new}" SELECT * FROM "{table}" WHERE config_id <> %s', [config_id]
        )


def _put_in_place(table: str, new: str) -> None:
    """Drop ``table``, rename ``new`` to it and build ``table``'s indexes over it (its
    unique constraints as unique indexes), keeping its sequence (no id handed out again)."""
    with connection.cursor() as cursor:
        create, indexes = _schema(cursor, table)
        _without, uniques = _without_unique_constraints(create, table)
        _carry_sequence(cursor, table, new)
        cursor.execute(f'DROP TABLE "{table}"')
        cursor.execute(f'ALTER TABLE "{new}" RENAME TO "{table}"')
        # The indexes went with the old table; built once over the full table (a sort),
        # not row by row.
        for sql in [*uniques, *indexes]:
            cursor.execute(sql)


def _schema(cursor, table: str) -> tuple[str, list[str]]:
    """``table``'s CREATE TABLE and its CREATE INDEX statements."""
    cursor.execute(
        "SELECT type, sql FROM sqlite_master WHERE tbl_name = %s AND sql IS NOT NULL", [table]
    )
    schema = cursor.fetchall()
    create = next(sql for kind, sql in schema if kind == "table")
    return create, [sql for kind, sql in schema if kind == "index"]


def _carry_sequence(cursor, table: str, new: str) -> None:
    """Bring ``new``'s AUTOINCREMENT sequence up to ``table``'s (which the rename makes its
    own): ids ``table`` handed out or reserved (:func:`reserve_ids`) are never handed out
    again."""
    cursor.execute("SELECT seq FROM sqlite_sequence WHERE name = %s", [table])
    live = cursor.fetchone()
    if live is None:
        return
    cursor.execute("SELECT seq FROM sqlite_sequence WHERE name = %s", [new])
    built = cursor.fetchone()
    if built is None:
        cursor.execute("INSERT INTO sqlite_sequence (name, seq) VALUES (%s, %s)", [new, live[0]])
    elif built[0] < live[0]:
        cursor.execute("UPDATE sqlite_sequence SET seq = %s WHERE name = %s", [live[0], new])


#: A table constraint ``CONSTRAINT "name" UNIQUE ("a", "b")`` as Django writes it.
_UNIQUE = re.compile(r', CONSTRAINT "(?P<name>[^"]+)" UNIQUE \((?P<columns>[^)]*)\)')


def _without_unique_constraints(create: str, table: str) -> tuple[str, list[str]]:
    """``create`` (a CREATE TABLE) without its UNIQUE table constraints, and for each the
    CREATE UNIQUE INDEX of the same name and columns on ``table``.

    A unique constraint is an index SQLite fills row by row as they are inserted: in the
    order of its columns that is an append, in any other (the fold's, period by period, when
    the rows are written as it computes) an insertion all over it, which cost 1.2-1.9 s more
    at 1,000,000 matches than building the same index once at the end. Both enforce the same
    uniqueness; the index keeps the constraint's name (Django's ``get_constraints`` reports
    it as a unique index of the same columns).
    """
    uniques = [
        f'CREATE UNIQUE INDEX "{found["name"]}" ON "{table}" ({found["columns"]})'
        for found in _UNIQUE.finditer(create)
    ]
    return _UNIQUE.sub("", create), uniques
