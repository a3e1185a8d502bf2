"""The organisers' pages for club matches: teams, rosters and captains, a season's
club-match settings, scheduling a match, each team's board order and the match's board
results in one form, and voiding a result (the round-robin generator:
``web.workspace.club_fixtures``).

Every change goes through ``ratings.club_matches``; a refused input re-shows the page with
each message naming its field or board, and nothing is written.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_http_methods

from league.calendar import league_day
from league.idempotency_keys import new_key
from league.models import (
    BoardOrder,
    ClubMatch,
    ClubSeason,
    League,
    Player,
    RosterEntry,
    Season,
    Team,
)
from ratings import club_fixtures
from ratings import club_matches as clubs
from web.workspace.access import SignInRequired, organiser_league, sign_in_redirect

RESULT_CHOICES = (("1-0", "1–0"), ("½-½", "½–½"), ("0-1", "0–1"))


def _guard(request: HttpRequest, league_slug: str) -> League | HttpResponse:
    try:
        return organiser_league(request, league_slug)
    except SignInRequired:
        return sign_in_redirect(request)


#: Each form's fields by the service's name for them, as the ids of the page's controls
#: (``board_N`` is handled apart: a board order's select or a board's result).
FIELD_IDS = {
    "team": {"name": "id_team_name", "slug": "id_team_name"},
    "roster": {"team": "id_roster_team", "player": "id_roster_player"},
    "schedule": {
        "home": "id_home",
        "away": "id_away",
        "boards": "id_boards",
        "scheduled_at": "id_day",
        "venue": "id_venue",
        "points_win": "id_points_win",
        "points_draw": "id_points_draw",
        "points_loss": "id_points_loss",
    },
    "record": {"played_at": "id_played_on"},
    "captain": {"team": "id_captain_team", "player": "id_captain_player"},
    "season": {
        "season": "id_season",
        "boards": "id_season_boards",
        "points_win": "id_season_win",
        "points_draw": "id_season_draw",
        "points_loss": "id_season_loss",
    },
    "generate": {
        "teams": "id_teams",
        "start": "id_start",
        "interval_days": "id_interval_days",
        "boards": "id_gen_boards",
        "venue": "id_gen_venue",
    },
    "void": {"reason": "id_reason"},
}


def _refused(
    error: ValidationError, action: str, board_id: str = ""
) -> tuple[list[tuple[str, str]], dict[str, list[str]]]:
    """A service's refusal as the form's error summary (each message with the id of its
    field, or "" when it names none) and each field's messages, by field id. A board's
    message names its board already; another's is prefixed with its field's name.
    ``board_id`` is the id of board N's control with ``{n}`` for N."""
    summary: list[tuple[str, str]] = []
    by_field: dict[str, list[str]] = {}
    fields = FIELD_IDS.get(action, {})
    for field, items in error.message_dict.items():
        board = field.removeprefix("board_")
        if board_id and field.startswith("board_") and board.isdigit():
            field_id = board_id.format(n=board)
        else:
            field_id = fields.get(field, "")
        for item in items:
            plain = field == "__all__" or field.startswith("board_")
            text = item if plain else f"{field}: {item}"
            summary.append((text, field_id))
            if field_id:
                by_field.setdefault(field_id, []).append(item)
    return summary, by_field


def _posted(request: HttpRequest, name: str) -> str:
    return request.POST.get(name, "").strip()


def _teams_context(league: League) -> list[dict[str, Any]]:
    teams = list(Team.objects.filter(league=league).select_related("captain"))
    entries = RosterEntry.objects.filter(team__league=league).select_related("player")
    rosters: dict[int, list[Player]] = {}
    for entry in entries:
        rosters.setdefault(entry.team_id, []).append(entry.player)
    return [{"team": team, "players": rosters.get(team.pk, [])} for team in teams]


@require_http_methods(["GET", "POST"])
def clubs_page(request: HttpRequest, league_slug: str) -> HttpResponse:
    """Teams with their rosters, the league's club matches, and the forms that make them
    (named ``clubs_page``: ``clubs`` is the service module)."""
    league = _guard(request, league_slug)
    if isinstance(league, HttpResponse):
        return league
    summary: list[tuple[str, str]] = []
    field_errors: dict[str, list[str]] = {}
    action = ""
    if request.method == "POST":
        action = _posted(request, "action")
        key = _posted(request, "idempotency_key") or None
        try:
            if action == "team":
                team = clubs.create_team(
                    league, name=_posted(request, "name"), recorded_by=request.user,
                    idempotency_key=key,
                )  # fmt: skip
                messages.success(request, _("Created the team %(team)s.") % {"team": team.name})
            elif action == "roster":
                entry = clubs.add_to_roster(
                    league, _posted(request, "team"), _posted(request, "player"),
                    recorded_by=request.user, idempotency_key=key,
                )  # fmt: skip
                messages.success(
                    request,
                    _("Added %(player)s to %(team)s.")
                    % {"player": entry.player.display_name, "team": entry.team.name},
                )
            elif action == "captain":
                team = clubs.set_captain(
                    league, _posted(request, "team"), _posted(request, "player"),
                    recorded_by=request.user, idempotency_key=key,
                )  # fmt: skip
                messages.success(
                    request,
                    _("%(player)s is the captain of %(team)s.")
                    % {"player": team.captain.display_name if team.captain else "", "team": team},
                )
            elif action == "season":
                setting = club_fixtures.set_club_season(
                    league, _posted(request, "season"), boards=_posted(request, "boards"),
                    points_win=_posted(request, "points_win"),
                    points_draw=_posted(request, "points_draw"),
                    points_loss=_posted(request, "points_loss"),
                    recorded_by=request.user, idempotency_key=key,
                )  # fmt: skip
                messages.success(
                    request,
                    ngettext(
                        "Club matches of %(season)s: %(boards)s board.",
                        "Club matches of %(season)s: %(boards)s boards.",
                        setting.boards,
                    )
                    % {"season": setting.season.name, "boards": setting.boards},
                )
            elif action == "schedule":
                when = _posted(request, "day")
                if when and _posted(request, "time"):
                    when = f"{when}T{_posted(request, 'time')}"
                scheduled = clubs.schedule_club_match(
                    league,
                    home=_posted(request, "home"),
                    away=_posted(request, "away"),
                    boards=_posted(request, "boards"),
                    scheduled_at=when,
                    venue=_posted(request, "venue"),
                    points_win=_posted(request, "points_win"),
                    points_draw=_posted(request, "points_draw"),
                    points_loss=_posted(request, "points_loss"),
                    recorded_by=request.user,
                    idempotency_key=key,
                )
                messages.success(request, _("Scheduled %(match)s.") % {"match": str(scheduled)})
                return redirect(reverse("workspace:club_match", args=[league.slug, scheduled.pk]))
            else:
                raise ValidationError({"action": [_("choose what to do.")]})
        except ValidationError as error:
            summary, field_errors = _refused(error, action)
        else:
            return redirect(reverse("workspace:clubs", args=[league.slug]))
    on_a_team = RosterEntry.objects.filter(team__league=league).values_list("player_id", flat=True)
    context = {
        "league": league,
        "teams": _teams_context(league),
        "free_players": Player.objects.filter(
            league=league, active=True, merged_into__isnull=True
        ).exclude(pk__in=on_a_team),
        "matches": ClubMatch.objects.filter(league=league).select_related("home", "away"),
        "posted": request.POST,
        "key": new_key(),
        # The form whose errors show; "page" when no form of the page was sent.
        "sent": action if action in ("team", "roster", "captain", "season", "schedule") else "page",
        "seasons": Season.objects.filter(league=league).order_by("-start_date"),
        "settings": ClubSeason.objects.filter(season__league=league).select_related("season"),
        "form_errors": summary,
        "field_errors": field_errors,
    }
    return render(request, "workspace/clubs.html", context)


def _side(chosen: ClubMatch, request: HttpRequest) -> str:
    """Which board-order form was sent: the home team's or the away team's."""
    return "away" if _posted(request, "team") == str(chosen.away_id) else "home"


def _board_id(chosen: ClubMatch, action: str, request: HttpRequest) -> str:
    """The id of board N's control in the form sent (``{n}`` for N)."""
    if action == "order":
        return f"id_{_side(chosen, request)}_board_{{n}}"
    return "id_result_{n}" if action == "record" else ""


@require_http_methods(["GET", "POST"])
def club_match(request: HttpRequest, league_slug: str, match_id: int) -> HttpResponse:
    """One club match: each team's board order, the board results in one form, a void."""
    league = _guard(request, league_slug)
    if isinstance(league, HttpResponse):
        return league
    chosen = get_object_or_404(
        ClubMatch.objects.select_related("league", "home", "away"), league=league, pk=match_id
    )
    here = reverse("workspace:club_match", args=[league.slug, chosen.pk])
    summary: list[tuple[str, str]] = []
    field_errors: dict[str, list[str]] = {}
    sent = ""
    if request.method == "POST":
        action = _posted(request, "action")
        key = _posted(request, "idempotency_key") or None
        boards = range(1, chosen.boards + 1)
        try:
            if action == "order":
                team = clubs.submit_board_order(
                    league, chosen, _posted(request, "team"),
                    [_posted(request, f"board_{n}") for n in boards],
                    recorded_by=request.user, idempotency_key=key,
                )  # fmt: skip
                messages.success(
                    request, _("Saved %(team)s's board order.") % {"team": team.team.name}
                )
            elif action == "record":
                clubs.record_club_match(
                    league, chosen, results=[_posted(request, f"result_{n}") for n in boards],
                    played_at=_posted(request, "played_on"), recorded_by=request.user,
                    idempotency_key=key,
                )  # fmt: skip
                messages.success(request, _("Recorded %(match)s.") % {"match": str(chosen)})
            elif action == "void":
                clubs.void_club_match(
                    league, chosen, reason=_posted(request, "reason"), recorded_by=request.user,
                    idempotency_key=key,
                )  # fmt: skip
                messages.success(
                    request, _("Voided the result of %(match)s.") % {"match": str(chosen)}
                )
            else:
                raise ValidationError({"action": [_("choose what to do.")]})
        except ValidationError as error:
            summary, field_errors = _refused(error, action, _board_id(chosen, action, request))
            sent = f"order-{_side(chosen, request)}" if action == "order" else action
        else:
            return redirect(here)
        chosen.refresh_from_db()
        # The forms the page shows: the void once recorded, the orders and results before.
        shown = {"void"} if chosen.games else {"order-home", "order-away", "record"}
        sent = sent if sent in shown else "page"
    view = clubs.club_match_view(chosen)
    rosters = {
        row["team"].pk: row["players"]
        for row in _teams_context(league)
        if row["team"].pk in (chosen.home_id, chosen.away_id)
    }
    submitted_by = dict(
        BoardOrder.objects.filter(club_match=chosen).values_list("team_id", "submitted_by")
    )
    orders = [
        {
            "team": team,
            "side": side,
            "players": rosters.get(team.pk, []),
            "chosen": [getattr(board, side) for board in view.boards],
            "submitted_by": submitted_by.get(team.pk),
        }
        for side, team in (("home", chosen.home), ("away", chosen.away))
    ]
    posted_results = [request.POST.get(f"result_{b.number}", "") for b in view.boards]
    context = {
        "league": league,
        "match": chosen,
        "view": view,
        "orders": orders,
        "boards": list(zip(view.boards, posted_results, strict=True)),
        "result_choices": RESULT_CHOICES,
        "posted": request.POST,
        "key": new_key(),
        "sent": sent,
        "form_errors": summary,
        "field_errors": field_errors,
        "today": request.POST.get("played_on")
        or league_day(league, chosen.scheduled_at).isoformat(),
    }
    return render(request, "workspace/club_match.html", context)
