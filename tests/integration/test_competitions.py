"""Competitions core: every change an event, byes, forfeits, withdrawals, late entries, and
the one read of a competition's state; every bad input refused with nothing written."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError

from league import competitions, services
from league.competitions import Outcome
from league.event_store import facts_of
from league.event_store.vocabulary import (
    ByeRequested,
    CompetitionCreated,
    EntrantEntered,
    EntrantWithdrawn,
    FixtureScheduled,
    ForfeitRecorded,
    RoundPaired,
)
from league.models import RATING_KINDS, Competition, Entrant, Event, Fixture, RoundBye


@pytest.fixture
def roster(league, make_player):
    return {name: make_player(league, name) for name in ("Ann", "Bob", "Cem", "Dee", "Eve")}


@pytest.fixture
def swiss(league, organiser):
    return competitions.create_competition(
        league,
        name="Autumn Swiss",
        format="swiss",
        planned_rounds=3,
        tiebreaks=["BH-1", "SB"],
        recorded_by=organiser,
    )


def _enter_all(competition, roster, organiser, names=("Ann", "Bob", "Cem", "Dee", "Eve")):
    for name in names:
        competitions.enter_player(competition, roster[name], recorded_by=organiser)


def _count():
    return Event.objects.count()


def test_creating_an_event_stores_the_fact_and_the_row(league, organiser):
    competition = competitions.create_competition(
        league,
        name="Club Championship",
        format="round_robin",
        planned_rounds="5",
        bye_points="½",
        rated=False,
        tiebreaks="SB DE",
        start_date="2024-09-01",
        end_date="2024-12-20",
        recorded_by=organiser,
    )
    assert competition.slug == "club-championship"
    assert (competition.bye_points, competition.rated) == (Decimal("0.5"), False)
    assert competition.tiebreaks == ["SB", "DE"]
    event = Event.objects.get(kind=Event.Kind.COMPETITION_CREATED)
    (fact,) = facts_of([event])
    assert fact == CompetitionCreated(
        competition_id=competition.pk,
        slug="club-championship",
        name="Club Championship",
        format="round_robin",
        planned_rounds=5,
        bye_points=Decimal("0.5"),
        rated=False,
        tiebreaks=("SB", "DE"),
        start_date=competition.start_date,
        end_date=competition.end_date,
    )
    assert event.recorded_by == organiser
    assert Event.Kind.COMPETITION_CREATED not in RATING_KINDS


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"name": ""}, "name"),
        ({"format": "ladder"}, "format"),
        ({"planned_rounds": 0}, "planned_rounds"),
        ({"planned_rounds": "three"}, "planned_rounds"),
        ({"bye_points": "2"}, "bye_points"),
        ({"tiebreaks": ["BH", "BH"]}, "tiebreaks"),
        ({"tiebreaks": ["<b>"]}, "tiebreaks"),
        ({"start_date": "2024-10-01", "end_date": "2024-09-01"}, "end_date"),
        ({"start_date": "1999-01-01"}, "start_date"),
        ({"slug": "Not A Slug"}, "slug"),
        ({"name": "Bad\x00name"}, "name"),
        ({"season": "no-such-season"}, "season"),
    ],
)
def test_bad_event_settings_are_refused_naming_the_field(league, organiser, changes, field):
    settings = {"name": "Swiss", "format": "swiss", "planned_rounds": 5} | changes
    before = _count()
    with pytest.raises(ValidationError) as caught:
        competitions.create_competition(league, recorded_by=organiser, **settings)
    assert field in caught.value.message_dict
    assert (_count(), Competition.objects.count()) == (before, 0)


def test_a_second_event_at_the_same_address_is_refused(league, organiser, swiss):
    before = _count()
    with pytest.raises(ValidationError) as caught:
        competitions.create_competition(
            league, name="Autumn Swiss", planned_rounds=5, recorded_by=organiser
        )
    assert "already has an event" in caught.value.message_dict["slug"][0]
    assert _count() == before


def test_only_the_leagues_organisers_may_change_its_events(league, other_organiser, swiss, roster):
    with pytest.raises(ValidationError) as caught:
        competitions.enter_player(swiss, roster["Ann"], recorded_by=other_organiser)
    assert "recorded_by" in caught.value.message_dict
    assert not Entrant.objects.exists()


def test_entries_get_numbers_in_order_and_a_duplicate_is_refused(swiss, roster, organiser):
    _enter_all(swiss, roster, organiser, ("Ann", "Bob"))
    assert list(swiss.entrants.values_list("player__display_name", "number")) == [
        ("Ann", 1),
        ("Bob", 2),
    ]
    facts = facts_of(Event.objects.filter(kind=Event.Kind.ENTRANT_ENTERED).order_by("seq"))
    assert facts[1] == EntrantEntered(
        competition_id=swiss.pk, player_id=roster["Bob"].pk, from_round=1, number=2
    )
    before = _count()
    with pytest.raises(ValidationError) as caught:
        competitions.enter_player(swiss, roster["Ann"], recorded_by=organiser)
    assert caught.value.message_dict["player"] == ["Ann is already entered in Autumn Swiss."]
    assert _count() == before


def test_an_inactive_player_cannot_be_entered(league, swiss, make_player, organiser):
    gone = make_player(league, "Gus", active=False)
    with pytest.raises(ValidationError) as caught:
        competitions.enter_player(swiss, gone, recorded_by=organiser)
    assert "player" in caught.value.message_dict


def _round_one(swiss, roster, organiser):
    """Ann-Bob, Cem-Dee, Eve the pairing's bye."""
    return competitions.publish_round(
        swiss,
        1,
        [(roster["Ann"], roster["Bob"]), (roster["Cem"].pk, roster["Dee"].pk)],
        [roster["Eve"]],
        recorded_by=organiser,
    )


def test_publishing_a_round_stores_the_round_its_games_and_its_bye(swiss, roster, organiser):
    _enter_all(swiss, roster, organiser)
    published = _round_one(swiss, roster, organiser)
    swiss.refresh_from_db()
    assert swiss.rounds_paired == 1
    assert [
        (f.player_a.display_name, f.player_b.display_name, f.board) for f in published.fixtures
    ] == [
        ("Ann", "Bob", 1),
        ("Cem", "Dee", 2),
    ]
    assert [(b.player.display_name, b.kind, b.points) for b in published.byes] == [
        ("Eve", "pairing_allocated", Decimal("1"))
    ]
    round_event = Event.objects.get(kind=Event.Kind.ROUND_PAIRED)
    (fact,) = facts_of([round_event])
    assert fact == RoundPaired(
        competition_id=swiss.pk,
        round_number=1,
        byes=((roster["Eve"].pk, "pairing_allocated", Decimal("1")),),
    )
    scheduled = facts_of(
        Event.objects.filter(kind=Event.Kind.FIXTURE_SCHEDULED, seq__gt=round_event.seq)
    )
    assert [(f.competition_id, f.round_number, f.board) for f in scheduled] == [
        (swiss.pk, 1, 1),
        (swiss.pk, 1, 2),
    ]
    assert all(isinstance(f, FixtureScheduled) for f in scheduled)


def test_a_round_is_published_once_and_in_order(swiss, roster, organiser):
    _enter_all(swiss, roster, organiser)
    before = _count()
    with pytest.raises(ValidationError) as caught:
        competitions.publish_round(
            swiss, 2, [(roster["Ann"], roster["Bob"])], recorded_by=organiser
        )
    assert "the next round to pair is 1" in caught.value.message_dict["round_number"][0]
    _round_one(swiss, roster, organiser)
    before = _count()
    with pytest.raises(ValidationError):
        _round_one(swiss, roster, organiser)
    assert _count() == before


def test_a_retried_round_with_its_key_stores_nothing_new(swiss, roster, organiser):
    _enter_all(swiss, roster, organiser)
    pairs = [(roster["Ann"], roster["Bob"]), (roster["Cem"], roster["Dee"])]
    competitions.publish_round(swiss, 1, pairs, [roster["Eve"]], idempotency_key="r1")
    before = _count()
    again = competitions.publish_round(swiss, 1, pairs, [roster["Eve"]], idempotency_key="r1")
    assert _count() == before
    assert len(again.fixtures) == 2


@pytest.mark.parametrize(
    ("pairings", "byes", "key", "words"),
    [
        ([("Ann", "Bob"), ("Cem", "Ann")], ["Eve"], "pairings.1.player_b", "paired twice"),
        ([("Ann", "Ann")], [], "pairings.0.player_b", "cannot play themselves"),
        ([("Ann", "Bob"), ("Cem", "Dee")], ["Bob"], "byes", "paired twice"),
        ([("Ann", "Gus")], [], "pairings.0.player_b", "is not entered"),
        ([], [], "pairings", "at least one game"),
    ],
)
def test_bad_pairings_are_refused_naming_the_row(
    league, swiss, roster, organiser, make_player, pairings, byes, key, words
):
    roster = roster | {"Gus": make_player(league, "Gus")}
    _enter_all(swiss, roster, organiser)
    before = _count()
    with pytest.raises(ValidationError) as caught:
        competitions.publish_round(
            swiss,
            1,
            [(roster[a], roster[b]) for a, b in pairings],
            [roster[name] for name in byes],
            recorded_by=organiser,
        )
    assert words in " ".join(caught.value.message_dict[key])
    assert _count() == before
    assert not Fixture.objects.exists()


def test_withdrawn_players_are_never_paired_and_their_games_stand(swiss, roster, organiser):
    _enter_all(swiss, roster, organiser)
    published = _round_one(swiss, roster, organiser)
    services.record_fixture_result(
        swiss.league, published.fixtures[0], score_a="1", recorded_by=organiser
    )
    entrant = competitions.withdraw_player(
        swiss, roster["Ann"], reason="moved away", recorded_by=organiser
    )
    assert entrant.withdrawn_from_round == 2
    (fact,) = facts_of(Event.objects.filter(kind=Event.Kind.ENTRANT_WITHDRAWN))
    assert fact == EntrantWithdrawn(
        competition_id=swiss.pk, player_id=roster["Ann"].pk, from_round=2, reason="moved away"
    )
    before = _count()
    with pytest.raises(ValidationError) as caught:
        competitions.publish_round(
            swiss, 2, [(roster["Ann"], roster["Cem"]), (roster["Bob"], roster["Eve"])]
        )
    assert caught.value.message_dict["pairings.0.player_a"] == [
        "Ann withdrew from round 2 on and cannot be paired."
    ]
    assert _count() == before
    competitions.publish_round(
        swiss, 2, [(roster["Bob"], roster["Cem"]), (roster["Dee"], roster["Eve"])]
    )
    state = competitions.competition_state(swiss)
    ann = state.entrant(roster["Ann"].pk)
    assert [entry.outcome for entry in ann.rounds] == [Outcome.WIN, Outcome.NOT_PAIRED]
    assert ann.points == Decimal("1")


def test_withdrawing_from_a_paired_round_or_twice_is_refused(swiss, roster, organiser):
    _enter_all(swiss, roster, organiser)
    _round_one(swiss, roster, organiser)
    with pytest.raises(ValidationError) as caught:
        competitions.withdraw_player(swiss, roster["Ann"], from_round=1, recorded_by=organiser)
    assert "already paired" in caught.value.message_dict["from_round"][0]
    competitions.withdraw_player(swiss, roster["Ann"], recorded_by=organiser)
    before = _count()
    with pytest.raises(ValidationError) as caught:
        competitions.withdraw_player(swiss, roster["Ann"], from_round=3, recorded_by=organiser)
    assert "already withdrawn" in caught.value.message_dict["player"][0]
    assert _count() == before


def test_a_late_entrant_is_paired_from_their_round(swiss, roster, organiser):
    _enter_all(swiss, roster, organiser, ("Ann", "Bob", "Cem", "Dee"))
    competitions.publish_round(
        swiss, 1, [(roster["Ann"], roster["Bob"]), (roster["Cem"], roster["Dee"])]
    )
    with pytest.raises(ValidationError) as caught:
        competitions.enter_player(swiss, roster["Eve"], from_round=1, recorded_by=organiser)
    assert "already paired" in caught.value.message_dict["from_round"][0]
    late = competitions.enter_player(swiss, roster["Eve"], recorded_by=organiser)
    assert (late.from_round, late.number) == (2, 5)
    competitions.publish_round(
        swiss,
        2,
        [(roster["Eve"], roster["Ann"]), (roster["Bob"], roster["Cem"])],
        [roster["Dee"]],
    )
    eve = competitions.competition_state(swiss).entrant(roster["Eve"].pk)
    assert [entry.outcome for entry in eve.rounds] == [Outcome.NOT_PAIRED, Outcome.PENDING]
    assert eve.rounds[1].side == "first"
    assert eve.rounds[1].opponent_id == roster["Ann"].pk


def test_a_requested_bye_is_honoured_and_cannot_follow_the_pairing(swiss, roster, organiser):
    _enter_all(swiss, roster, organiser)
    bye = competitions.request_bye(
        swiss, roster["Eve"], round_number=1, kind="requested_half", recorded_by=organiser
    )
    assert (bye.kind, bye.points) == ("requested_half", Decimal("0.5"))
    (fact,) = facts_of(Event.objects.filter(kind=Event.Kind.BYE_REQUESTED))
    assert fact == ByeRequested(
        competition_id=swiss.pk,
        player_id=roster["Eve"].pk,
        round_number=1,
        bye_kind="requested_half",
        points=Decimal("0.5"),
    )
    with pytest.raises(ValidationError) as caught:
        competitions.publish_round(swiss, 1, [(roster["Eve"], roster["Ann"])])
    assert "asked for a bye" in caught.value.message_dict["pairings.0.player_a"][0]
    competitions.publish_round(
        swiss, 1, [(roster["Ann"], roster["Bob"]), (roster["Cem"], roster["Dee"])]
    )
    (paired,) = facts_of(Event.objects.filter(kind=Event.Kind.ROUND_PAIRED))
    assert paired.byes == ((roster["Eve"].pk, "requested_half", Decimal("0.5")),)
    before = _count()
    with pytest.raises(ValidationError) as caught:
        competitions.request_bye(swiss, roster["Ann"], round_number=1, recorded_by=organiser)
    assert caught.value.message_dict["round_number"] == [
        "Round 1 is already paired: a bye must be requested before its round is paired."
    ]
    assert _count() == before
    eve = competitions.competition_state(swiss).entrant(roster["Eve"].pk)
    assert (eve.rounds[0].outcome, eve.points, eve.byes, eve.games) == (
        Outcome.HALF_BYE,
        Decimal("0.5"),
        1,
        0,
    )


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"kind": "pairing_allocated"}, "kind"),
        ({"round_number": 4}, "round_number"),
        ({"round_number": "x"}, "round_number"),
    ],
)
def test_bad_bye_requests_are_refused(swiss, roster, organiser, changes, field):
    _enter_all(swiss, roster, organiser)
    before = _count()
    with pytest.raises(ValidationError) as caught:
        competitions.request_bye(
            swiss, roster["Ann"], **({"round_number": 2} | changes), recorded_by=organiser
        )
    assert field in caught.value.message_dict
    assert (_count(), RoundBye.objects.count()) == (before, 0)


def test_a_forfeit_scores_for_the_winner_is_not_rated_and_closes_the_game(swiss, roster, organiser):
    _enter_all(swiss, roster, organiser)
    published = _round_one(swiss, roster, organiser)
    game = published.fixtures[1]  # Cem v Dee
    event = competitions.record_forfeit(
        swiss, game, winner=roster["Dee"], note="Cem did not arrive", recorded_by=organiser
    )
    (fact,) = facts_of([event])
    assert fact == ForfeitRecorded(
        fixture_id=game.pk, winner_id=roster["Dee"].pk, note="Cem did not arrive"
    )
    assert not event.affects_ratings
    state = competitions.competition_state(swiss)
    cem, dee = state.entrant(roster["Cem"].pk), state.entrant(roster["Dee"].pk)
    assert (cem.rounds[0].outcome, cem.points) == (Outcome.FORFEIT_LOSS, Decimal("0"))
    assert (dee.rounds[0].outcome, dee.points, dee.games) == (
        Outcome.FORFEIT_WIN,
        Decimal("1"),
        0,
    )
    before = _count()
    with pytest.raises(ValidationError) as caught:
        services.record_fixture_result(swiss.league, game, score_a="1", recorded_by=organiser)
    assert "decided by forfeit" in caught.value.message_dict["fixture"][0]
    with pytest.raises(ValidationError):
        competitions.record_forfeit(swiss, game, winner=roster["Cem"], recorded_by=organiser)
    assert _count() == before


def test_a_forfeit_names_a_player_of_the_game_of_this_event(league, swiss, roster, organiser):
    _enter_all(swiss, roster, organiser)
    published = _round_one(swiss, roster, organiser)
    other = competitions.create_competition(
        league, name="Blitz", planned_rounds=1, recorded_by=organiser
    )
    before = _count()
    with pytest.raises(ValidationError) as caught:
        competitions.record_forfeit(
            swiss, published.fixtures[0], winner=roster["Eve"], recorded_by=organiser
        )
    assert "does not play in this game" in caught.value.message_dict["winner"][0]
    with pytest.raises(ValidationError) as caught:
        competitions.record_forfeit(
            other, published.fixtures[0], winner=roster["Ann"], recorded_by=organiser
        )
    assert "not a game of Blitz" in caught.value.message_dict["fixture"][0]
    assert _count() == before


def test_state_reads_results_sides_byes_and_double_forfeits(swiss, roster, organiser):
    _enter_all(swiss, roster, organiser)
    published = _round_one(swiss, roster, organiser)
    services.record_fixture_result(
        swiss.league, published.fixtures[0], score_a="0.5", recorded_by=organiser
    )
    competitions.record_forfeit(swiss, published.fixtures[1], winner=None, recorded_by=organiser)
    state = competitions.competition_state(swiss)
    by_name = {entrant.name: entrant for entrant in state.entrants}
    assert [
        (name, e.rounds[0].outcome, e.rounds[0].side, e.points) for name, e in by_name.items()
    ] == [
        ("Ann", Outcome.DRAW, "first", Decimal("0.5")),
        ("Bob", Outcome.DRAW, "second", Decimal("0.5")),
        ("Cem", Outcome.FORFEIT_LOSS, "first", Decimal("0")),
        ("Dee", Outcome.FORFEIT_LOSS, "second", Decimal("0")),
        ("Eve", Outcome.PAIRING_BYE, None, Decimal("1")),
    ]
    assert state.complete_rounds == 1
    # A voided result opens the game again.
    match = Event.objects.get(kind=Event.Kind.MATCH_RECORDED)
    services.void_match(swiss.league, match, reason="wrong board", recorded_by=organiser)
    ann = competitions.competition_state(swiss).entrant(roster["Ann"].pk)
    assert (ann.rounds[0].outcome, ann.rounds[0].points) == (Outcome.PENDING, None)


def test_the_public_log_says_what_happened_and_that_a_forfeit_is_not_rated(
    league, swiss, roster, organiser
):
    from league.event_log import event_log

    _enter_all(swiss, roster, organiser)
    competitions.request_bye(swiss, roster["Eve"], round_number=2, recorded_by=organiser)
    published = _round_one(swiss, roster, organiser)
    competitions.record_forfeit(swiss, published.fixtures[1], winner=roster["Dee"])
    competitions.withdraw_player(swiss, roster["Cem"], recorded_by=organiser)
    summaries = [row.summary for row in reversed(event_log(league, per_page=100).items)]
    assert "Event Autumn Swiss created: Swiss, 3 rounds" in summaries
    assert "Ann entered Autumn Swiss" in summaries
    assert "Eve: Half-point bye (requested) in round 2 of Autumn Swiss" in summaries
    assert "Round 1 of Autumn Swiss paired; Eve: Bye (pairing), 1" in summaries
    assert "Dee wins by forfeit against Cem (round 1 of Autumn Swiss; not rated)" in summaries
    assert "Cem withdrawn from Autumn Swiss from round 2 on" in summaries
    assert any(s.startswith("Cem v Dee scheduled") for s in summaries)
    only_cem = [row.summary for row in event_log(league, player="Cem").items]
    assert "Dee wins by forfeit against Cem (round 1 of Autumn Swiss; not rated)" in only_cem
