"""Facts about players: renamed, deactivated, reactivated (and the name in a registration).

``Event.display_name`` holds the name a player was registered under or renamed to; the CHECK
constraints name every kind and require a player for every fact about one and a new name
for a rename. Registrations stored before this migration keep an empty name (rows are
never updated): until a player's first rename, the name is the player's current one.

On SQLite, changing the constraints rebuilds ``league_event`` and drops its immutability
triggers with the old table (see migration 0002): they are installed again afterwards, in
both directions.
"""

import importlib

from django.db import migrations, models

triggers = importlib.import_module("league.migrations.0002_event_immutability_triggers")


def reinstall_on_sqlite(apps, schema_editor):
    if schema_editor.connection.vendor == "sqlite":
        for sql in triggers.SQLITE_REVERSE + triggers.SQLITE_FORWARD:
            schema_editor.execute(sql, params=None)


KINDS = [
    ("player_registered", "Player registered"),
    ("player_renamed", "Player renamed"),
    ("player_deactivated", "Player deactivated"),
    ("player_reactivated", "Player reactivated"),
    ("match_recorded", "Match recorded"),
    ("match_voided", "Match voided"),
]
PLAYER_KINDS = [kind for kind, _label in KINDS[:4]]


class Migration(migrations.Migration):
    dependencies = [("league", "0002_event_immutability_triggers")]

    operations = [
        # Reversed, this runs last: the rebuilt table gets its triggers back.
        migrations.RunPython(migrations.RunPython.noop, reinstall_on_sqlite, elidable=False),
        migrations.RemoveConstraint(model_name="event", name="event_registration_names_player"),
        migrations.AddField(
            model_name="event",
            name="display_name",
            field=models.CharField(
                blank=True,
                help_text="The name a player was registered under or renamed to.",
                max_length=120,
            ),
        ),
        migrations.AlterField(
            model_name="event",
            name="kind",
            field=models.CharField(choices=KINDS, max_length=32),
        ),
        migrations.AddConstraint(
            model_name="event",
            constraint=models.CheckConstraint(
                condition=models.Q(("kind__in", [kind for kind, _label in KINDS])),
                name="event_kind_known",
            ),
        ),
        migrations.AddConstraint(
            model_name="event",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    models.Q(("kind__in", PLAYER_KINDS), _negated=True),
                    ("player__isnull", False),
                    _connector="OR",
                ),
                name="event_player_fact_names_player",
            ),
        ),
        migrations.AddConstraint(
            model_name="event",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    models.Q(("kind", "player_renamed"), _negated=True),
                    models.Q(("display_name", ""), _negated=True),
                    _connector="OR",
                ),
                name="event_rename_names_new_name",
            ),
        ),
        migrations.RunPython(reinstall_on_sqlite, migrations.RunPython.noop, elidable=False),
    ]
