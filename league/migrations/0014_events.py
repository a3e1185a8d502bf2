"""Competitions inside a league (events: round robins, Swiss events, cups).

``Competition``, ``Entrant`` and ``RoundBye`` are the write side's current state of a
league's competitions (changed only by the event store); ``Fixture`` gains the competition,
round and board it belongs to; ``Event`` gains the columns the facts about competitions are
stored in (``competition``, ``round_number``, ``details``) and their kinds.

Unapplying it is refused once the event store holds any fact about competitions.

On SQLite, changing the constraints rebuilds ``league_event`` and drops its immutability
triggers with the old table (see migration 0002): they are installed again afterwards, in
both directions.
"""

import importlib
from decimal import Decimal

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models

triggers = importlib.import_module("league.migrations.0002_event_immutability_triggers")


def reinstall_on_sqlite(apps, schema_editor):
    if schema_editor.connection.vendor == "sqlite":
        for sql in triggers.SQLITE_REVERSE + triggers.SQLITE_FORWARD:
            schema_editor.execute(sql, params=None)


def refuse_to_drop_competition_facts(apps, schema_editor):
    Event = apps.get_model("league", "Event")
    if (
        Event.objects.filter(competition__isnull=False).exists()
        or Event.objects.filter(kind="forfeit_recorded").exists()
    ):
        raise RuntimeError(
            "Cannot unapply league 0012: the event store holds facts about competitions that "
            "the older schema cannot hold, and events are never deleted."
        )


class Migration(migrations.Migration):
    dependencies = [
        ("league", "0013_reports"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        # Reversed, this runs last: the rebuilt table gets its triggers back.
        migrations.RunPython(migrations.RunPython.noop, reinstall_on_sqlite, elidable=False),
        migrations.CreateModel(
            name="Competition",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("slug", models.SlugField(max_length=80)),
                ("name", models.CharField(max_length=120)),
                (
                    "format",
                    models.CharField(
                        choices=[
                            ("round_robin", "Round robin"),
                            ("swiss", "Swiss"),
                            ("knockout", "Knockout cup"),
                            ("team_match", "Team match"),
                        ],
                        max_length=16,
                    ),
                ),
                ("planned_rounds", models.PositiveSmallIntegerField()),
                (
                    "bye_points",
                    models.DecimalField(
                        decimal_places=1,
                        default=Decimal("1"),
                        help_text="Points for a bye the pairing allocates (1, ½ or 0).",
                        max_digits=3,
                    ),
                ),
                (
                    "rated",
                    models.BooleanField(
                        default=True,
                        help_text="Results feed the league's ratings (off: recorded, not rated).",
                    ),
                ),
                ("tiebreaks", models.JSONField(blank=True, default=list)),
                ("start_date", models.DateField(blank=True, null=True)),
                ("end_date", models.DateField(blank=True, null=True)),
                ("rounds_paired", models.PositiveSmallIntegerField(default=0)),
                (
                    "created_at",
                    models.DateTimeField(default=django.utils.timezone.now, editable=False),
                ),
            ],
            options={
                "ordering": ["league", "-created_at", "-pk"],
            },
        ),
        migrations.CreateModel(
            name="Entrant",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("number", models.PositiveSmallIntegerField()),
                ("seed_rating", models.FloatField(blank=True, null=True)),
                ("from_round", models.PositiveSmallIntegerField(default=1)),
                ("withdrawn_from_round", models.PositiveSmallIntegerField(blank=True, null=True)),
            ],
            options={
                "ordering": ["competition", "number"],
            },
        ),
        migrations.CreateModel(
            name="RoundBye",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("round_number", models.PositiveSmallIntegerField()),
                (
                    "kind",
                    models.CharField(
                        choices=[
                            ("pairing_allocated", "Bye (pairing)"),
                            ("requested_half", "Half-point bye (requested)"),
                            ("requested_zero", "Zero-point bye (requested)"),
                        ],
                        max_length=20,
                    ),
                ),
                ("points", models.DecimalField(decimal_places=1, max_digits=3)),
            ],
            options={
                "ordering": ["competition", "round_number", "player"],
            },
        ),
        migrations.RemoveConstraint(
            model_name="event",
            name="event_kind_known",
        ),
        migrations.AddField(
            model_name="event",
            name="details",
            field=models.JSONField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="event",
            name="round_number",
            field=models.PositiveSmallIntegerField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="fixture",
            name="board",
            field=models.PositiveSmallIntegerField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="fixture",
            name="round_number",
            field=models.PositiveSmallIntegerField(blank=True, null=True),
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
                ],
                max_length=32,
            ),
        ),
        migrations.AddField(
            model_name="competition",
            name="league",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT,
                related_name="competitions",
                to="league.league",
            ),
        ),
        migrations.AddField(
            model_name="competition",
            name="season",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="competitions",
                to="league.season",
            ),
        ),
        migrations.AddField(
            model_name="event",
            name="competition",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="events",
                to="league.competition",
            ),
        ),
        migrations.AddField(
            model_name="fixture",
            name="competition",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="fixtures",
                to="league.competition",
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
            model_name="event",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    models.Q(("kind", "forfeit_recorded"), _negated=True),
                    ("fixture__isnull", False),
                    _connector="OR",
                ),
                name="event_forfeit_names_fixture",
            ),
        ),
        migrations.AddConstraint(
            model_name="fixture",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    models.Q(("competition__isnull", True), ("round_number__isnull", True)),
                    models.Q(("competition__isnull", False), ("round_number__gte", 1)),
                    _connector="OR",
                ),
                name="fixture_round_of_competition",
            ),
        ),
        migrations.AddField(
            model_name="entrant",
            name="competition",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT,
                related_name="entrants",
                to="league.competition",
            ),
        ),
        migrations.AddField(
            model_name="entrant",
            name="player",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT,
                related_name="entries",
                to="league.player",
            ),
        ),
        migrations.AddField(
            model_name="roundbye",
            name="competition",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT,
                related_name="byes",
                to="league.competition",
            ),
        ),
        migrations.AddField(
            model_name="roundbye",
            name="player",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT, related_name="+", to="league.player"
            ),
        ),
        migrations.AddConstraint(
            model_name="competition",
            constraint=models.UniqueConstraint(
                fields=("league", "slug"), name="competition_unique_slug"
            ),
        ),
        migrations.AddConstraint(
            model_name="competition",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("format__in", ["round_robin", "swiss", "knockout", "team_match"])
                ),
                name="competition_format_known",
            ),
        ),
        migrations.AddConstraint(
            model_name="competition",
            constraint=models.CheckConstraint(
                condition=models.Q(("planned_rounds__gte", 1)), name="competition_has_rounds"
            ),
        ),
        migrations.AddConstraint(
            model_name="entrant",
            constraint=models.UniqueConstraint(
                fields=("competition", "player"), name="entrant_once_per_competition"
            ),
        ),
        migrations.AddConstraint(
            model_name="entrant",
            constraint=models.UniqueConstraint(
                fields=("competition", "number"), name="entrant_unique_number"
            ),
        ),
        migrations.AddConstraint(
            model_name="entrant",
            constraint=models.CheckConstraint(
                condition=models.Q(("from_round__gte", 1)), name="entrant_from_round"
            ),
        ),
        migrations.AddConstraint(
            model_name="entrant",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("withdrawn_from_round__isnull", True),
                    ("withdrawn_from_round__gte", models.F("from_round")),
                    _connector="OR",
                ),
                name="entrant_withdrawn_after_entry",
            ),
        ),
        migrations.AddConstraint(
            model_name="roundbye",
            constraint=models.UniqueConstraint(
                fields=("competition", "round_number", "player"), name="bye_once_per_round"
            ),
        ),
        migrations.AddConstraint(
            model_name="roundbye",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("kind__in", ["pairing_allocated", "requested_half", "requested_zero"])
                ),
                name="bye_kind_known",
            ),
        ),
        migrations.AddConstraint(
            model_name="roundbye",
            constraint=models.CheckConstraint(
                condition=models.Q(("round_number__gte", 1)), name="bye_round_positive"
            ),
        ),
        # Reversed, this runs first: history is never dropped to go back a version.
        migrations.RunPython(reinstall_on_sqlite, refuse_to_drop_competition_facts, elidable=False),
    ]
