"""Every page the site serves carries the strict Content-Security-Policy header.

Each of the site's pages (public, organiser-only, the admin, the API) is fetched with the
Django test client; the site-wide policy must be on it, with no inline code allowed. The
API's documentation pages and the browsable API have narrower exceptions of their own,
checked in tests/browser/test_csp_browser.py.
"""

from __future__ import annotations

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db

STRICT = [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "frame-ancestors 'none'",
]

PUBLIC = [
    ("pages:home", {}),
    ("pages:league", {"league_slug": "{league}"}),
    ("pages:player", {"league_slug": "{league}", "player_slug": "{player}"}),
    ("pages:player_ranks", {"league_slug": "{league}", "player_slug": "{player}"}),
    ("pages:matches", {"league_slug": "{league}"}),
    ("pages:events", {"league_slug": "{league}"}),
    ("pages:compare", {"league_slug": "{league}"}),
    ("pages:progress", {"league_slug": "{league}"}),
    ("pages:export_standings", {"league_slug": "{league}"}),
    ("pages:export_history", {"league_slug": "{league}"}),
    ("admin:login", {}),
    ("workspace:sign_up", {}),
    ("api:league-list", {}),
    ("api:league-detail", {"league_slug": "{league}"}),
    ("api:standings", {"league_slug": "{league}"}),
    ("api:schema", {}),
]
ORGANISER = [
    ("workspace:config", {"league_slug": "{league}"}),
    ("workspace:backtest", {"league_slug": "{league}"}),
    ("admin:index", {}),
    ("admin:league_league_changelist", {}),
    ("admin:league_league_change", {"object_id": "{league_pk}"}),
    ("admin:league_event_changelist", {}),
    ("admin:league_player_changelist", {}),
    ("workspace:import", {"league_slug": "{league}"}),
    ("workspace:team_round", {"league_slug": "{league}"}),
    ("workspace:organisers", {"league_slug": "{league}"}),
    ("workspace:new_league", {}),
]


def url_of(name: str, kwargs: dict[str, str], club) -> str:
    values = {
        "league": club["league"].slug,
        "league_pk": str(club["league"].pk),
        "player": club["ann"].slug,
    }
    return reverse(name, kwargs={key: value.format(**values) for key, value in kwargs.items()})


def assert_strict(response, url: str) -> None:
    policy = response.headers.get("Content-Security-Policy")
    assert policy, f"no Content-Security-Policy on {url}"
    directives = [part.strip() for part in policy.split(";")]
    for directive in STRICT:
        assert directive in directives, (url, policy)
    assert "unsafe-inline" not in policy, (url, policy)
    assert "unsafe-eval" not in policy, (url, policy)


@pytest.mark.parametrize(("name", "kwargs"), PUBLIC, ids=[name for name, _ in PUBLIC])
def test_a_public_page_has_the_policy(client, club, name, kwargs):
    url = url_of(name, kwargs, club)
    response = client.get(url)
    assert response.status_code == 200, url
    assert_strict(response, url)


@pytest.mark.parametrize(("name", "kwargs"), ORGANISER, ids=[name for name, _ in ORGANISER])
def test_an_organiser_page_has_the_policy(client, club, superuser, name, kwargs):
    client.force_login(superuser)
    url = url_of(name, kwargs, club)
    response = client.get(url)
    assert response.status_code == 200, url
    assert_strict(response, url)


@pytest.mark.parametrize(
    "url", ["/no-such-league/", "/api/no-such-thing/", "/admin/league/event/999999/change/"]
)
def test_errors_and_redirects_have_the_policy_too(client, superuser, url):
    client.force_login(superuser)
    response = client.get(url)
    assert response.status_code in (302, 403, 404), url
    assert_strict(response, url)
