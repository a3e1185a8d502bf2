"""An event's table from the competitions' own records: the hand-checked Swiss event of
tests/unit/test_tiebreaks.py (a pairing bye, a requested half-point bye, a forfeit and a
withdrawal) entered through the services, and a round robin's grid and forecast."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from league import competitions, services
from league.tiebreaks import values
from ratings.selectors.event_tables import event_table, event_tournament
from tests.unit.test_tiebreaks import EXPECTED

pytestmark = pytest.mark.django_db
NAMES = {"A": "Ann", "B": "Bob", "C": "Cem", "D": "Dee", "E": "Eve"}
SEEDS = {"A": 2000, "B": 1900, "C": 1800, "D": 1700, "E": 1600}


@pytest.fixture
def chess(league):
    league.sport = "Chess"
    league.save(update_fields=["sport"])
    return league


@pytest.fixture
def swiss(chess, make_player, organiser):
    return build_swiss(chess, make_player, organiser)


def build_swiss(chess, make_player, organiser):
    """The hand-checked event, entered through the services: (event, player pk -> letter)."""
    event = competitions.create_competition(
        chess, name="Autumn Swiss", format="swiss", planned_rounds=3,
        tiebreaks=["BH-1", "BH", "SB"], recorded_by=organiser,
    )  # fmt: skip
    p = {key: make_player(chess, name) for key, name in NAMES.items()}
    for key in "ABCDE":
        competitions.enter_player(event, p[key], seed_rating=SEEDS[key], recorded_by=organiser)

    def result(fixture, score):
        services.record_fixture_result(chess, fixture, score_a=score, recorded_by=organiser)

    r1 = competitions.publish_round(
        event, 1, [(p["A"], p["B"]), (p["C"], p["D"])], [p["E"]], recorded_by=organiser
    )
    result(r1.fixtures[0], "1")
    result(r1.fixtures[1], "0.5")
    competitions.request_bye(
        event, p["C"], round_number=2, kind="requested_half", recorded_by=organiser
    )
    r2 = competitions.publish_round(
        event, 2, [(p["B"], p["E"]), (p["D"], p["A"])], recorded_by=organiser
    )
    result(r2.fixtures[0], "0")
    result(r2.fixtures[1], "0")
    competitions.withdraw_player(event, p["D"], from_round=3, recorded_by=organiser)
    r3 = competitions.publish_round(
        event, 3, [(p["A"], p["E"]), (p["C"], p["B"])], recorded_by=organiser
    )
    result(r3.fixtures[0], "0.5")
    competitions.record_forfeit(event, r3.fixtures[1], winner=p["C"], recorded_by=organiser)
    return event, {p[key].pk: key for key in p}


def test_the_services_records_give_the_hand_checked_values(swiss):
    event, key_of = swiss
    state = competitions.competition_state(event)
    tournament = event_tournament(state, 3, coloured=True)
    got = values(tournament, list(EXPECTED))
    assert {
        code: {key_of[pid]: v for pid, v in column.items()} for code, column in got.items()
    } == EXPECTED


def test_the_event_table_ranks_by_the_events_order(swiss):
    event, key_of = swiss
    table = event_table(event)
    assert table.after_round == 3
    assert table.order == ("BH-C1", "BH", "SB")  # "BH-1" read as Buchholz Cut-1
    assert table.ignored == ()
    assert [(key_of[line.player_id], line.position, line.points) for line in table.lines] == [
        ("E", 1, F(5, 2)),
        ("A", 2, F(5, 2)),
        ("C", 3, 2),
        ("D", 4, F(1, 2)),
        ("B", 5, 0),
    ]
    assert table.lines[0].values == {"BH-C1": 5, "BH": F(11, 2), "SB": F(17, 4)}
    # Round by round, numbered in the table's order: E 1, A 2, C 3, D 4, B 5.
    rows = {key_of[row.player]: row for row in table.rounds}
    assert [(c.opponent, c.black, c.score) for c in rows["A"].rounds] == [
        (5, False, 1),
        (4, True, 1),
        (1, False, F(1, 2)),
    ]
    assert rows["D"].rounds[2].unplayed.value == "absent"
    assert rows["C"].rounds[2].forfeit
    # Every round is paired and played: nothing left to forecast.
    assert table.forecast is None


def test_unknown_codes_are_listed_as_ignored_not_guessed(swiss):
    event, _ = swiss
    event.tiebreaks = ["KOYA", "SB"]
    event.save(update_fields=["tiebreaks"])
    table = event_table(event)
    assert (table.order, table.ignored) == (("SB",), ("KOYA",))


@pytest.fixture
def round_robin(chess, make_player, organiser):
    event = competitions.create_competition(
        chess,
        name="Club Championship",
        format="round_robin",
        planned_rounds=3,
        recorded_by=organiser,
    )
    players = [make_player(chess, name) for name in ("Ann", "Bob", "Cem", "Dee")]
    for player in players:
        competitions.enter_player(event, player, recorded_by=organiser)
    r1 = competitions.publish_round(
        event, 1, [(players[0], players[1]), (players[2], players[3])], recorded_by=organiser
    )
    services.record_fixture_result(chess, r1.fixtures[0], score_a="1", recorded_by=organiser)
    services.record_fixture_result(chess, r1.fixtures[1], score_a="0.5", recorded_by=organiser)
    return event, players


def test_round_robin_grid_and_forecast_of_the_games_to_come(round_robin):
    event, (ann, *_others) = round_robin
    table = event_table(event)
    # Ann 1, Cem ½, Dee ½, Bob 0; Cem and Dee drew each other: DE level; SB level (½·½);
    # wins level (0): they share second place.
    assert [(line.name, line.position) for line in table.lines] == [
        ("Ann", 1), ("Cem", 2), ("Dee", 2), ("Bob", 4),
    ]  # fmt: skip
    grid = {row.player: row for row in table.grid}
    assert [c.score for c in grid[ann.pk].cells[3]] == [1]  # Ann beat Bob (line 4)
    assert grid[ann.pk].cells[0] is None
    # Six pairs in a single round robin of four, two played: four games to simulate.
    forecast = table.forecast
    assert forecast.remaining == 4
    total = sum(chance.probability for chance in forecast.chances.values())
    assert total == pytest.approx(1.0, abs=1e-9)  # one title, shared when level
    assert all(chance.standard_error < 0.012 for chance in forecast.chances.values())
