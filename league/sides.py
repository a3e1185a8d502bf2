"""Matches with sides: reading sides and finishing orders, and the league's format rule.

A match has two or more sides, each of one or more players, a player on at most one side.
Two sides carry side A's score (1, 0.5 or 0, as a one-vs-one match); three or more carry a
finishing position per side (1 is first; equal positions are a tie, "1, 2, 2"). Stored
places count from 0 and are dense ranks: "1, 3, 3" and "1, 2, 2" say the same order.

``League.match_format`` says which shapes a league accepts: singles only (two sides of one
player), a fixed side size (every side has ``League.side_size`` players, two or more sides)
or any. Every entry path (the services, the bulk import, hence forms, CSV and API) checks
it with ``check_format``.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from decimal import Decimal
from typing import Any

from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from league.models import MAX_SIDE_PLAYERS, MAX_SIDES, League, MatchFormat, Player
from league.scores import ONE_VS_ONE_FIRST
from league.validation import Errors, _as_id, parse_score, resolve_player

SIDES_FIELD = "sides"
#: The fields of the two sides of a one-vs-one result given as two players.
PAIR_FIELDS = ("player_a", "player_b")
SIDE_A = _("side A")
#: The neutral-ground flag belongs to one-vs-one matches (the engine gives no side of a team
#: match an advantage).
NEUTRAL_WITH_SIDES = _("Neutral ground is recorded for one-vs-one matches only.")
PLACES_FIELD = "places"


def side_label(index: int) -> str:
    """ "A", "B", … for sides 0, 1, … (then "side 27" and on)."""
    return chr(ord("A") + index) if index < 26 else str(index + 1)


def format_label(league: League) -> str:
    """What the league accepts, in words."""
    if league.match_format == MatchFormat.SINGLES:
        return str(_("singles only (one player against one)"))
    if league.match_format == MatchFormat.FIXED:
        size = league.side_size
        return ngettext("sides of %(size)s player each", "sides of %(size)s players each", size) % {
            "size": size
        }
    return str(_("any sides"))


def check_format(league: League, sizes: Sequence[int], errors: Errors, field: str) -> None:
    """A match whose sides have ``sizes`` players is of a shape ``league`` accepts."""
    if league.match_format == MatchFormat.ANY:
        return
    if league.match_format == MatchFormat.SINGLES:
        ok = len(sizes) == 2 and all(size == 1 for size in sizes)
    else:
        ok = all(size == league.side_size for size in sizes)
    if not ok:
        shape = str(sizes[0])
        for size in sizes[1:]:
            shape = _("%(sizes)s against %(size)s") % {"sizes": shape, "size": size}
        errors.add(
            field,
            _("%(league)s accepts %(format)s; this match has sides of %(shape)s player(s)."),
            "format_refused",
            league=league.name,
            format=format_label(league),
            shape=shape,
        )


def is_one_vs_one(sizes: Sequence[int]) -> bool:
    """Whether sides of ``sizes`` players are two sides of one player each."""
    return len(sizes) == 2 and sizes[0] == 1 and sizes[1] == 1


def first_side_words(sizes: Sequence[int]) -> str:
    """Who side A's score is the score of, in a message: the first player of a one-vs-one
    match, side A of any other."""
    return ONE_VS_ONE_FIRST if is_one_vs_one(sizes) else SIDE_A


def _field_of(index: int, fields: Sequence[str] | None) -> str:
    return SIDES_FIELD if fields is None else fields[index]


def resolve_sides(
    league: League, sides: Any, errors: Errors, fields: Sequence[str] | None = None
) -> list[list[Player]] | None:
    """The players of each side (``Player`` objects or ids), checked for shape.

    Refused: not a list of lists, fewer than two or more than ``MAX_SIDES`` sides, an empty
    side, more than ``MAX_SIDE_PLAYERS`` on a side, an unknown player, a player twice.
    ``fields`` names the field of each side's errors (``player_a``, ``player_b`` for a
    result given as two players); without it every error is on ``sides`` and names its side.
    """
    if not isinstance(sides, Sequence) or isinstance(sides, str | bytes):
        errors.add(SIDES_FIELD, _("Give the sides as a list of lists of players."), "invalid")
        return None
    if not 2 <= len(sides) <= MAX_SIDES:
        errors.add(
            SIDES_FIELD,
            _("A match has 2 to %(max)s sides; %(count)s given."),
            "side_count",
            max=MAX_SIDES,
            count=len(sides),
        )
        return None
    resolved: list[list[Player]] = []
    ok = True
    for index, members in enumerate(sides):
        label = side_label(index)
        field = _field_of(index, fields)
        if not isinstance(members, Sequence) or isinstance(members, str | bytes):
            errors.add(field, _("Side %(side)s is not a list of players."), "invalid", side=label)
            ok = False
            continue
        if not members:
            errors.add(field, _("Side %(side)s is empty."), "empty_side", side=label)
            ok = False
            continue
        if len(members) > MAX_SIDE_PLAYERS:
            errors.add(
                field,
                _("Side %(side)s has %(count)s players; at most %(max)s are allowed."),
                "side_too_large",
                side=label,
                count=len(members),
                max=MAX_SIDE_PLAYERS,
            )
            ok = False
            continue
        side: list[Player] = []
        for member in members:
            found = Errors()
            player = resolve_player(league, member, field, found)
            if player is not None:
                side.append(player)
                continue
            ok = False
            for error in found.by_field[field]:
                if fields is not None:
                    errors.by_field.setdefault(field, []).append(error)
                    continue
                errors.add(
                    field,
                    _("Side %(side)s: %(problem)s"),
                    error.code or "invalid_player",
                    side=label,
                    problem=" ".join(error.messages),
                )
        resolved.append(side)
    if not ok:
        return None
    return resolved if check_each_once(resolved, errors, fields) else None


def check_each_once(
    sides: Sequence[Sequence[Player]],
    errors: Errors,
    fields: Sequence[str] | None = None,
    identity: Callable[[Player], Any] = operator.attrgetter("pk"),
) -> bool:
    """A player plays on one side of a match, once (one player against themselves is no
    match). ``identity`` tells two players apart (the bulk path's new players have no id
    yet). Returns whether the sides passed."""
    seen: dict[Any, int] = {}
    ok = True
    one_vs_one = is_one_vs_one([len(side) for side in sides])
    for index, side in enumerate(sides):
        for player in side:
            key = identity(player)
            if key not in seen:
                seen[key] = index
                continue
            ok = False
            other = seen[key]
            field = _field_of(index, fields)
            if one_vs_one:
                errors.add(
                    field,
                    _("A player cannot play themselves: choose two different players."),
                    "self_play",
                )
            elif other != index:
                errors.add(
                    field,
                    _(
                        "%(player)s is on side %(first)s and side %(second)s: a player plays "
                        "on one side only."
                    ),
                    "player_twice",
                    player=player.display_name,
                    first=side_label(other),
                    second=side_label(index),
                )
            else:
                errors.add(
                    field,
                    _("%(player)s is named twice on side %(first)s."),
                    "player_twice",
                    player=player.display_name,
                    first=side_label(other),
                )
    return ok


def places_of(
    n_sides: int, score_a: Any, places: Any, errors: Errors, first: str = SIDE_A
) -> tuple[int, ...] | None:
    """Stored places (dense ranks from 0) from side A's score or finishing positions.

    Two sides take ``score_a`` (1, 0.5, 0) or ``places``; three or more take ``places``:
    one whole number from 1 per side, ties allowed. ``first`` names whose score ``score_a``
    is (``first_side_words``).
    """
    has_places = places is not None and places != "" and places != []
    has_score = score_a is not None and score_a != ""
    if n_sides == 2 and has_score:
        if has_places:
            errors.add(
                PLACES_FIELD,
                _("Give %(first)s's score or the finishing positions, not both."),
                "score_and_places",
                first=first,
            )
            return None
        score = parse_score(score_a, errors)
        return None if score is None else places_of_score(score)
    if not has_places:
        if n_sides == 2:
            errors.add(
                "score_a", _("Give %(first)s's score: 1, 0.5 or 0."), "required", first=first
            )
        else:
            errors.add(
                PLACES_FIELD,
                _(
                    "A match of %(count)s sides needs a finishing position for each side "
                    "(1 for first; equal positions are a tie)."
                ),
                "required",
                count=n_sides,
            )
        return None
    if not isinstance(places, Sequence) or isinstance(places, str | bytes):
        errors.add(PLACES_FIELD, _("Give the finishing positions as a list of numbers."), "invalid")
        return None
    if len(places) != n_sides:
        errors.add(
            PLACES_FIELD,
            _("%(count)s finishing positions for %(sides)s sides: give one per side."),
            "place_count",
            count=len(places),
            sides=n_sides,
        )
        return None
    numbers: list[int] = []
    for index, value in enumerate(places):
        number = _as_id(value)
        if number is None or not 1 <= number <= MAX_SIDES:
            errors.add(
                PLACES_FIELD,
                _(
                    "Side %(side)s's finishing position %(value)r is not a whole number from 1 "
                    "to %(max)s."
                ),
                "invalid_place",
                side=side_label(index),
                value=value,
                max=MAX_SIDES,
            )
            return None
        numbers.append(number)
    dense = {value: rank for rank, value in enumerate(sorted(set(numbers)))}
    return tuple(dense[value] for value in numbers)


def places_of_score(score_a: Decimal | None) -> tuple[int, int]:
    """Places of sides A and B from side A's score (1, 0.5 or 0)."""
    if score_a == Decimal("1"):
        return (0, 1)
    return (0, 0) if score_a == Decimal("0.5") else (1, 0)


def score_of_places(places: Sequence[int]) -> Decimal:
    """Side A's score (1, 0.5 or 0) from the places of two sides."""
    a, b = places
    return Decimal("1") if a < b else Decimal("0.5") if a == b else Decimal("0")


def positions_text(places: Sequence[int]) -> list[int]:
    """Finishing positions as players count them (1, 2, 2, 4) from stored dense places."""
    return [1 + sum(1 for other in places if other < place) for place in places]
