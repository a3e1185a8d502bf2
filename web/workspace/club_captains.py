"""A team captain's page: ``/<league>/my-team/``, reached from "My games".

The signed-in player who captains a team sees its club matches not yet recorded and hands
in the team's board order for each (``ratings.club_matches.submit_board_order``, which
checks again that they captain the team and that the match is not recorded). A refused
order comes back with each message under its board, and nothing is written.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.db.models import Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from league.idempotency_keys import new_key, scoped_key
from league.models import ClubMatch, League, Team
from ratings import club_matches as clubs
from web.workspace.access import SignInRequired, sign_in_redirect
from web.workspace.club_matches import _posted, _refused
from web.workspace.player_games import _player_league


def _board_id(match_id: int) -> str:
    """The id of board N's control in match ``match_id``'s form (``{n}`` for N)."""
    return f"id_m{match_id}_board_{{n}}"


def _open_matches(league: League, team: Team) -> list[ClubMatch]:
    """The team's club matches not recorded yet, soonest first."""
    return list(
        ClubMatch.objects.filter(league=league, games=[])
        .filter(Q(home=team) | Q(away=team))
        .select_related("league", "home", "away")
        .order_by("scheduled_at", "pk")
    )


def _forms(
    team: Team, matches: list[ClubMatch], sent: int = 0, posted: list[str] | None = None
) -> list[dict[str, Any]]:
    """Each open match with the team's players as it plays them now (its order, else by
    rating) and whether the order shown was handed in; the refused form of match ``sent``
    shows the players as they were sent (``posted``: ids, board 1 first)."""
    players = clubs.roster(team)
    by_id = {str(p.pk): p for p in players}
    rows = []
    for chosen in matches:
        view = clubs.club_match_view(chosen)
        side = "home" if chosen.home_id == team.pk else "away"
        shown = [getattr(board, side) for board in view.boards]
        if chosen.pk == sent and posted is not None:
            shown = [by_id.get(value) for value in posted]
        rows.append(
            {
                "match": chosen,
                "prefix": f"m{chosen.pk}",
                "chosen": shown,
                "submitted": getattr(view, f"{side}_submitted"),
                "players": players,
                "key": new_key(),
            }
        )
    return rows


@require_http_methods(["GET", "POST"])
def my_team(request: HttpRequest, league_slug: str) -> HttpResponse:
    """The captain's page: the team's open club matches, a board-order form for each."""
    try:
        league, me = _player_league(request, league_slug)
    except SignInRequired:
        return sign_in_redirect(request)
    teams = clubs.captained_teams(request.user, league)
    team = teams[0] if teams else None
    summary: list[tuple[str, str]] = []
    field_errors: dict[str, list[str]] = {}
    sent = ""
    number = 0
    posted: list[str] | None = None
    if request.method == "POST":
        match_id = _posted(request, "match")
        number = int(match_id) if match_id.isdigit() and len(match_id) < 12 else 0
        count = (
            ClubMatch.objects.filter(league=league, pk=number)
            .values_list("boards", flat=True)
            .first()
            or 0
        )
        posted = [_posted(request, f"board_{n}") for n in range(1, count + 1)]
        try:
            if team is None:
                raise ValidationError(
                    {"team": [_("You are not the captain of a team of %(league)s.")
                              % {"league": league.name}]}
                )  # fmt: skip
            clubs.submit_board_order(
                league, number or match_id, team, posted,
                recorded_by=request.user,
                idempotency_key=scoped_key("my-team", _posted(request, "idempotency_key") or None),
            )  # fmt: skip
        except ValidationError as error:
            summary, field_errors = _refused(error, "order", _board_id(number))
            sent = f"m{number}"
        else:
            messages.success(request, _("Handed in %(team)s's board order.") % {"team": team})
            return redirect("workspace:my_team", league.slug)
    forms = _forms(team, _open_matches(league, team), number, posted) if team is not None else []
    if sent and sent not in {row["prefix"] for row in forms}:
        sent = "page"
    context = {
        "league": league,
        "me": me,
        "team": team,
        "roster": clubs.roster(team) if team is not None else [],
        "forms": forms,
        "sent": sent,
        "form_errors": summary,
        "field_errors": field_errors,
    }
    return render(request, "workspace/my_team.html", context)
