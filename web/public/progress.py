"""The replay progress fragment that every page showing standings polls while a replay runs."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET

from league.models import League
from ratings.selectors.progress import league_progress


@require_GET
def progress(request: HttpRequest, league_slug: str) -> HttpResponse:
    """The replay progress fragment that the pages poll with htmx while a replay runs."""
    league = get_object_or_404(League, slug=league_slug)
    return render(
        request,
        "pages/_progress.html",
        {
            "league": league,
            "progress": league_progress(league),
            "polling": True,
            # The replay's error is for the league's organisers (as in the API), not visitors.
            "show_outcome": request.GET.get("outcome") == "1" and league.is_organiser(request.user),
        },
    )
