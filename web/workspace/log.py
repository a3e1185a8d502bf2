"""Finding and correcting: the organisers' event log, and voiding or correcting a match.

The log is newest first, so what was just recorded is at the top; it is searched by a
player's name and the day a match was played, and ``?highlight=FIRST-LAST`` marks the events
a save or an undo just stored. Every match still counting, one-vs-one or with sides, offers
"Void" and "Correct".
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods

from league import services
from league.calendar import league_day
from league.event_log import event_log
from league.forms import add_service_errors
from league.models import Event, League
from web.query_params import page_number
from web.workspace.access import SignInRequired, organiser_league, sign_in_redirect
from web.workspace.dates import echo
from web.workspace.entry_forms import SERVICE_FIELDS, CorrectionForm, LogSearchForm, VoidForm
from web.workspace.recorded import match_words, parse_range
from web.workspace.recording import player_list


def log_url(league: League, *events: Event) -> str:
    """The log's first page with ``events`` highlighted."""
    seqs = [event.seq for event in events]
    return (
        f"{reverse('workspace:log', args=[league.slug])}?highlight={min(seqs)}-{max(seqs)}"
        f"#event-{max(seqs)}"
    )


@require_GET
def log(request: HttpRequest, league_slug: str) -> HttpResponse:
    """Every event, newest first, searchable by player and day, with void and correct."""
    try:
        league = organiser_league(request, league_slug)
    except SignInRequired:
        return sign_in_redirect(request)
    search = LogSearchForm(request.GET)
    filters = search.cleaned_data if search.is_valid() else {}
    page = event_log(
        league,
        page=page_number(request.GET.get("page")),
        player=(filters.get("player") or "").strip(),
        played_on=filters.get("played_on"),
    )
    bounds = parse_range(request.GET.get("highlight")) or (0, -1)
    params = request.GET.copy()
    params.pop("highlight", None)

    def page_link(number: int) -> str:
        params["page"] = str(number)
        return "?" + params.urlencode()

    pager = {
        "page": page.page,
        "num_pages": page.num_pages,
        "previous": page_link(page.page - 1) if page.page > 1 else None,
        "next": page_link(page.page + 1) if page.page < page.num_pages else None,
        "first": page_link(1) if page.page > 2 else None,
        "last": page_link(page.num_pages) if page.page < page.num_pages - 1 else None,
    }
    return render(
        request,
        "workspace/log.html",
        {
            "league": league,
            "events": page,
            "search": search,
            "searching": bool(filters.get("player") or filters.get("played_on")),
            "highlight": range(bounds[0], bounds[1] + 1),
            "pager": pager,
            **player_list(league),
        },
    )


def _match(league: League, seq: int) -> Event:
    """Match ``seq`` of ``league``: one-vs-one or with sides (404 for any other event)."""
    return get_object_or_404(
        Event.objects.all_matches().select_related("player_a", "player_b"),
        league=league,
        seq=seq,
    )


@require_http_methods(["GET", "POST"])
def void(request: HttpRequest, league_slug: str, seq: int) -> HttpResponse:
    """Void one match, with a reason shown in the event log."""
    try:
        league = organiser_league(request, league_slug)
    except SignInRequired:
        return sign_in_redirect(request)
    match = _match(league, seq)
    form = VoidForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        try:
            voided = services.void_match(
                league,
                match,
                reason=form.cleaned_data["reason"],
                recorded_by=request.user,
                idempotency_key=form.cleaned_data["idempotency_key"] or None,
            )
        except ValidationError as error:
            add_service_errors(form, error)
        else:
            day = league_day(league, match.played_at)
            messages.success(
                request,
                _("Match #%(seq)s voided (%(match)s, %(played)s).")
                % {"seq": match.seq, "match": match_words(match), "played": echo(league, day)},
            )
            return HttpResponseRedirect(log_url(league, voided))
    return _match_form_page(
        request,
        league,
        match,
        form,
        _("Void match #%(seq)s") % {"seq": match.seq},
        _("Void this match"),
    )


@require_http_methods(["GET", "POST"])
def correct(request: HttpRequest, league_slug: str, seq: int) -> HttpResponse:
    """Correct one match: void it and record the corrected result, linked, in one step."""
    try:
        league = organiser_league(request, league_slug)
    except SignInRequired:
        return sign_in_redirect(request)
    match = _match(league, seq)
    data = request.POST if request.method == "POST" else None
    form = CorrectionForm(data, league=league, match=match)
    if request.method == "POST" and form.is_valid():
        arguments = form.service_arguments()
        try:
            voided, corrected = services.correct_match(
                league,
                match,
                reason=form.cleaned_data["reason"],
                recorded_by=request.user,
                **arguments,
            )
        except ValidationError as error:
            add_service_errors(form, error, SERVICE_FIELDS)
        else:
            corrected = Event.objects.select_related("player_a", "player_b").get(pk=corrected.pk)
            day = league_day(league, corrected.played_at)
            messages.success(
                request,
                _("Match #%(seq)s corrected: #%(new)s %(match)s, %(played)s.")
                % {
                    "seq": match.seq,
                    "new": corrected.seq,
                    "match": match_words(corrected),
                    "played": echo(league, day),
                },
            )
            return HttpResponseRedirect(log_url(league, voided, corrected))
    return _match_form_page(
        request,
        league,
        match,
        form,
        _("Correct match #%(seq)s") % {"seq": match.seq},
        _("Void it and record the correction"),
        player_list(league),
    )


def _match_form_page(
    request: HttpRequest,
    league: League,
    match: Event,
    form: forms.Form,
    title: str,
    submit_label: str,
    extra: dict[str, Any] | None = None,
) -> HttpResponse:
    """The void or correct page of one match: the match as recorded, and the form."""
    return render(
        request,
        "workspace/match_form.html",
        {
            "league": league,
            "match": match,
            "words": match_words(match),
            "played": echo(league, league_day(league, match.played_at)).split(":")[0],
            "form": form,
            "title": title,
            "submit_label": submit_label,
            "voided_by": Event.objects.filter(voids=match).values_list("seq", flat=True).first(),
            **(extra or {}),
        },
    )
