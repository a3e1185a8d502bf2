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


#: The sport key of chess (``sport_key``): its leagues name White and Black, show chess's
#: results ("1-0", "½-½", "1-0F") and give the first-move advantage to White.
CHESS = "chess"

#: Sports the new-league forms suggest (free text stays allowed): the first word of each
#: is its key where the site knows the sport.
KNOWN_SPORTS = ("Chess", "Table tennis", "Squash", "Badminton", "Tennis", "Go", "Football")


def sport_key(sport: str) -> str:
    """The known sport a league's free-text ``sport`` names: ``"chess"`` for "Chess",
    "Chess (rapid)" or "Club chess"; ``""`` for every sport the site has no rules for.

    Chinese and Japanese chess are other games (xiangqi, shogi): they are not chess here.
    """
    words = sport_words(sport)
    if CHESS in words and not words & {"chinese", "japanese", "xiangqi", "shogi"}:
        return CHESS
    return ""


def is_chess(sport: str) -> bool:
    """Whether ``sport`` is chess (:func:`sport_key`)."""
    return sport_key(sport) == CHESS


def has_home_ground(sport: str) -> bool:
    """Whether a match of ``sport`` may be played at one side's ground (so may be marked as
    played on neutral ground): any sport but those of :data:`WITHOUT_HOME_GROUND`."""
    return not sport_words(sport) & WITHOUT_HOME_GROUND
