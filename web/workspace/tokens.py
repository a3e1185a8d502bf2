"""API tokens on the workspace: the signed-in organiser creates, names, lists and revokes
their own (``league.api_tokens``). A new token's secret is shown once, on the answer to the
request that created it, and never stored."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_http_methods, require_POST

from league.api_tokens import create_token, revoke_token, tokens_of
from league.forms import add_service_errors
from web.workspace.access import SignInRequired, organiser_league, sign_in_redirect


class TokenForm(forms.Form):
    name = forms.CharField(
        label=_("Token name"),
        max_length=80,
        help_text=_("Where it will be used, e.g. “results bot” or “club laptop”."),
    )


@require_http_methods(["GET", "POST"])
def tokens(request: HttpRequest, league_slug: str) -> HttpResponse:
    """The organiser's tokens, and a form for a new one."""
    try:
        league = organiser_league(request, league_slug)
    except SignInRequired:
        return sign_in_redirect(request)
    form = TokenForm(request.POST if request.method == "POST" else None)
    created = secret = None
    if request.method == "POST" and form.is_valid():
        try:
            created, secret = create_token(request.user, form.cleaned_data["name"])
        except ValidationError as error:
            add_service_errors(form, error)
        else:
            form = TokenForm()
    response = render(
        request,
        "workspace/tokens.html",
        {
            "league": league,
            "form": form,
            "created": created,
            "secret": secret,
            "tokens": tokens_of(request.user),
        },
    )
    if secret:
        # The one response holding the secret: never kept by a browser or a proxy.
        response["Cache-Control"] = "no-store"
    return response


@require_POST
def revoke(request: HttpRequest, league_slug: str, token_id: int) -> HttpResponse:
    """Revoke one of the organiser's tokens: it authenticates nobody from now on."""
    try:
        league = organiser_league(request, league_slug)
    except SignInRequired:
        return sign_in_redirect(request)
    token = revoke_token(request.user, token_id)
    if token is None:
        messages.error(request, gettext("You have no such token."))
    else:
        messages.success(
            request,
            gettext("Token “%(name)s” (%(prefix)s…) revoked.")
            % {"name": token.name, "prefix": token.prefix},
        )
    return HttpResponseRedirect(reverse("workspace:tokens", args=[league.slug]))
