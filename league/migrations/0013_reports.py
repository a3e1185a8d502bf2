"""Results reported by players and challenges between players, as events.

``Report`` and ``Challenge`` are the write side's current state of a reported result and of a
challenge (changed only by the event store); ``PlayerRules`` holds a league's rules for them.
``Event`` gains ``report`` and ``challenge``, the rows its new kinds of fact are about.

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


class Migration(migrations.Migration):
    dependencies = [
        ("league", "0012_accounts"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        # Reversed, this runs last: the rebuilt table gets its triggers back.
        migrations.RunPython(migrations.RunPython.noop, reinstall_on_sqlite, elidable=False),
        migrations.CreateModel(
            name="Challenge",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("respond_by", models.DateField()),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("issued", "Waiting for an answer"),
                            ("accepted", "Accepted"),
                            ("declined", "Declined"),
                            ("expired", "Expired"),
                            ("forfeited", "Won by forfeit"),
                        ],
                        default="issued",
                        max_length=16,
                    ),
                ),
                (
                    "created_at",
                    models.DateTimeField(default=django.utils.timezone.now, editable=False),
                ),
            ],
            options={
                "ordering": ["-created_at", "-pk"],
            },
        ),
        migrations.CreateModel(
            name="PlayerRules",
            fields=[
                (
                    "league",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="player_rules",
                        serialize=False,
                        to="league.league",
                    ),
                ),
                (
                    "report_policy",
                    models.CharField(
                        choices=[
                            ("confirm", "The opponent confirms it (or an organiser)"),
                            ("auto", "Accepted after some days unless disputed"),
                            ("organisers", "Organisers only: players cannot report"),
                        ],
                        default="confirm",
                        max_length=16,
                    ),
                ),
                (
                    "accept_after_days",
                    models.PositiveSmallIntegerField(
                        default=3,
                        help_text="With the policy 'accepted after some days': how many (1 to 60).",
                    ),
                ),
                (
                    "challenges",
                    models.BooleanField(default=False, help_text="Players may challenge others."),
                ),
                (
                    "challenge_places",
                    models.PositiveSmallIntegerField(
                        default=3,
                        help_text="How many places up or down the ranking a player may challenge.",
                    ),
                ),
                (
                    "challenge_days",
                    models.PositiveSmallIntegerField(
                        default=7,
                        help_text="Days the challenged player has to accept or decline (1 to 60).",
                    ),
                ),
                (
                    "ignored_challenge",
                    models.CharField(
                        choices=[
                            ("expired", "It expires"),
                            ("forfeit", "The challenger wins by forfeit (not rated)"),
                        ],
                        default="expired",
                        max_length=16,
                    ),
                ),
                ("updated_at", models.DateTimeField(default=django.utils.timezone.now)),
            ],
        ),
        migrations.CreateModel(
            name="Report",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("sides", models.JSONField(help_text="Each side's player ids, as reported.")),
                (
                    "places",
                    models.JSONField(help_text="Each side's place, from 0 (ties share one)."),
                ),
                ("played_at", models.DateTimeField()),
                ("points", models.CharField(blank=True, max_length=120)),
                ("note", models.TextField(blank=True)),
                ("neutral", models.BooleanField(default=False)),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("pending", "Waiting for confirmation"),
                            ("confirmed", "Confirmed"),
                            ("disputed", "Disputed"),
                            ("rejected", "Rejected"),
                            ("withdrawn", "Withdrawn"),
                        ],
                        default="pending",
                        max_length=16,
                    ),
                ),
                (
                    "created_at",
                    models.DateTimeField(default=django.utils.timezone.now, editable=False),
                ),
                ("settled_at", models.DateTimeField(blank=True, null=True)),
            ],
            options={
                "ordering": ["-created_at", "-pk"],
            },
        ),
        migrations.RemoveConstraint(
            model_name="event",
            name="event_kind_known",
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
                ],
                max_length=32,
            ),
        ),
        migrations.AddField(
            model_name="challenge",
            name="challenged",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT, related_name="+", to="league.player"
            ),
        ),
        migrations.AddField(
            model_name="challenge",
            name="challenger",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT, related_name="+", to="league.player"
            ),
        ),
        migrations.AddField(
            model_name="challenge",
            name="fixture",
            field=models.OneToOneField(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="challenge",
                to="league.fixture",
            ),
        ),
        migrations.AddField(
            model_name="challenge",
            name="league",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT,
                related_name="challenges",
                to="league.league",
            ),
        ),
        migrations.AddField(
            model_name="event",
            name="challenge",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="events",
                to="league.challenge",
            ),
        ),
        migrations.AddField(
            model_name="playerrules",
            name="updated_by",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddField(
            model_name="report",
            name="league",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT,
                related_name="reports",
                to="league.league",
            ),
        ),
        migrations.AddField(
            model_name="report",
            name="match",
            field=models.OneToOneField(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="confirms_report",
                to="league.event",
            ),
        ),
        migrations.AddField(
            model_name="report",
            name="reporter",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT, related_name="+", to="league.player"
            ),
        ),
        migrations.AddField(
            model_name="event",
            name="report",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="events",
                to="league.report",
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
                                "report_submitted",
                                "report_confirmed",
                                "report_disputed",
                                "report_rejected",
                                "report_withdrawn",
                            ],
                        ),
                        _negated=True,
                    ),
                    ("report__isnull", False),
                    _connector="OR",
                ),
                name="event_report_fact_names_report",
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
                                "challenge_issued",
                                "challenge_accepted",
                                "challenge_declined",
                                "challenge_expired",
                            ],
                        ),
                        _negated=True,
                    ),
                    ("challenge__isnull", False),
                    _connector="OR",
                ),
                name="event_challenge_fact_names_challenge",
            ),
        ),
        migrations.AddIndex(
            model_name="challenge",
            index=models.Index(fields=["league", "status"], name="challenge_league_status"),
        ),
        migrations.AddConstraint(
            model_name="challenge",
            constraint=models.CheckConstraint(
                condition=models.Q(("challenger", models.F("challenged")), _negated=True),
                name="challenge_two_players",
            ),
        ),
        migrations.AddConstraint(
            model_name="challenge",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("status__in", ["issued", "accepted", "declined", "expired", "forfeited"])
                ),
                name="challenge_status_known",
            ),
        ),
        migrations.AddConstraint(
            model_name="playerrules",
            constraint=models.CheckConstraint(
                condition=models.Q(("report_policy__in", ["confirm", "auto", "organisers"])),
                name="rules_report_policy_known",
            ),
        ),
        migrations.AddConstraint(
            model_name="playerrules",
            constraint=models.CheckConstraint(
                condition=models.Q(("accept_after_days__gte", 1), ("accept_after_days__lte", 60)),
                name="rules_accept_after_days_range",
            ),
        ),
        migrations.AddConstraint(
            model_name="playerrules",
            constraint=models.CheckConstraint(
                condition=models.Q(("challenge_places__gte", 1), ("challenge_places__lte", 50)),
                name="rules_challenge_places_range",
            ),
        ),
        migrations.AddConstraint(
            model_name="playerrules",
            constraint=models.CheckConstraint(
                condition=models.Q(("challenge_days__gte", 1), ("challenge_days__lte", 60)),
                name="rules_challenge_days_range",
            ),
        ),
        migrations.AddIndex(
            model_name="report",
            index=models.Index(fields=["league", "status"], name="report_league_status"),
        ),
        migrations.AddConstraint(
            model_name="report",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("status__in", ["pending", "confirmed", "disputed", "rejected", "withdrawn"])
                ),
                name="report_status_known",
            ),
        ),
        migrations.RunPython(reinstall_on_sqlite, migrations.RunPython.noop, elidable=False),
    ]
