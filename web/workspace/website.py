"""The organisers' page for the club's website: who may frame the embed or read the API."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from league.languages import set_default_language
from league.website import set_website_access, website_access
from web.workspace.access import SignInRequired, organiser_league, sign_in_redirect
from web.workspace.forms import LeagueLanguageForm, WebsiteForm, put_errors


def iframe_snippet(src: str, title: str) -> SafeString:
    """The ``<iframe>`` an organiser pastes into the club's site, its values escaped: a
    league's name holding a quote stays inside the title, never another attribute. (The
    page shows it as text with ``force_escape``.)"""
    return format_html(
        '<iframe src="{}" title="{}" width="100%" height="480" loading="lazy"></iframe>',
        src,
        title,
    )


@require_http_methods(["GET", "POST"])
def website(request: HttpRequest, league_slug: str) -> HttpResponse:
    """The two origin lists, the embed's address and snippet, and the feeds' addresses."""
    try:
        league = organiser_league(request, league_slug)
    except SignInRequired:
        return sign_in_redirect(request)
    access = website_access(league)
    initial = {
        "frame_origins": "\n".join(access.frame_origins),
        "api_origins": "\n".join(access.api_origins),
    }
    form = WebsiteForm(request.POST or None, initial=initial)
    language_form = LeagueLanguageForm(initial={"default_language": league.default_language})
    if request.method == "POST" and "default_language" in request.POST:
        language_form = LeagueLanguageForm(request.POST)
        form = WebsiteForm(initial=initial)
        if language_form.is_valid():
            try:
                set_default_language(league, language_form.cleaned_data["default_language"])
            except ValidationError as error:
                put_errors(language_form, error)
            else:
                messages.success(request, _("Saved: the league's default language."))
                return redirect("workspace:website", league.slug)
    elif request.method == "POST":
        try:
            set_website_access(
                league,
                frame_origins=request.POST.get("frame_origins", ""),
                api_origins=request.POST.get("api_origins", ""),
                updated_by=request.user,
            )
        except ValidationError as error:
            form.is_valid()
            put_errors(form, error)
        else:
            messages.success(request, _("Saved: the lists apply from the next request."))
            return redirect("workspace:website", league.slug)
    embed = request.build_absolute_uri(reverse("pages:embed_standings", args=[league.slug]))
    fixtures = request.build_absolute_uri(reverse("pages:embed_fixtures", args=[league.slug]))
    return render(
        request,
        "workspace/website.html",
        {
            "league": league,
            "form": form,
            "language_form": language_form,
            "access": access,
            "embed_url": embed,
            "snippet": iframe_snippet(embed, _("%(league)s standings") % {"league": league.name}),
            "fixtures_url": fixtures,
            "fixtures_snippet": iframe_snippet(
                fixtures, _("%(league)s upcoming fixtures") % {"league": league.name}
            ),
            "feed_url": request.build_absolute_uri(
                reverse("pages:results_feed", args=[league.slug])
            ),
            "api_url": request.build_absolute_uri(
                reverse("api:standings", kwargs={"league_slug": league.slug})
            ),
        },
    )
