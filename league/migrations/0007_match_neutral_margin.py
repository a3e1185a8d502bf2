"""A match's neutral flag and points margin (issue 19: advantage and margins).

``neutral`` marks a match where the first-named side has no advantage (a neutral ground);
``margin`` is the first-named side's points minus the other's, stored when the points text
is one pair of whole numbers. Matches stored before this migration keep ``neutral`` false and
an unknown margin (rows are never updated).

On SQLite, adding a NOT NULL column rebuilds ``league_event`` and drops its immutability
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


def refuse_to_drop_flags(apps, schema_editor):
    Event = apps.get_model("league", "Event")
    if Event.objects.filter(neutral=True).exists():
        raise RuntimeError(
            "Cannot unapply league 0007: the event store holds matches marked neutral, which "
            "the older schema cannot hold, and events are never deleted."
        )


class Migration(migrations.Migration):
    dependencies = [("league", "0006_matches_with_sides")]

    operations = [
        # Reversed, this runs last: the rebuilt table gets its triggers back.
        migrations.RunPython(migrations.RunPython.noop, reinstall_on_sqlite, elidable=False),
        migrations.AddField(
            model_name="event",
            name="margin",
            field=models.IntegerField(
                blank=True,
                editable=False,
                help_text="The first-named side's points minus the other's, read from the "
                'points when they are one pair of whole numbers ("2–1"); empty when unknown.',
                null=True,
            ),
        ),
        migrations.AddField(
            model_name="event",
            name="neutral",
            field=models.BooleanField(
                default=False,
                help_text="Played on neutral ground: the first-named side gets no advantage.",
            ),
        ),
        # Reversed, this runs first: history is never dropped to go back a version.
        migrations.RunPython(reinstall_on_sqlite, refuse_to_drop_flags, elidable=False),
    ]
