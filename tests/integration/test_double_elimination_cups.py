"""Double-elimination cups (``league.cups`` over ``pairings.double_elimination``): the
winners' and losers' brackets played round of play by round of play, losers dropping into
the losers' bracket, walkovers, the grand final and its reset, the forecast, the page and
the API; bad settings refused with nothing written."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from league import competitions, cups, services
from league.models import ByeKind, Competition, Event, Fixture, RoundBye

NAMES = [f"P{n:02d}" for n in range(1, 9)]


@pytest.fixture
def field(league, make_player):
    return {name: make_player(league, name) for name in NAMES}


def _cup(league, organiser, rounds=3, reset=True, **settings):
    return competitions.create_competition(
        league, name="Winter Cup", format="knockout", planned_rounds=rounds,
        double_elimination=True, bracket_reset=reset, recorded_by=organiser, **settings,
    )  # fmt: skip


def _enter(cup, field, organiser, count):
    for index in reversed(range(count)):
        competitions.enter_player(
            cup, field[NAMES[index]], seed_rating=2000 - 10 * index, recorded_by=organiser
        )


def _names(field):
    return {p.pk: p.display_name for p in field.values()}


def _play_round(cup, league, organiser, field, upsets=(), draws=()):
    """Publish the next round of play and record its games: the better seed wins, except
    in the ties whose winner is named in ``upsets``; a tie between the pairs of names in
    ``draws`` is drawn first."""
    published = cups.publish_cup_round(cup, recorded_by=organiser)
    names = _names(field)
    for fixture in published.fixtures:
        a, b = names[fixture.player_a_id], names[fixture.player_b_id]
        if {a, b} in [set(pair) for pair in draws]:
            services.record_fixture_result(league, fixture, score_a="0.5", recorded_by=organiser)
            continue
        better_first = a < b
        first_wins = better_first != (a in upsets or b in upsets)
        services.record_fixture_result(
            league, fixture, score_a="1" if first_wins else "0", recorded_by=organiser
        )
    return published


def _games(published, names):
    return sorted((f.board, names[f.player_a_id], names[f.player_b_id]) for f in published.fixtures)


def _tie(bracket, part, part_round, position=1):
    return next(
        t
        for ties in bracket.rounds
        for t in ties
        if (t.part, t.part_round, t.position) == (part, part_round, position)
    )


def test_six_players_through_both_brackets_to_a_bracket_reset(league, field, organiser):
    cup = _cup(league, organiser)
    assert Competition.objects.get(pk=cup.pk).planned_rounds == 7
    _enter(cup, field, organiser, 6)
    names = _names(field)
    first = _play_round(cup, league, organiser, field)
    # Slots 1 8 4 5 2 7 3 6: the top two seeds have a bye in the winners' round 1.
    assert _games(first, names) == [
        (2, "P04", "P05"), (4, "P03", "P06"),
    ]  # fmt: skip
    assert sorted(names[b.player_id] for b in first.byes) == ["P01", "P02"]
    # Round of play 2: the winners' round 2 (boards 1-2) and the losers' round 1 (3-4),
    # where the losers P05 and P06 meet nobody (the byes had no loser): walkovers.
    second = _play_round(cup, league, organiser, field)
    assert _games(second, names) == [
        (1, "P01", "P04"), (2, "P02", "P03"),
    ]  # fmt: skip
    assert sorted(names[b.player_id] for b in second.byes) == ["P05", "P06"]
    assert {b.kind for b in RoundBye.objects.filter(competition=cup)} == {ByeKind.PAIRING_ALLOCATED}
    # Round of play 3: the winners' final, and the losers' round 2 where the winners'
    # round 2's losers drop in reverse order (P03 from tie 2 meets tie 1's survivor P05).
    third = cups.publish_cup_round(cup, recorded_by=organiser)
    assert _games(third, names) == [
        (1, "P01", "P02"), (2, "P05", "P03"), (3, "P06", "P04"),
    ]  # fmt: skip
    drawn = Fixture.objects.get(competition=cup, round_number=3, board=2)
    services.record_fixture_result(league, drawn, score_a="0.5", recorded_by=organiser)
    for board in (1, 3):
        fixture = Fixture.objects.get(competition=cup, round_number=3, board=board)
        score = "1" if board == 1 else "0"
        services.record_fixture_result(league, fixture, score_a=score, recorded_by=organiser)
    before = Event.objects.count()
    with pytest.raises(ValidationError) as caught:
        cups.publish_cup_round(cup, recorded_by=organiser)
    assert caught.value.message_dict["round_number"] == [
        "Round 3 still has ties without a winner (P05 v P03): record their results, replays "
        "or tie-break games before pairing round 4."
    ]
    assert Event.objects.count() == before
    replay = cups.schedule_tie_game(cup, drawn, recorded_by=organiser)
    assert replay.label == "Winter Cup, losers' round 2, tie 1: replay"
    assert (replay.round_number, replay.board) == (3, 2)
    services.record_fixture_result(league, replay, score_a="0", recorded_by=organiser)
    bracket = cups.cup_bracket(cup)
    assert _tie(bracket, "losers", 2).winner == field["P03"].pk
    assert [g.kind for g in _tie(bracket, "losers", 2).games] == ["game", "replay"]
    # Round 4: losers' round 3 (P03 v P04); round 5: the losers' final against the
    # winners' final's loser P02.
    fourth = _play_round(cup, league, organiser, field)
    assert [(names[f.player_a_id], names[f.player_b_id]) for f in fourth.fixtures] == [
        ("P03", "P04")
    ]
    fifth = _play_round(cup, league, organiser, field)
    assert [(names[f.player_a_id], names[f.player_b_id]) for f in fifth.fixtures] == [
        ("P03", "P02")
    ]
    # The grand final: P02, the losers' bracket champion, beats P01 once ...
    sixth = _play_round(cup, league, organiser, field, upsets=("P02",))
    assert [(names[f.player_a_id], names[f.player_b_id]) for f in sixth.fixtures] == [
        ("P01", "P02")
    ]
    bracket = cups.cup_bracket(cup)
    assert not bracket.decided
    assert bracket.champion is None
    reset = _tie(bracket, "reset", 1)
    assert reset.needed
    assert (reset.first, reset.second) == (field["P01"].pk, field["P02"].pk)
    # ... so each has lost once and they meet again.
    seventh = _play_round(cup, league, organiser, field)
    assert [(names[f.player_a_id], names[f.player_b_id]) for f in seventh.fixtures] == [
        ("P01", "P02")
    ]
    bracket = cups.cup_bracket(cup)
    assert bracket.decided
    assert bracket.champion == field["P01"].pk
    # Nobody but the champion is out before two lost ties.
    losses: dict[int, int] = {}
    for ties in bracket.rounds:
        for tie in ties:
            if tie.loser is not None:
                losses[tie.loser] = losses.get(tie.loser, 0) + 1
    assert {names[p]: n for p, n in losses.items()} == {
        "P01": 1, "P02": 2, "P03": 2, "P04": 2, "P05": 2, "P06": 2,
    }  # fmt: skip
    with pytest.raises(ValidationError) as caught:
        cups.publish_cup_round(cup, recorded_by=organiser)
    assert caught.value.message_dict["round_number"] == ["All 7 rounds of Winter Cup are paired."]


def test_the_winners_champion_winning_the_grand_final_ends_the_cup(league, field, organiser):
    cup = _cup(league, organiser, rounds=2)
    _enter(cup, field, organiser, 4)
    for _ in range(4):
        _play_round(cup, league, organiser, field)
    bracket = cups.cup_bracket(cup)
    assert bracket.champion == field["P01"].pk
    assert not _tie(bracket, "reset", 1).needed
    before = Event.objects.count()
    with pytest.raises(ValidationError) as caught:
        cups.publish_cup_round(cup, recorded_by=organiser)
    assert caught.value.message_dict["round_number"] == [
        "Winter Cup is decided (P01 wins it): no round is left to pair."
    ]
    assert Event.objects.count() == before


def test_without_a_reset_the_grand_final_decides(league, field, organiser):
    cup = _cup(league, organiser, rounds=2, reset=False)
    assert Competition.objects.get(pk=cup.pk).planned_rounds == 4
    _enter(cup, field, organiser, 4)
    for _ in range(3):
        _play_round(cup, league, organiser, field)
    _play_round(cup, league, organiser, field, upsets=("P02",))
    bracket = cups.cup_bracket(cup)
    assert bracket.champion == field["P02"].pk


def test_a_withdrawal_gives_walkovers_and_the_log_names_the_format(league, field, organiser):
    cup = _cup(league, organiser, rounds=2)
    _enter(cup, field, organiser, 4)
    _play_round(cup, league, organiser, field)
    # P04 lost round 1 and withdraws: the other loser P03 has a walkover in the losers'
    # round 1.
    competitions.withdraw_player(cup, field["P04"], from_round=2, recorded_by=organiser)
    second = _play_round(cup, league, organiser, field)
    assert [b.player_id for b in second.byes] == [field["P03"].pk]
    from league.event_log import event_log

    summaries = [row.summary for row in event_log(league, per_page=100).items]
    assert (
        "Event Winter Cup created: Knockout cup, 5 rounds, double elimination with a bracket "
        "reset" in summaries
    )


def test_bad_settings_are_refused_and_change_nothing(league, field, organiser):
    before = Event.objects.count()
    with pytest.raises(ValidationError) as caught:
        _cup(league, organiser, third_place=True)
    assert caught.value.message_dict == {
        "third_place": [
            "A double-elimination cup has no third-place match: the losers' bracket final's "
            "loser is third."
        ]
    }
    with pytest.raises(ValidationError) as caught:
        competitions.create_competition(
            league, name="Open", format="swiss", planned_rounds=3, double_elimination=True,
            recorded_by=organiser,
        )  # fmt: skip
    assert caught.value.message_dict == {
        "double_elimination": ["Only a knockout cup can be double elimination."]
    }
    with pytest.raises(ValidationError) as caught:
        competitions.create_competition(
            league, name="Cup", format="knockout", planned_rounds=3, bracket_reset=True,
            recorded_by=organiser,
        )  # fmt: skip
    assert caught.value.message_dict == {
        "bracket_reset": [
            "Only a double-elimination cup plays its grand final again; leave it off."
        ]
    }
    with pytest.raises(ValidationError) as caught:
        _cup(league, organiser, rounds=8)
    assert caught.value.message_dict == {
        "planned_rounds": ["A cup has at most 7 rounds (128 entrants); got 8."]
    }
    assert Event.objects.count() == before
    cup = _cup(league, organiser, rounds=3)
    _enter(cup, field, organiser, 4)
    before = Event.objects.count()
    with pytest.raises(ValidationError) as caught:
        cups.publish_cup_round(cup, recorded_by=organiser)
    assert caught.value.message_dict["round_number"] == [
        "A double-elimination cup whose winners' bracket has 3 rounds takes 5 to 8 players; "
        "4 are entered. Enter players, or create a cup with as many rounds as the field "
        "needs."
    ]
    assert Event.objects.count() == before


def test_the_bracket_page_shows_both_brackets_with_chances(client, league, field, organiser):
    from ratings.selectors.cups import cup_view

    cup = _cup(league, organiser)
    _enter(cup, field, organiser, 6)
    _play_round(cup, league, organiser, field)
    cups.publish_cup_round(cup, recorded_by=organiser)
    view = cup_view(cup, simulations=500)
    total = sum(c.probability for c in view.forecast.chances.values())
    assert total == pytest.approx(1.0, abs=1e-9)
    # The open ties of round of play 2 (the winners' round 2) have chances; the losers'
    # round 1's walkovers have none.
    assert sorted(board for number, board in view.chances if number == 2) == [1, 2]
    html = client.get(f"/{league.slug}/competitions/{cup.slug}/bracket/").content.decode()
    for text in (
        "Winners&#x27; bracket",
        "Losers&#x27; bracket",
        "Grand final",
        "Winners&#x27; final",
        "Losers&#x27; final",
        "Round 2 of play, board 3",
        "P05 goes through without a game.",
        "Who wins the cup?",
        "Double-elimination cup of 7 rounds of play",
    ):
        assert text in html, text
    assert 'id="tie-2-1"' in html
    assert 'id="bracket-losers"' in html


def test_a_forfeit_drops_the_loser_and_a_double_forfeit_puts_both_out(league, field, organiser):
    cup = _cup(league, organiser, rounds=2)
    _enter(cup, field, organiser, 4)
    first = cups.publish_cup_round(cup, recorded_by=organiser)
    one_four, two_three = sorted(first.fixtures, key=lambda f: f.board)
    # P04 wins by forfeit: P01 drops into the losers' bracket, as after a lost game.
    competitions.record_forfeit(cup, one_four, winner=field["P04"], recorded_by=organiser)
    competitions.record_forfeit(cup, two_three, winner=None, recorded_by=organiser)
    bracket = cups.cup_bracket(cup)
    w1 = _tie(bracket, "winners", 1)
    assert (w1.winner, w1.loser) == (field["P04"].pk, field["P01"].pk)
    double = _tie(bracket, "winners", 1, 2)
    assert double.decided
    assert (double.winner, double.loser) == (None, None)
    # Round 2: P04 has a walkover in the winners' final, P01 in the losers' round 1.
    second = cups.publish_cup_round(cup, recorded_by=organiser)
    assert second.fixtures == []
    assert sorted(b.player_id for b in second.byes) == sorted([field["P04"].pk, field["P01"].pk])
    # The losers' final: P01 against nobody (the winners' final had no loser).
    third = cups.publish_cup_round(cup, recorded_by=organiser)
    assert [b.player_id for b in third.byes] == [field["P01"].pk]
    final = cups.publish_cup_round(cup, recorded_by=organiser)
    (game,) = final.fixtures
    assert (game.player_a_id, game.player_b_id) == (field["P04"].pk, field["P01"].pk)
