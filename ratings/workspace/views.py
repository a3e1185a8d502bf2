"""The hub: one page per league listing every organiser task and the replay status."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET

from ratings.services import league_progress
from ratings.workspace.access import SignInRequired, organiser_league, sign_in_redirect
from ratings.workspace.sections import SECTIONS


@require_GET
def hub(request: HttpRequest, league_slug: str) -> HttpResponse:
    """Every organiser task of the league, with the replay's progress."""
    try:
        league = organiser_league(request, league_slug)
    except SignInRequired:
        return sign_in_redirect(request)
    sections = [
        {"section": section, "url": reverse(section.url_name, args=[league.slug])}
        for section in SECTIONS
    ]
    return render(
        request,
        "workspace/hub.html",
        {
            "league": league,
            "sections": sections,
            "progress": league_progress(league),
            "show_outcome": True,
        },
    )
