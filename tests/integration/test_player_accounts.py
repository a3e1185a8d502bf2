"""Players as people: claiming and releasing player records through events."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from league import services
from league.event_store import facts_of, store
from league.event_store.signals import events_appended
from league.event_store.vocabulary import PlayerClaimed, PlayerReleased
from league.models import Event, Player
from league.player_accounts import claim_player, player_of, players_of, release_player


@pytest.fixture
def person(db):
    return get_user_model().objects.create_user("pat", password="pw-pat-1")


@pytest.fixture
def stranger(db):
    return get_user_model().objects.create_user("sam", password="pw-sam-1")


@pytest.fixture
def ann(league, organiser):
    return services.register_player(league, "Ann", recorded_by=organiser)


@pytest.fixture
def bob(league, organiser):
    return services.register_player(league, "Bob", recorded_by=organiser)


@pytest.fixture
def signals():
    calls: list[dict] = []

    def receiver(sender, **kwargs):
        calls.append(kwargs)

    events_appended.connect(receiver, dispatch_uid="test_player_accounts")
    yield calls
    events_appended.disconnect(dispatch_uid="test_player_accounts")


def codes(error: ValidationError) -> dict[str, list[str]]:
    return {field: [e.code for e in errors] for field, errors in error.error_dict.items()}


def state() -> tuple:
    return (
        list(Event.objects.order_by("pk").values()),
        list(Player.objects.order_by("pk").values()),
    )


def test_a_person_claims_a_player_by_an_event_naming_their_account(ann, person, signals):
    event = claim_player(ann, person, by=person)
    assert (event.kind, event.player_id, event.account_id, event.recorded_by_id) == (
        "player_claimed",
        ann.pk,
        person.pk,
        person.pk,
    )
    assert Player.objects.get(pk=ann.pk).account_id == person.pk
    assert ann.account_id == person.pk
    (call,) = signals
    assert call["events"] == [PlayerClaimed(player_id=ann.pk, account_id=person.pk)]
    assert not call["events"][0].affects_ratings
    assert facts_of([event]) == call["events"]


def test_an_organiser_links_an_account_to_a_player(league, ann, person, organiser):
    event = claim_player(ann, person, by=organiser, reason="asked at the club")
    assert (event.recorded_by, event.reason) == (organiser, "asked at the club")
    assert list(players_of(person)) == [ann]
    assert player_of(person, league) == ann


def test_claiming_a_player_one_holds_stores_nothing_new(ann, person):
    first = claim_player(ann, person, by=person)
    before = state()
    assert claim_player(ann, person, by=person) == first
    assert state() == before


def test_a_keyed_retry_returns_the_stored_claim(ann, person):
    first = claim_player(ann, person, by=person, idempotency_key="claim-1")
    before = state()
    assert claim_player(ann, person, by=person, idempotency_key="claim-1") == first
    assert state() == before


@pytest.mark.parametrize(
    ("who", "field", "code"),
    [
        ("anonymous", "account", "anonymous"),
        ("stranger_for_person", "account", "forbidden"),
        ("other_organiser_for_person", "account", "forbidden"),
    ],
)
def test_only_the_person_or_an_organiser_may_link(
    ann, person, stranger, other_organiser, who, field, code
):
    account, by = {
        "anonymous": (AnonymousUser(), AnonymousUser()),
        "stranger_for_person": (person, stranger),
        "other_organiser_for_person": (person, other_organiser),
    }[who]
    before = state()
    with pytest.raises(ValidationError) as caught:
        claim_player(ann, account, by=by)
    assert codes(caught.value) == {field: [code]}
    assert state() == before


def test_an_inactive_account_cannot_claim(ann, person):
    person.is_active = False
    person.save()
    with pytest.raises(ValidationError) as caught:
        claim_player(ann, person, by=person)
    assert codes(caught.value) == {"account": ["anonymous"]}


def test_a_player_held_by_someone_else_cannot_be_claimed(ann, person, stranger):
    claim_player(ann, person, by=person)
    before = state()
    with pytest.raises(ValidationError) as caught:
        claim_player(ann, stranger, by=stranger)
    assert codes(caught.value) == {"player": ["claimed"]}
    assert state() == before


def test_one_player_per_account_per_league(league, ann, bob, person):
    claim_player(ann, person, by=person)
    before = state()
    with pytest.raises(ValidationError) as caught:
        claim_player(bob, person, by=person)
    assert codes(caught.value) == {"account": ["one_per_league"]}
    assert state() == before


def test_the_database_holds_one_player_per_account_per_league(ann, bob, person):
    claim_player(ann, person, by=person)
    with pytest.raises(IntegrityError), transaction.atomic():
        Player.objects.filter(pk=bob.pk).update(account=person)


def test_one_account_holds_players_in_several_leagues_and_an_organiser_may_play(
    league, other_league, ann, organiser
):
    olga = services.register_player(other_league, "Olga")
    claim_player(ann, organiser, by=organiser)
    claim_player(olga, organiser, by=organiser)
    assert set(players_of(organiser)) == {ann, olga}
    assert list(players_of(organiser, other_league)) == [olga]
    assert player_of(organiser, league) == ann


def test_a_merged_player_cannot_be_claimed(league, ann, bob, person, organiser):
    services.merge_player(league, ann, bob, reason="same person", recorded_by=organiser)
    with pytest.raises(ValidationError) as caught:
        claim_player(Player.objects.get(pk=ann.pk), person, by=person)
    assert codes(caught.value) == {"player": ["merged"]}


def test_a_merged_away_player_is_not_among_the_live_players(league, ann, bob, person, organiser):
    claim_player(ann, person, by=organiser)
    services.merge_player(league, ann, bob, reason="same person", recorded_by=organiser)
    assert list(players_of(person)) == []
    assert player_of(person, league) is None


def test_the_holder_releases_a_player(ann, person, signals):
    claim_player(ann, person, by=person)
    event = release_player(ann, by=person, reason="moved away")
    assert (event.kind, event.player_id, event.account_id, event.reason) == (
        "player_released",
        ann.pk,
        person.pk,
        "moved away",
    )
    assert Player.objects.get(pk=ann.pk).account_id is None
    assert list(players_of(person)) == []
    assert signals[-1]["events"] == [
        PlayerReleased(player_id=ann.pk, account_id=person.pk, reason="moved away")
    ]
    assert store.fact_of(Event.objects.get(pk=event.pk)) == signals[-1]["events"][0]


def test_an_organiser_releases_a_wrong_claim_and_the_player_can_be_claimed_again(
    ann, person, stranger, organiser
):
    claim_player(ann, person, by=person)
    release_player(ann, by=organiser, reason="wrong person")
    claim_player(ann, stranger, by=stranger)
    assert Player.objects.get(pk=ann.pk).account == stranger
    assert [e.kind for e in Event.objects.filter(player=ann).order_by("seq")] == [
        "player_registered",
        "player_claimed",
        "player_released",
        "player_claimed",
    ]


def test_nobody_else_releases_a_player(ann, person, stranger, other_organiser):
    claim_player(ann, person, by=person)
    before = state()
    for by in (stranger, other_organiser, AnonymousUser()):
        with pytest.raises(ValidationError) as caught:
            release_player(ann, by=by)
        assert codes(caught.value) == {"player": ["forbidden"]}
    assert state() == before


def test_releasing_an_unclaimed_player_is_refused(ann, organiser):
    before = state()
    with pytest.raises(ValidationError) as caught:
        release_player(ann, by=organiser)
    assert codes(caught.value) == {"player": ["not_claimed"]}
    assert state() == before


def test_a_keyed_release_retried_returns_the_stored_event(ann, person):
    claim_player(ann, person, by=person)
    first = release_player(ann, by=person, idempotency_key="release-1")
    before = state()
    assert release_player(ann, by=person, idempotency_key="release-1") == first
    assert state() == before


def test_the_database_refuses_a_claim_without_an_account(league, ann):
    with pytest.raises(IntegrityError), transaction.atomic():
        Event.objects.create(league=league, seq=99, kind="player_claimed", player=ann)


def test_nobody_holds_players_while_anonymous(ann, person):
    claim_player(ann, person, by=person)
    assert list(players_of(AnonymousUser())) == []
