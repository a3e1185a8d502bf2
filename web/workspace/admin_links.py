"""The workspace entry that the Django admin still serves: the CSV upload.

It is a redirect under ``/<league>/organise/`` so the hub links every task the same way and
a page of the workspace can later take the admin's place without changing the hub.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse
from django.views.decorators.http import require_GET

from web.workspace.access import SignInRequired, organiser_league, sign_in_redirect


@require_GET
def import_upload(request: HttpRequest, league_slug: str) -> HttpResponse:
    """The admin's CSV upload (preview, then import) for this league."""
    try:
        league = organiser_league(request, league_slug)
    except SignInRequired:
        return sign_in_redirect(request)
    return HttpResponseRedirect(reverse("admin:league_import", args=[league.pk]))
