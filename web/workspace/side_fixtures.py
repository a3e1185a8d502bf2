"""Organiser page for fixtures with sides: schedule one, or a round robin of fixed sides.

A round robin of sides pairs the sides given (pairs, teams) with the same Berger tables as
the players' round robin (``pairings.round_robin``); the preview shows each fixture's
chances by the team-sum model, and publishing schedules every fixture at once (all or
none). Swiss and ladder rounds pair players one against one from their own results and
standings; they have no counterpart for fixed sides here, and the page says so.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext
from django.views.decorators.http import require_http_methods

from league import fixtures as fixture_services
from league.calendar import league_day
from league.fixtures import FixtureRequest
from league.forms import add_service_errors
from league.idempotency_keys import new_key, round_row_key
from league.models import League, Player
from league.sides import format_label
from pairings.round_robin import round_robin
from ratings.selectors.configurations import live_config
from ratings.selectors.fixtures import side_forecasts
from web.fixture_display import chances
from web.workspace.access import SignInRequired, organiser_league, sign_in_redirect
from web.workspace.drafts import round_label
from web.workspace.recording import player_list
from web.workspace.side_fixture_forms import SideFixtureForm, SideRoundRobinForm

SCHEDULE, PREVIEW, PUBLISH = "schedule", "preview", "publish"


def _names(side: list[Player]) -> str:
    return " & ".join(player.display_name for player in side)


def round_robin_requests(
    league: League, sides: list[list[Player]], data: dict[str, Any], key: str | None
) -> tuple[list[FixtureRequest], dict[int, list[int]]]:
    """The fixtures of a round robin of ``sides`` (and the side that sits out each round,
    by index, when their number is odd), one round every ``days_between`` days."""
    rounds = round_robin(list(range(len(sides))), double=data["double"])
    requests_: list[FixtureRequest] = []
    byes: dict[int, list[int]] = {}
    for offset, played in enumerate(rounds):
        when = data["start"] + dt.timedelta(days=data["days_between"] * offset)
        deadline = league_day(league, when) + dt.timedelta(days=data["deadline_days"])
        if played.byes:
            byes[played.number] = list(played.byes)  # type: ignore[arg-type]
        for pairing in played.pairings:
            requests_.append(
                FixtureRequest(
                    None,
                    None,
                    when,
                    deadline,
                    data["venue"],
                    round_label(data["series"], played.number),
                    round_row_key(key, len(requests_)),
                    sides=[sides[pairing.first], sides[pairing.second]],  # type: ignore[index]
                )
            )
    return requests_, byes


def _preview(
    league: League, sides: list[list[Player]], requests_: list[FixtureRequest], byes: dict
) -> list[dict[str, Any]]:
    """The round robin by round: each fixture's sides and chances, and who sits out."""
    ids = [
        (tuple(p.pk for p in r.sides[0]), tuple(p.pk for p in r.sides[1]))  # type: ignore[index]
        for r in requests_
    ]
    predicted = side_forecasts(league, live_config(league), ids)
    rounds: dict[str, dict[str, Any]] = {}
    for request_, pair in zip(requests_, ids, strict=True):
        first, second = _names(request_.sides[0]), _names(request_.sides[1])  # type: ignore[index]
        entry = rounds.setdefault(
            request_.label, {"label": request_.label, "when": request_.scheduled_at, "games": []}
        )
        entry["games"].append(
            {
                "first": first,
                "second": second,
                "chances": chances(predicted.get(pair), first, second),
            }
        )
    numbered = list(rounds.values())
    for number, entry in enumerate(numbered, start=1):
        entry["byes"] = [_names(sides[index]) for index in byes.get(number, [])]
    return numbered


def _error_lines(error: ValidationError) -> list[str]:
    lines = []
    for field, items in error.message_dict.items():
        for item in items:
            lines.append(item if field == "__all__" else f"{field}: {item}")
    return lines


@require_http_methods(["GET", "POST"])
def side_fixtures_page(request: HttpRequest, league_slug: str) -> HttpResponse:
    """Schedule one fixture with sides; preview and publish a round robin of fixed sides."""
    try:
        league = organiser_league(request, league_slug)
    except SignInRequired:
        return sign_in_redirect(request)
    action = request.POST.get("action", "") if request.method == "POST" else ""
    form = SideFixtureForm(league, request.POST if action == SCHEDULE else None)
    robin = SideRoundRobinForm(
        league, request.POST if action in (PREVIEW, PUBLISH) else None, prefix="robin"
    )
    fixtures_url = reverse("workspace:fixtures", args=[league.slug])
    context: dict[str, Any] = {
        "league": league,
        "form": form,
        "robin": robin,
        "format_label": format_label(league),
        "fixtures_url": fixtures_url,
        "preview": None,
        "problems": [],
        "publish_key": request.POST.get("publish_key") or new_key(),
        **player_list(league),
    }
    if not league.takes_sides:
        return render(request, "workspace/side_fixtures.html", context)
    if action == SCHEDULE and form.is_valid():
        data = form.cleaned_data
        try:
            fixture_services.schedule_fixture(
                league,
                sides=data["sides"],
                scheduled_at=data["scheduled_at"],
                deadline=data["deadline"],
                venue=data["venue"],
                label=data["label"],
                recorded_by=request.user,
                idempotency_key=data["idempotency_key"] or None,
            )
        except ValidationError as error:
            add_service_errors(form, error)
        else:
            title = f" {pgettext('versus', 'v')} ".join(_names(side) for side in data["sides"])
            messages.success(request, _("Scheduled %(fixture)s.") % {"fixture": title})
            return redirect(fixtures_url)
    elif action in (PREVIEW, PUBLISH) and robin.is_valid():
        sides = robin.cleaned_data["teams"]
        key = context["publish_key"]
        requests_, byes = round_robin_requests(league, sides, robin.cleaned_data, key)
        if action == PUBLISH:
            try:
                made = fixture_services.schedule_fixtures(
                    league, requests_, recorded_by=request.user
                )
            except ValidationError as error:
                context["problems"] = _error_lines(error)
            else:
                messages.success(
                    request,
                    ngettext(
                        "Published %(count)s fixture.", "Published %(count)s fixtures.", len(made)
                    )
                    % {"count": len(made)},
                )
                return redirect(fixtures_url)
        context["preview"] = _preview(league, sides, requests_, byes)
    return render(request, "workspace/side_fixtures.html", context)
