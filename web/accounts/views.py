"""Everyone's account pages: sign-in (password or e-mailed link), "My account", privacy,
forgetting, and asking to join a league.

Sign-in by password goes through ``django.contrib.auth.authenticate`` behind django-axes,
as the admin's does; a sign-in link does too (``league.sign_in_links``), so both count
failures against the client's address alike. Asking for a link answers the same page
whatever the address, and the lookup of the address happens in the Celery task that sends
the mail, not in the request. Requests for links are limited per client address
(``settings.SIGN_IN_LINK_RATE``).
"""

from __future__ import annotations

import json
from typing import Any

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import authenticate, login, update_session_auth_hash
from django.contrib.auth.forms import AuthenticationForm, SetPasswordForm
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from rest_framework.throttling import SimpleRateThrottle

from config.login_lockout import client_address
from league.forgetting import forget_player
from league.join_requests import ask_to_join, pending_request
from league.models import League, Player
from league.player_accounts import player_of, players_of, release_player
from league.privacy import hides_own_rating, personal_data, set_hide_own_rating
from league.tasks import send_sign_in_links

#: Longest e-mail address accepted (RFC 5321's limit of a forward path).
EMAIL_MAX = 254


class SignInLinkThrottle(SimpleRateThrottle):
    """Sign-in link requests per client address, at ``settings.SIGN_IN_LINK_RATE``."""

    scope = "sign_in_link"

    def get_rate(self) -> str:
        return settings.SIGN_IN_LINK_RATE

    def get_cache_key(self, request: Any, view: Any) -> str:
        return self.cache_format % {"scope": self.scope, "ident": client_address(request)}


class LinkRequestForm(forms.Form):
    email = forms.EmailField(
        label=gettext_lazy("E-mail address"),
        max_length=EMAIL_MAX,
        help_text=gettext_lazy("The address of your account: a one-time link is mailed to it."),
    )


class PreferencesForm(forms.Form):
    hide_own_rating = forms.BooleanField(
        label=gettext_lazy("Hide my own rating from me"),
        required=False,
        help_text=gettext_lazy(
            "Pages show you “hidden” where your rating would be; everyone else still sees it."
        ),
    )


class JoinForm(forms.Form):
    name = forms.CharField(
        label=gettext_lazy("Your name as a player"),
        max_length=120,
        help_text=gettext_lazy(
            "If the league lists you already, give that name: the organisers link you to it."
        ),
    )
    message = forms.CharField(
        label=gettext_lazy("A word to the organisers (optional)"),
        max_length=1000,
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
    )


def safe_next(request: HttpRequest, default: str = "") -> str:
    """The request's local ``next`` address, else ``default`` (or "My account")."""
    target = request.POST.get("next") or request.GET.get("next") or ""
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return default or reverse("accounts:home")


def _no_store(response: HttpResponse) -> HttpResponse:
    response["Cache-Control"] = "no-store"
    return response


@require_http_methods(["GET", "POST"])
def sign_in(request: HttpRequest) -> HttpResponse:
    """Sign in with a password, or ask for a one-time link by e-mail."""
    next_url = safe_next(request)
    if request.user.is_authenticated and request.method == "GET":
        return HttpResponseRedirect(next_url)
    form = AuthenticationForm(request, data=request.POST if request.method == "POST" else None)
    status = 200
    if request.method == "POST":
        if form.is_valid():
            login(request, form.get_user())
            return HttpResponseRedirect(next_url)
        status = 400
    context = {"form": form, "link_form": LinkRequestForm(), "next": next_url}
    return render(request, "accounts/sign_in.html", context, status=status)


@require_POST
def request_link(request: HttpRequest) -> HttpResponse:
    """Mail a sign-in link to the accounts with the address given; the answer is the same
    whether any account has it (the task looks the address up, after this request)."""
    next_url = safe_next(request)
    form = LinkRequestForm(request.POST)
    if not form.is_valid():
        context = {"form": AuthenticationForm(request), "link_form": form, "next": next_url}
        return render(request, "accounts/sign_in.html", context, status=400)
    throttle = SignInLinkThrottle()
    if not throttle.allow_request(request, None):
        wait = max(1, int(throttle.wait() or 60))
        response = render(
            request, "accounts/link_paused.html", {"minutes": max(1, -(-wait // 60))}, status=429
        )
        response["Retry-After"] = str(wait)
        return response
    email = form.cleaned_data["email"]
    base_url = request.build_absolute_uri("/")
    transaction.on_commit(lambda: send_sign_in_links.delay(email, next_url, base_url))
    return HttpResponseRedirect(reverse("accounts:link_sent"))


@require_GET
def link_sent(request: HttpRequest) -> HttpResponse:
    """The one answer to every request for a link."""
    minutes = f"{settings.SIGN_IN_LINK_MINUTES:g}"
    return render(request, "accounts/link_sent.html", {"minutes": minutes})


@require_http_methods(["GET", "POST"])
def link_sign_in(request: HttpRequest, token: str) -> HttpResponse:
    """A mailed link: a button signs in (a GET uses nothing, so mail scanners cannot)."""
    if request.method == "GET":
        return _no_store(render(request, "accounts/link_sign_in.html", {"token": token}))
    user = authenticate(request, sign_in_token=token)
    if user is None:
        response = render(request, "accounts/link_refused.html", status=410)
        return _no_store(response)
    login(request, user, backend="league.sign_in_links.SignInLinkBackend")
    target = getattr(request, "sign_in_next", "") or ""
    if not (
        target
        and url_has_allowed_host_and_scheme(
            target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
        )
    ):
        target = reverse("accounts:home")
    return HttpResponseRedirect(target)


def _signed_in(request: HttpRequest) -> HttpResponse | None:
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    return None


@require_http_methods(["GET", "POST"])
def home(request: HttpRequest) -> HttpResponse:
    """My account: my leagues and players, my preferences, a new password."""
    if (redirect := _signed_in(request)) is not None:
        return redirect
    user = request.user
    preferences = PreferencesForm(initial={"hide_own_rating": hides_own_rating(user)})
    password = SetPasswordForm(user)
    status = 200
    if request.method == "POST":
        if request.POST.get("action") == "preferences":
            preferences = PreferencesForm(request.POST)
            if preferences.is_valid():
                set_hide_own_rating(user, preferences.cleaned_data["hide_own_rating"])
                messages.success(request, _("Your preferences are saved."))
                return HttpResponseRedirect(reverse("accounts:home"))
        elif request.POST.get("action") == "password":
            password = SetPasswordForm(user, request.POST)
            if password.is_valid():
                password.save()
                # The session stays signed in with the new password.
                update_session_auth_hash(request, password.user)
                messages.success(request, _("Your new password is set."))
                return HttpResponseRedirect(reverse("accounts:home"))
        else:
            messages.error(request, _("Choose what to change."))
        status = 400
    context = {
        "players": list(players_of(user)),
        # The leagues that list the account as an organiser (a superuser's too, not all).
        "organised": list(user.organised_leagues.order_by("name")),
        "preferences": preferences,
        "password_form": password,
    }
    return render(request, "accounts/home.html", context, status=status)


@require_GET
def privacy(request: HttpRequest) -> HttpResponse:
    """Everything the site holds about me, on one page."""
    if (redirect := _signed_in(request)) is not None:
        return redirect
    data = personal_data(request.user)
    return _no_store(render(request, "accounts/privacy.html", {"data": data}))


@require_GET
def privacy_export(request: HttpRequest) -> HttpResponse:
    """The same as a JSON file."""
    if (redirect := _signed_in(request)) is not None:
        return redirect
    body = json.dumps(personal_data(request.user), indent=2, ensure_ascii=False)
    response = HttpResponse(body, content_type="application/json; charset=utf-8")
    response["Content-Disposition"] = 'attachment; filename="my-honest-league-data.json"'
    return _no_store(response)


def _my_player(request: HttpRequest, player_id: int) -> Player:
    return get_object_or_404(
        Player.objects.select_related("league"), pk=player_id, account=request.user
    )


@require_http_methods(["GET", "POST"])
def leave(request: HttpRequest, player_id: int) -> HttpResponse:
    """Leave a league as a player: unlink my account, or be forgotten altogether."""
    if (redirect := _signed_in(request)) is not None:
        return redirect
    player = _my_player(request, player_id)
    errors: list[str] = []
    if request.method == "POST":
        action = request.POST.get("action")
        try:
            if action == "release":
                release_player(player, by=request.user)
                messages.success(
                    request,
                    _("You no longer hold %(player)s in %(league)s.")
                    % {"player": player.display_name, "league": player.league.name},
                )
                return HttpResponseRedirect(reverse("accounts:home"))
            if action == "forget":
                if request.POST.get("confirm") != "forget":
                    errors.append(_("Tick the box to confirm that you want to be forgotten."))
                else:
                    league = player.league
                    forget_player(player, by=request.user)
                    messages.success(
                        request,
                        _("%(league)s has forgotten you: your name is erased from it.")
                        % {"league": league.name},
                    )
                    return HttpResponseRedirect(reverse("accounts:home"))
            else:
                errors.append(_("Choose what to do."))
        except ValidationError as error:
            errors.extend(error.messages)
    return render(
        request,
        "accounts/leave.html",
        {"player": player, "errors": errors},
        status=400 if errors else 200,
    )


@require_http_methods(["GET", "POST"])
def join(request: HttpRequest, league_slug: str) -> HttpResponse:
    """Ask to play in a league that lets players ask."""
    league = get_object_or_404(League, slug=league_slug)
    if not league.players_may_join:
        return render(request, "accounts/join_closed.html", {"league": league}, status=403)
    if (redirect := _signed_in(request)) is not None:
        return redirect
    held = player_of(request.user, league)
    pending = pending_request(league, request.user)
    form = JoinForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and held is None and pending is None and form.is_valid():
        try:
            ask_to_join(
                league,
                request.user,
                form.cleaned_data["name"],
                message=form.cleaned_data["message"],
            )
        except ValidationError as error:
            for field, problems in error.message_dict.items():
                for problem in problems:
                    form.add_error(field if field in form.fields else None, problem)
        else:
            messages.success(
                request,
                _("Your request is with the organisers of %(league)s.") % {"league": league.name},
            )
            return HttpResponseRedirect(reverse("accounts:home"))
    status = 400 if request.method == "POST" else 200
    return render(
        request,
        "accounts/join.html",
        {"league": league, "form": form, "held": held, "pending": pending},
        status=status,
    )
