"""Players as people: ``Player.account`` (one player per account per league) and the facts
that change it (``player_claimed``, ``player_released``), with ``Event.account`` naming the
account, and ``player_forgotten``.

On SQLite, changing the constraints rebuilds ``league_event`` and drops its immutability
triggers with the old table (see migration 0002): they are installed again afterwards, in
both directions.
"""

import importlib

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

triggers = importlib.import_module("league.migrations.0002_event_immutability_triggers")


def reinstall_on_sqlite(apps, schema_editor):
    if schema_editor.connection.vendor == "sqlite":
        for sql in triggers.SQLITE_REVERSE + triggers.SQLITE_FORWARD:
            schema_editor.execute(sql, params=None)


def refuse_to_drop_account_facts(apps, schema_editor):
    Event = apps.get_model("league", "Event")
    kinds = ["player_claimed", "player_released", "player_forgotten"]
    if Event.objects.filter(kind__in=kinds).exists():
        raise RuntimeError(
            "Cannot unapply league 0012: the event store holds facts about player accounts "
            "that the older schema cannot hold, and events are never deleted."
        )


class Migration(migrations.Migration):
    dependencies = [
        ("league", "0011_invitations"),
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
            name="account",
            field=models.ForeignKey(
                blank=True,
                db_constraint=False,
                help_text="Claim or release: the account that took or gave up the player.",
                null=True,
                on_delete=django.db.models.deletion.DO_NOTHING,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddField(
            model_name="player",
            name="account",
            field=models.ForeignKey(
                blank=True,
                help_text="The account of the person who claimed this player record.",
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="players",
                to=settings.AUTH_USER_MODEL,
            ),
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
                    ("player_claimed", "Player claimed"),
                    ("player_released", "Player released"),
                    ("player_forgotten", "Player forgotten"),
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
                                "player_registered",
                                "player_renamed",
                                "player_deactivated",
                                "player_reactivated",
                                "player_merged",
                                "player_unmerged",
                                "player_claimed",
                                "player_released",
                                "player_forgotten",
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
                    models.Q(("kind__in", ["player_claimed", "player_released"]), _negated=True),
                    ("account__isnull", False),
                    _connector="OR",
                ),
                name="event_claim_names_account",
            ),
        ),
        migrations.AddConstraint(
            model_name="player",
            constraint=models.UniqueConstraint(
                condition=models.Q(("account__isnull", False)),
                fields=("league", "account"),
                name="player_one_per_account",
            ),
        ),
        # Reversed, this runs first: history is never dropped to go back a version.
        migrations.RunPython(reinstall_on_sqlite, refuse_to_drop_account_facts, elidable=False),
    ]
