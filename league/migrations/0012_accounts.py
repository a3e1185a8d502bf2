"""Players as people: ``Player.account`` (one player per account per league) and the facts
that change it (``player_claimed``, ``player_released``), with ``Event.account`` naming the
account, and ``player_forgotten``.

It also opens the one audited erasure path of ``league_event`` (docs/privacy.md): an UPDATE
is refused as before unless it changes only the personal columns (``display_name``,
``reason``, ``note``), in a league whose latest event is a ``player_forgotten``, and a
``display_name`` only on that forgotten player's rows and only to the name the player shows
now ("Forgotten player 17"). DELETE and TRUNCATE stay refused. On PostgreSQL an UPDATE
statement is also refused outright unless the transaction-local flag ``league.erasure`` is
on (``league.forgetting`` sets it), so an update matching no row is refused as before.
A later migration that rebuilds ``league_event`` on SQLite must reinstall these triggers
(``ERASURE_SQLITE``), not migration 0002's.

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


#: The columns an erasure may not change: every column but the personal ones.
FIXED_COLUMNS = (
    "id", "league_id", "seq", "kind", "recorded_at", "recorded_by_id", "idempotency_key",
    "player_id", "other_player_id", "account_id", "played_at", "player_a_id", "player_b_id",
    "score_a", "points", "neutral", "margin", "replaces_id", "voids_id", "fixture_id",
    "scheduled_at", "deadline", "venue",
)  # fmt: skip

_SQLITE_LAST = (
    "(SELECT {col} FROM league_event AS last WHERE last.league_id = OLD.league_id "
    "ORDER BY last.seq DESC LIMIT 1)"
)
# IS, not =: a comparison with NULL must count as "different", never as unknown.
_SQLITE_ALLOWED = " AND ".join(
    [
        *(f"NEW.{column} IS OLD.{column}" for column in FIXED_COLUMNS),
        _SQLITE_LAST.format(col="kind") + " IS 'player_forgotten'",
        "(NEW.display_name IS OLD.display_name OR (OLD.player_id IS NOT NULL AND OLD.player_id IS "
        + _SQLITE_LAST.format(col="player_id")
        + " AND NEW.display_name IS "
        "(SELECT display_name FROM league_player WHERE id = OLD.player_id)))",
    ]
)
ERASURE_SQLITE = [
    "DROP TRIGGER IF EXISTS league_event_no_update",
    f"""
    CREATE TRIGGER league_event_no_update BEFORE UPDATE ON league_event
    WHEN NOT COALESCE(({_SQLITE_ALLOWED}), 0)
    BEGIN
        SELECT RAISE(ABORT, 'league_event is append-only: UPDATE refused (record a new event instead)');
    END
    """,
]

_PG_FIXED = ", ".join(FIXED_COLUMNS)
_PG_OWNER = (
    "current_setting('league.allow_event_mutation', true) = 'on' AND pg_has_role(current_user, "
    "(SELECT relowner FROM pg_class WHERE oid = TG_RELID), 'MEMBER')"
)
ERASURE_POSTGRESQL = [
    f"""
    CREATE FUNCTION league_event_update_statement() RETURNS trigger
    LANGUAGE plpgsql AS $$
    BEGIN
        IF ({_PG_OWNER}) OR current_setting('league.erasure', true) = 'on' THEN
            RETURN NULL;
        END IF;
        RAISE EXCEPTION 'league_event is append-only: UPDATE refused (record a new event instead)'
            USING ERRCODE = 'integrity_constraint_violation';
    END
    $$
    """,
    f"""
    CREATE FUNCTION league_event_erasure_row() RETURNS trigger
    LANGUAGE plpgsql AS $$
    DECLARE
        last_kind text;
        last_player bigint;
    BEGIN
        IF {_PG_OWNER} THEN
            RETURN NEW;
        END IF;
        SELECT kind, player_id INTO last_kind, last_player FROM league_event
            WHERE league_id = OLD.league_id ORDER BY seq DESC LIMIT 1;
        IF last_kind = 'player_forgotten'
           AND ROW(NEW.{_PG_FIXED.replace(", ", ", NEW.")})
               IS NOT DISTINCT FROM ROW(OLD.{_PG_FIXED.replace(", ", ", OLD.")})
           AND (NEW.display_name = OLD.display_name OR (OLD.player_id = last_player
                AND NEW.display_name = (SELECT display_name FROM league_player
                                        WHERE id = OLD.player_id)))
        THEN
            RETURN NEW;
        END IF;
        RAISE EXCEPTION 'league_event is append-only: UPDATE refused (only the personal data of a forgotten player may be erased)'
            USING ERRCODE = 'integrity_constraint_violation';
    END
    $$
    """,
    "DROP TRIGGER league_event_append_only ON league_event",
    """
    CREATE TRIGGER league_event_append_only
    BEFORE DELETE ON league_event
    FOR EACH STATEMENT EXECUTE FUNCTION league_event_refuse_mutation()
    """,
    """
    CREATE TRIGGER league_event_update_statement
    BEFORE UPDATE ON league_event
    FOR EACH STATEMENT EXECUTE FUNCTION league_event_update_statement()
    """,
    """
    CREATE TRIGGER league_event_erasure_only
    BEFORE UPDATE ON league_event
    FOR EACH ROW EXECUTE FUNCTION league_event_erasure_row()
    """,
]
STRICT_POSTGRESQL = [
    "DROP TRIGGER IF EXISTS league_event_erasure_only ON league_event",
    "DROP TRIGGER IF EXISTS league_event_update_statement ON league_event",
    "DROP TRIGGER IF EXISTS league_event_append_only ON league_event",
    "DROP FUNCTION IF EXISTS league_event_erasure_row()",
    "DROP FUNCTION IF EXISTS league_event_update_statement()",
    """
    CREATE TRIGGER league_event_append_only
    BEFORE UPDATE OR DELETE ON league_event
    FOR EACH STATEMENT EXECUTE FUNCTION league_event_refuse_mutation()
    """,
]


def install_erasure_path(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    statements = {"sqlite": ERASURE_SQLITE, "postgresql": ERASURE_POSTGRESQL}[vendor]
    for sql in statements:
        schema_editor.execute(sql, params=None)


def remove_erasure_path(apps, schema_editor):
    if schema_editor.connection.vendor == "sqlite":
        statements = triggers.SQLITE_REVERSE + triggers.SQLITE_FORWARD
    else:
        statements = STRICT_POSTGRESQL
    for sql in statements:
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
        migrations.CreateModel(
            name="AccountPreferences",
            fields=[
                (
                    "user",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="league_preferences",
                        serialize=False,
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "hide_own_rating",
                    models.BooleanField(
                        default=False,
                        help_text="My own rating is hidden from me (others still see it).",
                    ),
                ),
            ],
        ),
        migrations.AddField(
            model_name="invitation",
            name="email",
            field=models.EmailField(
                blank=True, help_text="Where the link was mailed, if it was.", max_length=254
            ),
        ),
        migrations.AddField(
            model_name="invitation",
            name="player",
            field=models.ForeignKey(
                blank=True,
                help_text="The player record the invited person claims; empty: co-organise.",
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="invitations",
                to="league.player",
            ),
        ),
        migrations.AddField(
            model_name="invitation",
            name="sent_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="league",
            name="players_may_join",
            field=models.BooleanField(
                default=False,
                help_text="On: a signed-in person may ask to join as a player (a new one, or one already listed); an organiser accepts or refuses each request.",
                verbose_name="players may ask to join",
            ),
        ),
        migrations.CreateModel(
            name="SignInLink",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("digest", models.CharField(max_length=64, unique=True)),
                ("next_url", models.CharField(blank=True, max_length=400)),
                ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                ("expires_at", models.DateTimeField()),
                ("used_at", models.DateTimeField(blank=True, null=True)),
                (
                    "user",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="sign_in_links",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "ordering": ["-created_at", "-pk"],
            },
        ),
        migrations.CreateModel(
            name="JoinRequest",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("name", models.CharField(max_length=120)),
                ("message", models.TextField(blank=True)),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("pending", "Pending"),
                            ("accepted", "Accepted"),
                            ("refused", "Refused"),
                            ("withdrawn", "Withdrawn"),
                        ],
                        default="pending",
                        max_length=12,
                    ),
                ),
                ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                ("decided_at", models.DateTimeField(blank=True, null=True)),
                (
                    "account",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="join_requests",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "decided_by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "league",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="join_requests",
                        to="league.league",
                    ),
                ),
                (
                    "player",
                    models.ForeignKey(
                        blank=True,
                        help_text="The player the person holds once accepted.",
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="league.player",
                    ),
                ),
            ],
            options={
                "ordering": ["-created_at", "-pk"],
                "constraints": [
                    models.UniqueConstraint(
                        condition=models.Q(("status", "pending")),
                        fields=("league", "account"),
                        name="join_request_one_pending",
                    ),
                    models.CheckConstraint(
                        condition=models.Q(
                            ("status__in", ["pending", "accepted", "refused", "withdrawn"])
                        ),
                        name="join_request_status_known",
                    ),
                ],
            },
        ),
        # Reversed, this runs first: history is never dropped to go back a version.
        migrations.RunPython(reinstall_on_sqlite, refuse_to_drop_account_facts, elidable=False),
        migrations.RunPython(install_erasure_path, remove_erasure_path, elidable=False),
    ]
