"""The event store: append-only at every layer, per-league sequence numbers, idempotency."""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal
from unittest import mock

import pytest
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from django.db import IntegrityError, connection, transaction

from league import event_store, services, testing
from league.event_store import store, vocabulary
from league.event_store.signals import events_appended
from league.event_store.vocabulary import MatchRecorded
from league.models import Event, ImmutableEventError

PLAYED = dt.date(2024, 3, 2)


def snapshot() -> list[dict]:
    return list(Event.objects.order_by("pk").values())


def raw(sql: str, params: list | None = None) -> None:
    """Run ``sql`` in a savepoint, so that a refusal leaves the test's transaction usable."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(sql, params)


def truncate() -> None:
    with transaction.atomic():
        _check_pending_foreign_keys_now()
        raw("TRUNCATE league_event CASCADE")


def _check_pending_foreign_keys_now() -> None:
    """PostgreSQL refuses to TRUNCATE a table with deferred FK checks pending (the test's
    own inserts) before it reaches the trigger; run those checks first."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")


@pytest.fixture
def history(league, make_player):
    """Two registered players and one recorded match."""
    ann = services.register_player(league, "Ann")
    bob = services.register_player(league, "Bob")
    match = services.record_match(
        league, player_a=ann, player_b=bob, score_a="1", played_at=PLAYED, points="3-1"
    )
    return match


def _save_existing(match: Event) -> None:
    match.points = "0-3"
    match.save()


def _save_update_fields(match: Event) -> None:
    match.note = "edited"
    match.save(update_fields=["note"])


ORM_MUTATIONS = {
    "save() of an existing event": _save_existing,
    "save(update_fields=...)": _save_update_fields,
    "delete()": lambda match: match.delete(),
    "QuerySet.update()": lambda match: Event.objects.filter(pk=match.pk).update(points="x"),
    "QuerySet.delete()": lambda match: Event.objects.all().delete(),
    "bulk_update()": lambda match: Event.objects.bulk_update([match], ["points"]),
    "update_or_create()": lambda match: Event.objects.update_or_create(
        pk=match.pk, defaults={"points": "x"}
    ),
}


@pytest.mark.parametrize("mutate", ORM_MUTATIONS.values(), ids=ORM_MUTATIONS.keys())
def test_orm_refuses_every_mutation(history, mutate):
    before = snapshot()
    with pytest.raises(ImmutableEventError, match="immutable"):
        mutate(history)
    assert snapshot() == before


RAW_MUTATIONS = {
    "UPDATE one row": "UPDATE league_event SET points = 'forged' WHERE id = {pk}",
    "UPDATE every row": "UPDATE league_event SET score_a = 0",
    "DELETE one row": "DELETE FROM league_event WHERE id = {pk}",
    "DELETE every row": "DELETE FROM league_event",
}


@pytest.mark.parametrize("sql", RAW_MUTATIONS.values(), ids=RAW_MUTATIONS.keys())
def test_database_trigger_refuses_raw_sql(history, sql):
    before = snapshot()
    with pytest.raises(IntegrityError, match="league_event is append-only"):
        raw(sql.format(pk=history.pk))
    assert snapshot() == before


@pytest.mark.postgres
def test_database_trigger_refuses_truncate(history):
    before = snapshot()
    with pytest.raises(IntegrityError, match="league_event is append-only: TRUNCATE"):
        truncate()
    assert snapshot() == before


@pytest.mark.postgres
def test_postgres_refuses_an_update_that_matches_no_row(history):
    with pytest.raises(IntegrityError, match="append-only: UPDATE"):
        raw("UPDATE league_event SET points = 'x' WHERE id = -1")


def test_guard_is_installed(db):
    assert testing.guard_is_installed()


def test_flush_outside_a_test_database_is_refused_by_the_triggers(history, settings):
    settings.LEAGUE_ALLOW_EVENT_MUTATION_FOR_TESTS = False
    before = snapshot()
    _check_pending_foreign_keys_now()
    with pytest.raises(CommandError) as raised:
        call_command("flush", interactive=False, verbosity=0)
    # A flush truncates every table in one statement: whichever append-only table's trigger
    # fires first refuses it (the order is the database's).
    assert re.search(r"league_(event|matchparticipant) is append-only", str(raised.value))
    assert "create a new database" in str(raised.value)
    assert snapshot() == before


def test_bypass_refuses_without_the_test_setting(history, settings):
    settings.LEAGUE_ALLOW_EVENT_MUTATION_FOR_TESTS = False
    ran = []

    def attempt():
        with testing.unguarded_event_table(reason="should not happen"):
            ran.append(True)

    with pytest.raises(testing.EventMutationRefused, match="only a test database"):
        attempt()
    assert ran == []
    assert testing.guard_is_installed()


def test_bypass_refuses_on_a_database_that_is_not_the_test_database(history):
    settings_dict = {**connection.settings_dict, "NAME": "production", "TEST": {}}
    with mock.patch.object(connection, "settings_dict", settings_dict):
        assert not testing.is_allowed(connection)


def _forge_inside_bypass(pk: int, then_fail: bool = False) -> None:
    with testing.allow_event_mutation_for_tests(reason="checking the bypass"):
        raw("UPDATE league_event SET points = 'lifted' WHERE id = %s", [pk])
        raw("DELETE FROM league_event WHERE id <> %s", [pk])
        if then_fail:
            raise RuntimeError("the test block failed")


def test_bypass_lifts_the_guard_for_one_transaction_only(history):
    with pytest.warns(testing.EventMutationWarning, match="lifted"):
        _forge_inside_bypass(history.pk)
    assert [e.points for e in Event.objects.all()] == ["lifted"]
    assert testing.guard_is_installed()
    with pytest.raises(IntegrityError, match="append-only"):
        raw("UPDATE league_event SET points = 'again'")


def test_an_error_inside_the_bypass_rolls_back_the_changes_and_keeps_the_guard(history):
    before = snapshot()
    with pytest.raises(RuntimeError), pytest.warns(testing.EventMutationWarning):
        _forge_inside_bypass(history.pk, then_fail=True)
    assert snapshot() == before
    assert testing.guard_is_installed()


def test_seq_numbers_each_league_from_one(league, other_league):
    ann = services.register_player(league, "Ann")
    bob = services.register_player(league, "Bob")
    cleo = services.register_player(other_league, "Cleo")
    match = services.record_match(
        league, player_a=ann, player_b=bob, score_a=Decimal("0.5"), played_at=PLAYED
    )
    void = services.void_match(league, match, reason="wrong table")
    assert [e.seq for e in Event.objects.filter(league=league)] == [1, 2, 3, 4]
    assert [e.kind for e in Event.objects.filter(league=league)] == [
        Event.Kind.PLAYER_REGISTERED,
        Event.Kind.PLAYER_REGISTERED,
        Event.Kind.MATCH_RECORDED,
        Event.Kind.MATCH_VOIDED,
    ]
    assert void.voids == match
    assert Event.objects.get(player=cleo).seq == 1


class TestIdempotency:
    @pytest.fixture
    def players(self, league):
        return services.register_player(league, "Ann"), services.register_player(league, "Bob")

    def record(self, league, players, **overrides):
        ann, bob = players
        arguments = {
            "player_a": ann,
            "player_b": bob,
            "score_a": "1",
            "played_at": PLAYED,
            "idempotency_key": "sheet-7-row-3",
        }
        return services.record_match(league, **{**arguments, **overrides})

    def test_a_retry_with_the_same_content_returns_the_stored_event(self, league, players):
        first = self.record(league, players)
        received = []
        events_appended.connect(lambda **kw: received.append(kw), weak=False, dispatch_uid="t1")
        try:
            again = self.record(league, players, score_a=1.0, player_a=players[0].pk)
        finally:
            events_appended.disconnect(dispatch_uid="t1")
        assert again.pk == first.pk
        assert Event.objects.matches().count() == 1
        assert received == []

    def test_the_same_key_with_different_content_is_a_conflict(self, league, players):
        self.record(league, players)
        before = snapshot()
        with pytest.raises(ValidationError) as raised:
            self.record(league, players, score_a="0")
        assert raised.value.error_dict["idempotency_key"][0].code == "idempotency_conflict"
        assert snapshot() == before

    def test_the_same_key_in_another_league_is_a_different_submission(
        self, league, other_league, players
    ):
        self.record(league, players)
        cleo = services.register_player(other_league, "Cleo")
        dan = services.register_player(other_league, "Dan")
        other = self.record(other_league, (cleo, dan))
        assert other.league == other_league
        assert other.seq == 3

    def test_a_registration_retry_returns_the_same_player(self, league):
        first = services.register_player(league, "Ann", idempotency_key="k1")
        again = services.register_player(league, "Ann", idempotency_key="k1")
        assert again == first
        with pytest.raises(ValidationError) as raised:
            services.register_player(league, "Anne", idempotency_key="k1")
        assert raised.value.error_dict["idempotency_key"][0].code == "idempotency_conflict"
        assert league.players.count() == 1

    def test_a_key_taken_concurrently_is_resolved_by_the_unique_constraint(self, league, players):
        first = self.record(league, players)
        # Pretend the pre-check ran before the other writer committed: the insert then
        # hits the UNIQUE constraint and must answer with the stored event.
        with mock.patch.object(store, "existing_for", return_value=None):
            again = event_store.append(league, [self._candidate(league, players)])
        assert again == [first]
        later = self.record(league, players, idempotency_key="next")
        assert later.seq == first.seq + 1

    def test_a_concurrent_conflict_is_reported_as_a_conflict(self, league, players):
        self.record(league, players)
        candidate = self._candidate(league, players, score_a=Decimal("0"))
        with (
            mock.patch.object(store, "existing_for", return_value=None),
            pytest.raises(ValidationError) as raised,
        ):
            event_store.append(league, [candidate])
        assert raised.value.error_dict["idempotency_key"][0].code == "idempotency_conflict"

    @staticmethod
    def _candidate(league, players, score_a=Decimal("1")):
        stored = Event.objects.get(idempotency_key="sheet-7-row-3")
        fact = MatchRecorded(
            player_a_id=players[0].pk,
            player_b_id=players[1].pk,
            score_a=score_a,
            played_at=stored.played_at,
        )
        return event_store.Submission(fact, "sheet-7-row-3")


@pytest.mark.django_db(transaction=True)
class TestFlushBetweenTransactionalTests:
    """pytest-django flushes after each transactional test: the guard must let it."""

    def test_first_stores_events(self, league):
        services.register_player(league, "Ann")
        assert Event.objects.count() == 1

    def test_second_starts_from_an_empty_table_with_the_guard_back(self):
        assert Event.objects.count() == 0
        assert testing.guard_is_installed()


# --- facts and rows ------------------------------------------------------------------------


class TestFactsAndRows:
    """One mapping each way between the vocabulary and ``Event`` rows."""

    @pytest.fixture
    def players(self, league):
        return services.register_player(league, "Ann"), services.register_player(league, "Bob")

    def facts(self, players, match_id):
        ann, bob = players
        played = dt.datetime(2024, 3, 2, 12, tzinfo=dt.UTC)
        return [
            vocabulary.PlayerRenamed(player_id=ann.pk, display_name="Ann Lee", reason="typo"),
            vocabulary.PlayerDeactivated(player_id=bob.pk, reason="away"),
            vocabulary.PlayerReactivated(player_id=bob.pk, reason="back"),
            vocabulary.MatchRecorded(
                player_a_id=ann.pk,
                player_b_id=bob.pk,
                score_a=Decimal("0.5"),
                played_at=played,
                points="2-2",
                note="rapid",
                replaces_id=match_id,
                reason="wrong result",
            ),
            vocabulary.MatchVoided(match_id=match_id, reason="wrong result"),
        ]

    def test_every_kind_of_fact_is_read_back_from_its_row_as_stored(self, league, players):
        match = services.record_match(
            league, player_a=players[0], player_b=players[1], score_a=1, played_at=PLAYED
        )
        facts = self.facts(players, match.pk)
        events = event_store.append(league, [event_store.Submission(fact) for fact in facts])
        assert [event_store.fact_of(event) for event in events] == facts
        stored = Event.objects.filter(pk__in=[e.pk for e in events]).order_by("seq")
        assert event_store.facts_of(stored) == facts
        named = stored.values_list(*store.FACT_COLUMNS, named=True)
        assert [event_store.fact_of(row) for row in named] == facts
        assert {event.kind for event in events} == {fact.kind for fact in facts}

    def test_row_fields_names_only_the_columns_of_the_kind(self, players):
        fact = vocabulary.MatchVoided(match_id=7, reason="duplicate")
        assert store.row_fields(fact) == {
            "kind": "match_voided",
            "voids_id": 7,
            "reason": "duplicate",
        }
        with pytest.raises(TypeError, match="Not a fact"):
            store.row_fields(object())  # type: ignore[arg-type]

    def test_append_takes_submissions_only(self, league, players):
        with pytest.raises(TypeError, match="Submission"):
            event_store.append(league, [vocabulary.MatchVoided(match_id=1, reason="x")])  # type: ignore[list-item]

    def test_a_registration_creates_its_player_in_the_same_transaction(self, league):
        registered = vocabulary.PlayerRegistered(player_id=None, display_name="Cleo")
        seen = []

        def append_then_fail():
            with transaction.atomic():
                event_store.append(league, [event_store.Submission(registered)])
                seen.append(league.players.filter(display_name="Cleo").exists())
                raise RuntimeError("roll back")

        with pytest.raises(RuntimeError):
            append_then_fail()
        assert seen == [True]
        assert not league.players.filter(display_name="Cleo").exists()
        (event,) = event_store.append(league, [event_store.Submission(registered)])
        assert event.player.display_name == "Cleo"
        assert event.player.slug == "cleo"

    def test_the_same_key_twice_in_one_call_with_different_facts_is_a_conflict(
        self, league, players
    ):
        before = snapshot()
        submissions = [
            event_store.Submission(vocabulary.PlayerDeactivated(player_id=players[0].pk), "k"),
            event_store.Submission(vocabulary.PlayerDeactivated(player_id=players[1].pk), "k"),
        ]
        with pytest.raises(ValidationError) as raised:
            event_store.append(league, submissions)
        assert raised.value.error_dict["idempotency_key"][0].code == "idempotency_conflict"
        assert snapshot() == before

    def test_the_same_submission_twice_in_one_call_is_stored_once(self, league, players):
        same = event_store.Submission(vocabulary.PlayerDeactivated(player_id=players[0].pk), "k")
        first, second = event_store.append(league, [same, same])
        assert first == second
        assert Event.objects.filter(idempotency_key="k").count() == 1

    def test_the_database_refuses_unknown_kinds_and_incomplete_player_facts(self, league):
        for fields in (
            {"kind": "player_exploded"},
            {"kind": "player_deactivated"},
            {"kind": "player_renamed", "player": league.players.first()},
        ):
            with pytest.raises(IntegrityError), transaction.atomic():
                Event(league=league, seq=99, **fields).save()
