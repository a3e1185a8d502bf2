"""Recording on the workspace: one result, a round, a team match, a round of team matches,
and undoing what was just saved.

Each page saves through ``league.services`` and then redirects to itself with
``?recorded=FIRST-LAST``, where it echoes what was stored (``web.workspace.recorded``)
with an undo button and a link to the event log. A day the checks of
``web.workspace.dates`` object to is shown back with the objection and saved only when
the organiser confirms it (a second submission carrying ``confirmed`` = that day).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django import forms
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_http_methods, require_POST

from league import services
from league.calendar import league_day
from league.fixtures import fixture_sides
from league.forms import PLAYER_LIST_ID, add_service_errors, show_round_errors
from league.idempotency_keys import round_row_key
from league.models import Event, Fixture, League, Player
from league.sides import format_label
from league.validation import Errors
from ratings.selectors.progress import league_progress
from web.workspace.access import SignInRequired, organiser_league, sign_in_redirect
from web.workspace.dates import date_warnings, day_refusals, league_today
from web.workspace.entry_forms import (
    PAIR,
    SERVICE_FIELDS,
    SIDES,
    MatchEntryForm,
    RoundForm,
    round_formset,
    round_rows,
)
from web.workspace.recorded import parse_range, read_echo

#: Stored in the event log as the void's reason: a fact, kept in the league's record as written.
UNDO_REASON = "Undone by the organiser right after recording it."
#: The entry pages whose echo offers "Undo" (and which the undo returns to).
UNDO_PAGES = ("record", "round", "team_match", "team_round", "fixtures")


def player_list(league: League) -> dict[str, Any]:
    """The active players' names for the pages' ``<datalist>`` (autocomplete without JS)."""
    return {
        "player_list_id": PLAYER_LIST_ID,
        "player_names": Player.objects.filter(league=league, active=True)
        .order_by("display_name")
        .values_list("display_name", flat=True),
    }


def _page_context(request: HttpRequest, league: League) -> dict[str, Any]:
    return {
        "league": league,
        "echo": read_echo(league, request.GET.get("recorded")),
        "progress": league_progress(league),
        "show_outcome": True,
        **player_list(league),
    }


def _recorded_url(name: str, league: League, events: list[Event]) -> str:
    seqs = [event.seq for event in events]
    span = f"{min(seqs)}-{max(seqs)}" if len(seqs) > 1 else str(seqs[0])
    return f"{reverse(name, args=[league.slug])}?recorded={span}"


def _unconfirmed(league: League, days: set[dt.date], confirmed: str, form: Any = None) -> list[str]:
    """The date warnings still to confirm: all of them unless ``confirmed`` names the days.

    A day the services would refuse is refused at once on ``form``'s day field (and nothing
    is to confirm): a confirmation is asked only for a day that would then be accepted.
    """
    refusals = [message for day in sorted(days) for message in day_refusals(league, day)]
    if refusals:
        for message in refusals:
            form.add_error("played_on", message)
        return []
    warnings = date_warnings(league, days)
    if warnings and confirmed == ",".join(sorted(day.isoformat() for day in days)):
        return []
    return warnings


@require_http_methods(["GET", "POST"])
def record(request: HttpRequest, league_slug: str) -> HttpResponse:
    """Record one result: first player, score, second player, day."""
    return _match_page(request, league_slug, PAIR)


@require_http_methods(["GET", "POST"])
def team_match(request: HttpRequest, league_slug: str) -> HttpResponse:
    """Record one match with sides: each side's players, then side A's result (two sides)
    or each side's finishing position (three or more)."""
    return _match_page(request, league_slug, SIDES)


def _match_page(request: HttpRequest, league_slug: str, layout: str) -> HttpResponse:
    """The entry page of one match in ``layout``: the form, saved once its day needs no
    confirmation (or has it), then the redirect to the page's echo."""
    try:
        league = organiser_league(request, league_slug)
    except SignInRequired:
        return sign_in_redirect(request)
    page, heading = (
        ("workspace:record", _("Record a result"))
        if layout == PAIR
        else ("workspace:team_match", _("Record a team match"))
    )
    context = {
        **_page_context(request, league),
        "heading": heading,
        "action": reverse(page, args=[league.slug]),
    }
    if layout == SIDES and not league.takes_sides:
        # Said on the page rather than a 404: the organiser may have followed an old link.
        return render(request, "workspace/record.html", context)
    data = request.POST if request.method == "POST" else None
    fixture = _fixture_of(request, league) if layout == SIDES else None
    form = _entry_form(data, league, layout, fixture)
    warnings: list[str] = []
    if request.method == "POST" and form.is_valid():
        warnings = _unconfirmed(
            league, {form.cleaned_data["played_on"]}, form.cleaned_data["confirmed"], form
        )
        if not warnings and form.is_valid():
            try:
                event = services.record_match(
                    league, recorded_by=request.user, fixture=fixture, **form.service_arguments()
                )
            except ValidationError as error:
                add_service_errors(form, error, SERVICE_FIELDS)
            else:
                return HttpResponseRedirect(_recorded_url(page, league, [event]))
    context.update(
        form=form,
        warnings=warnings,
        confirm_value=_confirm_value(form),
        format_label=format_label(league),
        fixture=fixture,
    )
    if fixture is not None:
        context["heading"] = _("Record a fixture's result")
    return render(request, "workspace/record.html", context)


def _fixture_of(request: HttpRequest, league: League) -> Fixture | None:
    """The fixture a team match is entered for (``?fixture=<id>``, kept in the form), if
    any: a fixture of this league, else a 404 (an old or mistyped link)."""
    raw = request.POST.get("fixture") if request.method == "POST" else request.GET.get("fixture")
    if not raw:
        return None
    if not (raw.isascii() and raw.isdigit() and len(raw) <= 12):
        raise Http404(_("No such fixture."))
    return get_object_or_404(Fixture, league=league, pk=int(raw))


def _entry_form(data: Any, league: League, layout: str, fixture: Fixture | None) -> MatchEntryForm:
    """The entry form; for a fixture, shaped by its sides and prefilled with its players
    and day (the day it was scheduled, or today when that is still ahead)."""
    if fixture is None:
        return MatchEntryForm(data, league=league, layout=layout)
    sides = fixture_sides(fixture)
    names = Player.objects.in_bulk([pid for side in sides for pid in side])
    shape = (len(sides), max(len(side) for side in sides))
    initial: dict[str, Any] = {
        f"side_{x}_{j}": names[pid].display_name
        for x, side in enumerate(sides)
        for j, pid in enumerate(side)
    }
    initial["played_on"] = min(league_day(league, fixture.scheduled_at), league_today(league))
    form = MatchEntryForm(data, league=league, layout=layout, shape=shape, initial=initial)
    form.fields["fixture"] = forms.IntegerField(
        widget=forms.HiddenInput, required=False, initial=fixture.pk
    )
    return form


def _confirm_value(form: Any) -> str:
    cleaned = getattr(form, "cleaned_data", None) or {}
    day = cleaned.get("played_on")
    return day.isoformat() if isinstance(day, dt.date) else ""


def _rows_wanted(request: HttpRequest, layout: str) -> int:
    usual, most = round_rows(layout)
    raw = request.GET.get("rows", "")
    if raw.isascii() and raw.isdigit() and len(raw) <= 3:
        return max(1, min(int(raw), most))
    return usual


@require_http_methods(["GET", "POST"])
def round_entry(request: HttpRequest, league_slug: str) -> HttpResponse:
    """Record a round (a club night): one day, one row per result, all saved or none."""
    return _round_page(request, league_slug, PAIR)


@require_http_methods(["GET", "POST"])
def team_round(request: HttpRequest, league_slug: str) -> HttpResponse:
    """Record a round of team matches (doubles, teams, games of three or more sides): one day,
    one block per match, all saved or none."""
    return _round_page(request, league_slug, SIDES)


def _round_page(request: HttpRequest, league_slug: str, layout: str) -> HttpResponse:
    """The round page of ``layout``: the day, a row per match, every row's problems shown in
    one answer, saved whole once its day needs no confirmation (or has it)."""
    try:
        league = organiser_league(request, league_slug)
    except SignInRequired:
        return sign_in_redirect(request)
    page, template = (
        ("workspace:round", "workspace/round.html")
        if layout == PAIR
        else ("workspace:team_round", "workspace/team_round.html")
    )
    context = _page_context(request, league)
    if layout == SIDES and not league.takes_sides:
        # Said on the page rather than a 404: the organiser may have followed an old link.
        return render(request, template, context)
    data = request.POST if request.method == "POST" else None
    round_form = RoundForm(data, league=league)
    formset = round_formset(data, league=league, rows=_rows_wanted(request, layout), layout=layout)
    warnings: list[str] = []
    if request.method == "POST":
        saved, warnings = _save_round(request, league, page, round_form, formset)
        if saved is not None:
            return saved
    usual, most = round_rows(layout)
    context.update(
        form=round_form,
        formset=formset,
        warnings=warnings,
        confirm_value=_confirm_value(round_form),
        format_label=format_label(league),
        more_rows=min(len(formset.forms) + usual, most),
    )
    return render(request, template, context)


def _save_round(
    request: HttpRequest, league: League, page: str, round_form: RoundForm, formset: Any
) -> tuple[HttpResponse | None, list[str]]:
    """Save a posted round once its day needs no confirmation (or has it): the redirect to
    the echo, or None and the date warnings still to confirm (every problem is put on the
    form: the rows', the day's, the service's)."""
    if not (round_form.is_valid() and formset.is_valid()):
        _check_filled_rows(league, round_form, formset)
        return None, []
    rows = formset.filled_forms()
    if not rows:
        round_form.add_error(
            None,
            _("Fill in at least one row: first player, score, second.")
            if formset.forms and formset.forms[0].layout == PAIR
            else _("Fill in at least one match: each side's players."),
        )
        return None, []
    day = round_form.cleaned_data["played_on"]
    warnings = _unconfirmed(league, {day}, round_form.cleaned_data["confirmed"], round_form)
    if warnings or round_form.errors:
        return None, warnings
    key = round_form.cleaned_data["idempotency_key"] or None
    results = [
        {**row.service_arguments(), "played_at": day, "idempotency_key": round_row_key(key, index)}
        for index, row in enumerate(rows)
    ]
    try:
        events = services.record_round(league, results, recorded_by=request.user)
    except ValidationError as error:
        show_round_errors(round_form, rows, error, SERVICE_FIELDS)
        return None, []
    return HttpResponseRedirect(_recorded_url(page, league, events)), []


def _check_filled_rows(league: League, round_form: RoundForm, formset: Any) -> None:
    """Put the services' objections to each filled row whose own fields are valid (a player
    on both sides or against themselves, points against the result…) on that row too, so
    that a round with bad rows of both kinds shows all of them in one answer."""
    day = round_form.cleaned_data.get("played_on") if round_form.is_valid() else None
    for row in formset.filled_forms():
        if row.errors:
            continue
        found = Errors()
        arguments = {**row.service_arguments(), "played_at": day or league_today(league)}
        services.parse_match(league, arguments, found)
        if not found:
            continue
        for field, texts in ValidationError(found.by_field).message_dict.items():
            # The round's day has its own field, checked there.
            if field == "played_at":
                continue
            name = SERVICE_FIELDS.get(field, field)
            for message in texts:
                row.add_error(name if name in row.fields else None, message)


@require_POST
def undo(request: HttpRequest, league_slug: str) -> HttpResponse:
    """Void the matches just recorded (``recorded`` = FIRST-LAST), all of them or none."""
    try:
        league = organiser_league(request, league_slug)
    except SignInRequired:
        return sign_in_redirect(request)
    page = request.POST.get("page")
    back = reverse(
        f"workspace:{page}" if page in UNDO_PAGES else "workspace:record", args=[league.slug]
    )
    bounds = parse_range(request.POST.get("recorded"))
    if bounds is None:
        messages.error(request, _("Nothing to undo: the recorded matches were not named."))
        return HttpResponseRedirect(back)
    matches = list(
        Event.objects.live_all_matches()
        .filter(league=league, seq__gte=bounds[0], seq__lte=bounds[1])
        .order_by("seq")
    )
    try:
        with transaction.atomic():
            for match in matches:
                services.void_match(
                    league,
                    match,
                    reason=UNDO_REASON,
                    recorded_by=request.user,
                    idempotency_key=f"undo:{match.seq}",
                )
    except ValidationError as error:
        messages.error(
            request, _("Nothing was undone: %(reasons)s") % {"reasons": " ".join(error.messages)}
        )
        return HttpResponseRedirect(back)
    span = f"{bounds[0]}-{bounds[1]}" if bounds[1] > bounds[0] else str(bounds[0])
    if matches:
        messages.success(
            request,
            ngettext(
                "Undone: %(count)d result voided; the event log keeps it, marked void.",
                "Undone: %(count)d results voided; the event log keeps them, marked void.",
                len(matches),
            )
            % {"count": len(matches)},
        )
    return HttpResponseRedirect(f"{back}?recorded={span}")
