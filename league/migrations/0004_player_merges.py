"""Merges: ``player_merged`` and ``player_unmerged`` events, and each player's current merge.

``Event.other_player`` holds the player a merge joins (or an unmerge separates from);
``Player.merged_into`` the write side's current state (kept by the event store, like
``active``). The CHECK constraints learn the two kinds: both name two different players.

Unapplying it is refused once the event store holds a merge or an unmerge (it would drop
them). On SQLite the constraint changes rebuild ``league_event``: its immutability triggers
are installed again afterwards, in both directions (see migrations 0002 and 0003).
"""

import importlib

import django.db.models.deletion
from django.db import migrations, models

triggers = importlib.import_module("league.migrations.0002_event_immutability_triggers")


def reinstall_on_sqlite(apps, schema_editor):
    if schema_editor.connection.vendor == "sqlite":
        for sql in triggers.SQLITE_REVERSE + triggers.SQLITE_FORWARD:
            schema_editor.execute(sql, params=None)


def refuse_to_drop_merges(apps, schema_editor):
    Event = apps.get_model("league", "Event")
    if Event.objects.filter(kind__in=IDENTITY_KINDS).exists():
        raise RuntimeError(
            "Cannot unapply league 0004: the event store holds merges of players that the "
            "older schema cannot hold, and events are never deleted."
        )


KINDS = [
    ("player_registered", "Player registered"),
    ("player_renamed", "Player renamed"),
    ("player_deactivated", "Player deactivated"),
    ("player_reactivated", "Player reactivated"),
    ("player_merged", "Player merged"),
    ("player_unmerged", "Player unmerged"),
    ("match_recorded", "Match recorded"),
    ("match_voided", "Match voided"),
]
PLAYER_KINDS = [kind for kind, _label in KINDS[:6]]
IDENTITY_KINDS = ["player_merged", "player_unmerged"]


class Migration(migrations.Migration):
    dependencies = [("league", "0003_player_facts")]

    operations = [
        # Reversed, this runs last: the rebuilt table gets its triggers back.
        migrations.RunPython(migrations.RunPython.noop, reinstall_on_sqlite, elidable=False),
        migrations.AddField(
            model_name="player",
            name="merged_into",
            field=models.ForeignKey(
                blank=True,
                help_text="The player this one was merged into: their matches count as that player's.",
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="merged_players",
                to="league.player",
            ),
        ),
        migrations.AddField(
            model_name="event",
            name="other_player",
            field=models.ForeignKey(
                blank=True,
                help_text="Merge: the player merged into; unmerge: the player separated from.",
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="league.player",
            ),
        ),
        migrations.RemoveConstraint(model_name="event", name="event_kind_known"),
        migrations.RemoveConstraint(model_name="event", name="event_player_fact_names_player"),
        migrations.AlterField(
            model_name="event",
            name="kind",
            field=models.CharField(choices=KINDS, max_length=32),
        ),
        migrations.AddConstraint(
            model_name="event",
            constraint=models.CheckConstraint(
                condition=models.Q(("kind__in", [kind for kind, _label in KINDS])),
                name="event_kind_known",
            ),
        ),
        migrations.AddConstraint(
            model_name="event",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    models.Q(("kind__in", PLAYER_KINDS), _negated=True),
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
                    models.Q(("kind__in", IDENTITY_KINDS), _negated=True),
                    models.Q(
                        ("other_player__isnull", False),
                        models.Q(("other_player", models.F("player")), _negated=True),
                    ),
                    _connector="OR",
                ),
                name="event_merge_names_two_players",
            ),
        ),
        # Reversed, this runs first: history is never dropped to go back a version.
        migrations.RunPython(reinstall_on_sqlite, refuse_to_drop_merges, elidable=False),
    ]
