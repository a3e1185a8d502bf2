"""Recording, voiding and correcting matches with sides; every refusal stores nothing."""

from __future__ import annotations

import datetime as dt
import zoneinfo
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from league import services
from league.event_store import fact_of
from league.event_store.vocabulary import MatchRecorded, SideMatchRecorded
from league.models import Event, ImmutableEventError, MatchFormat, MatchParticipant

DAY = dt.date(2024, 3, 2)


@pytest.fixture
def doubles(league):
    league.match_format = MatchFormat.FIXED
    league.side_size = 2
    league.save()
    return league


@pytest.fixture
def four(doubles, make_player):
    return [make_player(doubles, name) for name in ("Ana", "Ben", "Cai", "Dee")]


def _counts(league):
    return Event.objects.filter(league=league).count(), MatchParticipant.objects.count()


def test_a_doubles_match_is_stored_with_its_participants(doubles, four):
    ana, ben, cai, dee = four
    event = services.record_match(
        doubles, sides=[[ana, ben], [cai, dee]], score_a="1", played_at=DAY, points="21-15"
    )
    assert event.kind == Event.Kind.SIDE_MATCH_RECORDED
    assert event.player_a_id is None
    assert event.player_b_id is None
    assert event.score_a == Decimal("1")
    rows = list(event.participants.order_by("side", "id").values_list("side", "player", "place"))
    assert rows == [(0, ana.pk, 0), (0, ben.pk, 0), (1, cai.pk, 1), (1, dee.pk, 1)]
    fact = fact_of(event)
    assert isinstance(fact, SideMatchRecorded)
    assert fact.sides == ((ana.pk, ben.pk), (cai.pk, dee.pk))
    assert fact.places == (0, 1)


def test_two_sides_of_one_player_are_a_plain_one_vs_one_match(league, make_player):
    ann, bob = make_player(league, "Ann"), make_player(league, "Bob")
    event = services.record_match(league, sides=[[ann], [bob]], score_a="0.5", played_at=DAY)
    assert event.kind == Event.Kind.MATCH_RECORDED
    assert (event.player_a_id, event.player_b_id, event.score_a) == (ann.pk, bob.pk, Decimal("0.5"))
    assert isinstance(fact_of(event), MatchRecorded)
    assert not MatchParticipant.objects.exists()


def test_a_multi_side_game_keeps_its_finishing_order_with_ties(league, make_player):
    league.match_format = MatchFormat.ANY
    league.save()
    players = [make_player(league, f"P{i}") for i in range(4)]
    event = services.record_match(
        league, sides=[[p] for p in players], places=[2, 1, 2, 4], played_at=DAY
    )
    assert event.score_a is None
    places = dict(event.participants.values_list("player", "place"))
    assert [places[p.pk] for p in players] == [1, 0, 1, 2]  # dense ranks from 0


def test_a_retry_with_the_same_key_stores_nothing_new(doubles, four):
    ana, ben, cai, dee = four
    kwargs = {"sides": [[ana, ben], [cai, dee]], "score_a": "0", "played_at": DAY}
    first = services.record_match(doubles, idempotency_key="k1", **kwargs)
    before = _counts(doubles)
    again = services.record_match(doubles, idempotency_key="k1", **kwargs)
    assert again.pk == first.pk
    assert _counts(doubles) == before
    with pytest.raises(ValidationError) as caught:
        services.record_match(
            doubles, idempotency_key="k1", **{**kwargs, "sides": [[ana, cai], [ben, dee]]}
        )
    assert "idempotency_key" in caught.value.message_dict
    assert _counts(doubles) == before


@pytest.mark.parametrize(
    ("shape", "field", "needle"),
    [
        ("player_on_both_sides", "sides", "on side A and side B"),
        ("named_twice", "sides", "named twice on side A"),
        ("empty_side", "sides", "Side B is empty"),
        ("one_side", "sides", "2 to 16 sides"),
        ("unequal_sizes", "sides", "sides of 2 players each"),
        ("singles_shape", "sides", "sides of 2 players each"),
        ("unknown_player", "sides", "no player with id 999999"),
        ("inactive_player", "sides", "is inactive"),
        ("multi_without_places", "places", "needs a finishing position"),
        ("wrong_place_count", "places", "2 finishing positions for 3 sides"),
        ("bad_place", "places", "not a whole number"),
        ("score_and_places", "places", "not both"),
        ("no_score", "score_a", "Give side A's score"),
        ("bad_score", "score_a", "must be 1"),
        ("future", "played_at", "in the future"),
    ],
)
def test_every_refusal_names_its_field_and_stores_nothing(
    doubles, four, make_player, shape, field, needle
):
    ana, ben, cai, dee = four
    eve = make_player(doubles, "Eve")
    fay = make_player(doubles, "Fay", active=False)
    row = {"sides": [[ana, ben], [cai, dee]], "score_a": "1", "played_at": DAY}
    match shape:
        case "player_on_both_sides":
            row["sides"] = [[ana, ben], [ana, cai]]
        case "named_twice":
            row["sides"] = [[ana, ana], [cai, dee]]
        case "empty_side":
            row["sides"] = [[ana, ben], []]
        case "one_side":
            row["sides"] = [[ana, ben]]
        case "unequal_sizes":
            row["sides"] = [[ana, ben, eve], [cai, dee]]
        case "singles_shape":
            row["sides"] = [[ana], [cai]]
        case "unknown_player":
            row["sides"] = [[ana, 999999], [cai, dee]]
        case "inactive_player":
            row["sides"] = [[ana, fay], [cai, dee]]
        case "multi_without_places":
            row["sides"] = [[ana, ben], [cai, dee], [eve, fay]]
            row["score_a"] = None
        case "wrong_place_count":
            row["sides"] = [[ana, ben], [cai, dee], [eve, make_player(doubles, "Gus")]]
            row["score_a"], row["places"] = None, [1, 2]
        case "bad_place":
            row["sides"] = [[ana, ben], [cai, dee], [eve, make_player(doubles, "Gus")]]
            row["score_a"], row["places"] = None, [1, "first", 2]
        case "score_and_places":
            row["places"] = [1, 2]
        case "no_score":
            row["score_a"] = None
        case "bad_score":
            row["score_a"] = "2"
        case "future":
            row["played_at"] = dt.date.today() + dt.timedelta(days=3)
    before = _counts(doubles)
    with pytest.raises(ValidationError) as caught:
        services.record_match(doubles, **row)
    messages = caught.value.message_dict
    assert field in messages, messages
    assert any(needle in message for message in messages[field]), messages
    assert _counts(doubles) == before


def test_a_singles_league_refuses_teams_and_a_doubles_league_refuses_singles(
    league, doubles, make_player
):
    # ``league`` and ``doubles`` are the same league; start from singles.
    doubles.match_format = MatchFormat.SINGLES
    doubles.save()
    ann, bob, cat, dan = (make_player(doubles, n) for n in ("Ann", "Bob", "Cat", "Dan"))
    before = _counts(doubles)
    with pytest.raises(ValidationError) as caught:
        services.record_match(doubles, sides=[[ann, bob], [cat, dan]], score_a="1", played_at=DAY)
    assert "singles only" in " ".join(caught.value.message_dict["sides"])
    doubles.match_format = MatchFormat.FIXED
    doubles.save()
    with pytest.raises(ValidationError) as caught:
        services.record_match(doubles, player_a=ann, player_b=bob, score_a="1", played_at=DAY)
    assert "sides of 2 players each" in " ".join(caught.value.messages)
    assert _counts(doubles) == before


def test_void_and_correct_a_doubles_match(doubles, four):
    ana, ben, cai, dee = four
    event = services.record_match(
        doubles, sides=[[ana, ben], [cai, dee]], score_a="1", played_at=DAY
    )
    voided, corrected = services.correct_match(
        doubles, event, reason="sides swapped", sides=[[ana, cai], [ben, dee]]
    )
    assert voided.voids_id == event.pk
    assert corrected.replaces_id == event.pk
    assert corrected.kind == Event.Kind.SIDE_MATCH_RECORDED
    assert fact_of(corrected).sides == ((ana.pk, cai.pk), (ben.pk, dee.pk))
    assert corrected.score_a == Decimal("1")  # kept from the original
    before = _counts(doubles)
    with pytest.raises(ValidationError):
        services.void_match(doubles, event, reason="again")
    with pytest.raises(ValidationError) as caught:
        services.correct_match(doubles, corrected, reason="same", score_a="1")
    assert "identical" in " ".join(caught.value.messages)
    assert _counts(doubles) == before
    services.void_match(doubles, corrected, reason="never played")
    assert Event.objects.get(voids=corrected).kind == Event.Kind.MATCH_VOIDED


def test_participants_are_immutable_in_the_orm_and_the_database(doubles, four):
    ana, ben, cai, dee = four
    event = services.record_match(
        doubles, sides=[[ana, ben], [cai, dee]], score_a="1", played_at=DAY
    )
    row = event.participants.first()
    with pytest.raises(ImmutableEventError):
        row.save()
    with pytest.raises(ImmutableEventError):
        row.delete()
    with pytest.raises(ImmutableEventError):
        MatchParticipant.objects.filter(event=event).update(place=1)
    for statement in (
        "UPDATE league_matchparticipant SET place = 1",
        "DELETE FROM league_matchparticipant",
    ):
        with pytest.raises(IntegrityError), transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(statement)
    assert event.participants.count() == 4


def test_players_of_one_team_match_cannot_be_merged(doubles, four, organiser):
    ana, ben, cai, dee = four
    services.record_match(doubles, sides=[[ana, ben], [cai, dee]], score_a="1", played_at=DAY)
    before = _counts(doubles)
    for other in (ben, cai):  # a partner, an opponent
        with pytest.raises(ValidationError) as caught:
            services.merge_player(doubles, ana, other, reason="same person", recorded_by=None)
        assert "played each other" in " ".join(caught.value.messages)
    assert _counts(doubles) == before


def test_a_doubles_match_dated_today_is_corrected_before_noon(doubles, four, monkeypatch):
    """As for one-vs-one matches: the kept day is checked as a day, not as noon to come."""
    ana, ben, cai, dee = four
    zone = zoneinfo.ZoneInfo(doubles.time_zone)
    today = timezone.localdate(timezone=zone)
    monkeypatch.setattr(
        timezone, "now", lambda: dt.datetime.combine(today, dt.time(9), tzinfo=zone)
    )
    event = services.record_match(
        doubles, sides=[[ana, ben], [cai, dee]], score_a="1", played_at=today
    )
    _voided, corrected = services.correct_match(
        doubles, event, reason="Cai played for Ben", sides=[[ana, cai], [ben, dee]]
    )
    assert corrected.played_at == event.played_at
    assert fact_of(corrected).sides == ((ana.pk, cai.pk), (ben.pk, dee.pk))
