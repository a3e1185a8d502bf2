"""Per-league permissions: anyone reads, a league's organisers (and superusers) write."""

from __future__ import annotations

from typing import Any

from rest_framework.permissions import SAFE_METHODS, IsAuthenticatedOrReadOnly
from rest_framework.request import Request


class LeagueOrganiserOrReadOnly(IsAuthenticatedOrReadOnly):
    """Safe methods for everyone; any other method only for an organiser of *this* league.

    A refinement of ``IsAuthenticatedOrReadOnly``, whose subclass it is, so the OpenAPI
    schema (``api.schema.AutoSchema``) documents its reads as open to anonymous callers.

    The view must provide ``user_is_organiser()`` (see ``api.views.LeagueScopedMixin``),
    which resolves the league from the URL, so an organiser of league A is refused on
    league B even though they are an organiser somewhere.
    """

    message = "Only an organiser of this league may do this."

    def has_permission(self, request: Request, view: Any) -> bool:
        if request.method in SAFE_METHODS:
            return True
        if not (request.user and request.user.is_authenticated):
            return False
        return bool(view.user_is_organiser())
