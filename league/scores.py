"""Scores, as typed and as shown: the one parser and formatter of the write side.

A match's score is the first player's share of the point: 1 (won), 0.5 (drawn) or 0 (lost).
``parse_score`` reads it from loose input (forms, the API) and ``parse_points`` the optional
game or points text ("3-1"); ``parse_score_text`` reads the written forms a spreadsheet uses
("½", "1/2", "1-0", "½-½"), ``points_score`` the score that two players' points make.
``score_text``, ``points_for`` and ``outcome_word`` show them: both players' scores joined by
an en dash, the points from one player's side ("3-1" seen by the second player is "1-3"),
"Win", "Draw" or "Loss". ``points_disagree`` finds a score that its points contradict and
``read_entry`` reads the one box of the organisers' entry forms ("3-1", or "1-0" where a
league records results only).
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from typing import Any

from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

WIN, DRAW, LOSS = Decimal("1"), Decimal("0.5"), Decimal("0")
SCORES = (WIN, DRAW, LOSS)
EN_DASH = "\u2013"
HALF_SIGN = "\u00bd"

SCORE_MESSAGE = _(
    "The score must be 1 (first player won), 0.5 (draw) or 0 (first player lost); got %(value)r."
)
POINTS_TOO_LONG = _("The points score is too long (at most %(max)s characters).")

# The written forms of one score, and the pairs "a-b" whose halves must agree.
_WRITTEN = {
    "1": WIN,
    "1.0": WIN,
    "0.5": DRAW,
    ".5": DRAW,
    HALF_SIGN: DRAW,
    "1/2": DRAW,
    "0": LOSS,
    "0.0": LOSS,
}
_PAIRS = {(WIN, LOSS): WIN, (DRAW, DRAW): DRAW, (LOSS, WIN): LOSS}
_PAIR_SEPARATOR = re.compile(rf"\s*[-{EN_DASH}:]\s*")
_POINTS = re.compile(r"^\s*(\d+)\s*([-\u2013:])\s*(\d+)\s*$")
_SCORE_TEXT = {WIN: f"1{EN_DASH}0", DRAW: f"{HALF_SIGN}{EN_DASH}{HALF_SIGN}", LOSS: f"0{EN_DASH}1"}
_OUTCOME = {WIN: "Win", DRAW: "Draw", LOSS: "Loss"}
#: The same words inside a sentence (lower case in English, not in every language).
_OUTCOME_IN_SENTENCE = {
    WIN: pgettext_lazy("a result inside a sentence", "win"),
    DRAW: pgettext_lazy("a result inside a sentence", "draw"),
    LOSS: pgettext_lazy("a result inside a sentence", "loss"),
}


def parse_score(value: Any) -> Decimal | None:
    """The first player's score (1, 0.5 or 0, to one decimal place); None if it is not one.

    A boolean is not a score, though ``True == 1``.
    """
    if isinstance(value, bool):
        return None
    try:
        score = Decimal(str(value).strip())
    except (InvalidOperation, ValueError):
        return None
    if not score.is_finite() or score not in SCORES:
        return None
    return score.quantize(Decimal("0.1"))


def parse_points(value: Any, max_length: int) -> tuple[str, bool]:
    """The game or points text, stripped, and whether it fits in ``max_length`` characters."""
    text = "" if value is None else str(value).strip()
    return text, len(text) <= max_length


def parse_score_text(text: str) -> Decimal | None:
    """A written score ("1", "½", "1/2", "1-0", "½-½", "0.5-0.5", "0-1") or None."""
    value = text.strip()
    score = _WRITTEN.get(value)
    if score is not None:
        return score
    halves = _PAIR_SEPARATOR.split(value)
    if len(halves) == 2:
        return _PAIRS.get((_WRITTEN.get(halves[0]), _WRITTEN.get(halves[1])))  # type: ignore[arg-type]
    return None


#: The written forms of a yes/no flag (the neutral ground of a match), lower-cased.
FLAG_WORDS = {
    "": False,
    "0": False,
    "false": False,
    "no": False,
    "n": False,
    "f": False,
    "1": True,
    "true": True,
    "yes": True,
    "y": True,
    "t": True,
}


def parse_flag(value: Any) -> bool | None:
    """A yes/no flag from loose input (a boolean, None, or a word of ``FLAG_WORDS``);
    None if it is not one."""
    if value is None:
        return False
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        return FLAG_WORDS.get(value.strip().lower())
    return None


def points_margin(points: str) -> int | None:
    """The first player's points minus the second's, when ``points`` is one "a-b" pair of
    whole numbers ("2-1": 1, "0-3": -3); None for any other text (games "11-7 9-11", empty),
    where the margin is unknown."""
    found = _POINTS.match(points)
    if found is None:
        return None
    return int(found.group(1)) - int(found.group(3))


def points_score(points_a: int, points_b: int) -> Decimal:
    """The first player's score from both players' points: more wins, as many draws."""
    return WIN if points_a > points_b else LOSS if points_a < points_b else DRAW


def score_text(score_a: Decimal) -> str:
    """The result as shown: both players' scores (1, ½, 0) joined by an en dash.

    Anything but 1, 0.5 or 0 is shown as its number.
    """
    return _SCORE_TEXT.get(score_a, str(score_a))


def points_for(points: str, as_player_a: bool) -> str:
    """The recorded points from one player's side ("3-1" read as the second player: "1-3")."""
    match = _POINTS.match(points)
    if as_player_a or not match:
        return points
    return f"{match.group(3)}{match.group(2)}{match.group(1)}"


def outcome_word(score: Decimal) -> str:
    """The word for a player's score: "Win", "Draw" or "Loss" (anything else as its number)."""
    return _OUTCOME.get(score, str(score))


def points_disagree(score_a: Decimal, points: str) -> Decimal | None:
    """The score that ``points`` imply when they contradict ``score_a``, else None.

    Only points written as one pair of whole numbers ("3-1", "21:19") imply a score; free
    text ("6-4 3-6 7-5", "w/o") implies none and never contradicts.
    """
    match = _POINTS.match(points)
    if match is None:
        return None
    implied = points_score(int(match.group(1)), int(match.group(3)))
    return None if implied == score_a else implied


#: The rule every match of two sides follows: its points, when they are one pair of whole
#: numbers, say the same result as its score (``points_contradiction``).
POINTS_CONTRADICT = _(
    "The points %(points)s mean %(implied)s for %(first)s, but the result says %(given)s: "
    "correct one of them."
)
#: Who a one-vs-one match's score is the score of; a match of larger sides says "side A".
ONE_VS_ONE_FIRST = _("the first player")


def points_contradiction(score_a: Decimal, points: str, first: str) -> dict[str, Any] | None:
    """The parameters of :data:`POINTS_CONTRADICT` when ``points`` contradict ``score_a``
    (``first`` names whose score it is), else None."""
    implied = points_disagree(score_a, points)
    if implied is None:
        return None
    return {
        "points": points,
        "implied": _OUTCOME_IN_SENTENCE.get(implied, str(implied)),
        "given": _OUTCOME_IN_SENTENCE.get(score_a, str(score_a)),
        "first": first,
    }


_ENTRY_WORDS = {"w": WIN, "win": WIN, "d": DRAW, "draw": DRAW, "=": DRAW, "l": LOSS, "loss": LOSS}
ENTRY_MESSAGE_POINTS = _(
    "Type the score as the first player's points, a dash, the second player's (3-1); "
    "or a result alone: w, d or l."
)
ENTRY_MESSAGE_RESULT = _("Type the result from the first player's side: 1-0, ½-½ (or d) or 0-1.")
MAX_ENTRY_POINTS = 10**9


def read_entry(text: str, *, records_points: bool) -> tuple[Decimal, str]:
    """The first player's score and the points text from one typed entry.

    With ``records_points`` (a scored sport) "3-1" means the first player won three points
    to one: the result follows from the points, which are kept (with an en dash); a bare result word
    (w, d, l) records a result without points. Otherwise the entry is a result alone: 1-0,
    ½-½, 0-1 (or 1, ½, 0, w, d, l). Raises ``ValueError`` with the accepted forms.
    """
    value = text.strip().lower()
    if value in _ENTRY_WORDS:
        return _ENTRY_WORDS[value], ""
    if records_points:
        match = _POINTS.match(value)
        if match is None or max(int(match.group(1)), int(match.group(3))) >= MAX_ENTRY_POINTS:
            raise ValueError(ENTRY_MESSAGE_POINTS)
        a, b = int(match.group(1)), int(match.group(3))
        return points_score(a, b), f"{a}{EN_DASH}{b}"
    score = parse_score_text(value)
    if score is None:
        raise ValueError(ENTRY_MESSAGE_RESULT)
    return score, ""


def entry_text(score_a: Decimal, points: str, *, records_points: bool) -> str:
    """What :func:`read_entry` reads back as ``score_a`` with ``points`` (to prefill a form)."""
    if records_points and _POINTS.match(points) and points_disagree(score_a, points) is None:
        return points.replace(EN_DASH, "-")
    if records_points:
        return {WIN: "w", DRAW: "d", LOSS: "l"}.get(score_a, str(score_a))
    return {WIN: "1-0", DRAW: "½-½", LOSS: "0-1"}.get(score_a, str(score_a))
