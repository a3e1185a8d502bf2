"""Who organises which league: the one organiser-scope query of the write side.

An organiser may change the leagues they are listed on; a superuser may change every
league; anyone else (anonymous or inactive users included) none. The admin, the services'
recorder check (``League.is_organiser``) and the pages all ask here.
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from league.models import League


def organised_leagues(user: Any) -> QuerySet[League]:
    """The leagues ``user`` may change: all for a superuser, none for an anonymous user."""
    if not (getattr(user, "is_authenticated", False) and getattr(user, "is_active", False)):
        return League.objects.none()
    if user.is_superuser:
        return League.objects.all()
    return League.objects.filter(organisers=user)


def is_organiser(user: Any, league: League | None) -> bool:
    """True when ``user`` may change ``league`` (an organiser of it or a superuser)."""
    if league is None or league.pk is None:
        return False
    return organised_leagues(user).filter(pk=league.pk).exists()
