"""Appending many match results at once: the event store's bulk path.

``league.event_store.append`` stores events one INSERT at a time, which is right for a
form or an API call but far too slow for a file of a million results. ``BulkAppender``
keeps the same guarantees with batches:

- it takes the league lock (``event_store.lock_league``) once and holds it for the whole
  transaction, so the new events get one contiguous range of ``seq`` numbers;
- each match, whatever its sides (``add_match``), is checked with the write services' own
  rules (``league.sides``, ``league.validation``: shape and format, players once and able
  to play, result, points against result, date, key);
- a one-vs-one result (two sides of one player, the storage's fast path) is stored in the
  columns the event store maps a ``MatchRecorded`` fact to (``store.COLUMNS_OF``), its row
  built straight from the checked values (no fact per row: a file has millions); a match of
  other sides, rare in a file, is stored at once with its participants; idempotency keys
  are looked up a batch at a time
  (``store.stored_facts_by_key``; a Bloom filter spares the lookup of keys certainly
  new): a key already stored with the same content (``Fact.content_key``, the fact built
  for the comparison) is skipped, with other content it is an error;
- registrations are collected and written per batch: their players with multi-row
  INSERTs through the driver (``_PlayerInsert``; slugs from ``player_names.FreeSlugs``,
  read once), their events with another, matches with one prepared multi-row INSERT per
  batch (see ``_PreparedInsert``), and the whole append is announced with one
  ``events_appended`` whose ``events`` streams the stored facts (``AppendedFacts``);
- a file's plain rows may come column by column (``add_plain_rows``: checked per distinct
  player, day and score, queued as a ``_Run`` of columns), and a batch in which no row needs
  a word of its own is built column by column (``_flush_plain``); a statement leaves out the
  columns that are NULL in every row of its kind (a match's, a registration's), and on
  SQLite the values every row of a batch shares are literals of the statement, bound once;
- used as a context manager, its writes run in a thread of their own
  (``background_writes``) while the caller reads and checks the next batch: the database
  works with the GIL released, so the two overlap on a machine of two cores (on
  PostgreSQL the batches also stream into one COPY); on SQLite new players' ids are taken
  from the table's sequence (the transaction holds the write lock), so no batch waits for
  an answer from the database.

Errors do not stop the run: they are collected with the caller's reference (a line
number) so that every bad row can be reported; the caller decides to roll back.
"""

from __future__ import annotations

import datetime as dt
import operator
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from decimal import Decimal
from itertools import chain, repeat
from typing import Any

from django.core.exceptions import ValidationError
from django.db import connections, models, router, transaction
from django.db.models.fields import NOT_PROVIDED
from django.utils import timezone

from league.control_characters import CONTROL_CHARACTER
from league.event_store import store as event_store
from league.event_store.background_writes import BackgroundWrites, copy, statements
from league.event_store.signals import events_appended
from league.event_store.vocabulary import (
    Fact,
    MatchRecorded,
    PlayerRegistered,
    SideMatchRecorded,
)
from league.models import Event, League, MatchParticipant, Player
from league.player_names import NAME_MAX, FreeSlugs, clean_name
from league.scores import ONE_VS_ONE_FIRST, points_margin
from league.sides import (
    NEUTRAL_WITH_SIDES,
    PAIR_FIELDS,
    SIDES_FIELD,
    check_each_once,
    check_format,
    first_side_words,
    places_of,
    places_of_score,
    score_of_places,
)
from league.validation import (
    IDEMPOTENCY_KEY_MAX,
    Errors,
    check_can_play,
    check_neutral_allowed,
    check_played_at,
    check_points_agree,
    check_recorder,
    clean_key,
    parse_played_at,
    parse_points,
    parse_score,
)

# Rows per INSERT statement batch.
BATCH_SIZE = 2000
# Rows per statement on SQLite (one VALUES list each; fewer when the connection's limit of
# parameters says so): a whole batch in one. The statements run in a thread of their own
# (``BackgroundWrites``), which takes the GIL back from the reading thread once per
# statement, waiting up to the interpreter's switch interval each time: with 500 rows a
# statement the import ran at 0.92x its floor, with 2,000 at 1.05x (docs/benchmarks.md).
MAX_ROWS_PER_STATEMENT = 2000

Observer = Callable[[Any, str, str], None]


@dataclass(frozen=True, slots=True)
class NewMatch:
    """A result to append. ``played`` is what ``record_match`` accepts as ``played_at``."""

    player_a: Player
    player_b: Player
    score_a: Decimal | str
    played: dt.date | dt.datetime
    points: str = ""
    note: str = ""
    idempotency_key: str | None = None
    ref: Any = None
    neutral: bool = False


@dataclass
class BulkAppendResult:
    """What a bulk append stored, skipped and refused (errors are (ref, message))."""

    appended: int = 0
    skipped: int = 0
    players_registered: list[str] = field(default_factory=list)
    first_seq: int | None = None
    last_seq: int | None = None
    errors: list[tuple[Any, str]] = field(default_factory=list)
    error_count: int = 0


class BulkAppendError(Exception):
    """Raised by ``append_matches_bulk`` when any result was refused (nothing stored)."""

    def __init__(self, result: BulkAppendResult) -> None:
        self.result = result
        lines = [f"{ref}: {message}" for ref, message in result.errors[:20]]
        super().__init__(f"{result.error_count} result(s) refused:\n" + "\n".join(lines))


def _messages(errors: Errors) -> str:
    """The messages of ``errors`` on one line, each after the field it is about (a file's
    column; a message about a side names the side itself)."""
    texts = []
    for name, items in errors.by_field.items():
        for item in items:
            text = " ".join(ValidationError(item).messages)
            texts.append(text if name in ("__all__", SIDES_FIELD) else f"{name}: {text}")
    return "; ".join(texts)


#: A checked result waiting for its batch, a plain tuple (one per row of a file):
#: (player_a, player_b, score_a, played_at, points, note, date_only, idempotency_key, ref,
#: neutral). The players may be new ones whose rows the batch creates first.
_Pending = tuple[Player, Player, Decimal, dt.datetime, str, str, bool, "str | None", Any, bool]
_PENDING_WIDTH = 10

#: The columns of ``store.COLUMNS_OF[MatchRecorded]`` that hold the same value in every row
#: the bulk path writes (it records new results, never a correction), left out of its rows.
_MATCH_FIXED: dict[str, Any] = {"replaces_id": None, "reason": ""}
#: The fact attributes a match's row is built from, in ``store.COLUMNS_OF`` order.
_MATCH_VALUES = tuple(f for c, f in event_store.COLUMNS_OF[MatchRecorded] if c not in _MATCH_FIXED)
#: The same for a batch of results without points or neutral ground (most batches of a
#: file): those columns too hold one value in every row.
_PLAIN_FIXED: dict[str, Any] = {**_MATCH_FIXED, "points": "", "neutral": False, "margin": None}
_PLAIN_VALUES = tuple(f for c, f in event_store.COLUMNS_OF[MatchRecorded] if c not in _PLAIN_FIXED)


def _identity(player: Player) -> Any:
    """What tells two players of a file apart: the id, or the object of a new player."""
    return player.id if player.id is not None else id(player)


def _has_errors(check: Callable[..., None], league: League, sizes: tuple[int, ...]) -> bool:
    found = Errors()
    check(league, sizes, found, SIDES_FIELD)
    return bool(found)


def _can_play(player: Player) -> bool:
    """Results may be recorded for ``player`` (active and not merged into another)."""
    return player.active and player.merged_into_id is None


def _fact_of(pending: _Pending) -> MatchRecorded:
    """The fact a pending result states (built only to compare it with a stored one)."""
    player_a, player_b, score, played_at, points, note = pending[:6]
    return MatchRecorded(
        player_a_id=player_a.pk,
        player_b_id=player_b.pk,
        score_a=score,
        played_at=played_at,
        points=points,
        note=note,
        neutral=pending[9],
    )


class AppendedFacts:
    """The facts of one bulk append, for ``events_appended`` receivers.

    Iterating streams them from the database in ``seq`` order without keeping them (a bulk
    append can hold a million events); ``len`` is their number.
    """

    def __init__(self, league: League, first_seq: int, last_seq: int) -> None:
        self.league, self.first_seq, self.last_seq = league, first_seq, last_seq

    def __len__(self) -> int:
        return self.last_seq - self.first_seq + 1

    def __iter__(self) -> Iterator[Fact]:
        rows = Event.objects.filter(
            league=self.league, seq__gte=self.first_seq, seq__lte=self.last_seq
        ).order_by("seq")
        named = rows.values_list(*event_store.FACT_COLUMNS, named=True)
        for row in named.iterator(chunk_size=2000):
            yield event_store.fact_of(row)


class _PreparedInsert:
    """One multi-row INSERT of events of one kind, with values prepared once.

    ``bulk_create`` builds a model instance and prepares every field of every row through
    the ORM, which costs more than the database's own work on a large import. The columns
    are those the event store maps the kind of fact to (``store.COLUMNS_OF``), plus ``seq``
    and the key, less those ``fixed`` gives one value for every row; the constant values
    (league, kind, recorder, the moment of recording, fields the kind leaves empty, the
    ``fixed`` ones) are taken from the model once through the ORM's own preparation, and
    those that are NULL are left out of the statement (the database stores NULL there all
    the same); per row only the values that change are read from the fact (one
    ``attrgetter`` call), or given in the mapping's order (``row_of_values``), and adapted
    (dates and decimals through a cache: a file repeats them).
    """

    def __init__(
        self,
        league: League,
        recorded_by: Any,
        kind: type[Fact],
        fixed: Mapping[str, Any] | None,
        writes: BackgroundWrites,
    ) -> None:
        self.connection = writes.connection
        self.writes = writes
        fixed = dict(fixed or {})
        template = Event(
            league=league,
            kind=kind.kind,
            recorded_at=timezone.now(),
            recorded_by=recorded_by,
            **fixed,
        )
        fields = [f for f in Event._meta.concrete_fields if not f.primary_key]
        by_attname = {f.attname: f for f in fields}
        mapping = [pair for pair in event_store.COLUMNS_OF[kind] if pair[0] not in fixed]
        #: Whether each row starts with its key after its seq (not when ``fixed`` gives it).
        self.keyed = "idempotency_key" not in fixed
        varying = ["seq", *(["idempotency_key"] if self.keyed else []), *(c for c, _ in mapping)]
        prepared = [
            (f, f.get_db_prep_save(f.pre_save(template, True), self.connection))
            for f in fields
            if f.attname not in varying
        ]
        # A column whose value is NULL for every row is left out of the statement: the
        # database stores NULL there all the same (no column of the table has a database
        # default), and a row of 17 values costs the database half what one of 34 does.
        constant = [
            (f, value)
            for f, value in prepared
            if value is not None or not f.null or f.db_default is not NOT_PROVIDED
        ]
        ordered = [by_attname[name] for name in varying] + [f for f, _value in constant]
        self.constants = tuple(value for _f, value in constant)
        self.names = tuple(name for _column, name in mapping)
        self.values_of = operator.attrgetter(*self.names)
        # (position in the row, field, cache of adapted values) of the columns to adapt.
        self.adapted = [
            (position, by_attname[column], {})
            for position, column in enumerate(varying)
            if isinstance(by_attname[column], models.DateTimeField | models.DecimalField)
        ]
        table = self.connection.ops.quote_name(Event._meta.db_table)
        columns = ", ".join(self.connection.ops.quote_name(f.column) for f in ordered)
        marks = ", ".join(["%s"] * len(ordered))
        self.sql = f"INSERT INTO {table} ({columns}) VALUES ({marks})"
        # On SQLite, many rows per statement: one VALUES list of up to ``rows_per_statement``
        # rows (within the connection's limit of parameters), each size prepared once.
        self.width = len(ordered)
        self.rows_per_statement = 1
        #: The constants each row carries as bound values (on SQLite, none when they can all
        #: be written into the statement as literals).
        self.row_constants = self.constants
        self._literals = ""
        if self.connection.vendor == "sqlite":
            self.connection.ensure_connection()
            literals = _sqlite_literals(self.constants)
            if literals is not None:
                # Binding the same values again for every row cost more than the floor's
                # whole row; the stored values are the same (SQLite stores a literal '' or 0
                # as it stores a bound "" or 0).
                self.row_constants, self._literals = (), literals
            bound = self.width - len(self.constants) + len(self.row_constants)
            self.rows_per_statement = _rows_per_statement(self.connection, bound)
        self._statements: dict[int, str] = {}

    def row(self, seq: int, key: str | None, fact: Fact) -> list[Any]:
        return self.row_of_values(seq, key, self.values_of(fact))

    def row_of_values(self, seq: int, key: str | None, values: tuple[Any, ...]) -> list[Any]:
        """The row of a fact whose attributes ``self.names`` have ``values``."""
        if self.keyed:
            row = [seq, key, *values, *self.row_constants]
        else:
            row = [seq, *values, *self.row_constants]
        for position, column, cache in self.adapted:
            value = row[position]
            if value is not None:
                prepared = cache.get(value)
                if prepared is None:
                    if len(cache) > 100_000:
                        cache.clear()
                    prepared = cache[value] = column.get_db_prep_save(value, self.connection)
                row[position] = prepared
        return row

    def rows_of_columns(
        self, first_seq: int, keys: Sequence[str | None], columns: Sequence[Sequence[Any]]
    ) -> list[tuple[Any, ...]]:
        """The rows ``row_of_values`` would build for ``len(keys)`` facts given column by
        column (``columns``: one per name of ``self.names``), seq numbers from ``first_seq``:
        each distinct value of an adapted column is adapted once, and the rows are zipped."""
        count = len(keys)
        varying: list[Any] = [range(first_seq, first_seq + count), keys, *columns]
        if not self.keyed:
            del varying[1]
        for position, column, cache in self.adapted:
            values = varying[position]
            if len(cache) > 100_000:
                cache.clear()
            for value in set(values).difference(cache):
                if value is not None:
                    cache[value] = column.get_db_prep_save(value, self.connection)
            if None in values:
                varying[position] = [None if v is None else cache[v] for v in values]
            else:
                varying[position] = list(map(cache.__getitem__, values))
        constants = [repeat(value, count) for value in self.row_constants]
        return list(zip(*varying, *constants, strict=True))

    def execute(self, rows: Sequence[Sequence[Any]]) -> None:
        if not rows:
            return
        per = self.rows_per_statement
        # Through the driver's own cursor, in the same transaction (``BackgroundWrites``: in
        # a thread of its own when the appender is used as a context manager).
        if self.connection.vendor == "postgresql":
            # COPY: the rows stream in one statement (the append-only trigger and the
            # constraints still apply to each); executemany sent one INSERT per row.
            head = self.sql.partition(" VALUES ")[0].replace("INSERT INTO", "COPY", 1)
            self.writes.submit(copy(f"{head} FROM STDIN", rows))
            return
        # SQLite: Django's wrapper rewrites the placeholders of every (long) statement and,
        # with DEBUG on (the embedded default), formats every parameter into its query log.
        self.writes.submit(
            statements(
                [
                    (self._statement(len(chunk)), list(chain.from_iterable(chunk)))
                    for chunk in (rows[start : start + per] for start in range(0, len(rows), per))
                ]
            )
        )

    def _statement(self, count: int) -> str:
        """The INSERT of ``count`` rows (SQLite's placeholders)."""
        sql = self._statements.get(count)
        if sql is None:
            marks = ["?"] * (self.width - len(self.constants) + len(self.row_constants))
            row = "(" + ", ".join(marks) + self._literals + ")"
            sql = self._statements[count] = self.sql.partition(" VALUES ")[0] + (
                " VALUES " + ", ".join([row] * count)
            )
        return sql


def _rows_per_statement(connection: Any, bound: int) -> int:
    """SQLite: rows of ``bound`` parameters each in one statement, up to
    ``MAX_ROWS_PER_STATEMENT`` and within the connection's limit of parameters."""
    limit = connection.connection.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER)
    return max(1, min(MAX_ROWS_PER_STATEMENT, limit // bound))


def _sqlite_literals(values: Sequence[Any]) -> str | None:
    """``values`` as SQLite literals, each after ", " (None when one is of a type not
    written so: it is then bound like the others)."""
    parts = []
    for value in values:
        if value is None:
            parts.append("NULL")
        elif isinstance(value, bool):
            parts.append("1" if value else "0")
        elif type(value) is int:
            parts.append(str(value))
        elif type(value) is str and "\x00" not in value:
            parts.append("'" + value.replace("'", "''") + "'")
        else:
            return None
    return "".join(", " + part for part in parts)


class _PlayerInsert:
    """New players of one league inserted through the driver, each given its id.

    ``bulk_create`` prepares every field of every player through the ORM; a file's new
    players differ only in name and slug, so the other columns (league, status, the moment
    of creation, empty identifiers) are prepared once from a template. No signal is sent, as
    with ``bulk_create``.

    On SQLite the ids are taken here, one after the other from the largest the table has
    used (its AUTOINCREMENT sequence, read again whenever another query was sent on the
    connection): the appender's transaction holds the database's only write lock from its
    start, so no other connection can take one meanwhile, and the rows then go to
    ``BackgroundWrites`` like the events (the batch's results need no answer from the
    database before they are built): multi-row INSERTs of up to
    ``MAX_ROWS_PER_STATEMENT`` players (within the limit of parameters), after which SQLite
    moves the sequence on past the largest id inserted. On PostgreSQL one COPY writes them
    and their ids are read back by slug, once the writes submitted before are done.
    """

    VARYING = ("display_name", "slug")

    def __init__(self, league: League, writes: BackgroundWrites) -> None:
        self.connection = writes.connection
        self.writes = writes
        self.connection.ensure_connection()
        template = Player(league=league, display_name="", slug="")
        fields = [f for f in Player._meta.concrete_fields if not f.primary_key]
        constant = [f for f in fields if f.attname not in self.VARYING]
        self.constants = tuple(
            f.get_db_prep_save(f.pre_save(template, True), self.connection) for f in constant
        )
        by_attname = {f.attname: f for f in fields}
        ordered = [by_attname[name] for name in self.VARYING] + constant
        quote = self.connection.ops.quote_name
        self.table = quote(Player._meta.db_table)
        self.pk_column = quote(Player._meta.pk.column)
        self.columns = ", ".join(quote(f.column) for f in ordered)
        #: SQLite: the id the next new player takes, and ``writes.queries`` when it was read.
        self._next_id: int | None = None
        self._read_at_query = -1

    def execute(self, players: list[Player]) -> None:
        """Insert ``players`` (new, unsaved) and set each one's id."""
        if self.connection.vendor == "postgresql":
            # The ids are read back: after the writes submitted before.
            self.writes.drain()
            raw = self.connection.connection.cursor()
            try:
                with self.connection.wrap_database_errors:
                    self._copy(raw, players)
            finally:
                raw.close()
            return
        first = self._next_id
        if (
            first is None
            or not self.writes.in_background
            or self.writes.queries != self._read_at_query
        ):
            # Read again when another query may have been sent on the connection meanwhile
            # (it may have created a player; it waited for this appender's writes, so the
            # table has them): without the thread, queries are not counted, so every time.
            first = self._first_free_id()
            self._read_at_query = self.writes.queries
        self._next_id = first + len(players)
        constants, alias = self.constants, self.connection.alias
        for pk, player in enumerate(players, start=first):
            player.pk = pk
            player._state.adding = False
            player._state.db = alias
        width = len(constants) + 3
        row_marks = "(" + ", ".join(["?"] * width) + ")"
        per = _rows_per_statement(self.connection, width)
        pairs = []
        for start in range(0, len(players), per):
            chunk = players[start : start + per]
            pairs.append(
                (
                    f"INSERT INTO {self.table} ({self.pk_column}, {self.columns}) VALUES "
                    + ", ".join([row_marks] * len(chunk)),
                    list(
                        chain.from_iterable(
                            (player.pk, player.display_name, player.slug, *constants)
                            for player in chunk
                        )
                    ),
                )
            )
        self.writes.submit(statements(pairs))

    def _first_free_id(self) -> int:
        """SQLite: the id AUTOINCREMENT would give the next player (after the largest of its
        sequence and of the table's ids)."""
        with self.connection.cursor() as cursor:
            cursor.execute(
                "SELECT max("
                "coalesce((SELECT seq FROM sqlite_sequence WHERE name = %s), 0), "
                f"coalesce((SELECT max({self.pk_column}) FROM {self.table}), 0))",
                [Player._meta.db_table],
            )
            return int(cursor.fetchone()[0]) + 1

    def _copy(self, raw: Any, players: list[Player]) -> None:
        """PostgreSQL: one COPY, then the ids by slug (unique in the league). A statement of
        thousands of placeholders is parsed again by the driver each time it is sent."""
        with raw.copy(f"COPY {self.table} ({self.columns}) FROM STDIN") as stream:
            for player in players:
                stream.write_row((player.display_name, player.slug, *self.constants))
        by_slug = {player.slug: player for player in players}
        raw.execute(
            f"SELECT slug, id FROM {self.table} WHERE league_id = %s AND slug = ANY(%s)",
            [players[0].league_id, list(by_slug)],
        )
        found = raw.fetchall()
        if len(found) != len(players):
            raise RuntimeError(f"{len(players)} players written, {len(found)} read back")
        for slug, pk in found:
            player = by_slug[slug]
            player.pk = pk
            player._state.adding = False
            player._state.db = self.connection.alias


#: The moment and the "date only" flag of a checked ``played`` value.
_FIRST, _SECOND = operator.itemgetter(0), operator.itemgetter(1)


class _Run:
    """Consecutive results queued column by column (``add_plain_rows``): one list per item
    of ``_Pending``, in its order."""

    __slots__ = ("columns",)

    def __init__(self, columns: list[list[Any]]) -> None:
        self.columns = columns


def _rows_of(pending: Sequence[_Pending | _Run]) -> Iterator[_Pending]:
    """The queued results one by one, in order."""
    for item in pending:
        if type(item) is _Run:
            yield from zip(*item.columns, strict=True)  # type: ignore[misc]
        else:
            yield item  # type: ignore[misc]


def _columns_of(pending: Sequence[_Pending | _Run]) -> list[Sequence[Any]]:
    """The queued results column by column (one list per item of ``_Pending``)."""
    if len(pending) == 1 and type(pending[0]) is _Run:
        return pending[0].columns
    columns: list[list[Any]] = [[] for _ in range(_PENDING_WIDTH)]
    for item in pending:
        if type(item) is _Run:
            for column, values in zip(columns, item.columns, strict=True):
                column.extend(values)
        else:
            for column, value in zip(columns, item, strict=True):  # type: ignore[call-overload]
                column.append(value)
    return columns  # type: ignore[return-value]


class _Memo:
    """A pure one-argument function with its answers remembered (at most ``LIMIT`` of them).

    Keyed by (type, value): True == 1 and hashes alike but is not the same input (only 1 is
    a score, and each is named in its own error message). An unhashable value is simply
    computed again each time.
    """

    LIMIT = 100_000

    def __init__(self, compute: Callable[[Any], Any]) -> None:
        self.compute = compute
        self.answers: dict[tuple[type, Any], Any] = {}

    def __call__(self, value: Any) -> Any:
        key = (type(value), value)
        try:
            return self.answers[key]
        except KeyError:
            pass
        except TypeError:
            return self.compute(value)
        if len(self.answers) >= self.LIMIT:
            self.answers.clear()
        answer = self.answers[key] = self.compute(value)
        return answer


class _KeyFilter:
    """A Bloom filter of the idempotency keys the league may hold.

    Looking every key up in the database costs more than inserting the row, and on a large
    import almost every key is new. The filter answers "certainly not stored" for most of
    them; only the others are looked up. A false "maybe" costs one lookup, never a wrong
    answer, but a lookup waits for the batches still being written (``BackgroundWrites``),
    so they are kept rare: 16 MiB with two probes, about one false "maybe" in 450,000 keys
    at 100,000 keys held and one in 4,600 at a million (2 MiB gave one in 80 at a million:
    nearly every batch of a large file waited).
    """

    PROBE_BITS = 27
    BITS = 1 << PROBE_BITS
    MASK = BITS - 1

    def __init__(self) -> None:
        self.bits = bytearray(self.BITS // 8)

    def add(self, key: str) -> None:
        h = hash(key)
        i, j = h & self.MASK, (h >> self.PROBE_BITS) & self.MASK
        self.bits[i >> 3] |= 1 << (i & 7)
        self.bits[j >> 3] |= 1 << (j & 7)

    def may_contain(self, key: str) -> bool:
        h = hash(key)
        i, j = h & self.MASK, (h >> self.PROBE_BITS) & self.MASK
        return bool(self.bits[i >> 3] & (1 << (i & 7)) and self.bits[j >> 3] & (1 << (j & 7)))


class BulkAppender:
    """Appends results to one league in batches, inside the caller's transaction.

    Use inside ``transaction.atomic()``; call ``add`` for each result, then ``close``.
    ``observer(ref, outcome, message)`` is told each result's outcome ("recorded",
    "skipped" or "error") as batches are built.

    Used as a context manager (``with BulkAppender(...) as appender:``, inside the
    transaction), its batches are written by a thread of its own while the caller reads
    and checks the next ones (``background_writes``); the block is left with every batch
    written, or none more when it raised. Without it, each batch is written at once.
    """

    def __init__(
        self,
        league: League,
        *,
        recorded_by: Any = None,
        batch_size: int = BATCH_SIZE,
        max_errors_kept: int = 1000,
        observer: Observer | None = None,
    ) -> None:
        errors = Errors()
        check_recorder(league, recorded_by, errors)
        errors.raise_if_any()
        event_store.lock_league(league)
        self.league = league
        self._league_id = league.id
        self.recorded_by = recorded_by
        self._writes = BackgroundWrites(connections[router.db_for_write(Event)])
        self._running: AbstractContextManager[BackgroundWrites] | None = None
        self.batch_size = batch_size
        self.max_errors_kept = max_errors_kept
        self.observer = observer
        self.result = BulkAppendResult()
        self._next_seq = event_store.next_seq(league)
        self._pending: list[_Pending | _Run] = []
        #: How many results ``_pending`` holds.
        self._queued = 0
        self._insert: _PreparedInsert | None = None
        self._plain_insert: _PreparedInsert | None = None
        self._registrations: list[tuple[int, Player]] = []
        self._slugs: FreeSlugs | None = None
        self._register_insert: _PreparedInsert | None = None
        self._player_insert: _PlayerInsert | None = None
        self._closed = False
        # The same played value or score is checked once per import (the checks are pure
        # functions of the value, the league and the moment of the import).
        self._score = _Memo(self._parse_score)
        self._played_at = _Memo(self._parse_played_at)
        self._check_when = _Memo(self._check_played_at)
        #: ``add_plain``'s answers: players (by object) that fit, checked scores and days.
        self._fits: dict[int, Player] = {}
        self._plain_scores: dict[Decimal, tuple[Decimal | None, str]] = {}
        self._plain_days: dict[dt.date, tuple[Any, str]] = {}
        #: The answers of ``_check_when`` by (moment, date only), for ``flush``'s loop.
        self._when_errors: dict[tuple[dt.datetime, bool], str] = {}
        self._points = _Memo(self._parse_points)
        self._keys = _KeyFilter()
        self._shapes: dict[tuple[int, ...], bool] = {}
        stored_keys = Event.objects.filter(league=league, idempotency_key__isnull=False)
        for key in stored_keys.values_list("idempotency_key", flat=True).iterator(10_000):
            self._keys.add(key)

    def __enter__(self) -> BulkAppender:
        self._running = self._writes.running()
        self._running.__enter__()
        return self

    def __exit__(self, *raised: Any) -> None:
        running, self._running = self._running, None
        if running is not None:
            running.__exit__(*raised)

    # --- players -----------------------------------------------------------------------
    def register_player(self, display_name: str) -> Player:
        """A new player, and its ``player_registered`` event (no idempotency key), queued.

        The player's row is created with the next batch (one insert for all the
        batch's new players, before its results): until then it has no id, and results
        naming it wait in the same batch.
        """
        name = clean_name(display_name)
        if not name or len(name) > NAME_MAX:
            raise ValueError(f"A player name must have 1 to {NAME_MAX} characters: {name!r}.")
        if self._slugs is None:
            self._slugs = FreeSlugs(self.league)
        player = Player(league=self.league, display_name=name, slug=self._slugs.take(name))
        self._registrations.append((self._take_seq(), player))
        self.result.players_registered.append(name)
        return player

    # --- matches -----------------------------------------------------------------------
    def add(self, match: NewMatch) -> None:
        """Check one one-vs-one result with the services' rules and queue it."""
        self.add_match(
            ((match.player_a,), (match.player_b,)),
            match.score_a,
            None,
            match.played,
            match.points,
            match.note,
            match.idempotency_key,
            match.ref,
            match.neutral,
            PAIR_FIELDS,
        )

    def add_match(
        self,
        sides: Sequence[Sequence[Player]],
        score_a: Decimal | str | None,
        places: Any,
        played: dt.date | dt.datetime,
        points: str = "",
        note: str = "",
        idempotency_key: str | None = None,
        ref: Any = None,
        neutral: bool = False,
        fields: tuple[str, ...] | None = None,
    ) -> None:
        """Check one match of any sides with ``record_match``'s rules and store it.

        ``fields`` names the field of each side in messages (``player_a``/``player_b``),
        else ``sides``. Two sides of one player each are queued for the next batch (the
        storage's fast path: a file is mostly them); other shapes are rare in a file and
        stored one at a time, after the queued batch so that the file's order is the order
        of ``seq``. The rules are ``league.sides``' and ``league.validation``'s own; only
        their answers for a value seen before are remembered (a file repeats its days,
        scores and shapes).
        """
        if (
            places is None
            and not neutral
            and not points
            and len(sides) == 2
            and len(sides[0]) == 1
            and len(sides[1]) == 1
            and self.add_plain(
                sides[0][0], sides[1][0], score_a, played, note, idempotency_key, ref
            )
        ):
            return
        errors = Errors()
        league_id = self._league_id
        if len(sides) == 2 and len(sides[0]) == 1 and len(sides[1]) == 1:
            # The common shape, told without building lists (a file has millions of them).
            sizes: tuple[int, ...] = (1, 1)
            a, b = sides[0][0], sides[1][0]
            foreign = a.league_id != league_id or b.league_id != league_id
            # A new player has no id until its batch is written: it is told apart as an object.
            twice = a is b or (a.id is not None and a.id == b.id)
        else:
            sizes = tuple(map(len, sides))
            players = [player for side in sides for player in side]
            foreign = any(player.league_id != league_id for player in players)
            twice = len({_identity(player) for player in players}) != len(players)
        if foreign:
            for index, side in enumerate(sides):
                for player in side:
                    if player.league_id != league_id:
                        errors.add(
                            SIDES_FIELD if fields is None else fields[index],
                            "%(player)s is a player of another league.",
                            "other_league",
                            player=player.display_name,
                        )
        if twice:
            check_each_once(sides, errors, fields, _identity)
        if not (self._shapes.get(sizes) or self._shape_ok(sizes)):
            check_format(self.league, sizes, errors, SIDES_FIELD if fields is None else "__all__")
        one_vs_one = sizes == (1, 1)
        first = ONE_VS_ONE_FIRST if one_vs_one else first_side_words(sizes)
        score_error = ""
        if len(sizes) == 2 and places is None and score_a is not None and score_a != "":
            score, score_error = self._score(score_a)
        else:
            stored_places = places_of(len(sizes), score_a, places, errors, first)
            score = None
            if stored_places is not None and len(stored_places) == 2:
                score = score_of_places(stored_places)
        when, when_error = self._played_at(played)
        points, points_error = self._points(points)
        key = clean_key(idempotency_key, errors)
        if points and score is not None and not points_error:
            check_points_agree(score, points, errors, first)
        if neutral and not one_vs_one:
            errors.add("neutral", NEUTRAL_WITH_SIDES, "neutral_with_sides")
        elif neutral:
            check_neutral_allowed(self.league, neutral, errors)
        if errors or score_error or when_error or points_error or (score is None and one_vs_one):
            messages = (score_error, when_error, points_error, _messages(errors))
            self._refuse(ref, "; ".join(m for m in messages if m))
            return
        played_at, date_only = when  # type: ignore[misc]
        if not one_vs_one:
            if score is not None:
                stored_places = places_of_score(score)
            self._store_one(sides, stored_places, played_at, date_only, points, note, key, ref)
            return
        self._pending.append(
            (
                sides[0][0],
                sides[1][0],
                score,
                played_at,
                points,
                note.strip(),
                date_only,
                key,
                ref,
                neutral,
            )  # type: ignore[arg-type]
        )
        self._queued += 1
        if self._queued >= self.batch_size:
            self.flush()

    def add_plain(
        self,
        a: Player,
        b: Player,
        score_a: Decimal | str | None,
        played: dt.date | dt.datetime,
        note: str,
        idempotency_key: str | None,
        ref: Any,
    ) -> bool:
        """Queue a one-vs-one result without points or neutral ground that passes every
        rule of ``add_match``, and say so; False (nothing done) for any other, which the
        caller then gives to ``add_match`` for its messages. Most rows of a file are such a
        result: this path builds no error collector for them, and keeps the answers for
        each player, score and day it has seen."""
        fits = self._fits
        if (
            (fits.get(id(a)) is not a and not self._fit(a))
            or (fits.get(id(b)) is not b and not self._fit(b))
            or a is b
            or (a.id is not None and a.id == b.id)
        ):
            return False
        # A Decimal or a day is looked up by its value (no other type equals one of them);
        # anything else goes through the memo that tells True from 1.
        checked = self._plain_scores.get(score_a) if type(score_a) is Decimal else None
        if checked is None:
            if score_a is None or score_a == "":
                return False
            checked = self._score(score_a)
        score, score_error = checked
        when_checked = self._plain_days.get(played) if type(played) is dt.date else None
        if when_checked is None:
            when_checked = self._played_at(played)
            if type(played) is dt.date:
                self._plain_days[played] = when_checked
        when, when_error = when_checked
        if score is None or score_error or when_error:
            return False
        if type(score_a) is Decimal:
            self._plain_scores[score_a] = checked
        key = idempotency_key
        if key is not None:
            # ``clean_key``'s rules, answered without its error collector.
            key = str(key).strip() or None
            if key is not None and (
                len(key) > IDEMPOTENCY_KEY_MAX or CONTROL_CHARACTER.search(key) is not None
            ):
                return False
        self._pending.append((a, b, score, when[0], "", note.strip(), when[1], key, ref, False))  # type: ignore[index]
        self._queued += 1
        if self._queued >= self.batch_size:
            self.flush()
        return True

    def add_plain_rows(
        self,
        players_a: Sequence[Player],
        players_b: Sequence[Player],
        scores: Sequence[Decimal],
        played: Sequence[dt.date | dt.datetime],
        notes: Sequence[str],
        keys: Sequence[str],
        refs: Sequence[Any],
    ) -> int:
        """``add_plain`` for consecutive rows given column by column (``keys``: "" for none),
        the same checks and the same queue: returns how many rows, from the first, were
        queued. The row after them (if any) did not pass; the caller gives it to
        ``add_match`` for its messages and goes on after it. Each distinct score, day and
        player is checked once for the whole run, and the rows are queued column by column
        (``_Run``): no Python runs per row but to find the first refused one.
        """
        count = len(players_a)
        if not count:
            return 0
        # Where the first row with a score, a day or a key ``add_plain`` would not take is:
        # the rows before it are queued here.
        checked_scores = self._plain_scores
        for score in set(scores).difference(checked_scores):
            if type(score) is not Decimal:
                count = min(count, scores.index(score))
                continue
            checked_scores[score] = self._score(score)
        days = {}
        for day in set(played):
            if type(day) is dt.date:
                when_checked = self._plain_days.get(day)
                if when_checked is None:
                    when_checked = self._plain_days[day] = self._played_at(day)
            else:
                when_checked = self._played_at(day)
            days[day] = when_checked
        # The first row with a day or a score the checks refuse: the rows before it go on.
        refused_days = {day for day, (when, error) in days.items() if error or when is None}
        refused_scores = {
            score
            for score in set(scores[:count])
            if (checked := checked_scores.get(score)) is None or checked[0] is None or checked[1]
        }
        for refused, values in ((refused_days, played), (refused_scores, scores)):
            if refused and not refused.isdisjoint(values[:count]):
                count = next(i for i in range(count) if values[i] in refused)
        keys = list(map(str.strip, keys[:count]))
        if keys and (
            max(map(len, keys)) > IDEMPOTENCY_KEY_MAX
            or CONTROL_CHARACTER.search("".join(keys)) is not None
        ):
            count = next(
                index
                for index, key in enumerate(keys)
                if len(key) > IDEMPOTENCY_KEY_MAX or CONTROL_CHARACTER.search(key) is not None
            )
        count = min(count, self._first_unfit(players_a[:count], players_b[:count]))
        if not count:
            return 0
        moments = {day: when for day, (when, _error) in days.items() if when is not None}
        whens = list(map(moments.__getitem__, played[:count]))
        score_of = {score: checked_scores[score][0] for score in set(scores[:count])}
        columns = (
            list(players_a[:count]),
            list(players_b[:count]),
            list(map(score_of.__getitem__, scores[:count])),
            list(map(_FIRST, whens)),
            [""] * count,
            list(map(str.strip, notes[:count])),
            list(map(_SECOND, whens)),
            [key or None for key in keys[:count]],
            list(refs[:count]),
            [False] * count,
        )
        # Queued a batch at a time, as one by one: a batch is written when it is full.
        start = 0
        while start < count:
            stop = min(count, start + self.batch_size - self._queued)
            self._pending.append(_Run([column[start:stop] for column in columns]))
            self._queued += stop - start
            start = stop
            if self._queued >= self.batch_size:
                self.flush()
        return count

    def _first_unfit(self, players_a: Sequence[Player], players_b: Sequence[Player]) -> int:
        """The index of the first pair of ``players_a`` and ``players_b`` that ``add_plain``
        would not take (a player that does not ``_fit``, or the same player twice), else
        their number. Each distinct player is looked at once."""
        count = len(players_a)
        fits = self._fits
        distinct = {id(player): player for player in chain(players_a, players_b)}
        unfit = {
            key
            for key, player in distinct.items()
            if fits.get(key) is not player and not self._fit(player)
        }
        if unfit:
            count = next(
                i for i in range(count) if id(players_a[i]) in unfit or id(players_b[i]) in unfit
            )
        if any(map(operator.is_, players_a[:count], players_b[:count])):
            count = list(map(operator.is_, players_a[:count], players_b[:count])).index(True)
        # Two objects of one stored player (a new player has no id yet: never the same).
        get_id = operator.attrgetter("id")
        equal = list(
            map(operator.eq, map(get_id, players_a[:count]), map(get_id, players_b[:count]))
        )
        index = -1
        while True:
            try:
                index = equal.index(True, index + 1)
            except ValueError:
                return count
            if players_a[index].id is not None:
                return index

    def _fit(self, player: Player) -> bool:
        """Whether ``player`` may be in a one-vs-one result of this league as far as
        ``add_match`` looks before its batch (a player of the league, in a format of one
        player a side); remembered for the object when so."""
        if player.league_id != self._league_id or not (
            self._shapes.get((1, 1)) or self._shape_ok((1, 1))
        ):
            return False
        if len(self._fits) > _Memo.LIMIT:
            self._fits.clear()
        self._fits[id(player)] = player
        return True

    def _shape_ok(self, sizes: tuple[int, ...]) -> bool:
        """Whether the league accepts a match of sides of ``sizes`` (``check_format``)."""
        ok = self._shapes.get(sizes)
        if ok is None:
            ok = self._shapes[sizes] = not _has_errors(check_format, self.league, sizes)
        return ok

    def _store_one(
        self,
        sides: Sequence[Sequence[Player]],
        places: tuple[int, ...],
        played_at: dt.datetime,
        date_only: bool,
        points: str,
        note: str,
        key: str | None,
        ref: Any,
    ) -> None:
        """Store one checked match with sides at once (after the queued batch)."""
        self.flush()
        fact = SideMatchRecorded(
            sides=tuple(tuple(player.pk for player in side) for side in sides),
            places=places,
            played_at=played_at,
            points=points,
            note=note.strip(),
        )
        if key and self._keys.may_contain(key):
            seen = event_store.stored_facts_by_key(self.league, [key]).get(key)
            if seen is not None:
                outcome = self._repeated(ref, key, fact, seen)
                if self.observer is not None:
                    self.observer(*outcome)
                return
        errors = Errors()
        when_error = self._check_when((played_at, date_only))
        check_can_play(
            ((SIDES_FIELD, player) for side in sides for player in side if not _can_play(player)),
            errors,
        )
        if when_error or errors:
            self._refuse(ref, "; ".join(m for m in (when_error, _messages(errors)) if m))
            return
        if key:
            self._keys.add(key)
        event = Event(
            league=self.league,
            seq=self._take_seq(),
            recorded_by=self.recorded_by,
            idempotency_key=key,
            **event_store.row_fields(fact),
        )
        event.save()
        MatchParticipant.objects.bulk_create(event_store.participant_rows(event.pk, fact))
        self.result.appended += 1
        if self.observer is not None:
            self.observer(ref, "recorded", "")

    def _refuse(self, ref: Any, message: str) -> None:
        self._error(ref, message)
        if self.observer is not None:
            self.observer(ref, "error", message)

    def flush(self) -> None:
        """Resolve the queued results' keys and insert the batch."""
        pending, self._pending, self._queued = self._pending, [], 0
        if self._registrations:
            self._register()
        may_exist = self._keys.may_contain
        stored = event_store.stored_facts_by_key(
            self.league, [m[7] for m in _rows_of(pending) if m[7] and may_exist(m[7])]
        )
        if self._insert is None:
            self._insert = _PreparedInsert(
                self.league, self.recorded_by, MatchRecorded, _MATCH_FIXED, self._writes
            )
            # The rows below are built in this order.
            assert self._insert.names == _MATCH_VALUES, self._insert.names
        if self._flush_plain(pending, stored):
            return
        row_of = self._insert.row_of_values
        check_when = self._check_when
        add_key = self._keys.add
        observe = self.observer is not None
        rows: list[list[Any]] = []
        outcomes: list[tuple[Any, str, str]] = []
        in_batch: dict[str, _Pending] = {}
        # Whether each player of the batch can play, read once a batch (the pending
        # results hold the players, so their ids stay theirs meanwhile).
        playable: dict[int, bool] = {}
        when_errors = self._when_errors
        if len(when_errors) > _Memo.LIMIT:
            when_errors.clear()
        first_seq = next_seq = self._next_seq
        for match in _rows_of(pending):
            player_a, player_b, score, played_at, points, note, date_only, key, ref, neutral = match
            if key:
                earlier = in_batch.get(key)
                seen = (None, _fact_of(earlier)) if earlier is not None else stored.get(key)
                if seen is not None:
                    outcome = self._repeated(ref, key, _fact_of(match), seen)
                    if observe:
                        outcomes.append(outcome)
                    continue
                in_batch[key] = match
                add_key(key)
            # Like record_match: a repeated submission is not checked again, a new one is
            # checked against the players' state and the clock now, under the lock.
            when = (played_at, date_only)
            when_error = when_errors.get(when)
            if when_error is None:
                when_error = when_errors[when] = check_when(when)
            can_a = playable.get(id(player_a))
            if can_a is None:
                can_a = playable[id(player_a)] = _can_play(player_a)
            can_b = playable.get(id(player_b))
            if can_b is None:
                can_b = playable[id(player_b)] = _can_play(player_b)
            if when_error or not can_a or not can_b:
                errors = Errors()
                check_can_play(zip(PAIR_FIELDS, (player_a, player_b), strict=True), errors)
                message = "; ".join(m for m in (when_error, _messages(errors)) if m)
                self._error(ref, message)
                outcomes.append((ref, "error", message))
                continue
            margin = points_margin(points) if points else None
            values = (player_a.id, player_b.id, score, played_at, points, note, neutral, margin)
            rows.append(row_of(next_seq, key, values))
            next_seq += 1
            if observe:
                outcomes.append((ref, "recorded", ""))
        if rows:
            # The seq numbers taken, as ``_take_seq`` would have taken them one by one.
            self._next_seq = next_seq
            if self.result.first_seq is None:
                self.result.first_seq = first_seq
            self.result.appended += len(rows)
        self._insert.execute(rows)
        if self.observer is not None:
            for outcome in outcomes:
                self.observer(*outcome)

    def _flush_plain(self, pending: list[_Pending | _Run], stored: dict[str, Any]) -> bool:
        """Insert ``pending`` column by column when no result of it needs a word of its own
        (no key seen before, in the league or in the batch; every day accepted; every player
        able to play), and say so; False (nothing done) otherwise, and ``flush``'s loop then
        goes through them one by one. The rows, seq numbers and keys are those of the loop.
        """
        if not pending or stored:
            return False
        columns = _columns_of(pending)
        (players_a, players_b, scores, moments, points, notes, date_only, keys, refs, neutral) = (
            columns
        )
        given_keys = [key for key in keys if key]
        if len(set(given_keys)) != len(given_keys):
            return False
        when_errors = self._when_errors
        if len(when_errors) > _Memo.LIMIT:
            when_errors.clear()
        for when in set(zip(moments, date_only, strict=True)):
            when_error = when_errors.get(when)
            if when_error is None:
                when_error = when_errors[when] = self._check_when(when)
            if when_error:
                return False
        players = dict(zip(map(id, players_a), players_a, strict=True))
        players.update(zip(map(id, players_b), players_b, strict=True))
        if not all(map(_can_play, players.values())):
            return False
        add_key = self._keys.add
        for key in given_keys:
            add_key(key)
        count = len(keys)
        get_id = operator.attrgetter("id")
        ids_a, ids_b = list(map(get_id, players_a)), list(map(get_id, players_b))
        insert: _PreparedInsert | None
        if any(points) or any(neutral):
            margins = [points_margin(text) if text else None for text in points]
            values: tuple[Sequence[Any], ...] = (
                ids_a, ids_b, scores, moments, points, notes, neutral, margins
            )  # fmt: skip
            insert = self._insert
        else:
            # No points (so no margin) and no neutral ground in the batch: those columns
            # are the statement's constants.
            values = (ids_a, ids_b, scores, moments, notes)
            insert = self._plain_insert
            if insert is None:
                insert = self._plain_insert = _PreparedInsert(
                    self.league, self.recorded_by, MatchRecorded, _PLAIN_FIXED, self._writes
                )
                assert insert.names == _PLAIN_VALUES, insert.names
        assert insert is not None
        first_seq = self._next_seq
        rows = insert.rows_of_columns(first_seq, keys, values)
        self._next_seq = first_seq + count
        if self.result.first_seq is None:
            self.result.first_seq = first_seq
        self.result.appended += count
        insert.execute(rows)
        if self.observer is not None:
            for ref in refs:
                self.observer(ref, "recorded", "")
        return True

    def close(self, *, announce: bool = True) -> BulkAppendResult:
        """Write the last batch and, with ``announce``, send ``events_appended`` once."""
        if self._closed:
            return self.result
        self.flush()
        self._writes.drain()
        self._closed = True
        if self.result.first_seq is not None:
            self.result.last_seq = self._next_seq - 1
        if announce and self.result.first_seq is not None:
            events_appended.send(
                sender=League,
                league=self.league,
                events=AppendedFacts(self.league, self.result.first_seq, self.result.last_seq),
            )
        return self.result

    # --- internals ---------------------------------------------------------------------
    def _register(self) -> None:
        """Create the queued new players (``_PlayerInsert``) and insert their events."""
        registrations, self._registrations = self._registrations, []
        if self._player_insert is None:
            self._player_insert = _PlayerInsert(self.league, self._writes)
        self._player_insert.execute([player for _seq, player in registrations])
        if self._register_insert is None:
            self._register_insert = _PreparedInsert(
                self.league,
                self.recorded_by,
                PlayerRegistered,
                {"idempotency_key": None},
                self._writes,
            )
        rows = []
        for seq, player in registrations:
            fact = PlayerRegistered(player_id=player.pk, display_name=player.display_name)
            rows.append(self._register_insert.row(seq, None, fact))
        self._register_insert.execute(rows)

    def _take_seq(self) -> int:
        seq = self._next_seq
        if self.result.first_seq is None:
            self.result.first_seq = seq
        self._next_seq += 1
        return seq

    @staticmethod
    def _parse_score(value: Any) -> tuple[Decimal | None, str]:
        errors = Errors()
        return parse_score(value, errors), _messages(errors)

    @staticmethod
    def _parse_points(value: Any) -> tuple[str, str]:
        errors = Errors()
        return parse_points(value, errors), _messages(errors)

    def _parse_played_at(self, value: Any) -> tuple[tuple[dt.datetime, bool] | None, str]:
        errors = Errors()
        return parse_played_at(self.league, value, errors), _messages(errors)

    def _check_played_at(self, when: tuple[dt.datetime, bool]) -> str:
        errors = Errors()
        check_played_at(self.league, *when, errors, "played_at")
        return _messages(errors)

    def _repeated(
        self, ref: Any, key: str, fact: Fact, seen: tuple[int | None, Fact]
    ) -> tuple[Any, str, str]:
        """The outcome of a match whose ``key`` was seen before (``seen``: the stored event's
        seq and fact, seq None for a row of this batch): skipped when it states the same
        fact, else refused (the idempotency rule of ``event_store.existing_for``)."""
        if seen[1].content_key() == fact.content_key():
            self.result.skipped += 1
            return ref, "skipped", "already recorded"
        message = self._conflict(key, seen if seen[0] is not None else None)  # type: ignore[arg-type]
        self._error(ref, message)
        return ref, "error", message

    def _conflict(self, key: str, earlier: tuple[int, Fact] | None) -> str:
        """The message for ``key`` reused with other content (``earlier``: the stored event's
        seq and fact, None for a row of this batch)."""
        if earlier is None or earlier[0] >= (self.result.first_seq or self._next_seq):
            # The same rule as a service's submission of several facts (a round).
            return " ".join(event_store.idempotency_conflict(key, None, "").messages)
        seq, fact = earlier
        return " ".join(event_store.idempotency_conflict(key, seq, fact.kind).messages)

    def _error(self, ref: Any, message: str) -> None:
        self.result.error_count += 1
        if len(self.result.errors) < self.max_errors_kept:
            self.result.errors.append((ref, message))


def append_matches_bulk(
    league: League,
    matches: Iterable[NewMatch],
    *,
    recorded_by: Any = None,
    batch_size: int = BATCH_SIZE,
) -> BulkAppendResult:
    """Append ``matches`` to ``league``: all of them, or none.

    Results repeating a stored key with the same content are skipped. Raises
    ``BulkAppendError`` (with every refused result) and stores nothing when any is refused.
    """
    with (
        transaction.atomic(),
        BulkAppender(league, recorded_by=recorded_by, batch_size=batch_size) as appender,
    ):
        for match in matches:
            appender.add(match)
        appender.flush()
        if appender.result.error_count:
            raise BulkAppendError(appender.result)
        return appender.close()
