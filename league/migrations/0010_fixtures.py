"""Fixtures: scheduled pairings as events (scheduled, rescheduled, cancelled).

``Fixture`` is the write side's current state of a fixture (changed only by the event
store); ``Event`` gains the columns its facts are stored in (``fixture``, ``scheduled_at``,
``deadline``, ``venue``; the round's label goes to ``note``), and a ``match_recorded`` event
names the fixture it played in ``fixture``.

Unapplying it is refused once the event store holds any fact about fixtures.

On SQLite, changing the constraints rebuilds ``league_event`` and drops its immutability
triggers with the old table (see migration 0002): they are installed again afterwards, in
both directions.
"""

import importlib

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models

triggers = importlib.import_module("league.migrations.0002_event_immutability_triggers")


def reinstall_on_sqlite(apps, schema_editor):
    if schema_editor.connection.vendor == "sqlite":
        for sql in triggers.SQLITE_REVERSE + triggers.SQLITE_FORWARD:
            schema_editor.execute(sql, params=None)


def refuse_to_drop_fixture_facts(apps, schema_editor):
    Event = apps.get_model("league", "Event")
    if Event.objects.filter(fixture__isnull=False).exists():
        raise RuntimeError(
            "Cannot unapply league 0008: the event store holds facts about fixtures that the "
            "older schema cannot hold, and events are never deleted."
        )


class Migration(migrations.Migration):
    dependencies = [
        ("league", "0009_named_api_tokens"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        # Reversed, this runs last: the rebuilt table gets its triggers back.
        migrations.RunPython(migrations.RunPython.noop, reinstall_on_sqlite, elidable=False),
        migrations.CreateModel(
            name="Fixture",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("scheduled_at", models.DateTimeField()),
                (
                    "deadline",
                    models.DateField(
                        help_text="The local day by which the fixture should be played."
                    ),
                ),
                (
                    "venue",
                    models.CharField(
                        blank=True, help_text="Venue, table or board.", max_length=120
                    ),
                ),
                (
                    "label",
                    models.CharField(
                        blank=True, help_text='Round, e.g. "Swiss round 2".', max_length=120
                    ),
                ),
                ("cancelled", models.BooleanField(default=False)),
                (
                    "created_at",
                    models.DateTimeField(default=django.utils.timezone.now, editable=False),
                ),
            ],
            options={
                "ordering": ["scheduled_at", "pk"],
            },
        ),
        migrations.RemoveConstraint(
            model_name="event",
            name="event_kind_known",
        ),
        migrations.AddField(
            model_name="event",
            name="deadline",
            field=models.DateField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="event",
            name="scheduled_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="event",
            name="venue",
            field=models.CharField(blank=True, max_length=120),
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
                ],
                max_length=32,
            ),
        ),
        migrations.AddField(
            model_name="fixture",
            name="league",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT,
                related_name="fixtures",
                to="league.league",
            ),
        ),
        migrations.AddField(
            model_name="fixture",
            name="player_a",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT, related_name="+", to="league.player"
            ),
        ),
        migrations.AddField(
            model_name="fixture",
            name="player_b",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT, related_name="+", to="league.player"
            ),
        ),
        migrations.AddField(
            model_name="event",
            name="fixture",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="events",
                to="league.fixture",
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
                            ["fixture_scheduled", "fixture_rescheduled", "fixture_cancelled"],
                        ),
                        _negated=True,
                    ),
                    ("fixture__isnull", False),
                    _connector="OR",
                ),
                name="event_fixture_fact_names_fixture",
            ),
        ),
        migrations.AddConstraint(
            model_name="event",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    models.Q(
                        ("kind__in", ["fixture_scheduled", "fixture_rescheduled"]), _negated=True
                    ),
                    models.Q(("scheduled_at__isnull", False), ("deadline__isnull", False)),
                    _connector="OR",
                ),
                name="event_fixture_has_date",
            ),
        ),
        migrations.AddIndex(
            model_name="fixture",
            index=models.Index(fields=["league", "scheduled_at"], name="fixture_league_when"),
        ),
        migrations.AddConstraint(
            model_name="fixture",
            constraint=models.CheckConstraint(
                condition=models.Q(("player_a", models.F("player_b")), _negated=True),
                name="fixture_two_players",
            ),
        ),
        # Reversed, this runs first: history is never dropped to go back a version.
        migrations.RunPython(reinstall_on_sqlite, refuse_to_drop_fixture_facts, elidable=False),
    ]
