"""Knockout cups (``league.cups``): the bracket seeded by rating with byes for the top seeds,
rounds paired from the winners, drawn ties settled by a replay or a tie-break game, the
third-place match, walkovers; every bad input refused with nothing written."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from league import competitions, cups, services
from league.event_store import facts_of
from league.models import ByeKind, Event, Fixture, RoundBye

NAMES = [f"P{n:02d}" for n in range(1, 17)]


@pytest.fixture
def field(league, make_player):
    return {name: make_player(league, name) for name in NAMES}


def _cup(league, organiser, rounds=4, **settings):
    return competitions.create_competition(
        league, name="Winter Cup", format="knockout", planned_rounds=rounds,
        recorded_by=organiser, **settings,
    )  # fmt: skip


def _enter(cup, field, organiser, count):
    # Entered in reverse order, seeded by rating: P01 is the best seed whatever the order.
    for index in reversed(range(count)):
        name = NAMES[index]
        competitions.enter_player(
            cup, field[name], seed_rating=2000 - 10 * index, recorded_by=organiser
        )


def _play(league, organiser, bracket_round, winners_first=True, draws=()):
    """Record every open game of the round: the first-named (better seed) wins, except the
    ties listed in ``draws`` (by position), which are drawn."""
    for tie in bracket_round:
        for game in tie.games:
            if game.pending:
                score = "0.5" if tie.position in draws else ("1" if winners_first else "0")
                services.record_fixture_result(
                    league, game.fixture_id, score_a=score, recorded_by=organiser
                )


def _count():
    return Event.objects.count()


def test_twelve_entrants_byes_for_the_top_four_and_the_bracket_stored(league, field, organiser):
    cup = _cup(league, organiser)
    _enter(cup, field, organiser, 12)
    projected = cups.cup_bracket(cup)
    assert projected.projected
    published = cups.publish_cup_round(cup, 1, recorded_by=organiser)
    names = {p.pk: p.display_name for p in field.values()}
    games = {f.board: (names[f.player_a_id], names[f.player_b_id]) for f in published.fixtures}
    # Ties in bracket order: 1 v (16), 8 v 9, 4 v (13), 5 v 12, 2 v (15), 7 v 10, 3 v (14), 6 v 11.
    assert games == {
        2: ("P08", "P09"), 4: ("P05", "P12"), 6: ("P07", "P10"), 8: ("P06", "P11"),
    }  # fmt: skip
    assert sorted(names[b.player_id] for b in published.byes) == ["P01", "P02", "P03", "P04"]
    assert {b.kind for b in published.byes} == {ByeKind.PAIRING_ALLOCATED}
    (fact,) = facts_of([Event.objects.get(kind=Event.Kind.ROUND_PAIRED)])
    assert [names.get(p) for p in fact.bracket[:4]] == ["P01", None, "P08", "P09"]
    bracket = cups.cup_bracket(cup)
    assert not bracket.projected
    assert bracket.seeds[field["P01"].pk] == 1
    assert bracket.seeds[field["P12"].pk] == 12
    first = bracket.rounds[0]
    assert [t.decided for t in first] == [True, False] * 4
    assert first[0].bye
    assert first[0].winner == field["P01"].pk
    assert first[0].loser is None
    # No game for a bye: nothing rated.
    assert not Fixture.objects.filter(competition=cup, round_number=1, board=1).exists()


def test_a_sixteen_cup_to_the_final_with_a_replay_and_third_place(league, field, organiser):
    cup = _cup(league, organiser, third_place=True)
    _enter(cup, field, organiser, 16)
    cups.publish_cup_round(cup, recorded_by=organiser)
    bracket = cups.cup_bracket(cup)
    _play(league, organiser, bracket.rounds[0], draws=(2,))
    # The 8 v 9 tie is drawn: round 2 waits for it.
    before = _count()
    with pytest.raises(ValidationError) as caught:
        cups.publish_cup_round(cup, recorded_by=organiser)
    assert caught.value.message_dict["round_number"] == [
        "Round 1 still has ties without a winner (P08 v P09): record their results, replays "
        "or tie-break games before pairing round 2."
    ]
    assert _count() == before
    drawn = cups.cup_bracket(cup).rounds[0][1]
    replay = cups.schedule_tie_game(cup, drawn.games[0].fixture_id, recorded_by=organiser)
    assert (replay.round_number, replay.board) == (1, 2)
    assert replay.label == "Winter Cup, round 1, tie 2: replay"
    # The result goes to the open game of the tie.
    assert cups.tie_fixture(cup, 1, 2) == replay
    services.record_fixture_result(league, replay, score_a="0", recorded_by=organiser)
    tie = cups.cup_bracket(cup).rounds[0][1]
    assert [g.kind for g in tie.games] == [cups.GAME, cups.REPLAY]
    assert tie.decided
    assert tie.winner == field["P09"].pk
    for number in (2, 3):
        cups.publish_cup_round(cup, recorded_by=organiser)
        _play(league, organiser, cups.cup_bracket(cup).rounds[number - 1])
    final_round = cups.publish_cup_round(cup, recorded_by=organiser)
    names = {p.pk: p.display_name for p in field.values()}
    boards = {f.board: (names[f.player_a_id], names[f.player_b_id]) for f in final_round.fixtures}
    # P09 beat P08 and then lost to P01; the semi-finals were P01 v P04 and P02 v P03.
    assert boards == {1: ("P01", "P02"), 2: ("P04", "P03")}
    bracket = cups.cup_bracket(cup)
    assert bracket.rounds[1][0].first == field["P01"].pk
    assert bracket.rounds[1][0].second == field["P09"].pk
    _play(league, organiser, bracket.rounds[3])
    bracket = cups.cup_bracket(cup)
    assert bracket.champion == field["P01"].pk
    assert bracket.rounds[3][1].third_place
    assert bracket.rounds[3][1].winner == field["P04"].pk
    with pytest.raises(ValidationError) as caught:
        cups.publish_cup_round(cup, recorded_by=organiser)
    assert caught.value.message_dict["round_number"] == ["All 4 rounds of Winter Cup are paired."]


def test_a_tie_break_game_is_recorded_as_such(league, field, organiser):
    cup = _cup(league, organiser, rounds=1, draw_rule="decider")
    _enter(cup, field, organiser, 2)
    (game,) = cups.publish_cup_round(cup, recorded_by=organiser).fixtures
    with pytest.raises(ValidationError) as caught:
        cups.schedule_tie_game(cup, game, recorded_by=organiser)
    assert caught.value.message_dict["fixture"] == [
        "The tie's game has no result yet: a replay or a tie-break game follows a draw."
    ]
    services.record_fixture_result(league, game, score_a="0.5", recorded_by=organiser)
    assert cups.cup_bracket(cup).champion is None
    with pytest.raises(ValidationError) as caught:
        cups.tie_fixture(cup, 1, 1)
    assert caught.value.message_dict["tie"] == [
        "The tie's game was drawn: schedule its replay or tie-break game first."
    ]
    decider = cups.schedule_tie_game(cup, game, recorded_by=organiser, idempotency_key="k-1")
    assert decider.label == "Winter Cup, round 1, tie 1: tie-break game"
    # A retry stores nothing new.
    retried = cups.schedule_tie_game(cup, game, recorded_by=organiser, idempotency_key="k-1")
    assert retried == decider
    services.record_fixture_result(league, decider, score_a="1", recorded_by=organiser)
    bracket = cups.cup_bracket(cup)
    assert [g.kind for g in bracket.final.games] == [cups.GAME, cups.DECIDER]
    assert bracket.champion == field["P01"].pk
    before = _count()
    with pytest.raises(ValidationError) as caught:
        cups.schedule_tie_game(cup, decider, recorded_by=organiser)
    assert caught.value.message_dict["fixture"] == [
        "The tie is decided (P01 goes through): it needs no other game."
    ]
    assert _count() == before


def test_a_withdrawn_winner_gives_a_walkover(league, field, organiser):
    cup = _cup(league, organiser, rounds=2)
    _enter(cup, field, organiser, 4)
    cups.publish_cup_round(cup, recorded_by=organiser)
    _play(league, organiser, cups.cup_bracket(cup).rounds[0])
    competitions.withdraw_player(cup, field["P02"], from_round=2, recorded_by=organiser)
    final = cups.publish_cup_round(cup, recorded_by=organiser)
    assert final.fixtures == []
    assert [b.player_id for b in final.byes] == [field["P01"].pk]
    bracket = cups.cup_bracket(cup)
    assert bracket.final.bye
    assert bracket.champion == field["P01"].pk


def test_bad_inputs_are_refused_and_change_nothing(league, field, organiser):
    before = _count()
    with pytest.raises(ValidationError) as caught:
        competitions.create_competition(
            league, name="Open", format="swiss", planned_rounds=3, draw_rule="replay",
            third_place=True, recorded_by=organiser,
        )  # fmt: skip
    assert caught.value.message_dict == {
        "draw_rule": ["Only a knockout cup settles drawn games by a rule; leave it blank."],
        "third_place": ["Only a knockout cup plays for third place."],
    }
    with pytest.raises(ValidationError) as caught:
        _cup(league, organiser, rounds=8, draw_rule="coin")
    assert caught.value.message_dict == {
        "draw_rule": ["Choose how a drawn game is settled: replay, decider; got 'coin'."],
        "planned_rounds": ["A cup has at most 7 rounds (128 entrants); got 8."],
    }
    assert _count() == before
    cup = _cup(league, organiser, rounds=3)
    _enter(cup, field, organiser, 4)
    before = _count()
    with pytest.raises(ValidationError) as caught:
        cups.publish_cup_round(cup, recorded_by=organiser)
    assert caught.value.message_dict["round_number"] == [
        "A cup of 3 rounds takes 5 to 8 players; 4 are entered. Enter players, or create a "
        "cup with as many rounds as the field needs."
    ]
    with pytest.raises(ValidationError) as caught:
        competitions.request_bye(cup, field["P01"], round_number=1, recorded_by=organiser)
    assert "A cup has no requested byes" in caught.value.message_dict["player"][0]
    with pytest.raises(ValidationError) as caught:
        competitions.enter_player(cup, field["P09"], from_round=2, recorded_by=organiser)
    assert caught.value.message_dict["from_round"] == [
        "A cup takes its entries before round 1 is paired; its bracket is fixed from then on."
    ]
    a, b = field["P01"], field["P02"]
    with pytest.raises(ValidationError) as caught:
        competitions.publish_round(cup, 1, [(a, b)], recorded_by=organiser)
    assert caught.value.message_dict["pairings"] == [
        "A cup's rounds follow its bracket: pair the next round from the bracket."
    ]
    with pytest.raises(ValidationError) as caught:
        cups.tie_fixture(cup, 2, 1)
    assert caught.value.message_dict["round_number"] == [
        "Round 2 of Winter Cup is not paired yet: its ties have not started."
    ]
    assert _count() == before
    _enter(cup, {"P05": field["P05"]} | field, organiser, 0)
    competitions.enter_player(cup, field["P05"], seed_rating=1500, recorded_by=organiser)
    with pytest.raises(ValidationError) as caught:
        cups.publish_cup_round(cup, 2, recorded_by=organiser)
    assert caught.value.message_dict["round_number"] == [
        "Round 2 cannot be published: the next round to pair is 1."
    ]
    cups.publish_cup_round(cup, 1, recorded_by=organiser, idempotency_key="r1")
    # A retried publish returns round 1 again, storing nothing.
    before = _count()
    again = cups.publish_cup_round(cup, 1, recorded_by=organiser, idempotency_key="r1")
    assert again.round_number == 1
    assert _count() == before
    # A result for a tie of a round not yet paired, and a tie the round does not have.
    with pytest.raises(ValidationError) as caught:
        cups.tie_fixture(cup, 3, 1)
    assert "is not paired yet" in caught.value.message_dict["round_number"][0]
    with pytest.raises(ValidationError) as caught:
        cups.tie_fixture(cup, 1, 9)
    assert caught.value.message_dict["tie"] == ["Round 1 has ties 1, 2, 3, 4; got 9."]
    swiss = competitions.create_competition(
        league, name="Open", format="swiss", planned_rounds=3, recorded_by=organiser
    )
    with pytest.raises(ValidationError) as caught:
        cups.publish_cup_round(swiss, recorded_by=organiser)
    assert caught.value.message_dict["competition"] == ["Open is not a knockout cup."]
    assert RoundBye.objects.filter(competition=cup, round_number=1).count() == 3


def test_the_bracket_page_and_its_numbers(client, league, field, organiser):
    from ratings.selectors.cups import cup_view

    cup = _cup(league, organiser, third_place=True)
    _enter(cup, field, organiser, 12)
    page = client.get(f"/{league.slug}/competitions/{cup.slug}/bracket/")
    assert page.status_code == 200
    assert "this is the seeding as the entries stand now" in page.content.decode()
    cups.publish_cup_round(cup, recorded_by=organiser)
    view = cup_view(cup, simulations=500)
    assert view.forecast.simulations == 500
    total = sum(c.probability for c in view.forecast.chances.values())
    assert total == pytest.approx(1.0, abs=1e-9)
    # Every open tie of round 1 has its chances, from its scheduled game; byes have none.
    assert sorted(board for number, board in view.chances if number == 1) == [2, 4, 6, 8]
    assert all(0.0 < c.first_wins < 1.0 for c in view.chances.values())
    game = view.chances[(1, 2)].game
    assert game.win + game.draw + game.loss == pytest.approx(1.0, abs=1e-9)
    html = client.get(f"/{league.slug}/competitions/{cup.slug}/bracket/").content.decode()
    assert 'id="tie-1-2"' in html
    assert "P01 goes through without a game." in html
    assert "Who wins the cup?" in html
    assert "Each open tie played out 2000 times" in html
    assert "Monte Carlo standard error at most" in html
    assert "Semi-finals" in html
    assert "Final" in html
    assert "Third place" in html
    event = client.get(f"/{league.slug}/competitions/{cup.slug}/").content.decode()
    assert f"/{league.slug}/competitions/{cup.slug}/bracket/" in event
    swiss = competitions.create_competition(
        league, name="Open", format="swiss", planned_rounds=3, recorded_by=organiser
    )
    assert client.get(f"/{league.slug}/competitions/{swiss.slug}/bracket/").status_code == 404
