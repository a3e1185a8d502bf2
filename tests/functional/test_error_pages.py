"""The error pages: a refused organiser page, an unknown address and a server error explain
themselves inside the site's layout, and /favicon.ico finds the site's icon (issue 28)."""

from __future__ import annotations

from django.contrib.staticfiles import finders
from django.template.loader import render_to_string
from django.urls import reverse


def test_a_refused_page_says_why_and_offers_a_way_on(client, league, other_organiser):
    client.force_login(other_organiser)
    response = client.get(reverse("workspace:hub", args=[league.slug]))
    assert response.status_code == 403
    text = response.text
    assert 'class="site-header"' in text  # the site's layout, not a bare "403 Forbidden"
    assert "You can't do that here" in text
    assert "You are signed in as other" in text
    assert f'href="{reverse("accounts:sign_in")}?next=' in text
    assert f'href="{reverse("pages:home")}"' in text


def test_an_unknown_address_is_a_page_of_the_site(client, db):
    response = client.get("/no-such-league/players/nobody/")
    assert response.status_code == 404
    assert 'class="site-header"' in response.text
    assert "There is no page at this address" in response.text


def test_the_server_error_page_needs_no_context():
    text = render_to_string("500.html")
    assert "Something went wrong" in text
    assert '<html lang="en-gb">' in text  # LANGUAGE_CODE, with no request to say another


def test_favicon_ico_points_at_the_sites_icon(client, db):
    response = client.get("/favicon.ico")
    assert response.status_code == 301
    assert response["Location"].endswith("/favicon.png")
    icon = finders.find("favicon.png")
    assert icon is not None
    with open(icon, "rb") as handle:
        assert handle.read(8) == b"\x89PNG\r\n\x1a\n"
