"""Per-sport properties (league.sports): which sports have a home ground."""

from __future__ import annotations

import pytest

from league.sports import has_home_ground


@pytest.mark.parametrize(
    ("sport", "home"),
    [
        ("Chess", False),
        ("chess (rapid)", False),
        ("Go", False),
        ("Draughts", False),
        ("Football", True),
        ("Goalball", True),  # a word, not a prefix: "go" is not in "goalball"
        ("Table tennis", True),
        ("", True),  # a league that names no sport keeps the box
    ],
)
def test_board_games_have_no_home_ground(sport, home):
    assert has_home_ground(sport) is home
