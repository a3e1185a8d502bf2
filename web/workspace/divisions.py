"""The organisers' divisions page of a season: set the divisions and the promotion and
relegation rule, propose them from the season before, adjust them one move at a time, fix
them, and schedule each division's round robin through the pairings page."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from league import divisions as division_services
from league.models import Player, Season
from league.validation import Errors
from ratings.seasons.divisions import (
    division_members,
    division_tables,
    next_season,
    previous_season,
    propose_next,
    season_ended,
)
from web.workspace.access import SignInRequired, organiser_league, sign_in_redirect
from web.workspace.drafts import ROUND_ROBIN

#: Blank division blocks the setup form offers beyond the divisions already set.
SPARE_BLOCKS = 1
#: The fewest division blocks the form shows.
MIN_BLOCKS = 3


#: The page's controls by the service's name for them (a division block's ``name_N`` and
#: ``players_N`` are their own ids).
FIELD_IDS = {
    "promotion": "promotion",
    "newcomers": "newcomers",
    "player": "move-player",
    "division": "move-division",
}


def _errors(error: ValidationError) -> dict[str, list[str]]:
    return {field: [str(m) for m in found] for field, found in error.message_dict.items()}


def _field_links(errors: dict[str, list[str]]) -> list[tuple[str, str]]:
    """Each message of a field of the forms with that field's id, for the error summary's
    links (the season-wide messages are listed apart)."""
    links = []
    for field, found in errors.items():
        field_id = FIELD_IDS.get(field, field if field.startswith(("name_", "players_")) else "")
        links += [(message, field_id) for message in found if field_id]
    return links


def _blocks(request: HttpRequest, members: list, posted: bool) -> list[dict[str, Any]]:
    """The division blocks of the setup form: as posted, or the divisions as they are."""
    if posted:
        count = 0
        while f"name_{count + 1}" in request.POST and count < division_services.MAX_DIVISIONS:
            count += 1
        return [
            {
                "number": n,
                "name": request.POST.get(f"name_{n}", ""),
                "players": request.POST.get(f"players_{n}", ""),
            }
            for n in range(1, count + 1)
        ]
    blocks = [
        {
            "number": division.position,
            "name": division.name,
            "players": "\n".join(player.display_name for player in players),
        }
        for division, players in members
    ]
    total = max(len(blocks) + SPARE_BLOCKS, MIN_BLOCKS)
    for n in range(len(blocks) + 1, total + 1):
        blocks.append({"number": n, "name": _("Division %(n)s") % {"n": n}, "players": ""})
    return blocks


def players_from_names(season: Season, text: str, field: str, errors: Errors) -> tuple[int, ...]:
    """The ids of the league's players named in ``text``, one name a line (a name may hold a
    comma: "Lee, Ann")."""
    names = [" ".join(line.split()) for line in str(text or "").splitlines() if line.strip()]
    found = dict(
        Player.objects.filter(
            league_id=season.league_id, display_name__in=names, merged_into__isnull=True
        ).values_list("display_name", "pk")
    )
    unknown = [name for name in names if name not in found]
    if unknown:
        errors.add(
            field,
            _("No player of this league is named %(names)s."),
            "unknown_player",
            names=", ".join(f"“{name}”" for name in unknown),
        )
    return tuple(found[name] for name in names if name in found)


def _set(request: HttpRequest, season: Season) -> None:
    """Set the divisions as the form gives them (names read first, each block's field named)."""
    setup = division_services.setup_of(season)
    if setup is not None and setup.fixed:
        # Refused as fixed before any name is read (the service says so, naming the season).
        division_services.check_divisions(season, [], 0, 0)
    errors = Errors()
    given = []
    for block in _blocks(request, [], posted=True):
        players = players_from_names(season, block["players"], f"players_{block['number']}", errors)
        given.append(division_services.DivisionInput(block["name"], players))
    errors.raise_if_any()
    division_services.set_divisions(
        season,
        given,
        promotion=request.POST.get("promotion", ""),
        newcomers=request.POST.get("newcomers", "0"),
        by=request.user,
    )


@require_http_methods(["GET", "POST"])
def season_divisions(request: HttpRequest, league_slug: str, season_slug: str) -> HttpResponse:
    """A season's divisions: set, propose, adjust, fix."""
    try:
        league = organiser_league(request, league_slug)
    except SignInRequired:
        return sign_in_redirect(request)
    season = get_object_or_404(Season, league=league, slug=season_slug)
    action = request.POST.get("action", "") if request.method == "POST" else ""
    errors: dict[str, list[str]] = {}
    before = previous_season(season)
    after = next_season(season)
    here = redirect("workspace:season_divisions", league.slug, season.slug)
    try:
        if action == "set":
            _set(request, season)
            messages.success(request, _("Divisions of “%(season)s” set.") % {"season": season.name})
            return here
        if action == "move":
            division_services.move_player(
                season,
                player=request.POST.get("player", ""),
                division=request.POST.get("division", ""),
                by=request.user,
            )
            messages.success(request, _("Player moved."))
            return here
        if action == "fix":
            division_services.fix_divisions(season, by=request.user)
            messages.success(
                request, _("Divisions of “%(season)s” fixed.") % {"season": season.name}
            )
            return here
        if action == "propose":
            source = before if request.POST.get("from") == "previous" else season
            if source is None:
                raise ValidationError(
                    {"season": [_("There is no season before this one to propose from.")]}
                )
            target = propose_next(source, by=request.user)
            messages.success(
                request,
                _("Divisions of “%(season)s” proposed: adjust them, then fix them.")
                % {"season": target.name},
            )
            return redirect("workspace:season_divisions", league.slug, target.slug)
    except ValidationError as error:
        errors = _errors(error)
    setup = division_services.setup_of(season)
    members = division_members(season)
    tables = {table.division.pk: table for table in division_tables(season, forecast=False)}
    divisions = []
    for division, players in members:
        table = tables.get(division.pk)
        lines = {line.player_id: line for line in table.lines} if table else {}
        divisions.append(
            {
                "division": division,
                "players": [
                    {
                        "player": player,
                        "position": lines[player.pk].position if player.pk in lines else None,
                        "points": lines[player.pk].points if player.pk in lines else None,
                    }
                    for player in sorted(
                        players,
                        key=lambda p: lines[p.pk].position if p.pk in lines else 0,
                    )
                ],
                "schedule_query": "&".join(
                    [f"players={player.pk}" for player in players] + [f"method={ROUND_ROBIN}"]
                ),
            }
        )
    before_setup = division_services.setup_of(before) if before else None
    this_ended = season_ended(season)
    return render(
        request,
        "workspace/season_divisions.html",
        {
            "league": league,
            "season": season,
            "setup": setup,
            "divisions": divisions,
            "errors": errors,
            # What names no field of the forms: the season as a whole.
            "general_errors": errors.get("__all__", [])
            + [_("season: %(error)s") % {"error": e} for e in errors.get("season", [])],
            "field_links": _field_links(errors),
            "blocks": [
                {
                    **block,
                    "name_errors": errors.get(f"name_{block['number']}", []),
                    "players_errors": errors.get(f"players_{block['number']}", []),
                }
                for block in _blocks(request, members, posted=action == "set")
            ],
            "promotion": request.POST.get("promotion", setup.promotion if setup else 1)
            if action == "set"
            else (setup.promotion if setup else 1),
            "newcomers": str(
                request.POST.get("newcomers", "0")
                if action == "set"
                else (setup.newcomers if setup else 0)
            ),
            "positions": [division.position for division, _players in members] or [1, 2, 3],
            "before": before,
            "can_propose_from_before": bool(
                before_setup and before_setup.fixed and season_ended(before)
            ),
            "after": after,
            "can_propose_next": bool(setup and setup.fixed and this_ended and after),
            "fixed": bool(setup and setup.fixed),
        },
    )
