"""Forbidden pairings (``pairing_forbidden``, TRF record 260) and full-point byes
(``requested_full``, TRF's F).

Changing the event constraints rebuilds ``league_event`` on SQLite and drops its triggers
with the old table: 0018's erasure-aware triggers are installed again afterwards (and, when
this is reversed, after the table is rebuilt back).
"""

import importlib

from django.conf import settings
from django.db import migrations, models

erasure = importlib.import_module("league.migrations.0018_erasure_fixes_new_columns")


def restore_triggers_on_sqlite(apps, schema_editor):
    if schema_editor.connection.vendor == "sqlite":
        erasure.reinstall_on_sqlite(apps, schema_editor)
        erasure.install(apps, schema_editor)


class Migration(migrations.Migration):
    dependencies = [
        ("league", "0019_cup_settings"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        # Reversed, this runs last: the rebuilt table gets its triggers back.
        migrations.RunPython(migrations.RunPython.noop, restore_triggers_on_sqlite, elidable=False),
        migrations.RemoveConstraint(
            model_name="event",
            name="event_competition_fact_names_competition",
        ),
        migrations.RemoveConstraint(
            model_name="event",
            name="event_kind_known",
        ),
        migrations.RemoveConstraint(
            model_name="roundbye",
            name="bye_kind_known",
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
                    ("pairing_forbidden", "Pairing forbidden"),
                ],
                max_length=32,
            ),
        ),
        migrations.AlterField(
            model_name="roundbye",
            name="kind",
            field=models.CharField(
                choices=[
                    ("pairing_allocated", "Bye (pairing)"),
                    ("requested_half", "Half-point bye (requested)"),
                    ("requested_zero", "Zero-point bye (requested)"),
                    ("requested_full", "Full-point bye"),
                ],
                max_length=20,
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
                            "pairing_forbidden",
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
                                "competition_created",
                                "entrant_entered",
                                "entrant_withdrawn",
                                "bye_requested",
                                "round_paired",
                                "pairing_forbidden",
                            ],
                        ),
                        _negated=True,
                    ),
                    ("competition__isnull", False),
                    _connector="OR",
                ),
                name="event_competition_fact_names_competition",
            ),
        ),
        migrations.AddConstraint(
            model_name="roundbye",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    (
                        "kind__in",
                        ["pairing_allocated", "requested_half", "requested_zero", "requested_full"],
                    )
                ),
                name="bye_kind_known",
            ),
        ),
        # The rebuilt table gets 0018's triggers back.
        migrations.RunPython(restore_triggers_on_sqlite, migrations.RunPython.noop, elidable=False),
    ]
