"""A player's FIDE details (TRF import and export): ``Player.fide_id``, ``federation`` and
``title``, kept from the ``player_identified`` fact, whose kind ``Event`` now accepts.

Unapplying it is refused once the event store holds a ``player_identified`` fact (events are
never deleted). On SQLite, changing the event table's constraints rebuilds ``league_event``
and drops its immutability triggers with the old table (see migration 0002): they are
installed again afterwards, in both directions.
"""

import importlib

from django.conf import settings
from django.db import migrations, models

triggers = importlib.import_module("league.migrations.0002_event_immutability_triggers")


def reinstall_on_sqlite(apps, schema_editor):
    if schema_editor.connection.vendor == "sqlite":
        for sql in triggers.SQLITE_REVERSE + triggers.SQLITE_FORWARD:
            schema_editor.execute(sql, params=None)


def refuse_to_drop_identities(apps, schema_editor):
    Event = apps.get_model("league", "Event")
    if Event.objects.filter(kind="player_identified").exists():
        raise RuntimeError(
            "Cannot unapply this migration: the event store holds player_identified facts "
            "that the older schema cannot hold, and events are never deleted."
        )


class Migration(migrations.Migration):
    dependencies = [
        ("league", "0015_tiebreaks"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        # Reversed, this runs last: the rebuilt table gets its triggers back.
        migrations.RunPython(migrations.RunPython.noop, reinstall_on_sqlite, elidable=False),
        migrations.RemoveConstraint(
            model_name="event",
            name="event_player_fact_names_player",
        ),
        migrations.RemoveConstraint(
            model_name="event",
            name="event_kind_known",
        ),
        migrations.AddField(
            model_name="player",
            name="federation",
            field=models.CharField(blank=True, max_length=3),
        ),
        migrations.AddField(
            model_name="player",
            name="fide_id",
            field=models.CharField(blank=True, max_length=11),
        ),
        migrations.AddField(
            model_name="player",
            name="title",
            field=models.CharField(blank=True, max_length=3),
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
                    ("competition_created", "Event created"),
                    ("entrant_entered", "Player entered an event"),
                    ("entrant_withdrawn", "Player withdrawn from an event"),
                    ("bye_requested", "Bye requested"),
                    ("round_paired", "Round paired"),
                    ("forfeit_recorded", "Forfeit recorded"),
                    ("player_identified", "Player's FIDE details recorded"),
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
                            "competition_created",
                            "entrant_entered",
                            "entrant_withdrawn",
                            "bye_requested",
                            "round_paired",
                            "forfeit_recorded",
                            "player_identified",
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
                                "player_identified",
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
        migrations.AddConstraint(
            model_name="player",
            constraint=models.UniqueConstraint(
                condition=models.Q(("fide_id", ""), _negated=True),
                fields=("league", "fide_id"),
                name="player_unique_fide_id",
            ),
        ),
        # Reversed, this runs first: history is never dropped to go back a version.
        migrations.RunPython(reinstall_on_sqlite, refuse_to_drop_identities, elidable=False),
    ]
