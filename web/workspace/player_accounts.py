"""Players as people on the workspace: invite a person to claim a player record, unlink a
wrong claim, forget a player; the league's requests to join and whether it takes them.

A new copied link is shown once, on the answer to the request that made it (only its
digest is stored); a mailed one is made and sent by a Celery task after the request.
"""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods

from league.forgetting import forget_player
from league.invitations import LABEL_MAX, create_player_invitation
from league.join_requests import accept_request, refuse_request, requests_of
from league.models import Invitation, League, Player
from league.player_accounts import is_forgotten, release_player
from league.tasks import mail_invitation
from web.workspace.access import SignInRequired, organiser_league, sign_in_redirect


class PlayerInvitationForm(forms.Form):
    email = forms.EmailField(
        label=gettext_lazy("Their e-mail address (optional)"),
        required=False,
        max_length=254,
        help_text=gettext_lazy("Given: the link is mailed to it. Empty: you copy the link."),
    )
    label = forms.CharField(
        label=gettext_lazy("A note for the organisers (optional)"),
        max_length=LABEL_MAX,
        required=False,
    )


def _messages_of(error: ValidationError) -> list[str]:
    return list(error.messages)


@require_http_methods(["GET", "POST"])
def player_account(request: HttpRequest, league_slug: str, player_slug: str) -> HttpResponse:
    """Who holds a player record; invite its person, unlink the account, or forget it."""
    try:
        league = organiser_league(request, league_slug)
    except SignInRequired:
        return sign_in_redirect(request)
    player = get_object_or_404(
        Player.objects.select_related("account"), league=league, slug=player_slug
    )
    form = PlayerInvitationForm()
    errors: list[str] = []
    link = None
    if request.method == "POST":
        action = request.POST.get("action")
        try:
            if action == "invite":
                form = PlayerInvitationForm(request.POST)
                if form.is_valid():
                    invitation, token = create_player_invitation(
                        league,
                        player,
                        request.user,
                        email=form.cleaned_data["email"],
                        label=form.cleaned_data["label"],
                    )
                    if token is None:
                        mail_invitation(invitation, request.build_absolute_uri("/"))
                        messages.success(
                            request,
                            _("The invitation is being mailed to %(email)s.")
                            % {"email": form.cleaned_data["email"]},
                        )
                        return HttpResponseRedirect(request.path)
                    link = request.build_absolute_uri(reverse("workspace:invitation", args=[token]))
                    form = PlayerInvitationForm()
            elif action == "release":
                release_player(player, by=request.user, reason=request.POST.get("reason", ""))
                messages.success(
                    request, _("%(player)s is unlinked.") % {"player": player.display_name}
                )
                return HttpResponseRedirect(request.path)
            elif action == "forget":
                if request.POST.get("confirm") != "forget":
                    errors.append(_("Tick the box to confirm the forgetting."))
                else:
                    forget_player(player, by=request.user)
                    messages.success(request, _("The player is forgotten: their name is erased."))
                    return HttpResponseRedirect(
                        reverse("workspace:player_account", args=[league.slug, player.slug])
                    )
            else:
                errors.append(_("Choose what to do."))
        except ValidationError as error:
            errors.extend(_messages_of(error))
    now = timezone.now()
    invitations = [
        {"invitation": item, "pending": item.is_pending(now)}
        for item in Invitation.objects.filter(player=player).select_related("accepted_by")
    ]
    response = render(
        request,
        "workspace/player_account.html",
        {
            "league": league,
            "player": player,
            "form": form,
            "link": link,
            "errors": errors,
            "invitations": invitations,
            "forgotten": is_forgotten(player),
            "days": f"{settings.INVITATION_DAYS:g}",
        },
        status=400 if errors or form.errors else 200,
    )
    if link:
        response["Cache-Control"] = "no-store"
    return response


@require_http_methods(["GET", "POST"])
def join_requests(request: HttpRequest, league_slug: str) -> HttpResponse:
    """The league's requests to join: accept (new player or a listed one) or refuse; and
    whether the league takes them at all."""
    try:
        league = organiser_league(request, league_slug)
    except SignInRequired:
        return sign_in_redirect(request)
    errors: list[str] = []
    if request.method == "POST":
        action = request.POST.get("action")
        try:
            if action == "setting":
                League.objects.filter(pk=league.pk).update(
                    players_may_join=request.POST.get("players_may_join") == "on"
                )
                messages.success(request, _("The setting is saved."))
                return HttpResponseRedirect(request.path)
            request_id = _as_int(request.POST.get("request"))
            if request_id is None:
                errors.append(_("Choose a request."))
            elif action == "accept":
                chosen = request.POST.get("player", "")
                player = None
                if chosen:
                    player_id = _as_int(chosen)
                    player = Player.objects.filter(league=league, pk=player_id).first()
                    if player is None:
                        raise ValidationError(_("This league has no such player."))
                accept_request(league, request_id, by=request.user, player=player)
                messages.success(request, _("Request accepted."))
                return HttpResponseRedirect(request.path)
            elif action == "refuse":
                refuse_request(league, request_id, by=request.user)
                messages.success(request, _("Request refused."))
                return HttpResponseRedirect(request.path)
            else:
                errors.append(_("Choose what to do."))
        except ValidationError as error:
            errors.extend(_messages_of(error))
    unheld = Player.objects.filter(
        league=league, account__isnull=True, merged_into__isnull=True
    ).order_by("display_name")
    return render(
        request,
        "workspace/join_requests.html",
        {
            "league": league,
            "requests": requests_of(league),
            "unheld": [p for p in unheld if not is_forgotten(p)],
            "errors": errors,
            "join_url": request.build_absolute_uri(reverse("accounts:join", args=[league.slug])),
        },
        status=400 if errors else 200,
    )


def _as_int(value: object) -> int | None:
    try:
        return int(str(value))
    except (TypeError, ValueError):
        return None
