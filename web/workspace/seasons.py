"""The organisers' season pages: create and edit seasons, close them, re-derive a table."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods

from league import seasons as season_services
from league.models import Season
from ratings.seasons.archive import close_season, rederive_season
from ratings.seasons.read import league_seasons, season_table
from web.workspace.access import SignInRequired, organiser_league, sign_in_redirect
from web.workspace.forms import RederiveForm, SeasonForm, put_errors


def _fields(form: SeasonForm) -> dict[str, str]:
    return {name: form.data.get(name, "") for name in form.fields}


@require_http_methods(["GET", "POST"])
def season_list(request: HttpRequest, league_slug: str) -> HttpResponse:
    """Every season of the league, and the form creating a new one."""
    try:
        league = organiser_league(request, league_slug)
    except SignInRequired:
        return sign_in_redirect(request)
    form = SeasonForm(request.POST or None)
    if request.method == "POST":
        try:
            season = season_services.create_season(league, created_by=request.user, **_fields(form))
        except ValidationError as error:
            form.is_valid()
            put_errors(form, error)
        else:
            messages.success(request, f"Season “{season.name}” created.")
            return redirect("workspace:seasons", league.slug)
    return render(
        request,
        "workspace/seasons.html",
        {"league": league, "seasons": league_seasons(league), "form": form},
    )


@require_http_methods(["GET", "POST"])
def season_detail(request: HttpRequest, league_slug: str, season_slug: str) -> HttpResponse:
    """One season: edit it, close it (archiving its table), or re-derive its archived table."""
    try:
        league = organiser_league(request, league_slug)
    except SignInRequired:
        return sign_in_redirect(request)
    season = get_object_or_404(Season, league=league, slug=season_slug)
    initial = {
        "name": season.name,
        "start_date": season.start_date.isoformat(),
        "end_date": season.end_date.isoformat(),
        "points_win": str(season.points_win.normalize()),
        "points_draw": str(season.points_draw.normalize()),
        "points_loss": str(season.points_loss.normalize()),
        "tiebreaks": season.tiebreaks.replace(",", ", "),
    }
    action = request.POST.get("action") if request.method == "POST" else None
    form = SeasonForm(request.POST if action == "save" else None, initial=initial)
    if season.closed:
        # Shown but fixed (the service refuses a change); still sent with the form.
        for name in (
            "start_date", "end_date", "points_win", "points_draw", "points_loss", "tiebreaks",
        ):  # fmt: skip
            form.fields[name].widget.attrs["readonly"] = True
    rederive = RederiveForm(request.POST if action == "rederive" else None)
    close_errors: list[str] = []
    try:
        if action == "save":
            season = season_services.update_season(season, **_fields(form))
            messages.success(request, f"Season “{season.name}” saved.")
            return redirect("workspace:season", league.slug, season.slug)
        if action == "close":
            close_season(season, by=request.user)
            messages.success(request, f"“{season.name}” is closed; its table is archived.")
            return redirect("workspace:season", league.slug, season.slug)
        if action == "rederive":
            rederive_season(season, by=request.user, reason=request.POST.get("reason", ""))
            messages.success(request, f"The table of “{season.name}” was re-derived.")
            return redirect("workspace:season", league.slug, season.slug)
    except ValidationError as error:
        if action == "save":
            form.is_valid()
            put_errors(form, error)
        elif action == "rederive":
            rederive.is_valid()
            put_errors(rederive, error)
        else:
            close_errors = [
                message for messages_ in error.message_dict.values() for message in messages_
            ]
    return render(
        request,
        "workspace/season.html",
        {
            "league": league,
            "season": season,
            "form": form,
            "rederive": rederive,
            "close_errors": close_errors,
            "view": season_table(season),
        },
    )
