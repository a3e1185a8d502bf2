"""Seeded ratings: ``player_seeded`` facts and the ``Event`` columns they are stored in
(``seed_rating``, ``seed_rd``, ``seed_list``, ``seed_games``).

Unapplying it is refused once the event store holds a seed. On SQLite, changing the
constraints rebuilds ``league_event`` and drops its immutability triggers with the old table
(see migration 0002): they are installed again afterwards, in both directions.
"""

import importlib

from django.conf import settings
from django.db import migrations, models

triggers = importlib.import_module("league.migrations.0002_event_immutability_triggers")


def reinstall_on_sqlite(apps, schema_editor):
    if schema_editor.connection.vendor == "sqlite":
        for sql in triggers.SQLITE_REVERSE + triggers.SQLITE_FORWARD:
            schema_editor.execute(sql, params=None)


def refuse_to_drop_seeds(apps, schema_editor):
    Event = apps.get_model("league", "Event")
    if Event.objects.filter(kind="player_seeded").exists():
        raise RuntimeError(
            "Cannot unapply league 0012: the event store holds seeds that the older schema "
            "cannot hold, and events are never deleted."
        )


class Migration(migrations.Migration):
    dependencies = [
        ("league", "0016_trf"),
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
            model_name="event",
            name="seed_games",
            field=models.PositiveIntegerField(
                blank=True, help_text="Rated games behind the listed rating, when known.", null=True
            ),
        ),
        migrations.AddField(
            model_name="event",
            name="seed_list",
            field=models.CharField(
                blank=True,
                help_text="The kind of rating list: fide, national or club.",
                max_length=16,
            ),
        ),
        migrations.AddField(
            model_name="event",
            name="seed_rating",
            field=models.FloatField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="event",
            name="seed_rd",
            field=models.FloatField(blank=True, null=True),
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
        migrations.AddConstraint(
            model_name="event",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    models.Q(("kind", "player_seeded"), _negated=True),
                    models.Q(
                        ("seed_rating__isnull", False),
                        ("seed_rd__gt", 0),
                        models.Q(("seed_list", ""), _negated=True),
                    ),
                    _connector="OR",
                ),
                name="event_seed_is_complete",
            ),
        ),
        # Reversed, this runs first: history is never dropped to go back a version.
        migrations.RunPython(reinstall_on_sqlite, refuse_to_drop_seeds, elidable=False),
    ]
