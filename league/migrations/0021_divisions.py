"""Divisions of a season (``Division``, ``DivisionMember``, ``DivisionSetup``) and their
three facts (``divisions_set``, ``division_player_moved``, ``divisions_fixed``).

Changing the event kind constraint rebuilds ``league_event`` on SQLite and drops its triggers
with the old table: 0018's erasure-aware triggers are installed again afterwards (and, when
this is reversed, after the table is rebuilt back), as 0020 does.
"""

import importlib

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

erasure = importlib.import_module("league.migrations.0018_erasure_fixes_new_columns")

#: Every event kind after this migration and its label (the ``kind`` field's choices).
EVENT_KIND_CHOICES = [
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
    ("pairing_forbidden", "Pairing forbidden"),
    ("divisions_set", "Divisions set for a season"),
    ("division_player_moved", "Player moved to another division"),
    ("divisions_fixed", "Divisions fixed for a season"),
]
#: The kinds alone (the ``event_kind_known`` constraint).
EVENT_KINDS = [kind for kind, _label in EVENT_KIND_CHOICES]


def restore_triggers_on_sqlite(apps, schema_editor):
    if schema_editor.connection.vendor == "sqlite":
        erasure.reinstall_on_sqlite(apps, schema_editor)
        erasure.install(apps, schema_editor)


class Migration(migrations.Migration):
    dependencies = [
        ("league", "0020_forbidden_pairings_full_byes"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        # Reversed, this runs last: the rebuilt table gets its triggers back.
        migrations.RunPython(migrations.RunPython.noop, restore_triggers_on_sqlite, elidable=False),
        migrations.CreateModel(
            name="Division",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("position", models.PositiveSmallIntegerField()),
                ("name", models.CharField(max_length=60)),
            ],
            options={
                "ordering": ["season", "position"],
            },
        ),
        migrations.CreateModel(
            name="DivisionMember",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
            ],
            options={
                "ordering": ["division", "player"],
            },
        ),
        migrations.CreateModel(
            name="DivisionSetup",
            fields=[
                (
                    "season",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.PROTECT,
                        primary_key=True,
                        related_name="division_setup",
                        serialize=False,
                        to="league.season",
                    ),
                ),
                (
                    "promotion",
                    models.PositiveSmallIntegerField(
                        default=1, help_text="How many go up and down between adjacent divisions."
                    ),
                ),
                (
                    "newcomers",
                    models.PositiveSmallIntegerField(
                        default=0,
                        help_text="The division (1 = top) next season's newcomers go to; 0: the bottom one.",
                    ),
                ),
                (
                    "proposed",
                    models.BooleanField(
                        default=False,
                        help_text="Proposed by promotion and relegation from the season before.",
                    ),
                ),
                ("fixed_at", models.DateTimeField(blank=True, null=True)),
            ],
        ),
        migrations.RemoveConstraint(
            model_name="event",
            name="event_kind_known",
        ),
        migrations.AlterField(
            model_name="event",
            name="kind",
            field=models.CharField(
                choices=EVENT_KIND_CHOICES,
                max_length=32,
            ),
        ),
        migrations.AddConstraint(
            model_name="event",
            constraint=models.CheckConstraint(
                condition=models.Q(("kind__in", EVENT_KINDS)), name="event_kind_known"
            ),
        ),
        migrations.AddField(
            model_name="division",
            name="season",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT,
                related_name="divisions",
                to="league.season",
            ),
        ),
        migrations.AddField(
            model_name="divisionmember",
            name="division",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="members",
                to="league.division",
            ),
        ),
        migrations.AddField(
            model_name="divisionmember",
            name="player",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT, related_name="+", to="league.player"
            ),
        ),
        migrations.AddField(
            model_name="divisionmember",
            name="season",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT, related_name="+", to="league.season"
            ),
        ),
        migrations.AddConstraint(
            model_name="division",
            constraint=models.UniqueConstraint(
                fields=("season", "position"), name="division_unique_position"
            ),
        ),
        migrations.AddConstraint(
            model_name="division",
            constraint=models.UniqueConstraint(
                fields=("season", "name"), name="division_unique_name"
            ),
        ),
        migrations.AddConstraint(
            model_name="division",
            constraint=models.CheckConstraint(
                condition=models.Q(("position__gte", 1)), name="division_position"
            ),
        ),
        migrations.AddConstraint(
            model_name="divisionmember",
            constraint=models.UniqueConstraint(
                fields=("season", "player"), name="division_member_once_per_season"
            ),
        ),
        # The rebuilt table gets 0018's triggers back.
        migrations.RunPython(restore_triggers_on_sqlite, migrations.RunPython.noop, elidable=False),
    ]
