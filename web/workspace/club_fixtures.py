"""The organisers' page that generates a round robin of club matches: choose the teams,
single or double, the first day and the days between rounds; a preview lists every round
(home team first, with the boards each match takes), and one confirmation schedules them
all (``ratings.club_fixtures``), as the 1v1 pairings page previews a draft before
publishing it. A refused input is shown with each message under its field; nothing is
written.
"""

from __future__ import annotations

from itertools import groupby
from typing import Any

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_http_methods

from league.idempotency_keys import new_key
from league.models import ClubSeason, Team
from ratings import club_fixtures
from web.workspace.club_matches import _guard, _posted, _refused


@require_http_methods(["GET", "POST"])
def generate_page(request: HttpRequest, league_slug: str) -> HttpResponse:
    """The generator's form; "preview" shows the rounds, "generate" schedules them."""
    league = _guard(request, league_slug)
    if isinstance(league, HttpResponse):
        return league
    teams = list(Team.objects.filter(league=league).order_by("name"))
    summary: list[tuple[str, str]] = []
    field_errors: dict[str, list[str]] = {}
    rounds: list[tuple[int, list[club_fixtures.PlannedMatch]]] = []
    action = _posted(request, "action")
    posted = request.POST
    if request.method == "POST":
        chosen = posted.getlist("teams")
        terms: dict[str, Any] = {
            "teams": chosen,
            "double": posted.get("double") == "on",
            "start": _posted(request, "start"),
            "interval_days": _posted(request, "interval_days"),
            "boards": _posted(request, "boards"),
        }
        try:
            if action == "generate":
                made = club_fixtures.generate_club_fixtures(
                    league, **terms, venue=_posted(request, "venue"), recorded_by=request.user,
                    idempotency_key=_posted(request, "idempotency_key") or None,
                )  # fmt: skip
                messages.success(
                    request,
                    ngettext(
                        "Scheduled %(count)s club match.",
                        "Scheduled %(count)s club matches.",
                        len(made),
                    )
                    % {"count": len(made)},
                )
                return redirect(reverse("workspace:clubs", args=[league.slug]))
            if action != "preview":
                raise ValidationError({"action": [_("choose preview or generate.")]})
            planned = club_fixtures.plan_club_fixtures(league, **terms)
            rounds = [(n, list(ms)) for n, ms in groupby(planned, key=lambda m: m.round)]
        except ValidationError as error:
            summary, field_errors = _refused(error, "generate")
    chosen_ids = set(posted.getlist("teams")) if request.method == "POST" else None
    context = {
        "league": league,
        "teams": [(team, chosen_ids is None or str(team.pk) in chosen_ids) for team in teams],
        "settings": ClubSeason.objects.filter(season__league=league).select_related("season"),
        "posted": posted,
        "rounds": rounds,
        "key": new_key(),
        "form_errors": summary,
        "field_errors": field_errors,
    }
    return render(request, "workspace/club_fixtures.html", context)
