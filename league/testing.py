"""Test-only: lift the event store's immutability, loudly, inside one transaction.

The database refuses UPDATE, DELETE (and TRUNCATE on PostgreSQL) on ``league_event`` (and on
``league_matchparticipant``, the players of matches with sides, whose triggers honour the
same flag). A
test suite still has to empty the database between transactional tests, so this module
lifts the guard for the duration of one transaction and puts it back before it commits;
other connections never see the table unguarded, and an error rolls the lifting back with
everything else. SQLite: the triggers are dropped and recreated from their stored SQL
(DDL is transactional there). PostgreSQL: the transaction-local setting
``league.allow_event_mutation = on``, which the trigger function honours only for the
table's owner (who could drop the trigger anyway).

It refuses unless ``settings.LEAGUE_ALLOW_EVENT_MUTATION_FOR_TESTS`` is True (set only in
``tests/settings.py``) and the connection points at a test database. Every use logs a
WARNING; a direct use also emits ``EventMutationWarning``.

Django's ``flush`` (run by pytest-django after each ``transactional_db`` test) goes through
``league/management/commands/flush.py``, which uses ``unguarded_event_table`` on test
databases and leaves the triggers to refuse everywhere else.
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Iterator
from contextlib import contextmanager

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections, transaction
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.backends.base.creation import TEST_DATABASE_PREFIX

logger = logging.getLogger(__name__)

SETTING = "LEAGUE_ALLOW_EVENT_MUTATION_FOR_TESTS"
TABLE = "league_event"
#: Every append-only table: the events and the participants of matches with sides.
TABLES = ("league_event", "league_matchparticipant")
PG_FLAG = "league.allow_event_mutation"


class EventMutationWarning(UserWarning):
    """Emitted whenever a test lifts the event store's immutability."""


class EventMutationRefused(RuntimeError):
    """Raised when the bypass is asked for outside a test database."""


def is_allowed(connection: BaseDatabaseWrapper) -> bool:
    """True when the settings allow the bypass and ``connection`` uses a test database."""
    if getattr(settings, SETTING, False) is not True:
        return False
    name = str(connection.settings_dict.get("NAME") or "")
    test_name = (connection.settings_dict.get("TEST") or {}).get("NAME")
    if test_name:
        return name == str(test_name)
    return name.startswith(TEST_DATABASE_PREFIX)


@contextmanager
def allow_event_mutation_for_tests(using: str = DEFAULT_DB_ALIAS, *, reason: str) -> Iterator[None]:
    """Let the enclosed block UPDATE/DELETE/TRUNCATE events (tests only, one transaction)."""
    warnings.warn(
        f"Event store immutability lifted for a test: {reason}",
        EventMutationWarning,
        stacklevel=3,
    )
    with unguarded_event_table(using, reason=reason):
        yield


@contextmanager
def unguarded_event_table(using: str = DEFAULT_DB_ALIAS, *, reason: str) -> Iterator[None]:
    """Drop the guard for one transaction; refuse outside a test database."""
    connection = connections[using]
    if not is_allowed(connection):
        raise EventMutationRefused(
            f"Refusing to lift the immutability of {TABLE} on database "
            f"{connection.settings_dict.get('NAME')!r}: only a test database with "
            f"settings.{SETTING} = True may do that."
        )
    logger.warning(
        "EVENT STORE IMMUTABILITY LIFTED on test database %s (%s) for: %s",
        connection.settings_dict.get("NAME"),
        connection.vendor,
        reason,
    )
    with transaction.atomic(using=using):
        lifted = _lift(connection)
        yield
        _restore(connection, lifted)


def guard_is_installed(using: str = DEFAULT_DB_ALIAS) -> bool:
    """True when the immutability triggers exist and are enabled on ``league_event``."""
    connection = connections[using]
    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            cursor.execute(
                "SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND tbl_name = %s",
                [TABLE],
            )
            return cursor.fetchone()[0] >= 2
        cursor.execute(
            "SELECT count(*) FROM pg_trigger WHERE tgrelid = to_regclass(%s) "
            "AND NOT tgisinternal AND tgenabled <> 'D'",
            [TABLE],
        )
        return cursor.fetchone()[0] >= 2


def _lift(connection: BaseDatabaseWrapper) -> list[tuple[str, str]]:
    """Remove the guard for the current transaction; return what ``_restore`` needs."""
    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            # SQLite cannot disable a trigger: keep its exact SQL and drop it.
            cursor.execute(
                "SELECT name, sql FROM sqlite_master "
                "WHERE type = 'trigger' AND tbl_name IN (%s, %s)",
                list(TABLES),
            )
            triggers = [(name, sql) for name, sql in cursor.fetchall()]
            for name, _sql in triggers:
                cursor.execute(f"DROP TRIGGER {connection.ops.quote_name(name)}")
            return triggers
        if connection.vendor == "postgresql":
            # A transaction-local flag read by the trigger function (migration 0002); no DDL,
            # so no table lock and no clash with the transaction's pending FK checks.
            cursor.execute("SELECT set_config(%s, 'on', true)", [PG_FLAG])
            return []
    raise EventMutationRefused(f"No immutability bypass for {connection.vendor}.")


def _restore(connection: BaseDatabaseWrapper, lifted: list[tuple[str, str]]) -> None:
    """Put the guard back as ``_lift`` found it."""
    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            for _name, sql in lifted:
                cursor.execute(sql)
        else:
            cursor.execute("SELECT set_config(%s, 'off', true)", [PG_FLAG])
