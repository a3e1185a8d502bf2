"""The Content-Security-Policy in Chromium: the main pages, the admin and the API's docs
load and work with no CSP violation.

Violations are caught two ways: a ``securitypolicyviolation`` listener installed before any
page script runs, and Chromium's console messages ("Refused to ... because it violates the
following Content Security Policy directive").
"""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from django.test import Client
from django.urls import reverse

from league import seasons
from tests.browser.conftest import LOCAL_HOSTS

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

REDOC_LOGO = "https://cdn.redoc.ly/redoc/logo-mini.svg"
RECORD_VIOLATIONS = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__cspViolations.push(
    `${event.effectiveDirective} blocked ${event.blockedURI || "inline"}` +
      ` at ${event.sourceFile}:${event.lineNumber}`
  );
});
"""


@pytest.fixture
def csp_page(chromium_browser, live_server):
    context = chromium_browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script(RECORD_VIOLATIONS)
    page = context.new_page()
    console: list[str] = []
    page.on("console", lambda message: console.append(f"{message.type}: {message.text}"))
    page.on("pageerror", lambda error: console.append(f"pageerror: {error}"))

    def outside(route, request) -> None:
        if (urlsplit(request.url).hostname or "") in LOCAL_HOSTS:
            route.continue_()
        else:
            route.abort()

    page.route("**/*", outside)
    page.console = console
    yield page
    context.close()


def sign_in(page, live_server, user) -> None:
    client = Client()
    client.force_login(user)
    page.context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}]
    )


def visit(page, url: str) -> list[str]:
    """Load ``url``, let its scripts and fetches settle, and return its CSP violations."""
    response = page.goto(url)
    assert response is not None
    assert response.status == 200, (url, response.status)
    assert "default-src 'self'" in response.headers["content-security-policy"], url
    page.wait_for_load_state("networkidle")
    events = page.evaluate("window.__cspViolations")
    messages = [m for m in page.console if "Content Security Policy" in m]
    page.console.clear()
    return [f"{url}: {v}" for v in events + messages]


def test_the_pages_and_the_admin_load_with_no_csp_violation(
    csp_page, live_server, ladder, superuser
):
    page, league = csp_page, ladder["league"]
    slug = {"league_slug": league.slug}
    player = ladder["players"][0]
    violations: list[str] = []

    # Signed out: the public pages and the admin's sign-in page.
    season = seasons.create_season(
        league, name="January", start_date="2024-01-01", end_date="2024-01-31"
    )
    in_season = {**slug, "season_slug": season.slug}
    public = [
        reverse("pages:home"),
        reverse("pages:league", kwargs=slug),
        reverse("pages:player", kwargs={**slug, "player_slug": player.slug}),
        reverse("pages:matches", kwargs=slug),
        reverse("pages:events", kwargs=slug),
        reverse("pages:compare", kwargs=slug),
        reverse("pages:seasons", kwargs=slug),
        reverse("pages:season", kwargs=in_season),
        reverse("pages:embed_standings", kwargs=slug),
        reverse("admin:login"),
    ]
    for url in public:
        violations += visit(page, live_server.url + url)
    # The player page's chart was drawn (Chart.js is a same-origin script).
    page.goto(live_server.url + public[2])
    page.wait_for_function(
        "() => window.Chart && Chart.getChart(document.getElementById('rating-chart'))"
    )

    # Signed in: the configuration page, backtesting, the admin and the workspace's import
    # page, then its preview (styled from the style sheet, never inline).
    sign_in(page, live_server, superuser)
    admin_pages = [
        reverse("workspace:config", kwargs=slug),
        reverse("workspace:seasons", kwargs=slug),
        reverse("workspace:season", kwargs=in_season),
        reverse("workspace:website", kwargs=slug),
        reverse("workspace:backtest", kwargs=slug),
        reverse("admin:index"),
        reverse("admin:league_league_changelist"),
        reverse("admin:league_league_change", args=[league.pk]),
        reverse("admin:league_event_changelist"),
        reverse("admin:league_player_changelist"),
        reverse("workspace:import", kwargs=slug),
    ]
    for url in admin_pages:
        violations += visit(page, live_server.url + url)

    page.set_input_files(
        "input[type=file]",
        files=[
            {
                "name": "results.csv",
                "mimeType": "text/csv",
                "buffer": b"date,player_a,player_b,score_a\n2024-03-01,Alice Moreau,Nobody,1-0\n",
            }
        ],
    )
    page.click("button:has-text('Upload and preview')")
    page.wait_for_load_state("networkidle")
    assert page.locator("#import-preview tr.import-error").count() == 1
    background = page.eval_on_selector(
        "#import-preview tr.import-error td", "cell => getComputedStyle(cell).backgroundColor"
    )
    assert background not in ("", "rgba(0, 0, 0, 0)")  # the preview's style sheet applied
    violations += [f"import preview: {v}" for v in page.evaluate("window.__cspViolations")]

    assert violations == [], "\n".join(violations)


def test_the_api_docs_and_the_browsable_api_load_with_no_csp_violation(
    csp_page, live_server, league
):
    page = csp_page
    violations = visit(page, live_server.url + reverse("api:docs"))
    page.wait_for_selector(".swagger-ui .opblock")  # the viewer ran and read the schema
    redoc = visit(page, live_server.url + reverse("api:redoc"))
    page.wait_for_selector("redoc .api-content, #redoc-container .api-content")
    # Redoc always tries to show its vendor's logo from its CDN: the policy refusing it is
    # the policy working (no page contacts another origin). Anything else counts.
    violations += [v for v in redoc if REDOC_LOGO not in v]
    # Redoc renders its menu (with the logo) after the content: with a larger schema the
    # refused logo can be reported once the next page is loading, so it is skipped there too.
    api_page = visit(page, live_server.url + reverse("api:league-list"))
    violations += [v for v in api_page if REDOC_LOGO not in v]
    assert page.locator("pre, .response-info").count() > 0
    assert violations == [], "\n".join(violations)


def test_the_docs_and_browsable_api_policies_are_narrow(client):
    swagger = client.get(reverse("api:docs"))["Content-Security-Policy"]
    redoc = client.get(reverse("api:redoc"))["Content-Security-Policy"]
    assert "'unsafe-inline'" not in swagger
    assert "script-src 'self' 'nonce-" in swagger
    assert "script-src 'self';" in redoc
    assert "style-src 'self' 'unsafe-inline'" in redoc
    browsable = client.get(reverse("api:league-list"), HTTP_ACCEPT="text/html")
    assert "style-src 'self' 'unsafe-inline'" in browsable["Content-Security-Policy"]
    assert "script-src 'self';" in browsable["Content-Security-Policy"]
    json_policy = client.get(reverse("api:league-list"))["Content-Security-Policy"]
    assert "'unsafe-inline'" not in json_policy
    for policy in (swagger, redoc):
        assert "frame-ancestors 'none'" in policy
        assert "object-src 'none'" in policy
