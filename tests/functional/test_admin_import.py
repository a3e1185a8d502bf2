"""The admin's CSV import through the test client: upload, preview, confirm, permissions."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from league import services
from league.admin_import import SESSION_KEY
from league.models import Event, Player

GOOD = b"date,player_a,player_b,score_a,id\n2024-03-01,Ann,Bob,1-0,r1\n2024-03-02,Bob,Ann,0.5,r2\n"
BAD = (
    b"date,player_a,player_b,score_a,id\n2024-03-01,Ann,Bob,1-0,r1\n"
    b"2024-03-02,Ann,Ann,1,r2\n2024-03-03,Bob,Ann,0,r3\n"
)


@pytest.fixture
def staff(organiser, other_organiser, league, other_league, settings, tmp_path):
    settings.VAR_DIR = tmp_path
    for user in (organiser, other_organiser):
        user.is_staff = True
        user.save()
    services.register_player(league, "Ann")
    services.register_player(league, "Bob")
    return tmp_path


def upload_url(league) -> str:
    return reverse("admin:league_import", args=[league.pk])


def upload(client, league, data: bytes, **extra):
    return client.post(
        upload_url(league),
        {"file": SimpleUploadedFile("results.csv", data, "text/csv"), **extra},
    )


def events(league) -> list[tuple]:
    return list(Event.objects.filter(league=league).order_by("pk").values_list())


def stored_uploads(var_dir: Path) -> list[Path]:
    return sorted((var_dir / "uploads").glob("*.csv"))


def test_the_league_page_links_to_the_import(client, organiser, league, staff):
    client.force_login(organiser)
    page = client.get(reverse("admin:league_league_change", args=[league.pk]))
    assert upload_url(league) in page.content.decode()


def test_upload_preview_and_confirm_records_the_file(client, organiser, league, staff):
    client.force_login(organiser)
    assert client.get(upload_url(league)).status_code == 200
    before = events(league)

    response = upload(client, league, GOOD)
    assert response.status_code == 302
    (stored,) = stored_uploads(staff)
    assert stored.read_bytes() == GOOD
    preview = client.get(response["Location"])
    html = preview.content.decode()
    assert "would record 2 result(s)" in html
    assert html.count('class="import-recorded"') == 2
    assert 'name="confirm"' in html
    assert events(league) == before

    done = client.post(response["Location"], {"confirm": "1"})
    assert done.status_code == 302
    assert done["Location"] == reverse("admin:league_league_change", args=[league.pk])
    matches = Event.objects.matches().filter(league=league).order_by("seq")
    assert [(m.idempotency_key, m.recorded_by) for m in matches] == [
        ("r1", organiser),
        ("r2", organiser),
    ]
    assert stored_uploads(staff) == []
    assert client.get(response["Location"]).status_code == 404


def test_the_preview_highlights_bad_rows_and_offers_no_confirmation(
    client, organiser, league, staff
):
    client.force_login(organiser)
    before = events(league)
    response = upload(client, league, BAD)
    html = client.get(response["Location"]).content.decode()
    assert "1 bad row(s) in 3 row(s): nothing was recorded." in html
    assert "line 3: a player cannot play themselves" in html
    assert html.count('class="import-error"') == 1
    assert 'name="confirm"' not in html
    # Confirming anyway (a hand-made POST) still records nothing.
    client.post(response["Location"], {"confirm": "1"})
    assert events(league) == before


def test_the_preview_shows_rows_already_recorded_as_skipped(client, organiser, league, staff):
    client.force_login(organiser)
    first = upload(client, league, GOOD)
    client.post(first["Location"], {"confirm": "1"})
    again = upload(client, league, GOOD)
    html = client.get(again["Location"]).content.decode()
    assert html.count('class="import-skipped"') == 2
    assert 'name="confirm"' not in html


def test_create_players_is_an_explicit_choice(client, organiser, league, staff):
    client.force_login(organiser)
    data = b"date,player_a,player_b,score_a\n2024-03-01,Ann,Newcomer,1\n"
    refused = upload(client, league, data)
    assert "unknown player" in client.get(refused["Location"]).content.decode()
    allowed = upload(client, league, data, create_players="on")
    client.post(allowed["Location"], {"confirm": "1"})
    assert Player.objects.filter(league=league, display_name="Newcomer").exists()


def test_cancel_removes_the_upload(client, organiser, league, staff):
    client.force_login(organiser)
    response = upload(client, league, GOOD)
    client.post(response["Location"], {"cancel": "1"})
    assert stored_uploads(staff) == []
    assert client.get(response["Location"]).status_code == 404
    assert not Event.objects.matches().filter(league=league).exists()


def test_an_organiser_of_another_league_cannot_import(
    client, organiser, other_organiser, league, staff
):
    client.force_login(other_organiser)
    assert client.get(upload_url(league)).status_code == 404
    assert upload(client, league, GOOD).status_code == 404
    assert stored_uploads(staff) == []

    # Nor confirm an upload made by the league's organiser (another session).
    client.force_login(organiser)
    location = upload(client, league, GOOD)["Location"]
    client.force_login(other_organiser)
    assert client.post(location, {"confirm": "1"}).status_code == 404
    assert not Event.objects.matches().filter(league=league).exists()


def test_an_upload_is_bound_to_its_league(client, organiser, other_league, league, staff):
    other_league.organisers.add(organiser)
    client.force_login(organiser)
    location = upload(client, league, GOOD)["Location"]
    token = location.rstrip("/").rsplit("/", 1)[1]
    elsewhere = reverse("admin:league_import_preview", args=[other_league.pk, token])
    assert client.post(elsewhere, {"confirm": "1"}).status_code == 404
    assert not Event.objects.matches().exists()


def test_a_forged_token_is_a_404(client, organiser, league, staff):
    client.force_login(organiser)
    session = client.session
    session[SESSION_KEY] = {"../../etc/passwd": {"league": league.pk, "name": "x"}}
    session.save()
    forged = reverse("admin:league_import_preview", args=[league.pk, "..%2F..%2Fetc%2Fpasswd"])
    assert client.get(forged).status_code == 404
    assert client.get(upload_url(league).replace("import/", "import/abc/")).status_code == 404


def test_anonymous_users_are_sent_to_the_login_page(client, league, staff):
    response = client.get(upload_url(league))
    assert response.status_code == 302
    assert reverse("admin:login") in response["Location"]


def test_a_superuser_may_import_into_any_league(client, superuser, other_league, staff):
    services.register_player(other_league, "Ann")
    services.register_player(other_league, "Bob")
    client.force_login(superuser)
    location = upload(client, other_league, GOOD)["Location"]
    client.post(location, {"confirm": "1"})
    assert Event.objects.matches().filter(league=other_league).count() == 2
