"""ORM queries compiled to SQL once, then run with new values: the hot paths' reads.

A result's replay and its recording run a few dozen small statements each. Building each
one's SQL from its queryset (resolving lookups and joins, compiling expressions) cost more
of the worker's CPU than running it: about half of a one-result replay on PostgreSQL
(docs/benchmarks.md, "Many clubs at 20 results a second"). A :class:`PreparedQuery` keeps the
query written with the ORM (the same lookups, joins and vendor differences) but builds it
once per database connection settings, with a placeholder integer in place of each
argument, and then only swaps the arguments into the compiled parameters.

Only integer arguments are taken (ids, sequence numbers, versions): for them the compiled
SQL does not depend on the value. A value of another type, or None, is refused rather than
compiled into a query it would not have built (``IS NULL`` for None, another shape for a
list). ``build`` must hand each argument to the ORM as it is: one it computes with (``seq +
1``) would be compiled as a constant. Rows come back as the ORM's ``values_list`` would give
them: the field converters (SQLite's datetimes, for instance) are applied.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from django.db import connections
from django.db.models import Model, QuerySet

M = TypeVar("M", bound=Model)

#: The placeholder of argument number k is ``_PLACEHOLDER_BASE + k``: inside a 32-bit
#: integer column's range (Django turns an out-of-range lookup into "no rows" and would not
#: compile it) and far from any id, sequence number or version a league reaches.
_PLACEHOLDER_BASE = 2_118_000_000


@dataclass(frozen=True)
class _Compiled:
    sql: str
    #: Per parameter: the argument's name, or None for a constant of the query itself.
    slots: tuple[str | None, ...]
    #: Per parameter: the integer type the backend wrapped it in (psycopg's ``Int4`` where
    #: PostgreSQL must be told a type), applied to the argument too.
    types: tuple[type, ...]
    constants: tuple[Any, ...]
    converters: tuple[tuple[int, tuple[Callable[..., Any], ...], Any], ...]


class PreparedQuery:
    """A query built by ``build(**arguments)`` (a values/values_list queryset, sliced or
    not), compiled once per database alias and run with integer arguments."""

    def __init__(self, build: Callable[..., QuerySet[Any, Any]], *, using: str = "default"):
        self._build = build
        self._names = tuple(inspect.signature(build).parameters)
        self._using = using
        self._compiled: dict[tuple[str, str], _Compiled] = {}

    def rows(self, **arguments: int) -> list[tuple[Any, ...]]:
        """Every row, as tuples of converted values."""
        connection = connections[self._using]
        compiled = self._compiled.get((connection.alias, connection.vendor))
        if compiled is None:
            compiled = self._compile(connection)
        if arguments.keys() != set(self._names):
            raise TypeError(f"expected arguments {self._names}, got {tuple(arguments)}")
        params = [
            constant if name is None else kind(_integer(name, arguments[name]))
            for name, constant, kind in zip(
                compiled.slots, compiled.constants, compiled.types, strict=True
            )
        ]
        with connection.cursor() as cursor:
            cursor.execute(compiled.sql, params)
            rows = cursor.fetchall()
        if not compiled.converters:
            return [tuple(row) for row in rows]
        converted = []
        for row in rows:
            values = list(row)
            for position, functions, expression in compiled.converters:
                value = values[position]
                for function in functions:
                    value = function(value, expression, connection)
                values[position] = value
            converted.append(tuple(values))
        return converted

    def first(self, **arguments: int) -> tuple[Any, ...] | None:
        """The first row (the query's own order and limit decide which), or None."""
        rows = self.rows(**arguments)
        return rows[0] if rows else None

    def value(self, **arguments: int) -> Any:
        """The first column of the first row, or None without rows."""
        row = self.first(**arguments)
        return None if row is None else row[0]

    def instances(self, model: type[M], *only: str, **arguments: int) -> list[M]:
        """The rows as ``model`` instances, for a query selecting :func:`model_fields`
        ``(model, *only)`` (the other fields deferred: read on access)."""
        alias = connections[self._using].alias
        names = model_fields(model, *only)
        return [model.from_db(alias, names, row) for row in self.rows(**arguments)]

    def exists(self, **arguments: int) -> bool:
        """Whether the query has a row."""
        return self.first(**arguments) is not None

    def _compile(self, connection: Any) -> _Compiled:
        placeholders = {name: _PLACEHOLDER_BASE + k for k, name in enumerate(self._names)}
        queryset = self._build(**placeholders)
        compiler = queryset.query.get_compiler(connection=connection)
        sql, params = compiler.as_sql()
        by_value = {value: name for name, value in placeholders.items()}
        slots = tuple(
            by_value.get(int(param))
            if isinstance(param, int) and not isinstance(param, bool)
            else None
            for param in params
        )
        missing = set(self._names) - set(slots)
        if missing:
            raise ValueError(f"arguments {sorted(missing)} do not reach the compiled query")
        fields = [selected[0] for selected in compiler.select[: compiler.col_count]]
        converters = tuple(
            (position, tuple(functions), expression)
            for position, (functions, expression) in compiler.get_converters(fields).items()
        )
        types = tuple(type(param) for param in params)
        compiled = _Compiled(sql, slots, types, tuple(params), converters)
        self._compiled[(connection.alias, connection.vendor)] = compiled
        return compiled


def model_fields(model: type[Model], *only: str) -> tuple[str, ...]:
    """The concrete columns of ``model`` by attribute name (``only`` those, when given), in
    the model's order: what a query read back by :meth:`PreparedQuery.instances` selects
    (``values_list(*model_fields(model))``). ``Model.from_db`` takes a subset's values in
    the model's order, whatever order its names are given in."""
    names = [field.attname for field in model._meta.concrete_fields]
    unknown = set(only) - set(names)
    if unknown:
        raise ValueError(f"{model.__name__} has no columns {sorted(unknown)}")
    return tuple(name for name in names if not only or name in only)


#: The largest value a database integer column holds (64 bits, signed).
MAX_ID = 2**63 - 1


def _integer(name: str, value: object) -> int:
    # bool is an int subclass but would be compiled as a boolean, not an id.
    if type(value) is not int:
        raise TypeError(f"argument {name!r} must be an int, not {type(value).__name__}")
    if not -MAX_ID - 1 <= value <= MAX_ID:
        # The ORM answers an exact lookup out of range with no rows; the compiled query
        # would hand the driver a number it cannot send (SQLite) or compare another way.
        raise ValueError(f"argument {name!r} is out of a database integer's range")
    return value
