"""SQLite: rebuilding the projection table beside the live one and renaming it in (the swap).

A full replay replaces every ``PlayerPeriod`` row of its configuration. Deleting them one by
one costs as much as writing them (every row leaves the table and each of its indexes). When
the configuration's rows are most of the table, it is cheaper to build the table anew beside
the live one: create an empty copy of its definition, copy the other configurations' rows
into it, write the new rows, build the indexes, then drop the live table and rename the new
one in its place. Everything happens in the caller's transaction (SQLite's DDL is
transactional), so readers see the old table until the commit and the new one after; a
process killed half-way leaves the old table exactly as it was. SQLite has one writer at a
time: the replay holds the write lock from its first write.

:func:`swap_pays` is the rule: swap when the rows of other configurations (the ones copied)
are no more than the rows replaced; a league among many keeps the delete path.

PostgreSQL keeps each configuration's history in a partition of its own and swaps only that
(``partitions.py``).
"""

from __future__ import annotations

from collections.abc import Callable

from django.db import connection

#: Suffix of the table while it is built.
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
