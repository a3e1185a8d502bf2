"""TRF on the web: the workspace's upload with its preview, the public download and the API.

The file is ``tests.functional.test_trf.EXPECTED`` (a chess event written out by hand).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from league.chess.trf import MAX_FILE_BYTES
from league.chess.trf_export import export_competition
from league.chess.trf_import import import_trf
from league.models import Competition, Event, Player
from tests.functional.test_trf import EXPECTED


@pytest.fixture
def var_dir(settings, tmp_path) -> Path:
    settings.VAR_DIR = tmp_path
    return tmp_path


@pytest.fixture
def signed_in(client, organiser, var_dir):
    client.force_login(organiser)
    return client


def upload(client, league, data: bytes, name: str = "spring.trf", **extra):
    return client.post(
        reverse("workspace:import_trf", args=[league.slug]),
        {"file": SimpleUploadedFile(name, data, "text/plain"), **extra},
    )


def state() -> tuple:
    return (list(Event.objects.values_list("pk")), list(Player.objects.values_list("pk")))


def test_upload_preview_then_confirm_imports_the_event(signed_in, league):
    response = upload(signed_in, league, EXPECTED.encode())
    assert response.status_code == 302
    preview_url = response["Location"]
    before = state()
    page = signed_in.get(preview_url)
    html = page.content.decode()
    assert page.status_code == 200
    assert "Would import Spring Swiss (spring-swiss): 7 players (7 new)" in html
    assert html.count('<tr id="line-') == 7
    assert "A new player, Ann Able" in html
    assert 'name="confirm"' in html
    assert state() == before  # the preview stored nothing
    done = signed_in.post(preview_url, {"confirm": "1"})
    assert done.status_code == 302
    assert done["Location"] == reverse("pages:competition", args=[league.slug, "spring-swiss"])
    competition = Competition.objects.get(league=league, slug="spring-swiss")
    assert export_competition(competition) == EXPECTED
    assert signed_in.get(preview_url).status_code == 404  # the upload is gone


def test_existing_players_are_shown_as_matched(signed_in, league):
    Player.objects.filter(league=league).delete()
    from league import services

    services.register_player(league, "Ann Able")
    response = upload(signed_in, league, EXPECTED.encode())
    html = signed_in.get(response["Location"]).content.decode()
    assert "<strong>Ann Able</strong> (same name)" in html


def test_a_bad_file_shows_each_problem_with_its_line_and_column(signed_in, league):
    bad = EXPECTED.replace("   6 w +", "   6 w *").replace("   3 b =", "   3 r =")
    response = upload(signed_in, league, bad.encode())
    before = state()
    html = signed_in.get(response["Location"]).content.decode()
    assert "2 problems in the file: nothing was recorded." in html
    assert "Line 16, column 97: Unknown colour “r”" in html
    assert "Line 17, column 99: Unknown result code “*”" in html
    assert 'name="confirm"' not in html
    assert signed_in.post(response["Location"], {"confirm": "1"}).status_code == 200
    assert state() == before


def test_filling_an_existing_event_is_chosen_on_the_form(signed_in, league):
    import_trf(league, EXPECTED.encode(), event_slug="spring")
    response = upload(signed_in, league, EXPECTED.encode(), event="spring")
    html = signed_in.get(response["Location"]).content.decode()
    assert "Would import Spring Swiss (spring): 7 players (0 new), 0 rounds" in html


@pytest.mark.parametrize(
    ("data", "name", "message"),
    [
        (b"%PDF-1.4 not a tournament", "spring.trf", "a PDF document, not a TRF file"),
        (b"012 x\n", "spring.xlsx", "its name ends in .trf, .trfx or .txt"),
        (b"#" * (MAX_FILE_BYTES + 1), "huge.trf", "a TRF file may have at most 5 MiB"),
    ],
)
def test_the_form_refuses_what_is_no_trf_file(signed_in, league, data, name, message):
    before = state()
    response = upload(signed_in, league, data, name)
    assert response.status_code == 200
    assert message in response.content.decode()
    assert state() == before


def test_only_the_leagues_organisers_may_import(client, league, other_organiser, var_dir):
    url = reverse("workspace:import_trf", args=[league.slug])
    assert client.get(url).status_code == 302  # to sign in
    client.force_login(other_organiser)
    assert client.get(url).status_code == 403
    assert upload(client, league, EXPECTED.encode()).status_code == 403
    assert not Competition.objects.exists()


def test_the_upload_needs_its_csrf_token(organiser, league, var_dir):
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(organiser)
    assert upload(strict, league, EXPECTED.encode()).status_code == 403


# --- downloads ------------------------------------------------------------------------------


@pytest.fixture
def spring(league) -> Competition:
    report = import_trf(league, EXPECTED.encode())
    assert report.ok
    return Competition.objects.get(league=league, slug=report.slug)


def test_anyone_downloads_the_events_trf(client, league, spring):
    url = reverse("pages:competition_trf", args=[league.slug, spring.slug])
    page = client.get(reverse("pages:competition", args=[league.slug, spring.slug]))
    assert f'href="{url}" download>Download the TRF file</a>' in page.content.decode()
    response = client.get(url)
    assert response.status_code == 200
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    assert response["Content-Disposition"] == 'attachment; filename="riverside-spring-swiss.trf"'
    assert response.content == EXPECTED.encode()
    assert (
        client.get(reverse("pages:competition_trf", args=[league.slug, "nope"])).status_code == 404
    )


def test_the_api_returns_the_events_trf(league, spring):
    api = APIClient()
    url = reverse("api:export-competition-trf", args=[league.slug, spring.slug])
    response = api.get(url)
    assert response.status_code == 200
    assert response.content == EXPECTED.encode()
    flavoured = api.get(url, {"flavour": "trf-x"}).content.decode()
    assert "XXR 4\r\n" in flavoured
    assert "142 4" not in flavoured
    bad = api.get(url, {"flavour": "trf-y"})
    assert bad.status_code == 400
    assert "flavour" in bad.json()["errors"]
    missing = api.get(reverse("api:export-competition-trf", args=[league.slug, "nope"]))
    assert missing.status_code == 404
    assert missing["Content-Type"].startswith("application/json")
