"""Small SQL helpers of the replay: a query's result as NumPy columns, a condition on many ids.

:func:`read_columns` returns each column of a query as one array. PostgreSQL sends one row of
``bytea`` columns (``string_agg`` of each value's binary form, as the snapshot's read does):
no Python object per value, and floats arrive as their exact IEEE bits. SQLite returns its
rows, turned into arrays. :func:`any_of` keeps a condition on thousands of ids to one
parameter (an array on PostgreSQL, a JSON array on SQLite) instead of a placeholder each.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from django.db import connection

#: A missing moment (NULL, or an infinite timestamp) in a "m" column: NumPy's NaT as int64.
NO_MOMENT = np.iinfo(np.int64).min

# Per kind: the PostgreSQL expression sending column {0} in binary, and the NumPy dtypes of
# the bytes received and of the result. (NO_MOMENT is quoted: the literal -9223372036854775808
# is the negation of a number too large for int8.)
_POSTGRES_KINDS: dict[str, tuple[str, str, str]] = {
    "i": ("int8send(({0})::int8)", ">i8", "int64"),
    "f": ("float8send(({0})::float8)", ">f8", "float64"),
    "m": (
        f"int8send(CASE WHEN isfinite({{0}}) THEN (EXTRACT(EPOCH FROM {{0}}) * 1000000)::int8 "
        f"ELSE '{NO_MOMENT}'::int8 END)",
        ">i8",
        "int64",
    ),
}


def read_columns(sql: str, params: Sequence[Any], kinds: str) -> tuple[np.ndarray, ...]:
    """The rows of ``sql`` as one array per column, in the rows' order.

    ``kinds`` has a letter per column: ``i`` integers (int64; no NULLs), ``f`` floats
    (float64, bit for bit; no NULLs), ``m`` moments (a timestamp column, as UTC
    microseconds int64; NULL as ``NO_MOMENT``).
    """
    if connection.vendor == "postgresql":
        return _read_postgres(sql, params, kinds)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    columns = list(zip(*rows, strict=True)) if rows else [()] * len(kinds)
    return tuple(_sqlite_array(values, kind) for values, kind in zip(columns, kinds, strict=True))


def _read_postgres(sql: str, params: Sequence[Any], kinds: str) -> tuple[np.ndarray, ...]:
    """One row of ``string_agg`` columns over ``sql``: every aggregate of the one query sees
    the rows in the same order, so the columns stay aligned."""
    names = [f"c{index}" for index in range(len(kinds))]
    aggregates = ", ".join(
        f"string_agg({_POSTGRES_KINDS[kind][0].format('q.' + name)}, '')"
        for name, kind in zip(names, kinds, strict=True)
    )
    # Imported here: an embedded (SQLite) process never loads the driver (40 ms of start-up).
    import psycopg

    connection.ensure_connection()
    # A cursor binding on the server, for a binary result: Django's client-side cursor gets
    # bytea as hex text, twice the bytes to send and to decode (15 s against 5 s for the
    # five columns of 10,000,000 matches). Same connection, same transaction.
    with psycopg.Cursor(connection.connection) as cursor:
        cursor.execute(
            f"SELECT {aggregates} FROM ({sql}) AS q({', '.join(names)})", params, binary=True
        )
        received = list(cursor.fetchone())
    columns = []
    for index, kind in enumerate(kinds):
        _send, wire, dtype = _POSTGRES_KINDS[kind]
        columns.append(np.frombuffer(received[index] or b"", dtype=wire).astype(dtype))
        # Each column's bytes go as soon as it is converted (80 MB a column at 10,000,000).
        received[index] = None
    return tuple(columns)


def _sqlite_array(values: Sequence[Any], kind: str) -> np.ndarray:
    if kind == "i":
        return np.array(values, dtype=np.int64)
    if kind == "f":
        return np.array(values, dtype=np.float64)
    # SQLite keeps moments as ISO text (UTC); NumPy parses them, NaT standing for NULL.
    texts = ["NaT" if value is None else value for value in values]
    return np.array(texts, dtype="datetime64[us]").astype(np.int64)


def any_of(column: str, ids: npt.NDArray[np.int64]) -> tuple[str, list[Any]]:
    """The condition "``column`` is one of ``ids``" and its one parameter.

    A list of thousands of placeholders costs more to build and parse than the query
    costs to run: PostgreSQL takes one array, SQLite one JSON array read by ``json_each``.
    """
    values = np.asarray(ids, dtype=np.int64).tolist()
    if connection.vendor == "postgresql":
        # The array's text form: psycopg quoting a list of Python ints one by one took 8 ms
        # for 3,000 ids.
        return f"{column} = ANY(%s::bigint[])", ["{" + ",".join(map(str, values)) + "}"]
    return f"{column} IN (SELECT value FROM json_each(%s))", [json.dumps(values)]
