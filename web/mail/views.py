"""The account's e-mail page and the unsubscribe link every message carries.

The preferences page is the signed-in account's own (CSRF on). The unsubscribe address
needs no sign-in: its signed token is the proof (``notifications.preferences``). A GET shows
a button and changes nothing (mail scanners open links); a POST unsubscribes, from that
button or straight from a mail program (RFC 8058 one-click: ``List-Unsubscribe=One-Click``
in the body), so this one view is exempt from CSRF: a forged POST could only turn off the
mail of the token's own account, which the token's holder may do anyway.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from league.models import League
from league.player_accounts import players_of
from notifications.models import Topic
from notifications.preferences import (
    LEAGUE_TOPICS,
    choices_of,
    read_unsubscribe_token,
    set_choices,
    unsubscribe,
)

AS_DEFAULT, ON, OFF = "", "on", "off"
LEAGUE_CHOICES = [
    (AS_DEFAULT, gettext_lazy("As for all leagues")),
    (ON, gettext_lazy("On")),
    (OFF, gettext_lazy("Off")),
]


def _leagues_of(user: Any) -> list[League]:
    ids = players_of(user).values_list("league_id", flat=True)
    return list(League.objects.filter(pk__in=ids).order_by("name"))


class PreferencesForm(forms.Form):
    """One checkbox per topic for every league, and per league a choice for each topic."""

    def __init__(self, *args: Any, leagues: list[League], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.leagues = leagues
        for topic in Topic:
            self.fields[f"all_{topic.value}"] = forms.BooleanField(
                label=topic.label, required=False
            )
        for league in leagues:
            for topic in LEAGUE_TOPICS:
                self.fields[f"league_{league.pk}_{topic.value}"] = forms.ChoiceField(
                    label=Topic(topic).label, choices=LEAGUE_CHOICES, required=False
                )

    def account_fields(self) -> list[forms.BoundField]:
        return [self[f"all_{topic.value}"] for topic in Topic]

    def league_sections(self) -> list[tuple[League, list[forms.BoundField]]]:
        return [
            (league, [self[f"league_{league.pk}_{topic.value}"] for topic in LEAGUE_TOPICS])
            for league in self.leagues
        ]

    def choices(self) -> tuple[dict[str, bool], dict[int, dict[str, bool | None]]]:
        """The cleaned choices, as ``set_choices`` takes them."""
        data = self.cleaned_data
        account = {topic.value: bool(data[f"all_{topic.value}"]) for topic in Topic}
        leagues = {
            league.pk: {
                topic.value: {ON: True, OFF: False}.get(data[f"league_{league.pk}_{topic.value}"])
                for topic in LEAGUE_TOPICS
            }
            for league in self.leagues
        }
        return account, leagues


def _initial(user: Any, leagues: list[League]) -> dict[str, Any]:
    stored = choices_of(user, leagues)
    initial: dict[str, Any] = {f"all_{topic}": on for topic, on in stored.account.items()}
    for league_id, topics in stored.leagues.items():
        for topic, choice in topics.items():
            initial[f"league_{league_id}_{topic}"] = (
                AS_DEFAULT if choice is None else ON if choice else OFF
            )
    return initial


@require_http_methods(["GET", "POST"])
def preferences(request: HttpRequest) -> HttpResponse:
    """What the signed-in account receives by e-mail, for every league and league by league."""
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    leagues = _leagues_of(request.user)
    form = PreferencesForm(
        request.POST or None, leagues=leagues, initial=_initial(request.user, leagues)
    )
    if request.method == "POST" and form.is_valid():
        account, by_league = form.choices()
        set_choices(request.user, account, by_league)
        messages.success(request, _("Saved: your e-mail choices apply from the next message."))
        return redirect("mail:preferences")
    return render(
        request,
        "mail/preferences.html",
        {"form": form, "email": request.user.email},
        status=400 if request.method == "POST" else 200,
    )


@csrf_exempt
@require_http_methods(["GET", "POST"])
def unsubscribe_view(request: HttpRequest, token: str) -> HttpResponse:
    """GET: a button that unsubscribes; POST: unsubscribe (one click, no sign-in)."""
    found = read_unsubscribe_token(token)
    if found is None:
        return render(request, "mail/unsubscribe.html", {"invalid": True}, status=400)
    league = League.objects.filter(pk=found.league_id).first() if found.league_id else None
    context = {"topic": Topic(found.topic).label, "league": None, "from_league": league}
    if request.method == "GET":
        return render(request, "mail/unsubscribe.html", {**context, "token": token})
    if not unsubscribe(found):
        return render(request, "mail/unsubscribe.html", {"invalid": True}, status=400)
    return render(request, "mail/unsubscribe.html", {**context, "done": True})
