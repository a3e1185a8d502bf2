"""Matches with sides: the ``side_match_recorded`` kind, its participants, the league format.

``MatchParticipant`` holds the players of a match with two or more sides (one row per player:
side, place); one-vs-one matches keep ``player_a``/``player_b`` as before. The participants
are part of their event and as immutable: SQLite triggers refusing UPDATE and DELETE, a
PostgreSQL trigger function refusing UPDATE, DELETE and TRUNCATE (honouring the same
test-only flag as the event table's, see ``league.testing``).

``League.match_format`` (singles only, fixed side size, any) and ``side_size`` say which
matches a league accepts; existing leagues are singles-only, as before.

On SQLite, changing the event table's constraints rebuilds ``league_event`` and drops its
immutability triggers (see migration 0002): they are installed again, in both directions.
Unapplying is refused once a match with sides is stored (events are never deleted).
"""

import importlib
from decimal import Decimal

import django.db.models.deletion
from django.db import migrations, models

triggers = importlib.import_module("league.migrations.0002_event_immutability_triggers")

KINDS = [
    ("player_registered", "Player registered"),
    ("player_renamed", "Player renamed"),
    ("player_deactivated", "Player deactivated"),
    ("player_reactivated", "Player reactivated"),
    ("player_merged", "Player merged"),
    ("player_unmerged", "Player unmerged"),
    ("match_recorded", "Match recorded"),
    ("match_voided", "Match voided"),
    ("side_match_recorded", "Team match recorded"),
]
FORMATS = [
    ("singles", "Singles only: one player against one"),
    ("fixed", "Sides of a fixed size (doubles, teams of n, board games with n = 1)"),
    ("any", "Any sides: two or more sides of any size"),
]

SQLITE_PARTICIPANT_FORWARD = [
    """
    CREATE TRIGGER league_matchparticipant_no_update BEFORE UPDATE ON league_matchparticipant
    BEGIN
        SELECT RAISE(ABORT, 'league_matchparticipant is append-only: UPDATE refused (record a new event instead)');
    END
    """,
    """
    CREATE TRIGGER league_matchparticipant_no_delete BEFORE DELETE ON league_matchparticipant
    BEGIN
        SELECT RAISE(ABORT, 'league_matchparticipant is append-only: DELETE refused (void the match instead)');
    END
    """,
]
SQLITE_PARTICIPANT_REVERSE = [
    "DROP TRIGGER IF EXISTS league_matchparticipant_no_update",
    "DROP TRIGGER IF EXISTS league_matchparticipant_no_delete",
]
POSTGRESQL_PARTICIPANT_FORWARD = [
    """
    CREATE FUNCTION league_matchparticipant_refuse_mutation() RETURNS trigger
    LANGUAGE plpgsql AS $$
    BEGIN
        IF current_setting('league.allow_event_mutation', true) = 'on'
           AND pg_has_role(current_user, (SELECT relowner FROM pg_class WHERE oid = TG_RELID), 'MEMBER')
        THEN
            RETURN NULL;
        END IF;
        RAISE EXCEPTION 'league_matchparticipant is append-only: % refused (record a new event instead)', TG_OP
            USING ERRCODE = 'integrity_constraint_violation';
    END
    $$
    """,
    """
    CREATE TRIGGER league_matchparticipant_append_only
    BEFORE UPDATE OR DELETE ON league_matchparticipant
    FOR EACH STATEMENT EXECUTE FUNCTION league_matchparticipant_refuse_mutation()
    """,
    """
    CREATE TRIGGER league_matchparticipant_no_truncate
    BEFORE TRUNCATE ON league_matchparticipant
    FOR EACH STATEMENT EXECUTE FUNCTION league_matchparticipant_refuse_mutation()
    """,
]
POSTGRESQL_PARTICIPANT_REVERSE = [
    "DROP TRIGGER IF EXISTS league_matchparticipant_no_truncate ON league_matchparticipant",
    "DROP TRIGGER IF EXISTS league_matchparticipant_append_only ON league_matchparticipant",
    "DROP FUNCTION IF EXISTS league_matchparticipant_refuse_mutation()",
]


def reinstall_event_triggers_on_sqlite(apps, schema_editor):
    if schema_editor.connection.vendor == "sqlite":
        for sql in triggers.SQLITE_REVERSE + triggers.SQLITE_FORWARD:
            schema_editor.execute(sql, params=None)


def install_participant_triggers(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    forward = {
        "sqlite": SQLITE_PARTICIPANT_FORWARD,
        "postgresql": POSTGRESQL_PARTICIPANT_FORWARD,
    }
    if vendor not in forward:
        raise NotImplementedError(f"No immutability triggers for {vendor}.")
    for sql in forward[vendor]:
        schema_editor.execute(sql, params=None)


def remove_participant_triggers(apps, schema_editor):
    Event = apps.get_model("league", "Event")
    if Event.objects.filter(kind="side_match_recorded").exists():
        raise RuntimeError(
            "Cannot unapply league 0006: the event store holds matches with sides, which the "
            "older schema cannot hold, and events are never deleted."
        )
    vendor = schema_editor.connection.vendor
    reverse = {
        "sqlite": SQLITE_PARTICIPANT_REVERSE,
        "postgresql": POSTGRESQL_PARTICIPANT_REVERSE,
    }
    for sql in reverse.get(vendor, []):
        schema_editor.execute(sql, params=None)


class Migration(migrations.Migration):
    dependencies = [("league", "0005_seasons_and_website_access")]

    operations = [
        # Reversed, this runs last: the rebuilt table gets its triggers back.
        migrations.RunPython(
            migrations.RunPython.noop, reinstall_event_triggers_on_sqlite, elidable=False
        ),
        migrations.AddField(
            model_name="league",
            name="match_format",
            field=models.CharField(
                choices=FORMATS,
                default="singles",
                help_text="Which matches the league accepts: singles only, sides of a fixed size, any.",
                max_length=16,
            ),
        ),
        migrations.AddField(
            model_name="league",
            name="side_size",
            field=models.PositiveSmallIntegerField(
                default=2,
                help_text="Players per side when the format is a fixed side size (1 to 16).",
            ),
        ),
        migrations.AddConstraint(
            model_name="league",
            constraint=models.CheckConstraint(
                condition=models.Q(match_format__in=[value for value, _label in FORMATS]),
                name="league_match_format_known",
            ),
        ),
        migrations.AddConstraint(
            model_name="league",
            constraint=models.CheckConstraint(
                condition=models.Q(side_size__gte=1, side_size__lte=16),
                name="league_side_size_in_range",
            ),
        ),
        migrations.RemoveConstraint(model_name="event", name="event_kind_known"),
        migrations.AlterField(
            model_name="event",
            name="kind",
            field=models.CharField(choices=KINDS, max_length=32),
        ),
        migrations.AddConstraint(
            model_name="event",
            constraint=models.CheckConstraint(
                condition=models.Q(kind__in=[kind for kind, _label in KINDS]),
                name="event_kind_known",
            ),
        ),
        migrations.AddConstraint(
            model_name="event",
            constraint=models.CheckConstraint(
                condition=~models.Q(kind="side_match_recorded")
                | (
                    models.Q(played_at__isnull=False)
                    & models.Q(player_a__isnull=True)
                    & models.Q(player_b__isnull=True)
                    & (
                        models.Q(score_a__isnull=True)
                        | models.Q(score_a__in=[Decimal("0"), Decimal("0.5"), Decimal("1")])
                    )
                ),
                name="event_side_match_is_complete",
            ),
        ),
        migrations.RunPython(reinstall_event_triggers_on_sqlite, migrations.RunPython.noop),
        migrations.CreateModel(
            name="MatchParticipant",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("side", models.PositiveSmallIntegerField()),
                ("place", models.PositiveSmallIntegerField()),
                (
                    "event",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="participants",
                        to="league.event",
                    ),
                ),
                (
                    "player",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="league.player",
                    ),
                ),
            ],
            options={"ordering": ["event", "side", "id"]},
        ),
        migrations.AddIndex(
            model_name="matchparticipant",
            index=models.Index(fields=["player", "event"], name="participant_player_event"),
        ),
        migrations.AddConstraint(
            model_name="matchparticipant",
            constraint=models.UniqueConstraint(
                fields=("event", "player"), name="participant_once_per_match"
            ),
        ),
        migrations.AddConstraint(
            model_name="matchparticipant",
            constraint=models.CheckConstraint(
                condition=models.Q(side__lt=16), name="participant_side_range"
            ),
        ),
        migrations.AddConstraint(
            model_name="matchparticipant",
            constraint=models.CheckConstraint(
                condition=models.Q(place__lt=16), name="participant_place_range"
            ),
        ),
        migrations.RunPython(
            install_participant_triggers, remove_participant_triggers, elidable=False
        ),
    ]
