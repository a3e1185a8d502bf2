"""Who may open an organiser page: the league's organisers (and superusers), nobody else."""

from __future__ import annotations

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponseRedirect
from django.shortcuts import get_object_or_404

from league.models import League


class SignInRequired(Exception):
    """Raised for an anonymous visitor; :func:`sign_in_redirect` answers it."""


def organiser_league(request: HttpRequest, league_slug: str) -> League:
    """The league named by ``league_slug`` when the signed-in user organises it.

    404 for an unknown league, :class:`SignInRequired` for an anonymous visitor, and
    ``PermissionDenied`` (403) for a signed-in user who does not organise it.
    """
    league = get_object_or_404(League, slug=league_slug)
    if not request.user.is_authenticated:
        raise SignInRequired
    if not league.is_organiser(request.user):
        raise PermissionDenied("Only this league's organisers can open its workspace.")
    return league


def sign_in_redirect(request: HttpRequest) -> HttpResponseRedirect:
    """Send an anonymous visitor to sign in, then back to the page they asked for."""
    return redirect_to_login(request.get_full_path())
