"""Pages of what players do themselves, and the organisers' queue of reported results.

- ``/<league>/my-games/``: a signed-in player's page: report a result, the reports waiting
  for their answer, their own open reports, their challenges (answer, issue).
- ``/<league>/organise/reports/``: the organisers' queue of pending and disputed reports
  (confirm, reject with a reason) and the league's rules for reports and challenges.

Every action is a POST to its own address and goes through the write services, which check
who acts (a player only for their own player record) whatever the page offered; a refusal
is shown with the service's words, naming the field or the report.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from league.event_log import report_texts
from league.idempotency_keys import scoped_key
from league.models import (
    Challenge,
    ChallengeStatus,
    League,
    Player,
    PlayerRules,
    Report,
    ReportPolicy,
    ReportStatus,
)
from league.player_accounts import player_of
from league.services import reports as report_services
from ratings import challenges as challenge_services
from ratings import club_matches as club_services
from web.workspace.access import SignInRequired, organiser_league, sign_in_redirect
from web.workspace.forms import put_errors
from web.workspace.player_forms import (
    ChallengeForm,
    PlayerRulesForm,
    ReasonForm,
    ReportForm,
)


def _player_league(request: HttpRequest, league_slug: str) -> tuple[League, Player]:
    """The league and the signed-in user's player in it (404 for an unknown league, 403
    for someone without a player record there)."""
    league = get_object_or_404(League, slug=league_slug)
    if not request.user.is_authenticated:
        raise SignInRequired
    me = player_of(request.user, league)
    if me is None:
        raise PermissionDenied(_("You have no player record in this league."))
    return league, me


def _error_text(error: ValidationError) -> str:
    return " ".join(error.messages)


def _described(reports: list[Report]) -> list[tuple[Report, str]]:
    texts = report_texts(report.pk for report in reports)
    return [(report, texts[report.pk].summary) for report in reports]


@require_http_methods(["GET", "POST"])
def my_games(request: HttpRequest, league_slug: str) -> HttpResponse:
    """The player's page; a POST reports a result (or issues a challenge, ``action``)."""
    try:
        league, me = _player_league(request, league_slug)
    except SignInRequired:
        return sign_in_redirect(request)
    rules = report_services.rules_of(league)
    posted = request.POST if request.method == "POST" else None
    action = request.POST.get("action") if posted else None
    report_form = ReportForm(posted if action == "report" else None, league=league, me=me)
    challenge_form = ChallengeForm(posted if action == "challenge" else None, league=league, me=me)
    if action == "report" and report_form.is_valid():
        data = report_form.cleaned_data
        try:
            report_services.submit_report(
                league,
                user=request.user,
                player=me,
                **report_form.match(me),
                played_at=data["played_at"],
                note=data["note"],
                # Scoped: a key typed into the page can never take one of the write side's
                # own keys (``report:<id>:outcome``) and so block another report.
                idempotency_key=scoped_key("my-games", report_form.key),
            )
        except ValidationError as error:
            put_errors(report_form, _on_form_fields(error))
        else:
            messages.success(request, _("Reported: it counts once your opponent confirms it."))
            return redirect("workspace:my_games", league.slug)
    elif action == "challenge" and challenge_form.is_valid():
        try:
            challenge_services.issue_challenge(
                league,
                user=request.user,
                player=me,
                challenged=challenge_form.cleaned_data["challenged"],
            )
        except ValidationError as error:
            put_errors(challenge_form, error)
        else:
            messages.success(request, _("Challenge sent."))
            return redirect("workspace:my_games", league.slug)
    elif posted is not None and action not in ("report", "challenge"):
        messages.error(request, _("Unknown action."))
    mine = report_services.open_reports_for(request.user, league)
    challenges = Challenge.objects.filter(league=league, status=ChallengeStatus.ISSUED)
    return render(
        request,
        "workspace/my_games.html",
        {
            "league": league,
            "me": me,
            "rules": rules,
            "can_report": rules.report_policy != ReportPolicy.ORGANISERS,
            "report_form": report_form,
            "challenge_form": challenge_form,
            "waiting": _described(mine["waiting"]),
            "reported": _described(mine["reported"]),
            "received": challenges.filter(challenged=me).select_related("challenger"),
            "issued": challenges.filter(challenger=me).select_related("challenged"),
            "reason_form": ReasonForm(),
            "captained": club_services.captained_teams(request.user, league),
        },
    )


def _on_form_fields(error: ValidationError) -> ValidationError:
    """The service's field names mapped onto the report form's: the sides are the
    opponents (and partners) the form asked for."""
    renamed: dict[str, list[Any]] = {}
    for field, messages_ in error.message_dict.items():
        name = {"sides": "opponents", "score_a": "score", "places": "score"}.get(field, field)
        renamed.setdefault(name, []).extend(messages_)
    return ValidationError(renamed)


REPORT_ACTIONS = ("confirm", "dispute", "withdraw")


@require_POST
def report_action(
    request: HttpRequest, league_slug: str, report_id: int, action: str
) -> HttpResponse:
    """Confirm, dispute or withdraw a report, as the signed-in player."""
    try:
        league, me = _player_league(request, league_slug)
    except SignInRequired:
        return sign_in_redirect(request)
    if action not in REPORT_ACTIONS:
        raise Http404
    report = get_object_or_404(Report, league=league, pk=report_id)
    try:
        if action == "confirm":
            report_services.confirm_report(league, report, user=request.user, player=me)
            messages.success(request, _("Confirmed: the result is recorded."))
        elif action == "dispute":
            report_services.dispute_report(
                league, report, user=request.user, player=me, reason=request.POST.get("reason")
            )
            messages.success(request, _("Disputed: the organisers will decide."))
        else:
            report_services.withdraw_report(league, report, user=request.user, player=me)
            messages.success(request, _("Withdrawn."))
    except ValidationError as error:
        messages.error(request, _error_text(error))
    return redirect("workspace:my_games", league.slug)


CHALLENGE_ACTIONS = ("accept", "decline")


@require_POST
def challenge_action(
    request: HttpRequest, league_slug: str, challenge_id: int, action: str
) -> HttpResponse:
    """Accept or decline a challenge, as the signed-in player."""
    try:
        league, me = _player_league(request, league_slug)
    except SignInRequired:
        return sign_in_redirect(request)
    if action not in CHALLENGE_ACTIONS:
        raise Http404
    challenge = get_object_or_404(Challenge, league=league, pk=challenge_id)
    try:
        if action == "accept":
            challenge_services.accept_challenge(league, challenge, user=request.user, player=me)
            messages.success(request, _("Accepted: the game is on the fixture list."))
        else:
            challenge_services.decline_challenge(
                league, challenge, user=request.user, player=me, reason=request.POST.get("reason")
            )
            messages.success(request, _("Declined."))
    except ValidationError as error:
        messages.error(request, _error_text(error))
    return redirect("workspace:my_games", league.slug)


@require_http_methods(["GET", "POST"])
def reports_queue(request: HttpRequest, league_slug: str) -> HttpResponse:
    """The organisers' queue of open reports, and the league's rules (a POST saves them)."""
    try:
        league = organiser_league(request, league_slug)
    except SignInRequired:
        return sign_in_redirect(request)
    rules = report_services.rules_of(league)
    form = PlayerRulesForm(request.POST or None, instance=rules)
    if request.method == "POST" and form.is_valid():
        saved: PlayerRules = form.save(commit=False)
        saved.updated_by = request.user
        saved.save()
        messages.success(request, _("Saved: the rules apply from now on."))
        return redirect("workspace:reports", league.slug)
    open_reports = list(
        Report.objects.filter(
            league=league, status__in=[ReportStatus.DISPUTED, ReportStatus.PENDING]
        )
        .select_related("reporter")
        .order_by("status", "created_at")
    )
    return render(
        request,
        "workspace/reports.html",
        {
            "league": league,
            "form": form,
            "reports": _described(open_reports),
            "reason_form": ReasonForm(),
            "captained": club_services.captained_teams(request.user, league),
        },
    )


@require_POST
def decide_report(
    request: HttpRequest, league_slug: str, report_id: int, action: str
) -> HttpResponse:
    """An organiser confirms or rejects (with a reason) an open report."""
    try:
        league = organiser_league(request, league_slug)
    except SignInRequired:
        return sign_in_redirect(request)
    if action not in ("confirm", "reject"):
        raise Http404
    report = get_object_or_404(Report, league=league, pk=report_id)
    try:
        if action == "confirm":
            report_services.confirm_report(league, report, user=request.user, as_organiser=True)
            messages.success(request, _("Report %(id)s confirmed.") % {"id": report.pk})
        else:
            report_services.reject_report(
                league, report, user=request.user, reason=request.POST.get("reason")
            )
            messages.success(request, _("Report %(id)s rejected.") % {"id": report.pk})
    except ValidationError as error:
        text = _("Report %(id)s: %(error)s") % {"id": report.pk, "error": _error_text(error)}
        messages.error(request, text)
    return redirect("workspace:reports", league.slug)
