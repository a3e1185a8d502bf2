"""Public pages served from a cache keyed by the state they show, with ETags.

A page decorated with :func:`cached_page` is rendered once per state of its data
(``ratings.page_state``: the league's event log, publication, projection position,
replay banner and local date), per path and query string, and then served from the
``pages`` cache until that state moves: a publication or an incremental replay changes
the key, so no stale page can be served and nothing has to be invalidated. Every
response carries an ``ETag`` (a digest of that key) and ``Last-Modified``; a request
whose ``If-None-Match`` names the ETag gets 304 without the page being rendered or read.

Only anonymous readers share pages. A signed-in user's pages carry their name and, for
organisers, private fields: they are neither stored nor served from the cache, and get
no validators. A request with messages waiting to be shown is not served from the cache
either, and a response that sets a cookie or changes the session is not stored.
``settings.PAGE_CACHE = False`` switches all of it off (pages computed per request, as
before the cache; the crowd benchmark compares both).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from functools import wraps
from typing import Any

from django.conf import settings
from django.contrib.messages import get_messages
from django.core.cache import caches
from django.http import HttpRequest, HttpResponse, HttpResponseNotModified
from django.utils.cache import patch_vary_headers

from config.language import activate_for_league, league_language_later
from config.response_cache import CACHE_ALIAS, PageKey, policy_uses_nonces, response_key
from league.models import League
from ratings.page_state import LeagueState

__all__ = ["CACHE_ALIAS", "PageKey", "cached_page", "known_league", "page_key"]

StateOf = Callable[..., LeagueState | Sequence[LeagueState] | None]


def page_key(
    request: HttpRequest, name: str, states: LeagueState | Sequence[LeagueState]
) -> PageKey:
    """The key of page ``name`` at ``states`` for ``request``'s path, query and htmx flag."""
    return response_key(request, name, states, (request.headers.get("HX-Request", ""),))


#: The request attribute holding the league the state read fetched (see :func:`known_league`).
_LEAGUE_ATTRIBUTE = "_page_cache_league"


def known_league(request: HttpRequest, slug: str) -> League | None:
    """The league ``slug`` if the page cache already read it for this request, else None.

    A miss renders the page after the state read, which fetched the league's row too:
    the view reuses it rather than reading it again.
    """
    league = getattr(request, _LEAGUE_ATTRIBUTE, None)
    return league if league is not None and league.slug == slug else None


def _shareable(request: HttpRequest) -> bool:
    """True when the request may be answered with (and stored as) an anonymous page."""
    if request.method not in ("GET", "HEAD") or request.user.is_authenticated:
        return False
    # Messages waiting from an earlier request must be shown by a freshly rendered page.
    return len(get_messages(request)) == 0


def _storable(request: HttpRequest, response: HttpResponse) -> bool:
    """True when ``response`` is the same for every anonymous reader of this state."""
    session = getattr(request, "session", None)
    return (
        response.status_code == 200
        and not policy_uses_nonces()
        and not response.streaming
        and not response.cookies
        and not request.META.get("CSRF_COOKIE_NEEDS_UPDATE")
        and not (session is not None and session.modified)
    )


def _decorate(response: HttpResponse, key: PageKey) -> HttpResponse:
    for header, value in key.headers().items():
        response[header] = value
    patch_vary_headers(response, ["HX-Request"])
    return response


def cached_page(
    name: str, state_of: StateOf, query_names: Collection[str] = frozenset()
) -> Callable:
    """Serve the decorated view from the page cache, keyed by ``state_of(**view kwargs)``.

    ``state_of`` returns the state (or states) of the leagues the page shows, or None
    when the page has no state to key by (an unknown league: the view answers 404).
    Only requests whose query names are among ``query_names`` (those the view reads) are
    cached: any other name renders the page afresh, so that made-up query strings cannot
    fill the cache and push the real pages out.
    """

    def decorator(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @league_language_later
        @wraps(view)
        def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            # The league's default language (config/language.py) comes from the row the
            # state read fetches: a page served from the cache reads nothing more for it.
            slug = kwargs.get("league_slug")
            if (
                not settings.PAGE_CACHE
                or not _shareable(request)
                or not set(request.GET).issubset(query_names)
            ):
                activate_for_league(request, slug)
                return view(request, *args, **kwargs)
            states = state_of(*args, **kwargs)
            if states is None:
                activate_for_league(request, slug)
                return view(request, *args, **kwargs)
            if isinstance(states, LeagueState):
                setattr(request, _LEAGUE_ATTRIBUTE, states.league)
                activate_for_league(request, league=states.league)
            else:
                activate_for_league(request, slug)
            key = page_key(request, name, states)
            if key.matches(request.headers.get("If-None-Match")):
                return _decorate(HttpResponseNotModified(), key)
            cache = caches[CACHE_ALIAS]
            stored = cache.get(key.key)
            if stored is not None:
                content, content_type = stored
                return _decorate(HttpResponse(content, content_type=content_type), key)
            response = view(request, *args, **kwargs)
            if _storable(request, response):
                cache.set(key.key, (response.content, response["Content-Type"]))
                _decorate(response, key)
            return response

        return wrapped

    return decorator


def drop_cached_pages(**_kwargs: Any) -> None:
    """Receiver of ``league.event_store.signals.player_erased``: every stored page and API
    answer is dropped, since any of them may show the forgotten names (the cache is shared
    by all leagues and keyed by address, so it cannot drop one league's entries alone)."""
    caches[CACHE_ALIAS].clear()
