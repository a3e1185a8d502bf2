"""What the kind of game a league plays (its free-text ``sport``) implies for its pages.

One place for every per-sport property, so a page asks the league (``League.has_home_ground``)
rather than comparing sport names itself.
"""

from __future__ import annotations

import re

#: Games played over a board or a table with no home side: neither player has a ground, so
#: "neutral ground" means nothing (the first-named side's advantage, white's in chess, stays).
WITHOUT_HOME_GROUND = frozenset(
    {
        "backgammon",
        "bridge",
        "checkers",
        "chess",
        "draughts",
        "go",
        "othello",
        "scrabble",
        "shogi",
        "xiangqi",
    }
)


def sport_words(sport: str) -> set[str]:
    """The lower-case words of a sport's name: ``"Chess (rapid)"`` is ``{"chess", "rapid"}``."""
    return set(re.findall(r"[a-z]+", sport.casefold()))


def has_home_ground(sport: str) -> bool:
    """Whether a match of ``sport`` may be played at one side's ground (so may be marked as
    played on neutral ground): any sport but those of :data:`WITHOUT_HOME_GROUND`."""
    return not sport_words(sport) & WITHOUT_HOME_GROUND
