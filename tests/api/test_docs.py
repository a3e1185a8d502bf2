"""The OpenAPI schema and its viewers: valid, warning-free, and usable offline."""

from __future__ import annotations

import re

import pytest
from django.contrib.staticfiles import finders
from django.core.management import call_command
from django.urls import reverse

pytestmark = pytest.mark.django_db

# Any absolute URL in the page: offline viewers must load everything from this server.
ABSOLUTE_URL = re.compile(r"""(?:src|href)\s*=\s*["'](?:https?:)?//""", re.IGNORECASE)


def test_schema_is_openapi_3_and_lists_the_endpoints(anon):
    response = anon.get(reverse("api:schema"), {"format": "json"})
    assert response.status_code == 200
    document = response.json()
    assert document["openapi"].startswith("3.")
    paths = document["paths"]
    for path in (
        "/api/leagues/",
        "/api/leagues/{league_slug}/matches/",
        "/api/leagues/{league_slug}/rounds/",
        "/api/leagues/{league_slug}/standings/",
        "/api/leagues/{league_slug}/configs/",
        "/api/leagues/{league_slug}/replays/",
    ):
        assert path in paths
    record = paths["/api/leagues/{league_slug}/matches/"]["post"]
    assert {"201", "400", "401", "403", "422"} <= set(record["responses"])
    assert any(p["name"] == "Idempotency-Key" for p in record["parameters"])


def test_schema_validates_without_warnings(tmp_path):
    call_command(
        "spectacular", "--validate", "--fail-on-warn", "--file", str(tmp_path / "schema.yaml")
    )
    assert (tmp_path / "schema.yaml").read_text().startswith("openapi: 3")


@pytest.mark.parametrize("name", ["api:docs", "api:redoc"])
def test_viewers_load_only_local_assets(anon, name):
    response = anon.get(reverse(name))
    assert response.status_code == 200
    html = response.content.decode()
    assert "cdn" not in html.lower()
    assert not ABSOLUTE_URL.search(html), ABSOLUTE_URL.search(html)
    assets = re.findall(r"""(?:src|href)\s*=\s*["'](/static/[^"']+)["']""", html)
    assert assets, "the viewer references no static assets"
    for asset in assets:
        relative = asset.removeprefix("/static/")
        assert finders.find(relative), f"{asset} is not a local static file"
    assert reverse("api:schema") in html


def test_unknown_api_paths_answer_json_404(anon):
    for path in ("/api/nothing/", "/api/leagues/riverside/players/-1/"):
        response = anon.get(path)
        assert response.status_code == 404
        assert response.json() == {"detail": "Not found.", "code": "not_found", "errors": {}}
    response = anon.post("/api/nothing/", {}, format="json")
    assert response.status_code == 404
