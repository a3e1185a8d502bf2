"""Per-league permissions: anyone reads, a league's organisers (and superusers) write; on the
players' routes, a league's players and organisers only."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy
from rest_framework.permissions import SAFE_METHODS, IsAuthenticated, IsAuthenticatedOrReadOnly
from rest_framework.request import Request


class LeagueOrganiserOrReadOnly(IsAuthenticatedOrReadOnly):
    """Safe methods for everyone; any other method only for an organiser of *this* league.

    A refinement of ``IsAuthenticatedOrReadOnly``, whose subclass it is, so the OpenAPI
    schema (``api.schema.AutoSchema``) documents its reads as open to anonymous callers.

    The view must provide ``user_is_organiser()`` (see ``api.views.LeagueScopedMixin``),
    which resolves the league from the URL, so an organiser of league A is refused on
    league B even though they are an organiser somewhere.
    """

    message = gettext_lazy("Only an organiser of this league may do this.")

    def has_permission(self, request: Request, view: Any) -> bool:
        if request.method in SAFE_METHODS:
            return True
        if not (request.user and request.user.is_authenticated):
            return False
        return bool(view.user_is_organiser())


class LeaguePlayerOrOrganiser(IsAuthenticated):
    """Signed-in callers who hold a player of *this* league or organise it, for every method.

    The routes of what players do themselves (``api.players``) read and write only what
    concerns the caller; anyone else is refused before any of it is looked at. The view must
    provide ``user_is_organiser()`` and ``user_plays()``.
    """

    message = gettext_lazy("Only a player or an organiser of this league may do this.")

    def has_permission(self, request: Request, view: Any) -> bool:
        if not super().has_permission(request, view):
            return False
        return bool(view.user_is_organiser() or view.user_plays())
