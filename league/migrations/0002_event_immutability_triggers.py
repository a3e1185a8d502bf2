"""Make ``league_event`` append-only in the database itself.

SQLite: BEFORE UPDATE / BEFORE DELETE row triggers that abort. PostgreSQL: one trigger
function raising for UPDATE, DELETE (statement level, so even a statement matching no row is
refused) and TRUNCATE. Both raise an integrity error whose message starts with
"league_event is append-only". Only the test suite lifts them, explicitly and inside one
transaction (SQLite: drops and recreates the triggers; PostgreSQL: a transaction-local flag
that the function honours for the table owner only): see ``league.testing``.

Note for later migrations: on SQLite, a migration that rebuilds ``league_event`` (most
``AlterField`` operations) drops its triggers with the old table; such a migration must
create them again (``tests/integration/test_event_store.py`` checks they are present).
"""

from django.db import migrations

SQLITE_FORWARD = [
    """
    CREATE TRIGGER league_event_no_update BEFORE UPDATE ON league_event
    BEGIN
        SELECT RAISE(ABORT, 'league_event is append-only: UPDATE refused (record a new event instead)');
    END
    """,
    """
    CREATE TRIGGER league_event_no_delete BEFORE DELETE ON league_event
    BEGIN
        SELECT RAISE(ABORT, 'league_event is append-only: DELETE refused (void the match instead)');
    END
    """,
]
SQLITE_REVERSE = [
    "DROP TRIGGER IF EXISTS league_event_no_update",
    "DROP TRIGGER IF EXISTS league_event_no_delete",
]

POSTGRESQL_FORWARD = [
    """
    CREATE FUNCTION league_event_refuse_mutation() RETURNS trigger
    LANGUAGE plpgsql AS $$
    BEGIN
        -- league.testing lifts the guard for one transaction of a test database with this
        -- flag. It is honoured for the table's owner only, who could drop the trigger anyway.
        IF current_setting('league.allow_event_mutation', true) = 'on'
           AND pg_has_role(current_user, (SELECT relowner FROM pg_class WHERE oid = TG_RELID), 'MEMBER')
        THEN
            RETURN NULL;
        END IF;
        RAISE EXCEPTION 'league_event is append-only: % refused (record a new event instead)', TG_OP
            USING ERRCODE = 'integrity_constraint_violation';
    END
    $$
    """,
    """
    CREATE TRIGGER league_event_append_only
    BEFORE UPDATE OR DELETE ON league_event
    FOR EACH STATEMENT EXECUTE FUNCTION league_event_refuse_mutation()
    """,
    """
    CREATE TRIGGER league_event_no_truncate
    BEFORE TRUNCATE ON league_event
    FOR EACH STATEMENT EXECUTE FUNCTION league_event_refuse_mutation()
    """,
]
POSTGRESQL_REVERSE = [
    "DROP TRIGGER IF EXISTS league_event_no_truncate ON league_event",
    "DROP TRIGGER IF EXISTS league_event_append_only ON league_event",
    "DROP FUNCTION IF EXISTS league_event_refuse_mutation()",
]

STATEMENTS = {
    "sqlite": (SQLITE_FORWARD, SQLITE_REVERSE),
    "postgresql": (POSTGRESQL_FORWARD, POSTGRESQL_REVERSE),
}


def _run(schema_editor, direction):
    vendor = schema_editor.connection.vendor
    if vendor not in STATEMENTS:
        raise NotImplementedError(
            f"league_event immutability triggers exist for SQLite and PostgreSQL, not {vendor}."
        )
    for sql in STATEMENTS[vendor][direction]:
        schema_editor.execute(sql, params=None)


def install(apps, schema_editor):
    _run(schema_editor, 0)


def remove(apps, schema_editor):
    _run(schema_editor, 1)


class Migration(migrations.Migration):
    dependencies = [("league", "0001_initial")]

    operations = [migrations.RunPython(install, remove, elidable=False)]
