"""The forgetting's erasure path (0012) fixes the event columns added since: report,
challenge, competition, round, seed.

0012 let an erasure change every column it did not list as fixed; the columns that later
migrations added (0013 reports and challenges, 0014 competitions, 0017 seeds) must not change
either. ``details`` stays erasable: it holds a player's FIDE details (``player_identified``),
which are personal data. On SQLite, 0013–0017 rebuilt ``league_event`` and put 0002's strict
trigger back; this installs the erasure-aware one again with the full list.
"""

import importlib

from django.db import migrations, models

accounts = importlib.import_module("league.migrations.0012_accounts")
triggers = importlib.import_module("league.migrations.0002_event_immutability_triggers")

FIXED_COLUMNS = (
    *accounts.FIXED_COLUMNS,
    "report_id", "challenge_id", "competition_id", "round_number",
    "seed_rating", "seed_rd", "seed_list", "seed_games",
)  # fmt: skip

_SQLITE_LAST = accounts._SQLITE_LAST
_SQLITE_ALLOWED = " AND ".join(
    [
        *(f"NEW.{column} IS OLD.{column}" for column in FIXED_COLUMNS),
        _SQLITE_LAST.format(col="kind") + " IS 'player_forgotten'",
        "(NEW.display_name IS OLD.display_name OR (OLD.player_id IS NOT NULL AND OLD.player_id IS "
        + _SQLITE_LAST.format(col="player_id")
        + " AND NEW.display_name IS "
        "(SELECT display_name FROM league_player WHERE id = OLD.player_id)))",
    ]
)
SQLITE = [
    "DROP TRIGGER IF EXISTS league_event_no_update",
    f"""
    CREATE TRIGGER league_event_no_update BEFORE UPDATE ON league_event
    WHEN NOT COALESCE(({_SQLITE_ALLOWED}), 0)
    BEGIN
        SELECT RAISE(ABORT, 'league_event is append-only: UPDATE refused (record a new event instead)');
    END
    """,
]

_PG_FIXED = ", ".join(FIXED_COLUMNS)
POSTGRESQL = [
    f"""
    CREATE OR REPLACE FUNCTION league_event_erasure_row() RETURNS trigger
    LANGUAGE plpgsql AS $$
    DECLARE
        last_kind text;
        last_player bigint;
    BEGIN
        IF {accounts._PG_OWNER} THEN
            RETURN NEW;
        END IF;
        SELECT kind, player_id INTO last_kind, last_player FROM league_event
            WHERE league_id = OLD.league_id ORDER BY seq DESC LIMIT 1;
        IF last_kind = 'player_forgotten'
           AND ROW(NEW.{_PG_FIXED.replace(", ", ", NEW.")})
               IS NOT DISTINCT FROM ROW(OLD.{_PG_FIXED.replace(", ", ", OLD.")})
           AND (NEW.display_name = OLD.display_name OR (OLD.player_id = last_player
                AND NEW.display_name = (SELECT display_name FROM league_player
                                        WHERE id = OLD.player_id)))
        THEN
            RETURN NEW;
        END IF;
        RAISE EXCEPTION 'league_event is append-only: UPDATE refused (only the personal data of a forgotten player may be erased)'
            USING ERRCODE = 'integrity_constraint_violation';
    END
    $$
    """,
]


def reinstall_on_sqlite(apps, schema_editor):
    if schema_editor.connection.vendor == "sqlite":
        for sql in triggers.SQLITE_REVERSE + triggers.SQLITE_FORWARD:
            schema_editor.execute(sql, params=None)


def install(apps, schema_editor):
    statements = {"sqlite": SQLITE, "postgresql": POSTGRESQL}[schema_editor.connection.vendor]
    for sql in statements:
        schema_editor.execute(sql, params=None)


def back_to_0012(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    statements = (
        accounts.ERASURE_SQLITE
        if vendor == "sqlite"
        else [
            accounts.ERASURE_POSTGRESQL[1].replace("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION")
        ]
    )
    for sql in statements:
        schema_editor.execute(sql, params=None)


class Migration(migrations.Migration):
    dependencies = [("league", "0017_chess")]

    operations = [
        # Reversed, this runs last: the rebuilt table gets its triggers back.
        migrations.RunPython(migrations.RunPython.noop, reinstall_on_sqlite, elidable=False),
        migrations.RemoveConstraint(
            model_name="event",
            name="event_kind_known",
        ),
        migrations.RemoveConstraint(
            model_name="event",
            name="event_player_fact_names_player",
        ),
        migrations.AlterField(
            model_name="event",
            name="kind",
            field=models.CharField(
                choices=[
                    ("player_registered", "Player registered"),
                    ("player_renamed", "Player renamed"),
                    ("player_deactivated", "Player deactivated"),
                    ("player_reactivated", "Player reactivated"),
                    ("player_merged", "Player merged"),
                    ("player_unmerged", "Player unmerged"),
                    ("match_recorded", "Match recorded"),
                    ("match_voided", "Match voided"),
                    ("side_match_recorded", "Team match recorded"),
                    ("fixture_scheduled", "Fixture scheduled"),
                    ("fixture_rescheduled", "Fixture rescheduled"),
                    ("fixture_cancelled", "Fixture cancelled"),
                    ("report_submitted", "Result reported"),
                    ("report_confirmed", "Reported result confirmed"),
                    ("report_disputed", "Reported result disputed"),
                    ("report_rejected", "Reported result rejected"),
                    ("report_withdrawn", "Reported result withdrawn"),
                    ("challenge_issued", "Challenge issued"),
                    ("challenge_accepted", "Challenge accepted"),
                    ("challenge_declined", "Challenge declined"),
                    ("challenge_expired", "Challenge expired"),
                    ("player_claimed", "Player claimed"),
                    ("player_released", "Player released"),
                    ("player_forgotten", "Player forgotten"),
                    ("competition_created", "Event created"),
                    ("entrant_entered", "Player entered an event"),
                    ("entrant_withdrawn", "Player withdrawn from an event"),
                    ("bye_requested", "Bye requested"),
                    ("round_paired", "Round paired"),
                    ("forfeit_recorded", "Forfeit recorded"),
                    ("player_identified", "Player's FIDE details recorded"),
                    ("player_seeded", "Player seeded"),
                ],
                max_length=32,
            ),
        ),
        migrations.AddConstraint(
            model_name="event",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    (
                        "kind__in",
                        [
                            "player_registered",
                            "player_renamed",
                            "player_deactivated",
                            "player_reactivated",
                            "player_merged",
                            "player_unmerged",
                            "match_recorded",
                            "match_voided",
                            "side_match_recorded",
                            "fixture_scheduled",
                            "fixture_rescheduled",
                            "fixture_cancelled",
                            "report_submitted",
                            "report_confirmed",
                            "report_disputed",
                            "report_rejected",
                            "report_withdrawn",
                            "challenge_issued",
                            "challenge_accepted",
                            "challenge_declined",
                            "challenge_expired",
                            "player_claimed",
                            "player_released",
                            "player_forgotten",
                            "competition_created",
                            "entrant_entered",
                            "entrant_withdrawn",
                            "bye_requested",
                            "round_paired",
                            "forfeit_recorded",
                            "player_identified",
                            "player_seeded",
                        ],
                    )
                ),
                name="event_kind_known",
            ),
        ),
        migrations.AddConstraint(
            model_name="event",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    models.Q(
                        (
                            "kind__in",
                            [
                                "player_registered",
                                "player_renamed",
                                "player_deactivated",
                                "player_reactivated",
                                "player_merged",
                                "player_unmerged",
                                "player_claimed",
                                "player_released",
                                "player_forgotten",
                                "player_identified",
                                "player_seeded",
                            ],
                        ),
                        _negated=True,
                    ),
                    ("player__isnull", False),
                    _connector="OR",
                ),
                name="event_player_fact_names_player",
            ),
        ),
        # Changing the constraints rebuilds league_event on SQLite and drops its triggers.
        migrations.RunPython(reinstall_on_sqlite, migrations.RunPython.noop, elidable=False),
        migrations.RunPython(install, back_to_0012, elidable=False),
    ]
