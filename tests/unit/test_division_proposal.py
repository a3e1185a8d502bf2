"""The arithmetic of promotion and relegation, worked by hand: the proposal
(ratings.seasons.divisions.propose) and the bound on promotion (league.divisions)."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from league.divisions import check_promotion
from league.validation import Errors
from ratings.seasons.divisions import propose


def test_one_up_one_down_between_three_divisions():
    # Tables, top first: A1 A2 A3 | B1 B2 B3 | C1 C2 C3.
    # A3 goes down, B1 up; B3 down, C1 up.
    orders = [["A1", "A2", "A3"], ["B1", "B2", "B3"], ["C1", "C2", "C3"]]
    assert propose(orders, 1) == [
        ["A1", "A2", "B1"],
        ["A3", "B2", "C1"],
        ["B3", "C2", "C3"],
    ]


def test_two_up_two_down_keeps_the_sizes():
    orders = [list("abcde"), list("fghij")]
    assert propose(orders, 2) == [list("abcfg"), list("dehij")]


def test_newcomers_go_to_the_bottom_by_default_and_where_told():
    orders = [["A1", "A2"], ["B1", "B2"]]
    assert propose(orders, 1, newcomers=["N"]) == [["A1", "B1"], ["A2", "B2", "N"]]
    assert propose(orders, 1, newcomers=["N"], newcomer_division=1) == [
        ["A1", "B1", "N"],
        ["A2", "B2"],
    ]


def test_players_leaving_are_left_out_after_the_moves():
    # B1 is promoted by the table but has stopped playing: nobody takes the place instead.
    orders = [["A1", "A2", "A3"], ["B1", "B2", "B3"]]
    assert propose(orders, 1, leaving={"B1"}) == [["A1", "A2"], ["A3", "B2", "B3"]]


def test_no_promotion_keeps_everyone():
    orders = [["A1", "A2"], ["B1", "B2"]]
    assert propose(orders, 0) == orders


def test_one_division_has_no_moves():
    assert propose([["A", "B", "C"]], 1) == [["A", "B", "C"]]


@pytest.mark.parametrize(
    ("sizes", "promotion", "fits"),
    [
        ([3, 3, 3], 1, True),
        ([4, 2, 4], 1, True),  # the middle one loses its two players, one each way
        ([4, 3, 4], 2, False),  # the middle one would lose four of three
        ([2, 2], 1, True),
        ([2, 2], 2, False),  # the top division would keep nobody of its own
        ([5], 3, True),  # one division: nobody moves
    ],
)
def test_promoting_more_than_a_division_holds_is_refused(sizes, promotion, fits):
    errors = Errors()
    check_promotion(sizes, promotion, errors)
    if fits:
        errors.raise_if_any()
    else:
        with pytest.raises(ValidationError) as refused:
            errors.raise_if_any()
        assert "promotion" in refused.value.message_dict
