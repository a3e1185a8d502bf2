"""A club starts from the browser: create an account, then a league.

Sign-up is open unless the operator turns it off (``LEAGUE_OPEN_SIGNUP=0``; even then a
pending invitation's link lets its person create an account); its attempts are
rate-limited per client address (``LEAGUE_SIGNUP_RATE``, counted in the default cache by the
REST framework's throttle, keyed on the address sign-in failures are counted against). A new
account signs in at ``/accounts/sign-in/`` (``web.accounts``); it is also staff, so that an
organiser can use the admin, which shows a non-superuser nothing but the leagues they
organise.
A signed-in account starts a league through ``ratings.new_league.create_league``, the path
of ``manage.py create_league``, at most ``LEAGUE_MAX_LEAGUES_PER_ACCOUNT`` of them.
"""

from __future__ import annotations

import zoneinfo
from typing import Any
from urllib.parse import urlsplit

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.forms import UserCreationForm
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import Resolver404, resolve, reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods
from rest_framework.throttling import SimpleRateThrottle

from config.login_lockout import client_address
from league.forms import add_service_errors
from league.invitations import InvitationRefused, check_invitation
from league.models import MAX_SIDE_PLAYERS, MatchFormat
from league.sports import KNOWN_SPORTS
from ratings.new_league import create_league, leagues_left

#: Every time zone this system knows, alphabetically.
_ZONES = sorted(zoneinfo.available_timezones())


class SignUpThrottle(SimpleRateThrottle):
    """Sign-up attempts per client address, at ``settings.SIGNUP_RATE``."""

    scope = "signup"

    def get_rate(self) -> str:
        return settings.SIGNUP_RATE

    def get_cache_key(self, request: Any, view: Any) -> str:
        return self.cache_format % {"scope": self.scope, "ident": client_address(request)}


class SignUpForm(UserCreationForm):
    """A username, an optional e-mail address, a password checked by the site's validators."""

    email = forms.EmailField(
        label=gettext_lazy("E-mail address (optional)"),
        required=False,
        help_text=gettext_lazy(
            "For sign-in links and invitations by e-mail; only the site's operator sees it."
        ),
    )

    class Meta(UserCreationForm.Meta):
        fields = ("username", "email")


def _next_url(request: HttpRequest) -> str:
    """Where to go once signed up: a local ``next`` (an invitation), else a new league."""
    target = request.POST.get("next") or request.GET.get("next") or ""
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return reverse("workspace:new_league")


def _invited(next_url: str) -> bool:
    """Whether ``next_url`` is a pending invitation's link: with sign-up closed, the person
    an organiser invited may still create their account (the link is the permission)."""
    try:
        match = resolve(urlsplit(next_url).path)
    except Resolver404:
        return False
    if match.view_name != "workspace:invitation":
        return False
    try:
        check_invitation(match.kwargs["token"])
    except InvitationRefused:
        return False
    return True


@require_http_methods(["GET", "POST"])
def sign_up(request: HttpRequest) -> HttpResponse:
    """Create an account and sign in with it."""
    next_url = _next_url(request)
    if not settings.OPEN_SIGNUP and not _invited(next_url):
        return render(request, "workspace/sign_up_closed.html", status=403)
    if request.user.is_authenticated:
        return HttpResponseRedirect(next_url)
    form = SignUpForm(request.POST if request.method == "POST" else None)
    if request.method == "POST":
        throttle = SignUpThrottle()
        if not throttle.allow_request(request, None):
            wait = max(1, int(throttle.wait() or 60))
            response = render(
                request,
                "workspace/sign_up_paused.html",
                {"minutes": max(1, -(-wait // 60))},
                status=429,
            )
            response["Retry-After"] = str(wait)
            return response
        if form.is_valid():
            user = form.save(commit=False)
            user.is_staff = True  # to sign in at the admin's sign-in page (see above)
            user.save()
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            messages.success(
                request, _("Welcome, %(name)s: your account is ready.") % {"name": user}
            )
            return HttpResponseRedirect(next_url)
    return render(request, "workspace/sign_up.html", {"form": form, "next": next_url})


FORMATS = [
    ("singles", gettext_lazy("Singles: one player against one")),
    ("doubles", gettext_lazy("Doubles: two players a side")),
    ("teams", gettext_lazy("Teams of a fixed size")),
    ("any", gettext_lazy("Any sides (board games of three or more, mixed team sizes)")),
]


class NewLeagueForm(forms.Form):
    """What ``manage.py create_league`` asks, the rating parameters left at their defaults
    (an organiser changes them on the configuration page, judged by a backtest)."""

    name = forms.CharField(label=gettext_lazy("Name"), max_length=120)
    slug = forms.SlugField(
        label=gettext_lazy("Address"),
        max_length=80,
        help_text=gettext_lazy(
            "The league's address on this site, e.g. riverside-chess: letters, digits, "
            "hyphens and underscores."
        ),
    )
    sport = forms.CharField(
        label=gettext_lazy("Sport"),
        max_length=60,
        required=False,
        # The known sports as suggestions (league.sports): "Chess" makes a chess league.
        widget=forms.TextInput(attrs={"list": "known-sports", "autocomplete": "off"}),
        help_text=gettext_lazy(
            "Chess, table tennis, …: a chess league names White and Black and gives White "
            "the first-move advantage."
        ),
    )
    results_only = forms.BooleanField(
        label=gettext_lazy("Results only, no scores"),
        required=False,
        help_text=gettext_lazy(
            "For sports without scores (chess): you type 1-0, ½-½ or 0-1. Otherwise you "
            "type the score (3-1) and the result follows from it."
        ),
    )
    match_format = forms.ChoiceField(label=gettext_lazy("Matches"), choices=FORMATS)
    side_size = forms.IntegerField(
        label=gettext_lazy("Players per side"),
        min_value=1,
        max_value=MAX_SIDE_PLAYERS,
        initial=3,
        required=False,
        help_text=gettext_lazy("For teams of a fixed size only."),
    )
    time_zone = forms.ChoiceField(
        label=gettext_lazy("Time zone"),
        choices=[(name, name) for name in _ZONES],
        initial="UTC",
        help_text=gettext_lazy("A match belongs to the local date it was played on."),
    )
    start_date = forms.DateField(
        label=gettext_lazy("First day of results"),
        required=False,
        widget=forms.DateInput(attrs={"type": "date"}),
        help_text=gettext_lazy("No result may be dated before it. Empty: today."),
    )

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        if cleaned.get("match_format") == "teams" and not cleaned.get("side_size"):
            self.add_error("side_size", _("Say how many players a side has."))
        return cleaned

    def league_fields(self) -> dict[str, Any]:
        data = self.cleaned_data
        shape = {
            "singles": (MatchFormat.SINGLES, 2),
            "doubles": (MatchFormat.FIXED, 2),
            "teams": (MatchFormat.FIXED, data.get("side_size") or 2),
            "any": (MatchFormat.ANY, 2),
        }[data["match_format"]]
        return {
            "name": data["name"],
            "slug": data["slug"],
            "sport": data["sport"],
            "records_points": not data["results_only"],
            "match_format": shape[0],
            "side_size": shape[1],
            "time_zone": data["time_zone"],
            "start_date": data["start_date"],
        }


@require_http_methods(["GET", "POST"])
def new_league(request: HttpRequest) -> HttpResponse:
    """Start a league: its creator organises it; it has a first configuration at once."""
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    left = leagues_left(request.user)
    form = NewLeagueForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        try:
            league, _config = create_league(**form.league_fields(), created_by=request.user)
        except ValidationError as error:
            add_service_errors(form, error)
        else:
            messages.success(
                request,
                _("%(name)s is ready. Its checklist below says what to do next.")
                % {"name": league.name},
            )
            return HttpResponseRedirect(reverse("workspace:hub", args=[league.slug]))
    return render(
        request,
        "workspace/new_league.html",
        {
            "form": form,
            "left": left,
            "cap": settings.MAX_LEAGUES_PER_ACCOUNT,
            "known_sports": KNOWN_SPORTS,
        },
    )
