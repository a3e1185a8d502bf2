"""Divisions (or boxes) of a season, and promotion and relegation between seasons.

The write side: a season's players in named divisions, top first, with the rule of how many
go up and down between adjacent divisions and where next season's newcomers go. Divisions
are set (by hand, or as proposed by the rules from the season before), adjusted one player
move at a time, then fixed; every change is a fact of the event log (``divisions_set``,
``division_player_moved``, ``divisions_fixed``) and every bad input is refused with the
field named, nothing written.

The tables, and the proposal of next season's divisions from them, are on the read side
(``ratings.seasons.divisions``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils.translation import gettext_lazy as _

from league.event_store import store as event_store
from league.event_store.store import Submission
from league.event_store.vocabulary import DivisionPlayerMoved, DivisionsFixed, DivisionsSet
from league.models import Division, DivisionMember, DivisionSetup, Player, Season
from league.validation import Errors, check_text

NAME_MAX = Division._meta.get_field("name").max_length
#: The most divisions a season may have (a bound on the forms and the work of a page).
MAX_DIVISIONS = 20
#: The most players of one division (a round robin of 40 is already 780 games).
MAX_DIVISION_PLAYERS = 40
#: A division needs at least this many players to play a table.
MIN_DIVISION_PLAYERS = 2


@dataclass(frozen=True)
class DivisionInput:
    """One division as given: its name and its players' ids, in the order given."""

    name: str
    players: tuple[int, ...]


def setup_of(season: Season) -> DivisionSetup | None:
    """The season's division setup, or None when it has no divisions."""
    return DivisionSetup.objects.filter(season=season).first()


def _int(value: Any, field: str, errors: Errors, *, low: int, high: int) -> int | None:
    text = str(value if value is not None else "").strip()
    try:
        number = int(text)
    except ValueError:
        number = None
    if number is None or not low <= number <= high:
        errors.add(
            field,
            _("Give a whole number from %(low)s to %(high)s; got %(value)r."),
            "out_of_range",
            low=low,
            high=high,
            value=text,
        )
        return None
    return number


def check_promotion(sizes: Sequence[int], promotion: int, errors: Errors) -> None:
    """Promotion ``promotion`` fits divisions of ``sizes`` (top first): the top and bottom
    divisions keep at least one player of their own, and a middle one, losing ``promotion``
    players each way, holds at least twice that (nobody is both promoted and relegated)."""
    count = len(sizes)
    for index, size in enumerate(sizes):
        leaving = promotion * ((index > 0) + (index < count - 1))
        if count > 1 and leaving > size - (1 if index in (0, count - 1) else 0):
            errors.add(
                "promotion",
                _(
                    "%(count)s up and %(count)s down is more than division %(position)s "
                    "holds (%(size)s players)."
                ),
                "promotion_too_large",
                count=promotion,
                position=index + 1,
                size=size,
            )
            return


def check_divisions(
    season: Season, divisions: Sequence[DivisionInput], promotion: Any, newcomers: Any
) -> tuple[tuple[DivisionInput, ...], int, int]:
    """The divisions and the rule checked (``ValidationError`` naming each bad field).

    Fields: ``name_<k>`` and ``players_<k>`` for the k-th division (from 1), ``promotion``,
    ``newcomers``, ``__all__`` for the season as a whole.
    """
    errors = Errors()
    setup = setup_of(season)
    if setup is not None and setup.fixed:
        errors.add(
            "__all__",
            _("The divisions of %(season)s are fixed; they can no longer change."),
            "divisions_fixed",
            season=season.name,
        )
        errors.raise_if_any()
    given = [d for d in divisions if d.name.strip() or d.players]
    if not given:
        errors.add("name_1", _("Give at least one division with its players."), "required")
    if len(given) > MAX_DIVISIONS:
        errors.add(
            "__all__",
            _("A season has at most %(max)s divisions."),
            "too_many_divisions",
            max=MAX_DIVISIONS,
        )
    league_players = dict(
        Player.objects.filter(
            league_id=season.league_id,
            pk__in=[pid for d in given for pid in d.players],
            merged_into__isnull=True,
        ).values_list("pk", "display_name")
    )
    clean: list[DivisionInput] = []
    seen_names: set[str] = set()
    where: dict[int, int] = {}
    for number, division in enumerate(given, start=1):
        name = " ".join(division.name.split())
        check_text(name, errors, f"name_{number}")
        if not name:
            errors.add(f"name_{number}", _("Give the division a name."), "required")
        elif len(name) > NAME_MAX:
            errors.add(
                f"name_{number}",
                _("The name is too long (at most %(max)s characters)."),
                "too_long",
                max=NAME_MAX,
            )
        elif name.casefold() in seen_names:
            errors.add(f"name_{number}", _("Two divisions have this name."), "name_taken")
        seen_names.add(name.casefold())
        field = f"players_{number}"
        others = [pid for pid in division.players if pid not in league_players]
        if others:
            errors.add(
                field,
                _("Player %(ids)s is not a player of this league."),
                "other_league",
                ids=", ".join(str(pid) for pid in others),
            )
        for pid in division.players:
            if pid in where and pid in league_players:
                errors.add(
                    field,
                    _("%(player)s is in division %(first)s and division %(second)s."),
                    "player_in_two_divisions",
                    player=league_players[pid],
                    first=where[pid],
                    second=number,
                )
            where.setdefault(pid, number)
        players = tuple(dict.fromkeys(division.players))
        if len(players) < MIN_DIVISION_PLAYERS:
            errors.add(
                field,
                _("A division needs at least %(min)s players; this one has %(count)s."),
                "too_few_players",
                min=MIN_DIVISION_PLAYERS,
                count=len(players),
            )
        elif len(players) > MAX_DIVISION_PLAYERS:
            errors.add(
                field,
                _("A division holds at most %(max)s players; this one has %(count)s."),
                "too_many_players",
                max=MAX_DIVISION_PLAYERS,
                count=len(players),
            )
        clean.append(DivisionInput(name, players))
    up = _int(promotion, "promotion", errors, low=0, high=MAX_DIVISION_PLAYERS)
    place = _int(newcomers, "newcomers", errors, low=0, high=max(len(given), 1))
    if up is not None and not errors:
        check_promotion([len(d.players) for d in clean], up, errors)
    errors.raise_if_any()
    assert up is not None
    assert place is not None
    return tuple(clean), up, place


def set_divisions(
    season: Season,
    divisions: Sequence[DivisionInput],
    *,
    promotion: Any,
    newcomers: Any = 0,
    proposed: bool = False,
    by: Any = None,
) -> None:
    """Set the season's divisions (replacing any not yet fixed) and the rule: one fact."""
    with transaction.atomic():
        event_store.lock_league(season.league)
        clean, up, place = check_divisions(season, divisions, promotion, newcomers)
        fact = DivisionsSet(
            season_id=season.pk,
            divisions=tuple((d.name, d.players) for d in clean),
            promotion=up,
            newcomers=place,
            proposed=proposed,
        )
        event_store.append(season.league, [Submission(fact)], recorded_by=_who(by))


def move_player(season: Season, *, player: Any, division: Any, by: Any = None) -> None:
    """Move a player of the season's divisions to another of them (before they are fixed).

    Fields: ``player`` (a player id in one of the season's divisions), ``division`` (the
    target's place from the top, 1 first).
    """
    with transaction.atomic():
        event_store.lock_league(season.league)
        errors = Errors()
        setup = setup_of(season)
        if setup is None:
            errors.add("__all__", _("This season has no divisions yet."), "no_divisions")
            errors.raise_if_any()
        assert setup is not None
        if setup.fixed:
            errors.add(
                "__all__",
                _("The divisions of %(season)s are fixed; they can no longer change."),
                "divisions_fixed",
                season=season.name,
            )
            errors.raise_if_any()
        count = Division.objects.filter(season=season).count()
        target = _int(division, "division", errors, low=1, high=count)
        player_id = _int(player, "player", errors, low=1, high=2**62)
        member = None
        if player_id is not None:
            member = (
                DivisionMember.objects.filter(season=season, player_id=player_id)
                .select_related("division", "player")
                .first()
            )
            if member is None:
                errors.add(
                    "player",
                    _("Player %(id)s is in no division of %(season)s."),
                    "not_in_division",
                    id=player_id,
                    season=season.name,
                )
        if member is not None and target is not None:
            source = member.division
            if source.position == target:
                errors.add(
                    "division",
                    _("%(player)s is already in %(division)s."),
                    "same_division",
                    player=member.player.display_name,
                    division=source.name,
                )
            elif source.members.count() <= MIN_DIVISION_PLAYERS:
                errors.add(
                    "player",
                    _("Moving %(player)s would leave %(division)s with one player."),
                    "too_few_players",
                    player=member.player.display_name,
                    division=source.name,
                )
        errors.raise_if_any()
        assert member is not None
        assert target is not None
        fact = DivisionPlayerMoved(
            season_id=season.pk,
            player_id=member.player_id,
            from_division=member.division.position,
            to_division=target,
        )
        event_store.append(season.league, [Submission(fact)], recorded_by=_who(by))


def fix_divisions(season: Season, *, by: Any = None) -> None:
    """Fix the season's divisions: after this no player moves."""
    with transaction.atomic():
        event_store.lock_league(season.league)
        errors = Errors()
        setup = setup_of(season)
        if setup is None:
            errors.add("__all__", _("This season has no divisions yet."), "no_divisions")
        elif setup.fixed:
            errors.add(
                "__all__",
                _("The divisions of %(season)s are already fixed."),
                "divisions_fixed",
                season=season.name,
            )
        errors.raise_if_any()
        fact = DivisionsFixed(season_id=season.pk)
        event_store.append(season.league, [Submission(fact)], recorded_by=_who(by))


def _who(by: Any) -> Any:
    return by if getattr(by, "is_authenticated", False) else None
