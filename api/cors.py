"""Cross-origin reads of a league's API: allowed only from the origins its organisers list.

django-cors-headers adds the CORS headers; its ``check_request_enabled`` signal asks this
module whether a request's origin may read it. Only the league-scoped routes are
considered (``CORS_URLS_REGEX``), only read methods are ever allowed
(``CORS_ALLOW_METHODS``), and never with cookies: a listed site's pages can read the
standings, not act for a signed-in organiser.
"""

from __future__ import annotations

import re
from typing import Any

from django.http import HttpRequest

from league.website import api_origin_allowed

_LEAGUE_PATH = re.compile(r"^/api/leagues/(?P<slug>[-a-zA-Z0-9_]{1,80})/")


def allow_listed_origin(sender: Any, request: HttpRequest, **kwargs: Any) -> bool:
    """True when the request's ``Origin`` is listed by the league its path names."""
    match = _LEAGUE_PATH.match(request.path)
    origin = request.headers.get("Origin", "")
    if match is None or not origin:
        return False
    return api_origin_allowed(match["slug"], origin)
