"""``{% load workspace_access %}``: whether the signed-in user organises the page's league,
and whether sign-up is open (the sign-in page offers it then).

The public header links the workspace only for the league's organisers (anyone else would
meet a 403 there); anonymous readers cost no query.
"""

from __future__ import annotations

from typing import Any

from django import template
from django.conf import settings

register = template.Library()


@register.filter
def organised_by(league: Any, user: Any) -> bool:
    """True when ``user`` is signed in and organises ``league``."""
    if league is None or not getattr(user, "is_authenticated", False):
        return False
    return bool(league.is_organiser(user))


@register.simple_tag
def signup_open() -> bool:
    """Whether anyone may create an account from the browser (``LEAGUE_OPEN_SIGNUP``)."""
    return bool(settings.OPEN_SIGNUP)


@register.filter
def plays_in(league: Any, user: Any) -> bool:
    """True when ``user`` is signed in and holds a player of ``league`` (the header then
    links their "My games" page)."""
    if league is None or not getattr(user, "is_authenticated", False):
        return False
    # Imported here: template tags load before the apps' models are ready.
    from league.player_accounts import player_of

    return player_of(user, league) is not None
