"""Scores as typed and as shown (``league.scores``): no database."""

from __future__ import annotations

from decimal import Decimal

import pytest

from league import scores

D = Decimal


@pytest.mark.parametrize(
    ("value", "expected"),
    [(1, D("1.0")), ("0.5", D("0.5")), (" 0 ", D("0.0")), (1.0, D("1.0")), (D("0.50"), D("0.5"))],
)
def test_parse_score_reads_the_three_scores(value, expected):
    assert scores.parse_score(value) == expected


@pytest.mark.parametrize("value", [True, False, 2, "0.3", "abc", "NaN", "Infinity", None, ""])
def test_parse_score_refuses_anything_else(value):
    assert scores.parse_score(value) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [("1", "1"), ("½", "0.5"), ("1/2", "0.5"), (".5", "0.5"), ("1-0", "1"), ("½–½", "0.5"),
     ("0:1", "0"), (" 0.5 - 0.5 ", "0.5")],
)  # fmt: skip
def test_parse_score_text_reads_the_written_forms(text, expected):
    assert scores.parse_score_text(text) == D(expected)


@pytest.mark.parametrize("text", ["2", "1-1", "0-0", "win", "", "1.00", "1-0-0"])
def test_parse_score_text_refuses_other_forms(text):
    assert scores.parse_score_text(text) is None


def test_points_decide_the_score():
    assert [scores.points_score(3, 1), scores.points_score(2, 2), scores.points_score(0, 4)] == [
        D("1"),
        D("0.5"),
        D("0"),
    ]


def test_parse_points_strips_and_checks_the_length():
    assert scores.parse_points(" 3-1 ", 5) == ("3-1", True)
    assert scores.parse_points(None, 5) == ("", True)
    assert scores.parse_points("11-9 9-11", 5) == ("11-9 9-11", False)


@pytest.mark.parametrize(
    ("score", "text", "word"),
    [(D("1"), "1\u20130", "Win"), (D("0.5"), "\u00bd\u2013\u00bd", "Draw"),
     (D("0.0"), "0\u20131", "Loss"), (D("0.7"), "0.7", "0.7")],
)  # fmt: skip
def test_score_text_and_outcome_word(score, text, word):
    assert scores.score_text(score) == text
    assert scores.outcome_word(score) == word


@pytest.mark.parametrize(
    ("points", "as_a", "expected"),
    [("3-1", True, "3-1"), ("3-1", False, "1-3"), ("11\u20139", False, "9\u201311"),
     (" 2 : 0 ", False, "0:2"), ("11-9 9-11", False, "11-9 9-11"), ("", False, "")],
)  # fmt: skip
def test_points_for_reads_the_points_from_one_side(points, as_a, expected):
    assert scores.points_for(points, as_a) == expected
