"""The organisers' page of a league's rating configuration and of its replays."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from engine.errors import InvalidParameterError
from league.forms import add_service_errors
from league.models import League
from ratings.models import RatingConfig
from ratings.parameters import BY_NAME, stored_problems
from ratings.selectors.configurations import (
    config_versions,
    describe_config,
    live_config,
    recent_replays,
)
from ratings.selectors.coverage import interval_coverage_levels
from ratings.selectors.progress import league_progress
from ratings.services import create_config, latest_config
from web.formatting import coverage_texts
from web.forms import LEVEL_CHOICES, ConfigForm, level_of_percent


@require_http_methods(["GET", "POST"])
def config(request: HttpRequest, league_slug: str) -> HttpResponse:
    """Current parameters, a form for a new version, and the live replay progress."""
    league = get_object_or_404(League, slug=league_slug)
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    if not league.is_organiser(request.user):
        raise PermissionDenied(_("Only this league's organisers can change its configuration."))
    # The replay's progress is read before the live version: a replay that has finished had
    # published its version in the same transaction, so the page never shows a finished replay
    # (and stops polling) beside the version it replaced.
    progress = league_progress(league)
    live = live_config(league)
    if request.method == "POST":
        form = ConfigForm(request.POST, league=league)
        if form.is_valid():
            try:
                created = create_config(
                    league, created_by=request.user, start_rules=True, **form.cleaned_data
                )
            except ValidationError as error:
                if error.code == "stale":
                    # Another version was saved since this form was filled: show that one.
                    form = _form_of_newest(league, bound=True)
                add_service_errors(form, error)
            except InvalidParameterError as error:
                form.add_error(None, str(error))
            else:
                messages.success(
                    request,
                    _(
                        "Version %(version)d saved. The standings are being recomputed; "
                        "the previous ones stay visible until the replay completes."
                    )
                    % {"version": created.version},
                )
                return redirect("workspace:config", league_slug=league.slug)
    else:
        form = _form_of_newest(league)
    newest = latest_config(league)
    context = {
        "league": league,
        "form": form,
        "live": describe_config(live, is_live=True) if live else None,
        "versions": config_versions(league),
        "progress": progress,
        "replays": recent_replays(league),
        "show_outcome": True,
        "outside_bounds": _outside_bounds(newest),
        "coverage": _coverage_lines(live) if live else [],
    }
    return render(request, "pages/config.html", context)


def _outside_bounds(config: object | None) -> list[tuple[str, str]]:
    """(label, message) for each parameter of ``config`` (the newest version) outside today's
    bounds: a version stored before they narrowed keeps its values, and its next version must
    change them."""
    if config is None:
        return []
    values = {name: getattr(config, name) for name in BY_NAME}
    return [
        (str(BY_NAME[name].label), message) for name, message in stored_problems(values).items()
    ]


def _coverage_lines(live: RatingConfig) -> list[dict[str, str]]:
    """What the page says of the live version's coverage at each level the pages offer."""
    levels = [level_of_percent(percent) for percent in LEVEL_CHOICES]
    return [
        coverage_texts(level, measured)
        for level, measured in interval_coverage_levels(live, levels)
    ]


def _form_of_newest(league: League, *, bound: bool = False) -> ConfigForm:
    """A form filled from the newest version (saved, perhaps still replaying), so that a save
    changes only what the organiser changes. ``bound`` makes it a submitted form of those
    values, which can carry an error."""
    initial = ConfigForm.initial_for(league, latest_config(league))
    if not bound:
        return ConfigForm(initial=initial, league=league)
    data = {
        name: "" if value is None else value.isoformat() if hasattr(value, "isoformat") else value
        for name, value in initial.items()
    }
    form = ConfigForm(data, league=league)
    form.is_valid()
    return form
