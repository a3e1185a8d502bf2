"""Cache keys and validators of public reads, shared by the pages and the API.

A public read (a page of ``web/public`` or a GET of the API) is derived from the state of the
leagues it shows (``ratings.page_state``: their event log, publication, projection position,
replay banner, seasons, ranking rules and local date) and from the request's path and query.
:func:`response_key` digests both into a cache key and an ``ETag``; ``Last-Modified`` is the
latest stored moment of the states. A new result, publication or incremental replay is a new
state, hence a new key and a new ETag: nothing is ever invalidated, and no stale response can
be served. Both faces store responses under these keys in the ``pages`` cache
(:data:`CACHE_ALIAS`) and answer ``If-None-Match`` naming the ETag with 304.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from django.conf import settings
from django.http import HttpRequest
from django.utils import translation
from django.utils.csp import CSP
from django.utils.http import http_date, parse_etags

#: The cache alias holding rendered public responses (``settings.CACHES``).
CACHE_ALIAS = "pages"
#: Bumped when the rendering of the cached responses changes in a way their state does not show.
KEY_VERSION = 2


class State(Protocol):
    """What a response is keyed by: ``ratings.page_state.LeagueState``."""

    @property
    def parts(self) -> tuple[object, ...]: ...

    @property
    def last_modified(self) -> dt.datetime | None: ...


@dataclass(frozen=True)
class PageKey:
    """The cache key and validators of one request."""

    key: str
    etag: str
    last_modified: float | None

    def headers(self) -> dict[str, str]:
        headers = {"ETag": self.etag, "Cache-Control": "no-cache"}
        if self.last_modified is not None:
            headers["Last-Modified"] = http_date(self.last_modified)
        return headers

    def matches(self, if_none_match: str | None) -> bool:
        """True when ``If-None-Match`` names this ETag (weak comparison, as for GET)."""
        if not if_none_match:
            return False
        tags = parse_etags(if_none_match)
        return "*" in tags or any(tag.removeprefix("W/") == self.etag for tag in tags)


def response_key(
    request: HttpRequest,
    name: str,
    states: State | Sequence[State],
    variant: tuple[object, ...] = (),
) -> PageKey:
    """The key of response ``name`` at ``states`` for ``request``'s path and query, in the
    active language (``config.language``: one page per language it is read in).

    ``variant`` is whatever else the response depends on (the htmx flag of a page, the
    media type and host of an API response).
    """
    states = tuple(states) if isinstance(states, Sequence) else (states,)
    parts = (
        KEY_VERSION,
        name,
        request.path,
        request.META.get("QUERY_STRING", ""),
        variant,
        translation.get_language(),
        tuple(state.parts for state in states),
    )
    digest = hashlib.sha256(repr(parts).encode()).hexdigest()[:40]
    moments = [state.last_modified for state in states if state.last_modified is not None]
    last_modified = max(moments).timestamp() if moments else None
    return PageKey(f"page:{name}:{digest}", f'"{digest}"', last_modified)


def policy_uses_nonces() -> bool:
    """True when the site's Content-Security-Policy trusts per-response nonces.

    Pages carry this response's nonce (django-htmx puts it on its script tag). The site's
    policy trusts same-origin files only, so a nonce in a shared page is inert; under a
    policy that trusted nonces, a page read by everyone would publish one.
    """
    policies = (
        getattr(settings, "SECURE_CSP", None),
        getattr(settings, "SECURE_CSP_REPORT_ONLY", None),
    )
    return any(
        CSP.NONCE in sources
        for policy in policies
        if policy
        for sources in policy.values()
        if isinstance(sources, list | tuple)
    )
