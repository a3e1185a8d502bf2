"""Which language a request is answered in, and the middleware that activates it.

The order, first match wins:

1. the language picker's cookie (``settings.LANGUAGE_COOKIE_NAME``), this browser's choice;
2. the signed-in account's language (``AccountPreferences.language``, set when they pick);
3. the browser's ``Accept-Language`` (its first supported language);
4. the league's default language (``League.default_language``) on a page, embed, feed or
   API address naming a league (a ``league_slug`` in the URL);
5. ``settings.LANGUAGE_CODE``.

Django's ``LocaleMiddleware`` does 1, 3 and 5 before the URL is resolved; this module's
middleware settles the language again once the view and its arguments are known. A view
marked with :func:`league_language_later` (the page cache's) settles the league's part
itself with :func:`activate_for_league`, from the league row it reads anyway: a page served
from the cache reads no more for its language.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils import translation
from django.utils.cache import patch_vary_headers
from django.utils.translation.trans_real import parse_accept_lang_header

from league.languages import supported
from league.models import AccountPreferences, League


def cookie_language(request: HttpRequest) -> str | None:
    """The language this browser picked (the picker's cookie), if supported."""
    return supported(request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME))


def account_language(request: HttpRequest) -> str | None:
    """The language the signed-in account picked, if any."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return None
    chosen = AccountPreferences.objects.filter(user=user).values_list("language", flat=True).first()
    return supported(chosen)


def browser_language(request: HttpRequest) -> str | None:
    """The first language of ``Accept-Language`` the site has (``*`` is no preference)."""
    header = request.headers.get("Accept-Language", "")
    for code, _quality in parse_accept_lang_header(header):
        if code == "*":
            continue
        found = supported(code)
        if found:
            return found
    return None


def league_language(league_slug: str | None) -> str | None:
    """The default language of the league called ``league_slug`` (None if there is none)."""
    if not league_slug:
        return None
    chosen = (
        League.objects.filter(slug=league_slug).values_list("default_language", flat=True).first()
    )
    return supported(chosen)


def resolve_language(
    request: HttpRequest, league_slug: str | None = None, league: League | None = None
) -> str:
    """The language to answer ``request`` in (the order is the module's docstring); the
    league's default is read from ``league`` when given, else looked up by ``league_slug``."""
    for candidate in (
        lambda: cookie_language(request),
        lambda: account_language(request),
        lambda: browser_language(request),
        lambda: (
            supported(league.default_language)
            if league is not None
            else league_language(league_slug)
        ),
    ):
        found = candidate()
        if found:
            return found
    return supported(settings.LANGUAGE_CODE) or settings.LANGUAGE_CODE


def activate_for_league(
    request: HttpRequest, league_slug: str | None = None, league: League | None = None
) -> str:
    """Activate :func:`resolve_language` for ``request`` on a league's page; the language."""
    language = resolve_language(request, league_slug, league)
    translation.activate(language)
    request.LANGUAGE_CODE = language  # type: ignore[attr-defined]
    return language


#: The attribute marking a view that settles its league's default language itself.
_LATER = "settles_league_language"


def league_language_later(view: Callable[..., Any]) -> Callable[..., Any]:
    """Mark ``view``: it calls :func:`activate_for_league` itself (the middleware then
    settles the language without the league)."""
    setattr(view, _LATER, True)
    return view


class LeagueLanguageMiddleware:
    """Activates :func:`resolve_language` for each view (after ``LocaleMiddleware``, which
    knows neither the account nor the league)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        # The picker's cookie chooses the language as much as Accept-Language does.
        patch_vary_headers(response, ("Cookie",))
        return response

    def process_view(
        self,
        request: HttpRequest,
        view: Callable[..., Any],
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
    ) -> None:
        later = getattr(view, _LATER, False)
        activate_for_league(request, None if later else kwargs.get("league_slug"))
