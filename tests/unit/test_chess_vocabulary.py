"""Chess leagues' words (league.chess.vocabulary) and what makes a league chess (league.sports)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from league.chess.vocabulary import colour_of, outcome_word, result_text, side_labels
from league.models import League
from league.sports import is_chess, sport_key


@pytest.mark.parametrize(
    ("sport", "chess"),
    [
        ("chess", True),
        ("Chess", True),
        ("Chess (rapid)", True),
        ("Club chess", True),
        ("Chess960", True),
        ("Chinese chess", False),  # xiangqi, another game
        ("Japanese chess", False),
        ("Draughts", False),
        ("Table tennis", False),
        ("", False),
    ],
)
def test_sport_key_knows_chess_by_its_word(sport, chess):
    assert is_chess(sport) is chess
    assert sport_key(sport) == ("chess" if chess else "")


@pytest.mark.parametrize(
    ("score", "text"),
    [("1", "1\u20130"), ("0.5", "\u00bd\u2013\u00bd"), ("0", "0\u20131"), ("1.0", "1\u20130")],
)
def test_results_as_chess_writes_them(score, text):
    assert result_text(Decimal(score)) == text


def test_a_forfeit_is_marked_with_an_f_and_has_no_draw():
    assert result_text(Decimal("1"), forfeit=True) == "1\u20130F"
    assert result_text(Decimal("0"), forfeit=True) == "0\u20131F"
    with pytest.raises(ValueError, match="no draw"):
        result_text(Decimal("0.5"), forfeit=True)


@pytest.mark.parametrize("score", ["0.25", "2", "-1"])
def test_a_score_that_is_no_result_is_refused(score):
    with pytest.raises(ValueError, match=r"1, 0\.5 or 0"):
        result_text(Decimal(score))


def test_a_drawn_game_is_called_a_draw():
    assert [outcome_word(Decimal(s)) for s in ("1", "0.5", "0")] == ["win", "draw", "loss"]


def test_the_first_named_player_is_white():
    assert [colour_of(0), colour_of(1)] == ["white", "black"]
    with pytest.raises(ValueError):
        colour_of(2)


def test_side_labels_name_colours_in_chess_only():
    assert side_labels(League(sport="Chess")) == ("White", "Black")
    assert side_labels(League(sport="Squash")) == ("Player A", "Player B")
