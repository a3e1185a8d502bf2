"""Public pages of club matches: one match (boards, players, colours, results, board and
match score) and the team table of a season (or of every match, without seasons).

The numbers come from ``ratings.club_matches``; the words are composed here and in the
templates. Rendered per request: they read little and change with every board recorded.
"""

from __future__ import annotations

import datetime as dt

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils import timezone

from league.calendar import league_day, league_zone, local_midnight
from league.models import ClubMatch, League, Season
from league.seasons import season_containing
from ratings import club_matches as clubs


def club_match(request: HttpRequest, league_slug: str, match_id: int) -> HttpResponse:
    """A club match: each board's players and colours, results, board and match score."""
    league = get_object_or_404(League, slug=league_slug)
    chosen = get_object_or_404(
        ClubMatch.objects.select_related("league", "home", "away"), league=league, pk=match_id
    )
    view = clubs.club_match_view(chosen)
    points = None
    if view.outcome is not None:
        points = {
            1: (chosen.points_win, chosen.points_loss),
            0: (chosen.points_draw, chosen.points_draw),
            -1: (chosen.points_loss, chosen.points_win),
        }[view.outcome]
    context = {
        "league": league,
        "match": chosen,
        "view": view,
        "match_points": points,
        "played_on": None if view.played_at is None else league_day(league, view.played_at),
    }
    return render(request, "pages/club_match.html", context)


def _span(league: League, season: Season) -> tuple[dt.datetime, dt.datetime]:
    zone = league_zone(league)
    return (
        local_midnight(season.start_date, zone),
        local_midnight(season.end_date + dt.timedelta(days=1), zone),
    )


def teams(request: HttpRequest, league_slug: str) -> HttpResponse:
    """The team table of a season (``?season=<slug>``; by default the season of today, else
    every club match) and the league's club matches."""
    league = get_object_or_404(League, slug=league_slug)
    seasons = list(Season.objects.filter(league=league).order_by("-start_date"))
    wanted = request.GET.get("season", "")
    season = next((s for s in seasons if s.slug == wanted), None)
    if season is None and wanted != "all":
        season = season_containing(league, league_day(league, timezone.now()))
    span = None if season is None else _span(league, season)
    matches = []
    for row in ClubMatch.objects.filter(league=league).select_related("league", "home", "away"):
        if row.recorded:
            view = clubs.club_match_view(row)
            played = view.played_at
            if span is not None and not (played and span[0] <= played < span[1]):
                continue
            matches.append({"match": row, "view": view, "day": league_day(league, played)})
        elif span is None or span[0] <= row.scheduled_at < span[1]:
            matches.append(
                {"match": row, "view": None, "day": league_day(league, row.scheduled_at)}
            )
    context = {
        "league": league,
        "table": clubs.team_table(league, span),
        "season": season,
        "seasons": seasons,
        "matches": sorted(matches, key=lambda item: (item["day"], item["match"].pk)),
    }
    return render(request, "pages/teams.html", context)
