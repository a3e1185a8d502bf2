"""Players change through events: renamed, deactivated, reactivated (and registered)."""

from __future__ import annotations

import datetime as dt
from unittest import mock

import pytest
from django.core.exceptions import ValidationError

from league import services
from league.event_store import facts_of, store
from league.event_store.signals import events_appended
from league.event_store.vocabulary import PlayerDeactivated, PlayerRegistered, PlayerRenamed
from league.models import Event, Player

PLAYED = dt.date(2024, 3, 2)


@pytest.fixture
def signals():
    calls: list[dict] = []

    def receiver(sender, **kwargs):
        calls.append(kwargs)

    events_appended.connect(receiver, dispatch_uid="test_player_services")
    yield calls
    events_appended.disconnect(dispatch_uid="test_player_services")


@pytest.fixture
def roster(league, other_league, organiser):
    ann = services.register_player(league, "Ann", recorded_by=organiser)
    bob = services.register_player(league, "Bob", recorded_by=organiser)
    olga = services.register_player(other_league, "Olga")
    return {"ann": ann, "bob": bob, "olga": olga}


def state() -> tuple:
    return (
        list(Event.objects.order_by("pk").values()),
        list(Player.objects.order_by("pk").values()),
    )


def test_a_registration_stores_the_name_it_was_registered_under(league, signals):
    ann = services.register_player(league, "  Ann   Lee ")
    event = Event.objects.get(player=ann)
    assert (event.kind, event.display_name) == ("player_registered", "Ann Lee")
    (call,) = signals
    assert call["events"] == [PlayerRegistered(player_id=ann.pk, display_name="Ann Lee")]


def test_renaming_appends_an_event_and_changes_the_player(roster, league, organiser, signals):
    ann = roster["ann"]
    event = services.rename_player(
        league, ann, " Ann  Archer ", reason="married", recorded_by=organiser
    )
    assert (event.kind, event.display_name, event.reason) == (
        "player_renamed",
        "Ann Archer",
        "married",
    )
    assert event.recorded_by == organiser
    assert Player.objects.get(pk=ann.pk).display_name == "Ann Archer"
    assert ann.display_name == "Ann Archer"
    (call,) = signals
    assert call["events"] == [
        PlayerRenamed(player_id=ann.pk, display_name="Ann Archer", reason="married")
    ]
    assert not any(fact.affects_ratings for fact in call["events"])


def test_the_registered_name_survives_a_rename(roster, league, organiser):
    services.rename_player(league, roster["ann"], "Ann Archer", reason="", recorded_by=organiser)
    registration = Event.objects.get(kind="player_registered", player=roster["ann"])
    assert store.fact_of(registration).display_name == "Ann"


def test_only_the_case_of_a_name_may_change(roster, league, organiser):
    services.rename_player(league, roster["ann"], "ANN", reason="", recorded_by=organiser)
    assert Player.objects.get(pk=roster["ann"].pk).display_name == "ANN"


def test_deactivating_and_reactivating(roster, league, organiser, signals):
    bob = roster["bob"]
    off = services.deactivate_player(league, bob, reason="moved away", recorded_by=organiser)
    assert not Player.objects.get(pk=bob.pk).active
    assert bob.active is False
    with pytest.raises(ValidationError) as raised:
        services.record_match(
            league, player_a=roster["ann"], player_b=bob.pk, score_a=1, played_at=PLAYED
        )
    assert raised.value.error_dict["player_b"][0].code == "inactive_player"
    on = services.reactivate_player(league, bob.pk, reason="back", recorded_by=organiser)
    assert Player.objects.get(pk=bob.pk).active
    assert [off.kind, on.kind] == ["player_deactivated", "player_reactivated"]
    assert [call["events"] for call in signals] == [facts_of([off]), facts_of([on])]
    assert signals[0]["events"] == [PlayerDeactivated(player_id=bob.pk, reason="moved away")]


def test_a_stale_player_object_does_not_let_a_result_through(roster, league, organiser):
    stale = Player.objects.get(pk=roster["bob"].pk)
    services.deactivate_player(league, roster["bob"], reason="", recorded_by=organiser)
    assert stale.active  # the caller's object predates the deactivation
    with pytest.raises(ValidationError) as raised:
        services.record_match(
            league, player_a=roster["ann"], player_b=stale, score_a=1, played_at=PLAYED
        )
    assert raised.value.error_dict["player_b"][0].code == "inactive_player"


@pytest.mark.parametrize(
    "change",
    [
        lambda league, player, user: services.rename_player(
            league, player, "Bea", reason="", recorded_by=user
        ),
        lambda league, player, user: services.deactivate_player(
            league, player, reason="", recorded_by=user
        ),
    ],
    ids=["rename", "deactivate"],
)
def test_changes_take_the_league_lock(roster, league, organiser, change):
    with mock.patch.object(store, "lock_league", wraps=store.lock_league) as lock:
        change(league, roster["bob"], organiser)
    assert lock.called
    assert lock.call_args.args == (league,)


def test_a_retried_change_returns_the_stored_event(roster, league, organiser, signals):
    first = services.deactivate_player(
        league, roster["bob"], reason="left", recorded_by=organiser, idempotency_key="k-1"
    )
    again = services.deactivate_player(
        league, roster["bob"], reason="left", recorded_by=organiser, idempotency_key="k-1"
    )
    assert again == first
    assert len(signals) == 1
    with pytest.raises(ValidationError) as raised:
        services.deactivate_player(
            league, roster["bob"], reason="other", recorded_by=organiser, idempotency_key="k-1"
        )
    assert raised.value.error_dict["idempotency_key"][0].code == "idempotency_conflict"


def _rename(name):
    return lambda league, roster, user: services.rename_player(
        league, roster["ann"], name, reason="", recorded_by=user
    )


REFUSALS = [
    ("empty new name", _rename("   "), "display_name", "required", "Give the player a name"),
    ("too long a name", _rename("x" * 121), "display_name", "name_too_long", "at most 120"),
    ("another player's name", _rename("bob"), "display_name", "duplicate_name", "already a"),
    ("the same name", _rename(" Ann "), "display_name", "unchanged", "already called Ann"),
    (
        "deactivating an inactive player",
        lambda league, roster, user: services.deactivate_player(
            league, roster["inactive"], reason="", recorded_by=user
        ),
        "active",
        "already_inactive",
        "already inactive",
    ),
    (
        "reactivating an active player",
        lambda league, roster, user: services.reactivate_player(
            league, roster["ann"], reason="", recorded_by=user
        ),
        "active",
        "already_active",
        "already active",
    ),
    (
        "a player of another league",
        lambda league, roster, user: services.rename_player(
            league, roster["olga"], "Olga H", reason="", recorded_by=user
        ),
        "player",
        "other_league",
        "another league",
    ),
    (
        "an id of another league's player",
        lambda league, roster, user: services.deactivate_player(
            league, roster["olga"].pk, reason="", recorded_by=user
        ),
        "player",
        "unknown_player",
        "has no player",
    ),
    (
        "a recorder who does not organise the league",
        lambda league, roster, user: services.deactivate_player(
            league, roster["ann"], reason="", recorded_by=roster["stranger"]
        ),
        "recorded_by",
        "not_organiser",
        "not an organiser",
    ),
    (
        "too long a reason",
        lambda league, roster, user: services.deactivate_player(
            league, roster["ann"], reason="r" * 1001, recorded_by=user
        ),
        "reason",
        "reason_too_long",
        "too long",
    ),
]


@pytest.mark.parametrize(
    ("change", "field", "code", "message"),
    [case[1:] for case in REFUSALS],
    ids=[case[0] for case in REFUSALS],
)
def test_refusals_store_nothing(
    roster, league, organiser, other_organiser, signals, change, field, code, message
):
    inactive = services.register_player(league, "Idle Ian")
    services.deactivate_player(league, inactive, reason="", recorded_by=organiser)
    roster = {**roster, "inactive": inactive, "stranger": other_organiser}
    signals.clear()
    before = state()
    with pytest.raises(ValidationError) as raised:
        change(league, roster, organiser)
    errors = raised.value.error_dict
    assert list(errors) == [field]
    assert errors[field][0].code == code
    assert message in " ".join(raised.value.messages)
    assert state() == before
    assert signals == []
