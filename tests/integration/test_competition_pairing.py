"""Pairing a competition's next round: the league's Swiss engine over the event's results,
requested byes honoured, withdrawn players never paired, late entrants from their round; a
round robin from its Berger table."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError

from league import competitions, services
from league.competition_pairing import club_swiss, pairing_engine_for, propose_round
from league.competitions import Outcome

NAMES = ("Ann", "Bob", "Cem", "Dee", "Eve")


@pytest.fixture
def roster(league, make_player):
    return {name: make_player(league, name) for name in (*NAMES, "Fay")}


def _publish(competition, proposal):
    return competitions.publish_round(
        competition,
        proposal.round_number,
        list(proposal.pairings),
        [] if proposal.bye is None else [proposal.bye],
    )


def _play_all(league, published, score="1"):
    for fixture in published.fixtures:
        services.record_fixture_result(league, fixture, score_a=score)


def test_a_five_player_swiss_pairs_three_rounds_without_repeats(league, organiser, roster):
    # The club generator pairs every league but a chess league (``league.chess.pairing``).
    league.sport = "Table tennis"
    league.save(update_fields=["sport"])
    swiss = competitions.create_competition(
        league, name="Swiss", planned_rounds=3, recorded_by=organiser
    )
    for rating, name in zip((2000, 1900, 1800, 1700, 1600), NAMES, strict=True):
        competitions.enter_player(swiss, roster[name], seed_rating=rating)
    assert pairing_engine_for(league) is club_swiss
    ids = {player.pk: name for name, player in roster.items()}
    met: set[frozenset[str]] = set()
    bye_takers = []
    for number in (1, 2, 3):
        proposal = propose_round(swiss)
        assert proposal.round_number == number
        names = [(ids[a], ids[b]) for a, b in proposal.pairings]
        assert len(names) == 2
        assert proposal.bye is not None
        seen = [name for pair in names for name in pair] + [ids[proposal.bye]]
        assert sorted(seen) == sorted(NAMES)
        for pair in names:
            assert frozenset(pair) not in met
            met.add(frozenset(pair))
        bye_takers.append(ids[proposal.bye])
        _play_all(league, _publish(swiss, proposal))
    # Round 1: top half against bottom half by seed (the lowest seed sits out).
    assert bye_takers[0] == "Eve"
    assert len(set(bye_takers)) == 3
    state = competitions.competition_state(swiss)
    assert sum(e.points for e in state.entrants) == Decimal("6") + Decimal("3")
    with pytest.raises(ValidationError) as caught:
        propose_round(swiss)
    assert "All 3 rounds" in caught.value.message_dict["round_number"][0]


def test_requested_byes_withdrawals_and_late_entries_shape_the_field(league, organiser, roster):
    swiss = competitions.create_competition(
        league, name="Swiss", planned_rounds=3, recorded_by=organiser
    )
    for name in ("Ann", "Bob", "Cem", "Dee"):
        competitions.enter_player(swiss, roster[name])
    competitions.request_bye(swiss, roster["Dee"], round_number=1, kind="requested_zero")
    first = propose_round(swiss)
    assert roster["Dee"].pk not in {p for pair in first.pairings for p in pair}
    assert first.requested == ((roster["Dee"].pk, "requested_zero", Decimal("0")),)
    assert first.bye is not None  # three players: one sits out with the pairing's bye
    published = _publish(swiss, first)
    with pytest.raises(ValidationError) as caught:
        propose_round(swiss)
    assert "without a result" in caught.value.message_dict["round_number"][0]
    _play_all(league, published)
    competitions.withdraw_player(swiss, roster["Ann"])
    competitions.enter_player(swiss, roster["Eve"])
    second = propose_round(swiss)
    in_round = {p for pair in second.pairings for p in pair} | {second.bye} - {None}
    assert roster["Ann"].pk not in in_round
    assert in_round == {roster[n].pk for n in ("Bob", "Cem", "Dee", "Eve")}
    _publish(swiss, second)
    state = competitions.competition_state(swiss)
    assert state.entrant(roster["Dee"].pk).rounds[0].outcome == Outcome.ZERO_BYE
    assert state.entrant(roster["Eve"].pk).rounds[0].outcome == Outcome.NOT_PAIRED
    assert state.entrant(roster["Ann"].pk).rounds[1].outcome == Outcome.NOT_PAIRED


def test_a_round_robin_follows_the_berger_table(league, organiser, roster):
    event = competitions.create_competition(
        league, name="Championship", format="round_robin", planned_rounds=5, recorded_by=organiser
    )
    for name in NAMES:
        competitions.enter_player(event, roster[name])
    pairs = set()
    byes = []
    for _ in range(5):
        proposal = propose_round(event)
        pairs |= {frozenset(pair) for pair in proposal.pairings}
        byes.append(proposal.bye)
        _publish(event, proposal)  # a round robin may be paired ahead of its results
    assert len(pairs) == 10  # every pair of five players meets once
    assert sorted(byes) == sorted(roster[n].pk for n in NAMES)
