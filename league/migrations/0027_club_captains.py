"""Team captains (who hand in their team's board orders), a season's club-match settings
(boards and match points) and who submitted a board order; the two new kinds of fact,
``team_captain_set`` and ``club_season_set``, join the event kind constraint.

Changing the event constraint rebuilds ``league_event`` on SQLite and drops its triggers
with the old table: 0018's erasure-aware triggers are installed again afterwards (and, when
this is reversed, after the table is rebuilt back), as 0022 does.
"""

import importlib
from decimal import Decimal

import django.db.models.deletion
import django.utils.timezone
from django.db import migrations, models

erasure = importlib.import_module("league.migrations.0018_erasure_fixes_new_columns")

#: Every kind of fact once this migration is applied (the event_kind_known constraint).
KIND_CHOICES = [
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
    ("team_created", "Team created"),
    ("roster_player_added", "Player added to a team"),
    ("club_match_scheduled", "Club match scheduled"),
    ("board_order_submitted", "Board order submitted"),
    ("club_match_recorded", "Club match recorded"),
    ("club_match_voided", "Club match voided"),
    ("team_captain_set", "Team captain named"),
    ("club_season_set", "Club match settings set for a season"),
    ("divisions_set", "Divisions set for a season"),
    ("division_player_moved", "Player moved to another division"),
    ("divisions_fixed", "Divisions fixed for a season"),
]
KINDS = [value for value, _label in KIND_CHOICES]


def restore_triggers_on_sqlite(apps, schema_editor):
    if schema_editor.connection.vendor == "sqlite":
        erasure.reinstall_on_sqlite(apps, schema_editor)
        erasure.install(apps, schema_editor)


class Migration(migrations.Migration):
    dependencies = [
        ("league", "0026_side_fixtures"),
    ]

    operations = [
        # Reversed, this runs last: the rebuilt table gets its triggers back.
        migrations.RunPython(migrations.RunPython.noop, restore_triggers_on_sqlite, elidable=False),
        migrations.CreateModel(
            name="ClubSeason",
            fields=[
                (
                    "season",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.PROTECT,
                        primary_key=True,
                        related_name="club_settings",
                        serialize=False,
                        to="league.season",
                    ),
                ),
                ("boards", models.PositiveSmallIntegerField()),
                (
                    "points_win",
                    models.DecimalField(decimal_places=1, default=Decimal("2"), max_digits=3),
                ),
                (
                    "points_draw",
                    models.DecimalField(decimal_places=1, default=Decimal("1"), max_digits=3),
                ),
                (
                    "points_loss",
                    models.DecimalField(decimal_places=1, default=Decimal("0"), max_digits=3),
                ),
                ("set_at", models.DateTimeField(default=django.utils.timezone.now)),
            ],
        ),
        migrations.AddConstraint(
            model_name="clubseason",
            constraint=models.CheckConstraint(
                condition=models.Q(("boards__gte", 1)), name="club_season_has_boards"
            ),
        ),
        migrations.AddField(
            model_name="boardorder",
            name="submitted_by",
            field=models.CharField(default="organiser", max_length=10),
        ),
        migrations.AddField(
            model_name="team",
            name="captain",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="league.player",
            ),
        ),
        migrations.RemoveConstraint(
            model_name="event",
            name="event_kind_known",
        ),
        migrations.AlterField(
            model_name="event",
            name="kind",
            field=models.CharField(choices=KIND_CHOICES, max_length=32),
        ),
        migrations.AddConstraint(
            model_name="event",
            constraint=models.CheckConstraint(
                condition=models.Q(("kind__in", KINDS)), name="event_kind_known"
            ),
        ),
        # The rebuilt table gets 0018's triggers back.
        migrations.RunPython(restore_triggers_on_sqlite, migrations.RunPython.noop, elidable=False),
    ]
