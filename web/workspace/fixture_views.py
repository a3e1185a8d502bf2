"""Organiser pages for fixtures: schedule, enter results, move or cancel; generate rounds.

Every view is guarded by ``organiser_league``; writes go through ``league.fixtures`` and
``league.services`` and answer a bad input with a message naming the field, changing nothing.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from league import fixtures as fixture_services
from league import services
from league.calendar import league_day
from league.fixtures import FixtureRequest, fixture_title
from league.idempotency_keys import new_key, round_row_key
from league.models import Fixture, League, Player
from ratings.selectors.configurations import live_config
from ratings.selectors.fixtures import (
    CANCELLED,
    OVERDUE,
    PLAYED,
    UPCOMING,
    fixture_rows,
    forecasts,
    league_today,
)
from ratings.selectors.progress import league_progress
from web.fixture_display import chances, fixture_cells
from web.workspace import drafts
from web.workspace.access import SignInRequired, organiser_league, sign_in_redirect
from web.workspace.fixture_forms import (
    CancelForm,
    GeneratorForm,
    RescheduleForm,
    ResultForm,
    ScheduleForm,
)
from web.workspace.recorded import read_echo

#: Played and cancelled fixtures are listed for this many days after their date.
RECENT_DAYS = 30


def _error_text(error: ValidationError | dict[str, Any]) -> list[str]:
    """'field: message' lines for a service's error or a form's errors."""
    by_field = error.message_dict if isinstance(error, ValidationError) else error
    lines = []
    for field, items in by_field.items():
        for item in items:
            lines.append(str(item) if field == "__all__" else f"{field}: {item}")
    return lines


def _guard(request: HttpRequest, league_slug: str) -> League | HttpResponse:
    try:
        return organiser_league(request, league_slug)
    except SignInRequired:
        return sign_in_redirect(request)


def _fixtures_url(league: League) -> str:
    return reverse("workspace:fixtures", args=[league.slug])


@require_http_methods(["GET", "POST"])
def fixtures_page(request: HttpRequest, league_slug: str) -> HttpResponse:
    """Open fixtures with a result form each, recent ones, and a form to schedule one."""
    league = _guard(request, league_slug)
    if isinstance(league, HttpResponse):
        return league
    form = ScheduleForm(league, request.POST or None)
    if request.method == "POST":
        if form.is_valid():
            data = form.cleaned_data
            try:
                fixture_services.schedule_fixture(
                    league,
                    player_a=data["player_a"],
                    player_b=data["player_b"],
                    scheduled_at=data["scheduled_at"],
                    deadline=data["deadline"],
                    venue=data["venue"],
                    label=data["label"],
                    recorded_by=request.user,
                    idempotency_key=data["idempotency_key"] or None,
                )
            except ValidationError as error:
                for line in _error_text(error):
                    messages.error(request, line)
            else:
                messages.success(request, f"Scheduled {data['player_a']} v {data['player_b']}.")
                return redirect(_fixtures_url(league))
        else:
            for line in _error_text(form.errors):
                messages.error(request, line)
    config = live_config(league)
    since = league_today(league) - dt.timedelta(days=RECENT_DAYS)
    rows = fixture_rows(league, config, statuses=(UPCOMING, OVERDUE, PLAYED, CANCELLED), since=None)
    cells = [fixture_cells(row) for row in rows]
    for cell in cells:
        # A fresh key per rendered form (result, move, cancel): a double click or a resent
        # form is stored once.
        cell["keys"] = {"result": new_key(), "move": new_key(), "cancel": new_key()}
    recent = [
        c
        for c, row in zip(cells, rows, strict=True)
        if c["status"] in (PLAYED, CANCELLED) and row.scheduled_at.date() >= since
    ]
    context = {
        "league": league,
        "form": form,
        "open": [c for c in cells if c["status"] in (UPCOMING, OVERDUE)],
        "recent": list(reversed(recent)),
        "result_form": ResultForm(league),
        "echo": read_echo(league, request.GET.get("recorded")),
        "progress": league_progress(league),
        "pairings_url": reverse("workspace:pairings", args=[league.slug]),
    }
    return render(request, "workspace/fixtures.html", context)


def _fixture(league: League, fixture_id: int) -> Fixture:
    return get_object_or_404(Fixture, league=league, pk=fixture_id)


@require_POST
def fixture_result(request: HttpRequest, league_slug: str, fixture_id: int) -> HttpResponse:
    """Record the result of one fixture from its score alone (its result alone in a league
    without points), then echo it with an Undo as the single-result page does."""
    league = _guard(request, league_slug)
    if isinstance(league, HttpResponse):
        return league
    fixture = _fixture(league, fixture_id)
    form = ResultForm(league, request.POST)
    if not form.is_valid():
        for line in _error_text(form.errors):
            messages.error(request, f"{fixture_title(fixture)}: {line}")
        return redirect(_fixtures_url(league))
    score_a, points = form.cleaned_data["score"]
    try:
        match = services.record_fixture_result(
            league,
            fixture,
            score_a=score_a,
            points=points,
            recorded_by=request.user,
            idempotency_key=form.cleaned_data["idempotency_key"] or None,
        )
    except ValidationError as error:
        for line in _error_text(error):
            messages.error(request, f"{fixture_title(fixture)}: {line}")
        return redirect(_fixtures_url(league))
    return redirect(f"{_fixtures_url(league)}?recorded={match.seq}#echo")


@require_POST
def fixture_reschedule(request: HttpRequest, league_slug: str, fixture_id: int) -> HttpResponse:
    """Move one open fixture."""
    league = _guard(request, league_slug)
    if isinstance(league, HttpResponse):
        return league
    fixture = _fixture(league, fixture_id)
    form = RescheduleForm(league, request.POST)
    if not form.is_valid():
        for line in _error_text(form.errors):
            messages.error(request, f"{fixture_title(fixture)}: {line}")
        return redirect(_fixtures_url(league))
    try:
        fixture_services.reschedule_fixture(
            league,
            fixture,
            scheduled_at=form.cleaned_data["scheduled_at"],
            deadline=form.cleaned_data["deadline"],
            reason=form.cleaned_data["reason"],
            recorded_by=request.user,
            idempotency_key=form.cleaned_data["idempotency_key"] or None,
        )
    except ValidationError as error:
        for line in _error_text(error):
            messages.error(request, f"{fixture_title(fixture)}: {line}")
    else:
        messages.success(request, f"Moved {fixture_title(fixture)}.")
    return redirect(_fixtures_url(league))


@require_POST
def fixture_cancel(request: HttpRequest, league_slug: str, fixture_id: int) -> HttpResponse:
    """Cancel one open fixture."""
    league = _guard(request, league_slug)
    if isinstance(league, HttpResponse):
        return league
    fixture = _fixture(league, fixture_id)
    form = CancelForm(request.POST)
    valid = form.is_valid()
    reason = form.cleaned_data["reason"] if valid else ""
    key = (form.cleaned_data["idempotency_key"] or None) if valid else None
    try:
        fixture_services.cancel_fixture(
            league, fixture, reason=reason, recorded_by=request.user, idempotency_key=key
        )
    except ValidationError as error:
        for line in _error_text(error):
            messages.error(request, f"{fixture_title(fixture)}: {line}")
    else:
        messages.success(request, f"Cancelled {fixture_title(fixture)}.")
    return redirect(_fixtures_url(league))


# --- generated rounds ----------------------------------------------------------------------


def _decode(values: list[str]) -> list[drafts.DraftPairing] | None:
    decoded = [drafts.DraftPairing.decode(value) for value in values]
    return None if any(p is None for p in decoded) else decoded  # type: ignore[return-value]


def _indices(request: HttpRequest, name: str, size: int) -> set[int]:
    found = set()
    for raw in request.POST.getlist(name):
        if raw.isdigit() and int(raw) < size:
            found.add(int(raw))
    return found


def _adjust(
    request: HttpRequest, pairings: list[drafts.DraftPairing], field: set[int]
) -> tuple[list[drafts.DraftPairing], list[str]]:
    """Apply the organiser's swaps, exchanges, removals and additions; problems as text."""
    problems: list[str] = []
    for index in sorted(_indices(request, "swap", len(pairings))):
        pairings = drafts.swap_sides(pairings, index)
    x, y = request.POST.get("exchange_x", ""), request.POST.get("exchange_y", "")
    rounds = {p.round for p in pairings}
    exchange_round = request.POST.get("exchange_round", "")
    if x or y:
        if not (x.isdigit() and y.isdigit() and int(x) in field and int(y) in field and x != y):
            problems.append("exchange: choose two different players of the field.")
        elif not (exchange_round.isdigit() and int(exchange_round) in rounds):
            problems.append("exchange_round: choose a round of the draft.")
        else:
            pairings = drafts.exchange(pairings, int(exchange_round), int(x), int(y))
    removed = _indices(request, "remove", len(pairings))
    pairings = [p for i, p in enumerate(pairings) if i not in removed]
    a, b = request.POST.get("add_a", ""), request.POST.get("add_b", "")
    if a or b:
        add_round = request.POST.get("add_round", "")
        if not (a.isdigit() and b.isdigit() and int(a) in field and int(b) in field and a != b):
            problems.append("add: choose two different players of the field.")
        elif not (add_round.isdigit() and int(add_round) in rounds):
            problems.append("add_round: choose a round of the draft.")
        else:
            number = int(add_round)
            when = (
                next(p.when for p in pairings if p.round == number)
                if any(p.round == number for p in pairings)
                else None
            )
            if when is None:
                problems.append("add_round: that round has no pairing left to take a time from.")
            else:
                pairings = [*pairings, drafts.DraftPairing(number, int(a), int(b), when)]
    return pairings, problems


def _draft_context(
    league: League, players: list[Player], pairings: list[drafts.DraftPairing]
) -> list[dict[str, Any]]:
    """The draft by round, with each pairing's chances and who sits the round out."""
    config = live_config(league)
    names = {p.pk: p.display_name for p in players}
    predicted = forecasts(league, config, [(p.first, p.second) for p in pairings])
    byes = drafts.draft_byes(pairings, [p.pk for p in players])
    rounds: dict[int, dict[str, Any]] = {}
    for index, p in enumerate(pairings):
        entry = rounds.setdefault(
            p.round,
            {
                "number": p.round,
                "when": p.when.astimezone(p.when.tzinfo),
                "pairings": [],
                "byes": [names.get(pid, str(pid)) for pid in byes.get(p.round, [])],
            },
        )
        first, second = names.get(p.first, str(p.first)), names.get(p.second, str(p.second))
        entry["pairings"].append(
            {
                "index": index,
                "code": p.encode(),
                "first": first,
                "second": second,
                "chances": chances(predicted[(p.first, p.second)], first, second),
            }
        )
    return [rounds[number] for number in sorted(rounds)]


def prefill(form: GeneratorForm, request: HttpRequest) -> None:
    """The generator's choices from a link (a division's "schedule its round robin"):
    ``players`` (ids among the form's choices; others are ignored), ``method``, ``series``."""
    wanted = set(request.GET.getlist("players"))
    if wanted:
        form.fields["players"].initial = [
            player for player in form.fields["players"].queryset if str(player.pk) in wanted
        ]
    method = request.GET.get("method", "")
    if method in drafts.METHODS:
        form.fields["method"].initial = method
    series = " ".join(request.GET.get("series", "").split())[:80]
    if series:
        form.fields["series"].initial = series


@require_http_methods(["GET", "POST"])
def pairings_page(request: HttpRequest, league_slug: str) -> HttpResponse:
    """Generate a round (or a whole round robin), adjust it, publish it as fixtures."""
    league = _guard(request, league_slug)
    if isinstance(league, HttpResponse):
        return league
    action = request.POST.get("action", "")
    form = GeneratorForm(league, request.POST or None)
    if request.method == "GET":
        prefill(form, request)
    pairings: list[drafts.DraftPairing] | None = None
    problems: list[str] = []
    if request.method == "POST":
        if not form.is_valid():
            problems = _error_text(form.errors)
        elif action == "generate":
            data = form.cleaned_data
            draft = drafts.generate(
                league,
                live_config(league),
                data["method"],
                list(data["players"]),
                series=data["series"],
                start=data["start"],
                days_between=data["days_between"],
                double=data["double"],
                use_sides=data["use_sides"],
                max_distance=data["max_distance"],
            )
            pairings = draft.pairings
        elif action in ("adjust", "publish"):
            pairings = _decode(request.POST.getlist("pairing"))
            if pairings is None:
                problems = ["pairing: the draft was damaged in transit; generate it again."]
            else:
                field = {p.pk for p in form.cleaned_data["players"]}
                pairings, problems = _adjust(request, pairings, field)
                if action == "publish" and not problems:
                    published = _publish(request, league, form.cleaned_data, pairings)
                    if isinstance(published, HttpResponseRedirect):
                        return published
                    problems = published
        else:
            problems = ["action: choose generate, adjust or publish."]
    players = list(form.cleaned_data["players"]) if form.is_bound and form.is_valid() else []
    context = {
        "league": league,
        "form": form,
        "problems": problems,
        "rounds": _draft_context(league, players, pairings) if pairings is not None else None,
        "has_draft": pairings is not None,
        "field": players,
        "fixtures_url": _fixtures_url(league),
        # A fresh key for each rendered draft: publishing it twice (a double click, a
        # resent form) publishes its fixtures once; an adjusted draft is a new one.
        "publish_key": new_key(),
    }
    return render(request, "workspace/pairings.html", context)


def _publish(
    request: HttpRequest,
    league: League,
    data: dict[str, Any],
    pairings: list[drafts.DraftPairing],
) -> HttpResponseRedirect | list[str]:
    if not pairings:
        return ["pairing: the draft has no pairings to publish."]
    key = request.POST.get("publish_key") or None
    requests_ = [
        FixtureRequest(
            player_a=p.first,
            player_b=p.second,
            scheduled_at=p.when,
            deadline=league_day(league, p.when) + dt.timedelta(days=data["deadline_days"]),
            venue=data["venue"],
            label=drafts.round_label(data["series"], p.round),
            idempotency_key=round_row_key(key, index),
        )
        for index, p in enumerate(pairings)
    ]
    try:
        made = fixture_services.schedule_fixtures(league, requests_, recorded_by=request.user)
    except ValidationError as error:
        return _error_text(error)
    messages.success(request, f"Published {len(made)} fixture{'s' if len(made) != 1 else ''}.")
    return redirect(_fixtures_url(league))
