"""CSV downloads of a league's standings and rating history (public, like the pages), and
an event's TRF file.

Thin views over ``ratings.exports``: the rows are streamed, so a large league's history is
never built in memory. ``?version=N`` picks a configuration version (default: the live one).
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseBadRequest,
    StreamingHttpResponse,
)
from django.shortcuts import get_object_or_404

from league.chess.trf_export import export_competition, file_name
from league.models import Competition, League
from ratings import exports
from ratings.models import RatingConfig
from ratings.selectors.standings import DEFAULT_LEVEL
from web.forms import parse_level
from web.query_params import version_number


def _config(request: HttpRequest, league: League) -> RatingConfig | None:
    version = version_number(request.GET.get("version"))
    if version is None:
        return None
    return get_object_or_404(RatingConfig, league=league, version=version)


def _download(league: League, table: exports.Table, what: str) -> StreamingHttpResponse:
    response = StreamingHttpResponse(
        exports.csv_lines(table), content_type="text/csv; charset=utf-8"
    )
    response["Content-Disposition"] = f'attachment; filename="{league.slug}-{what}.csv"'
    return response


def _table(request: HttpRequest, league_slug: str, build) -> tuple[League, exports.Table]:
    league = get_object_or_404(League, slug=league_slug)
    try:
        return league, build(league, _config(request, league))
    except exports.NoStandingsError as error:
        raise Http404(str(error)) from None


def export_standings(request: HttpRequest, league_slug: str) -> HttpResponse:
    """The standings as the leaderboard shows them, one row per rated player; ``?level=``
    as on the leaderboard (a level that is none is refused, naming the parameter)."""
    try:
        level = parse_level(request.GET.get("level")) or DEFAULT_LEVEL
    except ValidationError as error:
        return HttpResponseBadRequest(error.messages[0], content_type="text/plain; charset=utf-8")
    league, table = _table(
        request, league_slug, lambda league, config: exports.standings(league, config, level=level)
    )
    return _download(league, table, "standings")


def export_history(request: HttpRequest, league_slug: str) -> StreamingHttpResponse:
    """One row per player and period played."""
    league, table = _table(request, league_slug, exports.history)
    return _download(league, table, "history")


def export_competition_trf(
    request: HttpRequest, league_slug: str, competition_slug: str
) -> HttpResponse:
    """The event as a TRF-2026 file (``league.chess.trf_export``): players, ratings, rounds,
    results, byes, forfeits and colours, the paired round without results included."""
    competition = get_object_or_404(
        Competition.objects.select_related("league"),
        league__slug=league_slug,
        slug=competition_slug,
    )
    response = HttpResponse(
        export_competition(competition).encode("utf-8"),
        content_type="text/plain; charset=utf-8",
    )
    response["Content-Disposition"] = f'attachment; filename="{file_name(competition)}"'
    return response
