"""Rebuilding a projection table beside the live one and renaming it in (the swap).

A full replay replaces every ``PlayerPeriod`` row of its configuration. Deleting them one by
one costs as much as writing them (every row leaves the table and each of its indexes). When
the configuration's rows are most of the table, it is cheaper to build the table anew beside
the live one: create an empty copy of its definition, copy the other configurations' rows
into it, write the new rows, build the indexes, then drop the live table and rename the new
one in its place. Everything happens in the caller's transaction (both databases have
transactional DDL), so readers see the old table until the commit and the new one after;
a process killed half-way leaves the old table exactly as it was.

:func:`swap_pays` is the rule. SQLite: swap when the rows of other configurations (the ones
copied) are no more than the rows replaced; a league among many keeps the delete path.
PostgreSQL: swap only when the table holds no other configuration's rows, because the swap
locks the table against every other writer for its whole transaction (below): with other
leagues in the table their replays would wait behind this one's write.

Concurrent writers: SQLite has one writer at a time (the replay holds it from its first
write). On PostgreSQL the swap first locks the live table against writes (``SHARE ROW
EXCLUSIVE``: readers go on), so another league's replay cannot write rows into the table
being replaced; it waits and then writes into the new one.
"""

from __future__ import annotations

from collections.abc import Callable

from django.db import connection

#: Suffix of the table (and, on PostgreSQL, its constraints and indexes) while it is built.
NEXT = "__next"


def swap_pays(table: str, config_id: int) -> bool:
    """True when rebuilding ``table`` beats deleting ``config_id``'s rows from it.

    Counts the configuration's rows (an index range), then at most as many of the others.
    """
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            return not _others_exist(cursor, table, config_id)
        cursor.execute(f"SELECT count(*) FROM {table} WHERE config_id = %s", [config_id])
        replaced = cursor.fetchone()[0]
        cursor.execute(
            f"SELECT count(*) FROM (SELECT 1 FROM {table} WHERE config_id <> %s LIMIT %s) t",
            [config_id, replaced + 1],
        )
        others = cursor.fetchone()[0]
    return others <= replaced


def _others_exist(cursor, table: str, config_id: int) -> bool:
    cursor.execute(
        f'SELECT EXISTS (SELECT 1 FROM "{table}" WHERE config_id < %s) '
        f'OR EXISTS (SELECT 1 FROM "{table}" WHERE config_id > %s)',
        [config_id, config_id],
    )
    return bool(cursor.fetchone()[0])


def swap_table(table: str, config_id: int, write: Callable[[str], None]) -> None:
    """Replace ``table`` by a copy without ``config_id``'s rows plus what ``write`` writes.

    ``write(name)`` inserts the configuration's new rows into the table called ``name``.
    Must run inside a transaction.
    """
    if connection.vendor == "postgresql":
        _swap_postgres(table, config_id, write)
    else:
        _swap_sqlite(table, config_id, write)


def _swap_sqlite(table: str, config_id: int, write: Callable[[str], None]) -> None:
    new = f"{table}{NEXT}"
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT type, sql FROM sqlite_master WHERE tbl_name = %s AND sql IS NOT NULL",
            [table],
        )
        schema = cursor.fetchall()
        create = next(sql for kind, sql in schema if kind == "table")
        indexes = [sql for kind, sql in schema if kind == "index"]
        cursor.execute(f'DROP TABLE IF EXISTS "{new}"')
        cursor.execute(create.replace(f'"{table}"', f'"{new}"', 1))
        # Same definition, same column order: the other configurations' rows as they are.
        if _others_exist(cursor, table, config_id):
            cursor.execute(
                f'INSERT INTO "{new}" SELECT * FROM "{table}" WHERE config_id <> %s', [config_id]
            )
    write(new)
    with connection.cursor() as cursor:
        cursor.execute(f'DROP TABLE "{table}"')
        cursor.execute(f'ALTER TABLE "{new}" RENAME TO "{table}"')
        # The indexes went with the old table; built once over the full table (a sort),
        # not row by row. The UNIQUE constraint is part of the table and was filled in order.
        for sql in indexes:
            cursor.execute(sql)


def _swap_postgres(table: str, config_id: int, write: Callable[[str], None]) -> None:
    new = f"{table}{NEXT}"
    with connection.cursor() as cursor:
        cursor.execute(f'LOCK TABLE "{table}" IN SHARE ROW EXCLUSIVE MODE')
        cursor.execute(
            "SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint "
            "WHERE conrelid = %s::regclass AND contype IN ('p', 'u') ORDER BY conname",
            [table],
        )
        constraints = cursor.fetchall()
        cursor.execute(
            "SELECT i.indexname, i.indexdef FROM pg_indexes i WHERE i.tablename = %s "
            "AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname "
            "AND c.conrelid = %s::regclass) ORDER BY i.indexname",
            [table, table],
        )
        indexes = cursor.fetchall()
        cursor.execute(f'DROP TABLE IF EXISTS "{new}"')
        # CHECK constraints come with the definition (their names are the table's own): each
        # row is checked as it arrives, not by a scan of the full table per constraint.
        cursor.execute(
            f'CREATE TABLE "{new}" (LIKE "{table}" INCLUDING DEFAULTS INCLUDING IDENTITY '
            "INCLUDING CONSTRAINTS)"
        )
        # (None, as swap_pays found: then the copy would only scan the table for nothing.)
        if _others_exist(cursor, table, config_id):
            cursor.execute(
                f'INSERT INTO "{new}" OVERRIDING SYSTEM VALUE SELECT * FROM "{table}" '
                "WHERE config_id <> %s",
                [config_id],
            )
        # The new table's identity sequence starts past the rows copied.
        cursor.execute(
            f"SELECT setval(pg_get_serial_sequence(%s, 'id'), "
            f'GREATEST((SELECT max(id) FROM "{new}"), 1), '
            f'(SELECT max(id) FROM "{new}") IS NOT NULL)',
            [new],
        )
    write(new)
    with connection.cursor() as cursor:
        # Constraints and indexes built over the full table under temporary names while the
        # old table still serves readers; renamed once it is gone.
        for name, definition in constraints:
            cursor.execute(f'ALTER TABLE "{new}" ADD CONSTRAINT "{name}{NEXT}" {definition}')
        for name, definition in indexes:
            # "CREATE [UNIQUE] INDEX name ON schema.table USING method (columns)"
            head = definition[: definition.index(" INDEX ")] + " INDEX"
            tail = definition[definition.index(" USING ") :]
            cursor.execute(f'{head} "{name}{NEXT}" ON "{new}"{tail}')
        cursor.execute("SELECT pg_get_serial_sequence(%s, 'id')", [table])
        (live_sequence,) = cursor.fetchone()
        cursor.execute(f'DROP TABLE "{table}"')
        cursor.execute(f'ALTER TABLE "{new}" RENAME TO "{table}"')
        for name, _definition in constraints:
            cursor.execute(f'ALTER TABLE "{table}" RENAME CONSTRAINT "{name}{NEXT}" TO "{name}"')
        for name, _definition in indexes:
            cursor.execute(f'ALTER INDEX "{name}{NEXT}" RENAME TO "{name}"')
        if live_sequence:
            # The old table's sequence went with it: the new one takes its name.
            cursor.execute("SELECT pg_get_serial_sequence(%s, 'id')", [table])
            (sequence,) = cursor.fetchone()
            bare = live_sequence.rsplit(".", 1)[-1].strip('"')
            cursor.execute(f'ALTER SEQUENCE {sequence} RENAME TO "{bare}"')
