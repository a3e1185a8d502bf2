"""Club matches without a database: board order by rating, colours, results as typed, and
the team table's counting and order."""

from __future__ import annotations

from decimal import Decimal
from types import SimpleNamespace

from ratings.club_matches import (
    TeamRow,
    add_result,
    home_has_white,
    home_score,
    order_by_rating,
    ordered_table,
)

POINTS = (Decimal("2"), Decimal("1"), Decimal("0"))


def _row(name: str) -> TeamRow:
    return TeamRow(SimpleNamespace(name=name))  # type: ignore[arg-type]


def test_boards_go_to_the_highest_rated_first_then_the_unrated_by_name():
    players = [(1, "Zoe"), (2, "Ann"), (3, "Bob"), (4, "Cem"), (5, "Dee")]
    ratings = {1: 1850.0, 2: None, 3: 2010.5, 4: 1850.0, 5: None}
    # Zoe and Cem share 1850: by name, Cem first; Ann and Dee are unrated: last, by name.
    assert order_by_rating(players, ratings) == [3, 4, 1, 2, 5]


def test_chess_colours_alternate_from_white_on_board_one_for_the_home_team():
    assert [home_has_white(True, board) for board in (1, 2, 3, 4)] == [True, False, True, False]
    assert home_has_white(False, 1) is None


def test_a_board_result_is_read_as_the_home_players_score_in_every_spelling():
    assert [home_score(v) for v in ("1-0", "1", "½-½", "0.5", "=", "0-1", "0", " 1 – 0 ")] == [
        Decimal("1"), Decimal("1"), Decimal("0.5"), Decimal("0.5"), Decimal("0.5"),
        Decimal("0"), Decimal("0"), Decimal("1"),
    ]  # fmt: skip
    assert home_score(Decimal("0.5")) == Decimal("0.5")
    assert home_score(1) == Decimal("1")
    for bad in ("2-0", "win", "", None, True, 0.25):
        assert home_score(bad) is None


def test_a_match_counts_board_points_and_match_points_for_both_teams():
    home, away = _row("Riverside"), _row("Hilltop")
    add_result(home, away, Decimal("2.5"), Decimal("1.5"), POINTS)
    assert (home.played, home.won, home.drawn, home.lost) == (1, 1, 0, 0)
    assert (away.played, away.won, away.drawn, away.lost) == (1, 0, 0, 1)
    assert (home.board_for, home.board_against, home.match_points) == (
        Decimal("2.5"), Decimal("1.5"), Decimal("2"),
    )  # fmt: skip
    assert (away.board_for, away.board_against, away.match_points) == (
        Decimal("1.5"), Decimal("2.5"), Decimal("0"),
    )  # fmt: skip
    add_result(home, away, Decimal("2"), Decimal("2"), (Decimal("3"), Decimal("1.5"), Decimal("0")))
    assert (home.drawn, away.drawn) == (1, 1)
    assert (home.match_points, away.match_points) == (Decimal("3.5"), Decimal("1.5"))


def test_the_table_orders_by_match_points_then_board_points_and_shares_places():
    a, b, c, d = _row("Ash"), _row("Birch"), _row("Cedar"), _row("Dogwood")
    a.match_points, a.board_for = Decimal("4"), Decimal("5")
    b.match_points, b.board_for = Decimal("4"), Decimal("6.5")
    c.match_points, c.board_for = Decimal("2"), Decimal("9")
    d.match_points, d.board_for = Decimal("2"), Decimal("9")
    table = ordered_table([c, a, d, b])
    assert [row.team.name for row in table] == ["Birch", "Ash", "Cedar", "Dogwood"]
    assert [row.position for row in table] == [1, 2, 3, 3]
