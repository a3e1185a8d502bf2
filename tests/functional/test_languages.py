"""Which language a page is answered in: the picker's cookie, the account, the browser's
Accept-Language, the league's default, the site's default (config/language.py), and where
each is set (the picker, the organisers' website page, the admin)."""

from __future__ import annotations

import re

import pytest
from django.conf import settings
from django.core.cache import caches
from django.test import Client, RequestFactory
from django.urls import reverse

from config.language import resolve_language
from league.models import AccountPreferences, League
from web.public.page_cache import CACHE_ALIAS

pytestmark = pytest.mark.django_db


def html_lang(response) -> str:
    match = re.search(r'<html lang="([^"]+)"', response.content.decode())
    assert match, "no <html lang> on the page"
    return match.group(1)


def request_with(*, cookie: str = "", accept: str = "", user=None):
    headers = {"HTTP_ACCEPT_LANGUAGE": accept} if accept else {}
    request = RequestFactory().get("/", **headers)
    if cookie:
        request.COOKIES[settings.LANGUAGE_COOKIE_NAME] = cookie
    if user is not None:
        request.user = user
    else:
        from django.contrib.auth.models import AnonymousUser

        request.user = AnonymousUser()
    return request


@pytest.fixture
def french_league(league: League) -> League:
    league.default_language = "fr"
    league.save(update_fields=["default_language"])
    return league


# The precedence, one rule at a time.


def test_nothing_expressed_is_the_site_default(db):
    assert resolve_language(request_with()) == "en-gb"


def test_nothing_expressed_on_a_league_is_its_default(french_league):
    assert resolve_language(request_with(), french_league.slug) == "fr"


def test_an_unknown_league_is_the_site_default(db):
    assert resolve_language(request_with(), "no-such-league") == "en-gb"


def test_the_browser_wins_over_the_league(french_league):
    assert resolve_language(request_with(accept="de-DE,de;q=0.9"), french_league.slug) == "de"


def test_a_browser_language_the_site_lacks_falls_to_the_league(french_league):
    request = request_with(accept="ja,zh;q=0.8,*;q=0.1")
    assert resolve_language(request, french_league.slug) == "fr"


def test_any_english_is_the_site_english(french_league):
    assert resolve_language(request_with(accept="en-US"), french_league.slug) == "en-gb"


def test_the_account_wins_over_the_browser(french_league, organiser):
    AccountPreferences.objects.create(user=organiser, language="es")
    request = request_with(accept="de", user=organiser)
    assert resolve_language(request, french_league.slug) == "es"


def test_the_cookie_wins_over_the_account(french_league, organiser):
    AccountPreferences.objects.create(user=organiser, language="es")
    request = request_with(cookie="de", accept="fr", user=organiser)
    assert resolve_language(request, french_league.slug) == "de"


def test_a_cookie_naming_no_language_of_the_site_is_ignored(french_league):
    assert resolve_language(request_with(cookie="xx"), french_league.slug) == "fr"


# The pages.


def test_html_lang_follows_the_league_default_on_its_pages_and_embed(client, french_league):
    assert html_lang(client.get(reverse("pages:league", args=[french_league.slug]))) == "fr"
    embed = client.get(reverse("pages:embed_standings", args=[french_league.slug]))
    assert html_lang(embed) == "fr"
    assert html_lang(client.get(reverse("pages:home"))) == "en-gb"


def test_the_picker_sets_the_cookie_and_the_page_follows(client, french_league):
    url = reverse("pages:league", args=[french_league.slug])
    response = client.post(reverse("set_language"), {"language": "de", "next": url})
    assert response.status_code == 302
    assert response["Location"] == url
    assert client.cookies[settings.LANGUAGE_COOKIE_NAME].value == "de"
    # Kept by the browser (a year), not only for the session.
    assert client.cookies[settings.LANGUAGE_COOKIE_NAME]["max-age"] == 365 * 24 * 3600
    page = client.get(url)
    assert html_lang(page) == "de"
    assert page["Content-Language"] == "de"


def test_the_picker_remembers_the_choice_for_the_account(client, organiser, league):
    client.force_login(organiser)
    client.post(reverse("set_language"), {"language": "es", "next": "/"})
    assert AccountPreferences.objects.get(user=organiser).language == "es"
    # Another browser, signed in to the same account, without the cookie.
    other = Client()
    other.force_login(organiser)
    assert html_lang(other.get(reverse("pages:league", args=[league.slug]))) == "es"


def test_a_cross_site_picker_post_changes_nothing(client, organiser):
    client.force_login(organiser)
    response = client.post(
        reverse("set_language"),
        {"language": "de", "next": "https://evil.example/"},
        HTTP_SEC_FETCH_SITE="cross-site",
    )
    assert response.status_code == 302
    assert response["Location"] == "/"
    assert settings.LANGUAGE_COOKIE_NAME not in response.cookies
    assert not AccountPreferences.objects.filter(user=organiser, language="de").exists()


def test_the_page_cache_keeps_one_page_per_language(client, french_league, settings):
    settings.PAGE_CACHE = True
    caches[CACHE_ALIAS].clear()
    url = reverse("pages:league", args=[french_league.slug])
    assert html_lang(client.get(url)) == "fr"
    assert html_lang(client.get(url, HTTP_ACCEPT_LANGUAGE="de")) == "de"
    assert html_lang(client.get(url)) == "fr"
    caches[CACHE_ALIAS].clear()


def test_api_errors_follow_accept_language(client, league):
    url = reverse("api:match-list", kwargs={"league_slug": league.slug})
    english = client.post(url, {}, HTTP_ACCEPT_LANGUAGE="en").json()["detail"]
    german = client.post(url, {}, HTTP_ACCEPT_LANGUAGE="de").json()["detail"]
    assert english == "Authentication credentials were not provided."
    assert german == "Anmeldedaten fehlen."


# Where a league's default is set.


def test_the_organiser_sets_the_default_on_the_website_page(client, organiser, league):
    client.force_login(organiser)
    url = reverse("workspace:website", args=[league.slug])
    response = client.post(url, {"default_language": "es"})
    assert response.status_code == 302
    league.refresh_from_db()
    assert league.default_language == "es"


def test_an_unknown_language_is_refused_naming_the_field(client, organiser, league):
    client.force_login(organiser)
    url = reverse("workspace:website", args=[league.slug])
    response = client.post(url, {"default_language": "xx"}, HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 200
    assert "id_default_language_error" in response.content.decode()
    league.refresh_from_db()
    assert league.default_language == "en-gb"


def test_another_organiser_cannot_set_it(client, other_organiser, league):
    client.force_login(other_organiser)
    url = reverse("workspace:website", args=[league.slug])
    response = client.post(url, {"default_language": "es"})
    assert response.status_code in (403, 404)
    league.refresh_from_db()
    assert league.default_language == "en-gb"


def test_the_admin_form_offers_the_default_language(client, superuser, league):
    client.force_login(superuser)
    page = client.get(reverse("admin:league_league_change", args=[league.pk]))
    assert 'name="default_language"' in page.content.decode()
