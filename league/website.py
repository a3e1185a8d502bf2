"""Which other websites may show a league: origins allowed to frame its embed or read its API.

An origin is a scheme (``https`` or ``http``), a host and an optional port, exactly what a
browser sends in ``Origin`` and what ``Content-Security-Policy: frame-ancestors`` matches:
``https://club.example.org`` or ``http://localhost:8080``. Anything else (a path, a
wildcard, ``null``, a user name, spaces or semicolons that would change a header) is refused
with the line named. Both lists are empty by default.
"""

from __future__ import annotations

import re
from typing import Any

from django.db import transaction
from django.utils import timezone

from league.event_store import store as event_store
from league.models import League, WebsiteAccess
from league.validation import Errors, check_text

#: Most origins in one list (a club has a site or two, not hundreds).
MAX_ORIGINS = 20
MAX_ORIGIN_LENGTH = 200

_HOST_LABEL = r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?"
_ORIGIN = re.compile(
    rf"(?P<scheme>https?)://(?P<host>{_HOST_LABEL}(?:\.{_HOST_LABEL})*|\[[0-9a-f:.]+\])"
    r"(?::(?P<port>[0-9]{1,5}))?"
)
_DEFAULT_PORTS = {"http": 80, "https": 443}


def normalise_origin(text: str) -> str | None:
    """``text`` as a canonical origin (lower case, no default port, no trailing slash),
    or None when it is not an origin."""
    candidate = text.strip().lower().removesuffix("/")
    match = _ORIGIN.fullmatch(candidate)
    if match is None:
        return None
    scheme, host, port = match["scheme"], match["host"], match["port"]
    if port is not None:
        number = int(port)
        if not 0 < number < 65536:
            return None
        if number != _DEFAULT_PORTS[scheme]:
            return f"{scheme}://{host}:{number}"
    return f"{scheme}://{host}"


def parse_origins(text: Any, field: str, errors: Errors) -> list[str]:
    """Origins typed one a line (commas and spaces also separate them), checked."""
    raw = str(text or "")
    check_text(raw.replace("\n", " ").replace("\r", " ").replace("\t", " "), errors, field)
    if errors.by_field.get(field):
        return []
    origins: list[str] = []
    for number, item in enumerate(re.split(r"[\s,]+", raw.strip()), start=1):
        if not item:
            continue
        origin = normalise_origin(item) if len(item) <= MAX_ORIGIN_LENGTH else None
        if origin is None:
            errors.add(
                field,
                "Entry %(number)s, %(value)r, is not an origin: write the scheme and host "
                "only, like https://club.example.org (a port may follow, no path).",
                "invalid_origin",
                number=number,
                value=item[:60],
            )
        elif origin not in origins:
            origins.append(origin)
    if len(origins) > MAX_ORIGINS:
        errors.add(field, "At most %(max)s origins.", "too_many_origins", max=MAX_ORIGINS)
    return origins


def website_access(league: League) -> WebsiteAccess:
    """The league's website settings (empty lists when never set; nothing is stored)."""
    found = WebsiteAccess.objects.filter(league=league).first()
    return found if found is not None else WebsiteAccess(league=league)


def set_website_access(
    league: League, *, frame_origins: Any, api_origins: Any, updated_by: Any = None
) -> WebsiteAccess:
    """Replace both lists of ``league`` (``ValidationError`` naming the field on bad input)."""
    errors = Errors()
    frames = parse_origins(frame_origins, "frame_origins", errors)
    apis = parse_origins(api_origins, "api_origins", errors)
    errors.raise_if_any()
    with transaction.atomic():
        event_store.lock_league(league)
        access, _ = WebsiteAccess.objects.get_or_create(league=league)
        access.frame_origins = frames
        access.api_origins = apis
        access.updated_at = timezone.now()
        access.updated_by = updated_by if getattr(updated_by, "is_authenticated", False) else None
        access.save()
        return access


def frame_origins(league: League) -> list[str]:
    """The origins allowed to frame the league's embed (empty: none)."""
    return list(
        WebsiteAccess.objects.filter(league=league).values_list("frame_origins", flat=True).first()
        or []
    )


def api_origin_allowed(league_slug: str, origin: str) -> bool:
    """True when the league called ``league_slug`` lists ``origin`` for its API."""
    wanted = normalise_origin(origin) if len(origin) <= MAX_ORIGIN_LENGTH else None
    if wanted is None:
        return False
    allowed = (
        WebsiteAccess.objects.filter(league__slug=league_slug)
        .values_list("api_origins", flat=True)
        .first()
    )
    return wanted in (allowed or [])
