"""The API's public reads served from the pages' cache, with the pages' validators.

A GET of a league's data by an anonymous client is derived from the league's state
(``ratings.page_state``) and the request's path and query, like a public page: the
response is rendered once per state and served from the ``pages`` cache until the state
moves (a result, a publication, an incremental replay, a season or rules change: a new key,
so nothing is invalidated and nothing stale is served). Every such response carries the
``ETag`` and ``Last-Modified`` of ``config.response_cache``; ``If-None-Match`` naming the
ETag gets 304 without the body being computed, once a 200 for that state and query is stored
(so a query the view refuses is refused whatever its validators say).

What is shared, and with whom:

- only anonymous requests (no token, no signed-in session: DRF has authenticated the request
  before the cache is asked), since an organiser's responses carry private fields;
- only JSON (the browsable API's HTML shows the reader's name and forms);
- only query names the view reads (:attr:`CachedReadMixin.cache_query_names`), so made-up
  query strings cannot push the real responses out;
- the host and scheme are part of the key (paginated bodies carry absolute links).

Authentication, permissions and throttling run as for any request; a hit only skips the
handler. ``settings.PAGE_CACHE = False`` switches it off with the pages' cache.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.cache import caches
from django.http import HttpResponse, HttpResponseBase
from django.utils.cache import patch_vary_headers
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response

from config.language import activate_for_league, league_language_later
from config.response_cache import CACHE_ALIAS, PageKey, policy_uses_nonces, response_key
from ratings.page_state import LeagueState, league_state, site_state

#: Query names any view may read: pagination, DRF's search, ordering and ``?format=``.
LIST_QUERY_NAMES = frozenset({"limit", "offset", "format", "search", "ordering"})


class _Answered(Exception):
    """Carries a cached response (or a 304) from ``initial`` past the handler."""

    def __init__(self, response: HttpResponseBase) -> None:
        super().__init__()
        self.response = response


class CachedReadMixin:
    """Serve an anonymous JSON GET of this view from the pages' cache (module docstring).

    ``cache_reads`` False opts a view out (its body depends on more than the league's
    state: a replay's progress, or it streams). The query names the view reads are
    :data:`LIST_QUERY_NAMES` and the fields of its ``query_serializer`` and of
    ``cache_query_serializers``; a request with any other name is answered afresh.
    """

    cache_reads: bool = True
    cache_query_serializers: tuple[type, ...] = ()
    kwargs: dict[str, Any]

    @property
    def cache_query_names(self) -> frozenset[str]:
        names = set(LIST_QUERY_NAMES)
        own = getattr(self, "query_serializer", None)
        for serializer in (*self.cache_query_serializers, *([own] if own else [])):
            names.update(serializer().fields)
        return frozenset(names)

    @classmethod
    def as_view(cls, **initkwargs: Any) -> Any:
        """Django's view, marked: it settles the league's default language itself
        (``config.language``), from the row its state read fetches."""
        view = super().as_view(**initkwargs)  # type: ignore[misc]
        return league_language_later(view)

    def cache_state(self) -> LeagueState | tuple[LeagueState, ...] | None:
        """The state the response is derived from; None: not cacheable (an unknown league)."""
        slug = self.kwargs.get("league_slug")
        return league_state(slug) if slug is not None else site_state()

    def _cache_key(self, request: Request) -> PageKey | None:
        if not (
            self.cache_reads
            and settings.PAGE_CACHE
            and request.method in ("GET", "HEAD")
            and not request.user.is_authenticated
            and request.auth is None
            and isinstance(getattr(request, "accepted_renderer", None), JSONRenderer)
            and set(request.query_params).issubset(self.cache_query_names)
        ):
            return None
        state = self.cache_state()
        if state is None:
            return None
        if isinstance(state, LeagueState):
            # The state read fetched the league's row: the view reuses it, and so does the
            # language (the league's default, when the reader expressed no preference).
            self._league = state.league
            activate_for_league(request._request, league=state.league)
        else:
            activate_for_league(request._request)
        variant = (request.accepted_media_type, request.get_host(), request.scheme)
        return response_key(request._request, f"api:{type(self).__name__}", state, variant)

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        super().initial(request, *args, **kwargs)  # type: ignore[misc]
        self._response_key = key = self._cache_key(request)
        if key is None:
            activate_for_league(request._request, self.kwargs.get("league_slug"))
            return
        stored = caches[CACHE_ALIAS].get(key.key)
        if stored is None:
            # Not answered with 200 for this state yet: the handler runs, so a request it
            # refuses (a bad query) is refused even when it names the ETag or "*".
            return
        if key.matches(request.headers.get("If-None-Match")):
            raise _Answered(HttpResponse(status=304))
        content, content_type = stored
        raise _Answered(HttpResponse(content, content_type=content_type))

    def cache_answered(self) -> bool:
        """True when this request was answered from the cache (or with 304) by the mixin."""
        return getattr(self, "_answered", False)

    def handle_exception(self, exc: Exception) -> HttpResponseBase:
        if isinstance(exc, _Answered):
            self._answered = True
            return exc.response
        return super().handle_exception(exc)  # type: ignore[misc]

    def finalize_response(
        self, request: Request, response: HttpResponseBase, *args: Any, **kwargs: Any
    ) -> HttpResponseBase:
        response = super().finalize_response(request, response, *args, **kwargs)  # type: ignore[misc]
        key = getattr(self, "_response_key", None)
        if key is None:
            return response
        if not self.cache_answered():
            if response.status_code != 200 or not self._storable(response):
                return response
            response.render()  # type: ignore[attr-defined]
            caches[CACHE_ALIAS].set(key.key, (response.content, response["Content-Type"]))
        for header, value in key.headers().items():
            response[header] = value
        patch_vary_headers(response, ["Accept", "Authorization", "Cookie"])
        return response

    @staticmethod
    def _storable(response: HttpResponseBase) -> bool:
        return (
            isinstance(response, Response)
            and not response.streaming
            and not response.cookies
            and not policy_uses_nonces()
        )
