"""Export on the workspace: the league's matches in the import format, as a download.

The page offers the live results (voids applied) and the full log (every recorded match,
voided ones with their void's reason); ``import_results`` reads either back into an empty
league with the same standings (``ratings.exports.results``).
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from league.models import Event
from ratings import exports
from web.workspace.access import SignInRequired, organiser_league, sign_in_redirect


@require_GET
def export_page(request: HttpRequest, league_slug: str) -> HttpResponse:
    """The two downloads and the command and API equivalents."""
    try:
        league = organiser_league(request, league_slug)
    except SignInRequired:
        return sign_in_redirect(request)
    matches = Event.objects.matches().filter(league=league)
    return render(
        request,
        "workspace/export.html",
        {
            "league": league,
            "live": matches.filter(voided_by__isnull=True).count(),
            "recorded": matches.count(),
        },
    )


@require_GET
def download(request: HttpRequest, league_slug: str, what: str) -> HttpResponse:
    """``results.csv`` (live matches) or ``event-log.csv`` (every match, voids marked)."""
    try:
        league = organiser_league(request, league_slug)
    except SignInRequired:
        return sign_in_redirect(request)
    table = exports.results(league, with_voided=what == "event-log")
    response = StreamingHttpResponse(
        exports.csv_lines(table), content_type="text/csv; charset=utf-8"
    )
    response["Content-Disposition"] = f'attachment; filename="{league.slug}-{what}.csv"'
    return response
