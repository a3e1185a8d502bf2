"""Backtesting pages for a league's organisers: start a sweep, watch it, adopt the best run."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRefresh

from league.forms import add_service_errors
from league.models import League
from ratings.backtest import services, tasks
from ratings.backtest.models import Sweep
from ratings.backtest.presentation import (
    calibration_chart,
    chart_data,
    run_rows,
    setting_label,
    sweep_error,
    verdict_text,
    walk_forward_rows,
    walk_forward_verdicts,
)
from ratings.models import RatingConfig
from web.locale_format import decimal_separator
from web.public.chart_summaries import loss_chart_summary

_SEPARATORS = re.compile(r"[\s,;]+")


def _numbers(text: str) -> list[str]:
    return [part for part in _SEPARATORS.split(text.strip()) if part]


class SweepForm(forms.Form):
    """The grid as lists of numbers typed with spaces or commas between them."""

    tau = forms.CharField(
        label=_("τ values"),
        initial="0.3 0.5 0.7 0.9 1.2",
        help_text=_("System constant values to compare, e.g. 0.3 0.5 0.7 0.9 1.2."),
    )
    initial_rd = forms.CharField(
        label=_("Initial RD values"), required=False, help_text=_("Optional, e.g. 250 350.")
    )
    initial_volatility = forms.CharField(
        label=_("Initial volatility values"),
        required=False,
        help_text=_("Optional, e.g. 0.04 0.06."),
    )
    advantage = forms.CharField(
        label=_("First-named side's advantage values"),
        required=False,
        help_text=_(
            "Optional, rating points for the home side (white, first player) in matches "
            "not marked neutral, e.g. 0 50 100."
        ),
    )
    margin_scale = forms.CharField(
        label=_("Margin scales"),
        required=False,
        help_text=_(
            "Optional: also count how much a match was won by, e.g. off 1 3 "
            "('off' for wins, draws and losses only)."
        ),
    )
    period_length = forms.CharField(
        label=_("Period lengths"),
        required=False,
        help_text=_("Optional, e.g. 7 14 (whole numbers)."),
    )
    period_unit = forms.ChoiceField(
        label=_("Period unit"),
        required=False,
        choices=[
            ("", _("as configured")),
            ("days", _("days")),
            ("months", _("calendar months")),
        ],
    )
    update_mode = forms.MultipleChoiceField(
        label=_("Updates"),
        required=False,
        choices=RatingConfig.UpdateMode.choices,
        widget=forms.CheckboxSelectMultiple,
        help_text=_("Optional: tick both to compare them (none ticked: as configured)."),
    )

    holdout_from = forms.DateField(
        label=_("Out of sample from"),
        required=False,
        widget=forms.DateInput(attrs={"type": "date"}),
        help_text=_(
            # Not a format string: the "%" is the percent sign (xgettext would read "% o").
            # xgettext:no-python-format
            "Walk-forward: the setting is chosen on the matches before this day's rating period "
            "and judged on the matches from it on. Blank: the last 30 % of the rating periods."
        ),
    )
    no_holdout = forms.BooleanField(
        label=_("Score the whole history in sample only (no walk-forward)"), required=False
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if data.get("no_holdout") and data.get("holdout_from"):
            self.add_error(
                "holdout_from",
                _("Leave this blank, or untick 'no walk-forward': the two do not go together."),
            )
        return data

    def __init__(self, *args: Any, league: League | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if league is not None and league.is_chess:
            self.fields["advantage"].label = _("White's advantage values")
            self.fields["advantage"].help_text = _(
                "Optional, rating points for White (the first-move advantage), e.g. 0 20 40."
            )

    def holdout(self) -> dict[str, Any]:
        """The walk-forward arguments for ``tasks.start_sweep``."""
        data = self.cleaned_data
        if data.get("no_holdout"):
            return {"holdout": False}
        if data.get("holdout_from"):
            return {"holdout_from": data["holdout_from"]}
        return {}

    def grid(self) -> dict[str, Any]:
        """The raw grid for ``tasks.start_sweep`` (which validates the values)."""
        data = self.cleaned_data
        grid: dict[str, Any] = {"tau": _numbers(data["tau"])}
        optional = ("initial_rd", "initial_volatility", "advantage", "margin_scale")
        for key in (*optional, "period_length"):
            if _numbers(data.get(key, "")):
                grid[key] = _numbers(data[key])
        if data.get("period_unit"):
            grid["period_unit"] = data["period_unit"]
        if data.get("update_mode"):
            grid["update_mode"] = list(data["update_mode"])
        return grid


def _organised_league(request: HttpRequest, league_slug: str) -> League | HttpResponse:
    """The league, or a login redirect for visitors; 403 for users who do not organise it."""
    league = get_object_or_404(League, slug=league_slug)
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    if not league.is_organiser(request.user):
        raise PermissionDenied(gettext("Only an organiser of this league may run backtests."))
    return league


def _for_organisers(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Call ``view(request, league, **kwargs)`` for the league named by ``league_slug``.

    Only for its organisers: visitors are sent to log in, other users get a 403.
    """

    @functools.wraps(view)
    def for_organisers(request: HttpRequest, league_slug: str, **kwargs: Any) -> HttpResponse:
        league = _organised_league(request, league_slug)
        if isinstance(league, HttpResponse):
            return league
        return view(request, league, **kwargs)

    return for_organisers


@require_http_methods(["GET", "POST"])
@_for_organisers
def sweep_list(request: HttpRequest, league: League) -> HttpResponse:
    """The sweep form and the league's earlier sweeps."""
    form = SweepForm(request.POST or None, league=league)
    if request.method == "POST" and form.is_valid():
        try:
            sweep = tasks.start_sweep(
                league, form.grid(), requested_by=request.user, **form.holdout()
            )
        except ValidationError as error:
            add_service_errors(form, error)
        else:
            messages.success(
                request,
                ngettext(
                    "Sweep #%(id)s started: %(runs)s run.",
                    "Sweep #%(id)s started: %(runs)s runs.",
                    sweep.runs_total,
                )
                % {"id": sweep.pk, "runs": sweep.runs_total},
            )
            return redirect("workspace:backtest_sweep", league_slug=league.slug, sweep_id=sweep.pk)
    sweeps = Sweep.objects.filter(league=league).select_related("best_run")[:20]
    return render(
        request,
        "backtest/sweep_list.html",
        {"league": league, "form": form, "sweeps": sweeps},
        status=400 if form.errors else 200,
    )


def _sweep(league: League, sweep_id: int) -> Sweep:
    return get_object_or_404(
        Sweep.objects.select_related("best_run", "requested_by"), league=league, pk=sweep_id
    )


@require_GET
@_for_organisers
def sweep_detail(request: HttpRequest, league: League, sweep_id: int) -> HttpResponse:
    """Progress, the results table, the chart of log-loss against τ and the adopt button."""
    sweep = _sweep(league, sweep_id)
    runs = list(sweep.runs.all())
    chart = chart_data(runs)
    return render(
        request,
        "backtest/sweep_detail.html",
        {
            "league": league,
            "sweep": sweep,
            "rows": run_rows(sweep, runs),
            "chart": chart,
            "chart_summary": loss_chart_summary(chart),
            "calibration": calibration_chart(sweep, runs),
            "best": sweep.best_run,
            "best_setting": setting_label(sweep.best_run.parameters) if sweep.best_run else "",
            "walk_rows": walk_forward_rows(sweep, runs),
            "walk_verdicts": walk_forward_verdicts(sweep),
            "verdict": verdict_text(sweep),
            "sweep_error": sweep_error(sweep),
        },
    )


@require_GET
@_for_organisers
def sweep_progress(request: HttpRequest, league: League, sweep_id: int) -> HttpResponse:
    """The progress fragment polled by htmx; reloads the page once the sweep has finished."""
    sweep = _sweep(league, sweep_id)
    if sweep.finished and getattr(request, "htmx", False):
        return HttpResponseClientRefresh()
    return render(
        request,
        "backtest/_progress.html",
        {"league": league, "sweep": sweep, "sweep_error": sweep_error(sweep)},
    )


@require_POST
@_for_organisers
def adopt(request: HttpRequest, league: League, sweep_id: int) -> HttpResponse:
    """Create a configuration version from the best run (a full replay follows)."""
    sweep = _sweep(league, sweep_id)
    try:
        config = services.adopt_best(sweep, user=request.user)
    except ValidationError as error:
        for message in error.messages:
            messages.error(request, message)
    else:
        messages.success(
            request,
            gettext(
                "Version %(version)s created with τ = %(tau)s; the standings are being recomputed."
            )
            % {
                "version": config.version,
                "tau": f"{config.tau:g}".replace(".", decimal_separator()),
            },
        )
    return redirect("workspace:backtest_sweep", league_slug=league.slug, sweep_id=sweep.pk)
