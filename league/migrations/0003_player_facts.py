"""Facts about players: renamed, deactivated, reactivated (and the name in a registration).

``Event.display_name`` holds the name a player was registered under or renamed to; the CHECK
constraints name every kind and require a player for every fact about one and a new name
for a rename. Registrations stored before this migration keep an empty name (rows are
never updated): until a player's first rename, the name is the player's current one.

Unapplying it is refused once the event store holds any of these facts (it would drop them).

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


def refuse_to_drop_player_facts(apps, schema_editor):
    Event = apps.get_model("league", "Event")
    new_kinds = Event.objects.filter(kind__in=PLAYER_KINDS[1:])
    if new_kinds.exists() or Event.objects.exclude(display_name="").exists():
        raise RuntimeError(
            "Cannot unapply league 0003: the event store holds facts about players (names, "
            "renames, deactivations) that the older schema cannot hold, and events are never "
            "deleted."
        )


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
        # Reversed, this runs first: history is never dropped to go back a version.
        migrations.RunPython(reinstall_on_sqlite, refuse_to_drop_player_facts, elidable=False),
    ]
