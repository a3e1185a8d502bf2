"""Co-organisers on the workspace: the league's organisers, its invitation links, and the
page a link opens (``league.invitations``).

A new link is shown once, on the answer to the request that created it (only its digest is
stored). The page a link opens says plainly when it cannot be used (unknown, expired, used,
revoked) and never which accounts exist; a visitor who is not signed in is offered both
sign-in and sign-up, each returning to the link.
"""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods, require_POST

from league.forms import add_service_errors
from league.invitations import (
    LABEL_MAX,
    InvitationRefused,
    accept_invitation,
    check_invitation,
    create_invitation,
    invitations_of,
    revoke_invitation,
)
from web.workspace.access import SignInRequired, organiser_league, sign_in_redirect

#: HTTP status of each refusal: an unknown link is not found, the others are gone.
REFUSAL_STATUS = {"unknown": 404, "expired": 410, "used": 410, "revoked": 410}


class InvitationForm(forms.Form):
    label = forms.CharField(
        label=gettext_lazy("Who it is for (optional)"),
        max_length=LABEL_MAX,
        required=False,
        help_text=gettext_lazy("A note for the organisers, e.g. “Sam, the club secretary”."),
    )


def _no_store(response: HttpResponse) -> HttpResponse:
    # A page holding a usable link: never kept by a browser or a proxy.
    response["Cache-Control"] = "no-store"
    return response


@require_http_methods(["GET", "POST"])
def organisers(request: HttpRequest, league_slug: str) -> HttpResponse:
    """The league's organisers and invitations, and a form for a new invitation link."""
    try:
        league = organiser_league(request, league_slug)
    except SignInRequired:
        return sign_in_redirect(request)
    form = InvitationForm(request.POST if request.method == "POST" else None)
    created = link = None
    if request.method == "POST" and form.is_valid():
        try:
            created, token = create_invitation(league, request.user, form.cleaned_data["label"])
        except ValidationError as error:
            add_service_errors(form, error)
        else:
            link = request.build_absolute_uri(reverse("workspace:invitation", args=[token]))
            form = InvitationForm()
    now = timezone.now()
    invitations = [
        {"invitation": item, "pending": item.is_pending(now)} for item in invitations_of(league)
    ]
    response = render(
        request,
        "workspace/organisers.html",
        {
            "league": league,
            "form": form,
            "created": created,
            "link": link,
            "organisers": league.organisers.order_by("username"),
            "invitations": invitations,
            "days": f"{settings.INVITATION_DAYS:g}",
        },
    )
    return _no_store(response) if link else response


@require_POST
def revoke(request: HttpRequest, league_slug: str, invitation_id: int) -> HttpResponse:
    """Revoke one of the league's pending invitations: its link opens nothing from now on."""
    try:
        league = organiser_league(request, league_slug)
    except SignInRequired:
        return sign_in_redirect(request)
    invitation = revoke_invitation(league, invitation_id)
    if invitation is None:
        messages.error(request, _("This league has no such pending invitation."))
    else:
        messages.success(request, _("Invitation revoked: its link opens nothing now."))
    return HttpResponseRedirect(reverse("workspace:organisers", args=[league.slug]))


@require_http_methods(["GET", "POST"])
def invitation(request: HttpRequest, token: str) -> HttpResponse:
    """The page an invitation link opens: accept it (signed in), or sign in or up first."""
    problems: list[str] = []
    try:
        if request.method == "POST" and request.user.is_authenticated:
            pending = check_invitation(token)
            try:
                league = accept_invitation(token, request.user)
            except ValidationError as error:
                problems = list(error.messages)
            else:
                if pending.player_id is None:
                    messages.success(
                        request, _("You organise %(name)s now.") % {"name": league.name}
                    )
                    return HttpResponseRedirect(reverse("workspace:hub", args=[league.slug]))
                messages.success(
                    request,
                    _("You play in %(league)s as %(player)s now.")
                    % {"league": league.name, "player": pending.player.display_name},  # type: ignore[union-attr]
                )
                return HttpResponseRedirect(reverse("accounts:home"))
        pending = check_invitation(token)
    except InvitationRefused as refusal:
        response = render(
            request,
            "workspace/invitation_refused.html",
            {"reason": refusal.reason},
            status=REFUSAL_STATUS[refusal.reason],
        )
        return _no_store(response)
    here = request.get_full_path()
    response = render(
        request,
        "workspace/invitation.html",
        {
            "invitation": pending,
            "invited": pending.league,
            "already": pending.player_id is None and pending.league.is_organiser(request.user),
            "here": here,
            "problems": problems,
        },
        status=400 if problems else 200,
    )
    return _no_store(response)
