"""The workspace's CSV import through the test client: upload, preview, confirm, undo, access.

The preview shows every bad row with every cell of the file's own columns and the message
beside it; a file saved with semicolons and day-first dates is read as such (or the dates are
asked about); a confirmed import ends on the workspace and is undone in one step.
"""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from league import services
from league.calendar import league_day
from league.models import Event, MatchFormat, Player
from web.workspace import imports
from web.workspace.imports import SESSION_KEY

GOOD = b"date,player_a,player_b,score_a,id\n2024-03-01,Ann,Bob,1-0,r1\n2024-03-02,Bob,Ann,0.5,r2\n"
BAD = (
    b"date,player_a,player_b,score_a,id\n2024-03-01,Ann,Bob,1-0,r1\n"
    b"2024-03-02,Ann,Ann,1,r2\n2024-03-03,Bob,Ann,0,r3\n"
)


@pytest.fixture
def var_dir(settings, tmp_path) -> Path:
    settings.VAR_DIR = tmp_path
    return tmp_path


@pytest.fixture
def players(league, var_dir):
    return services.register_player(league, "Ann"), services.register_player(league, "Bob")


@pytest.fixture
def signed_in(client, organiser, players):
    client.force_login(organiser)
    return client


def upload_url(league) -> str:
    return reverse("workspace:import", args=[league.slug])


def upload(client, league, data: bytes, name: str = "results.csv", **extra):
    return client.post(
        upload_url(league), {"file": SimpleUploadedFile(name, data, "text/csv"), **extra}
    )


def events(league=None) -> list[tuple]:
    rows = Event.objects.all() if league is None else Event.objects.filter(league=league)
    return list(rows.order_by("pk").values_list())


def stored_uploads(var_dir: Path) -> list[Path]:
    return sorted((var_dir / "uploads").glob("*"))


def row_html(html: str, line: int) -> str:
    """The preview table's row of file line ``line``."""
    found = re.search(rf'<tr class="import-(\w+)" id="line-{line}">(.*?)</tr>', html, re.S)
    assert found is not None, f"line {line} is not in the preview"
    return found.group(0)


def cells_of(row: str) -> list[str]:
    return re.findall(r'<td data-label="[^"]*">(.*?)</td>', row, re.S)


def test_upload_preview_and_confirm_records_the_file_and_ends_on_the_workspace(
    signed_in, league, organiser, var_dir
):
    client = signed_in
    page = client.get(upload_url(league))
    assert page.status_code == 200
    assert 'type="file"' in page.content.decode()
    before = events(league)

    response = upload(client, league, GOOD)
    assert response.status_code == 302
    (stored,) = stored_uploads(var_dir)
    assert stored.read_bytes() == GOOD
    html = client.get(response["Location"]).content.decode()
    assert "2 results would be recorded" in html
    assert html.count('class="import-recorded"') == 2
    assert 'name="confirm"' in html
    assert events(league) == before

    done = client.post(response["Location"], {"confirm": "1"})
    assert done.status_code == 302
    assert done["Location"].startswith(upload_url(league) + "?imported=")
    matches = Event.objects.matches().filter(league=league).order_by("seq")
    assert [(m.idempotency_key, m.score_a, m.recorded_by) for m in matches] == [
        ("r1", Decimal("1"), organiser),
        ("r2", Decimal("0.5"), organiser),
    ]
    assert stored_uploads(var_dir) == []
    landing = client.get(done["Location"]).content.decode()
    assert "results.csv: 2 results recorded." in landing
    assert "Undo this import" in landing
    assert "admin" not in done["Location"]
    # The preview is gone with its file (the 404 page, in the site's layout, would show any
    # message still pending: so it is asked for after the landing page).
    assert client.get(response["Location"]).status_code == 404


def test_every_bad_row_is_shown_with_every_cell_and_its_message(signed_in, league, monkeypatch):
    # Past the preview's first rows too: bad rows are never cut.
    monkeypatch.setattr(imports, "PREVIEW_ROWS", 2)
    lines = [b"Date,Player_A,Player_B,Score_A,Note,Id"]
    bad = {}
    for n in range(15):
        day = f"2024-03-{n + 1:02d}"
        if n % 3 == 0:
            lines.append(f"{day},Ann,Bob,1,fine {n},g{n}".encode())
        elif n % 3 == 1:
            lines.append(f"{day},Ann,Ann,1,self {n},b{n}".encode())
            bad[n + 2] = ([day, "Ann", "Ann", "1", f"self {n}", f"b{n}"], "cannot play themselves")
        else:
            lines.append(f"{day},Bob,Nobody,0,stranger {n},b{n}".encode())
            bad[n + 2] = (
                [day, "Bob", "Nobody", "0", f"stranger {n}", f"b{n}"],
                "has no player named “Nobody”",
            )
    before = events(league)
    response = upload(signed_in, league, b"\n".join(lines) + b"\n")
    html = signed_in.get(response["Location"]).content.decode()

    assert "10 bad rows (of 15): nothing was recorded." in html
    # The file's own column names head the table.
    header = re.search(r"<thead>(.*?)</thead>", html, re.S).group(1)
    for name in ("Date", "Player_A", "Player_B", "Score_A", "Note", "Id"):
        assert f'<th scope="col">{name}</th>' in header
    assert html.count('class="import-error"') == 10
    for line, (cells, message) in bad.items():
        row = row_html(html, line)
        assert cells_of(row) == cells, line
        assert message in row, line
    assert 'name="confirm"' not in html
    # Confirming anyway (a hand-made POST) still records nothing.
    signed_in.post(response["Location"], {"confirm": "1"})
    assert events(league) == before


def test_messages_name_the_files_own_columns(signed_in, league):
    data = b"Date,Player_A,Player_B,Score_A\n2023-06-01,Ann,Bob,1\n"
    response = upload(signed_in, league, data)
    row = row_html(signed_in.get(response["Location"]).content.decode(), 2)
    assert "Date: 2023-06-01 is before the league started (2024-01-01)." in row
    assert "played_at" not in row


def test_a_side_match_row_keeps_its_cells_in_the_preview(signed_in, league, make_player):
    league.match_format = MatchFormat.FIXED
    league.side_size = 2
    league.save()
    for name in ("Cai", "Dee"):
        make_player(league, name)
    data = (
        b"date,side_a,side_b,score_a\n2024-03-01,Ann; Bob,Cai; Dee,1\n"
        b"2024-03-02,Ann; Bob,Ann; Dee,0\n"
    )
    response = upload(signed_in, league, data)
    html = signed_in.get(response["Location"]).content.decode()
    row = row_html(html, 3)
    assert cells_of(row) == ["2024-03-02", "Ann; Bob", "Ann; Dee", "0"]
    assert "Ann is on side A and side B" in row
    assert cells_of(row_html(html, 2)) == ["2024-03-01", "Ann; Bob", "Cai; Dee", "1"]


def test_rows_already_recorded_are_shown_as_skipped(signed_in, league):
    first = upload(signed_in, league, GOOD)
    signed_in.post(first["Location"], {"confirm": "1"})
    again = upload(signed_in, league, GOOD)
    html = signed_in.get(again["Location"]).content.decode()
    assert html.count('class="import-skipped"') == 2
    assert 'name="confirm"' not in html


def test_registering_new_players_is_an_explicit_choice(signed_in, league):
    data = b"date,player_a,player_b,score_a\n2024-03-01,Ann,Newcomer,1\n"
    refused = upload(signed_in, league, data)
    assert "has no player named “Newcomer”" in signed_in.get(refused["Location"]).content.decode()
    allowed = upload(signed_in, league, data, create_players="on")
    assert "New players: Newcomer." in signed_in.get(allowed["Location"]).content.decode()
    signed_in.post(allowed["Location"], {"confirm": "1"})
    assert Player.objects.filter(league=league, display_name="Newcomer").exists()


def test_cancel_removes_the_upload_and_records_nothing(signed_in, league, var_dir):
    response = upload(signed_in, league, GOOD)
    cancelled = signed_in.post(response["Location"], {"cancel": "1"})
    assert cancelled["Location"] == upload_url(league)
    assert stored_uploads(var_dir) == []
    assert signed_in.get(response["Location"]).status_code == 404
    assert not Event.objects.matches().filter(league=league).exists()


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        ("results.csv", b"", "The submitted file is empty."),
        ("results.xlsx", b"PK\x03\x04" + b"\x00" * 40, "a spreadsheet workbook (.xlsx or .ods)"),
        ("results.csv", b"PK\x03\x04" + b"\x00" * 40, "save it as CSV (UTF-8)"),
        ("results.xls", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 40, "(.xls)"),
        ("results.csv", "date,player_a\n".encode("utf-16"), "text saved as UTF-16"),
        ("scan.csv", bytes(range(32)) * 8, "This file is not text"),
        ("results.pdf", GOOD, "its name ends in .csv (or .txt)"),
    ],
    ids=["empty", "xlsx", "xlsx-named-csv", "xls", "utf-16", "binary", "pdf-name"],
)
def test_a_file_that_is_not_csv_is_refused_with_a_message_and_nothing_stored(
    signed_in, league, var_dir, name, data, message
):
    before = events()
    response = upload(signed_in, league, data, name=name)
    assert response.status_code == 200
    assert message in response.content.decode()
    assert stored_uploads(var_dir) == []
    assert events() == before


def test_an_oversized_file_is_refused_with_its_size_and_the_limit(signed_in, league, var_dir):
    before = events()
    row = b"2024-03-01,Ann,Bob,1\n"
    data = b"date,player_a,player_b,score_a\n" + row * (imports.MAX_UPLOAD_BYTES // len(row) + 1)
    response = upload(signed_in, league, data)
    assert response.status_code == 200
    html = response.content.decode()
    assert "The file is 2.0 MiB; the page takes files of up to 2 MiB." in html
    assert "manage.py import_results" in html
    assert stored_uploads(var_dir) == []
    assert events() == before


def test_a_file_without_the_columns_is_explained_and_offers_no_confirmation(signed_in, league):
    before = events(league)
    response = upload(signed_in, league, b"when,who,whom\n2024-03-01,Ann,Bob\n")
    html = signed_in.get(response["Location"]).content.decode()
    assert "missing columns: date, player_a, player_b" in html
    assert 'name="confirm"' not in html
    signed_in.post(response["Location"], {"confirm": "1"})
    assert events(league) == before


def test_a_semicolon_file_with_day_first_dates_is_read_as_such(signed_in, league):
    data = (
        b"Date;Player_A;Player_B;Score_A;Note\r\n"
        b'31/03/2024;Ann;Bob;0,5;"long game; adjourned"\r\n'
        b"01.04.2024 19:30;Bob;Ann;1;\r\n"
    )
    response = upload(signed_in, league, data)
    html = signed_in.get(response["Location"]).content.decode()
    assert "semicolons between its cells" in html
    assert "Dates are read day first (day/month/year): 31/03/2024 is 2024-03-31." in html
    assert cells_of(row_html(html, 2)) == [
        "31/03/2024",
        "Ann",
        "Bob",
        "0,5",
        "long game; adjourned",
    ]
    signed_in.post(response["Location"], {"confirm": "1"})
    matches = list(Event.objects.matches().filter(league=league).order_by("seq"))
    assert [(league_day(league, m.played_at), m.score_a, m.note) for m in matches] == [
        (dt.date(2024, 3, 31), Decimal("0.5"), "long game; adjourned"),
        (dt.date(2024, 4, 1), Decimal("1"), ""),
    ]


def test_dates_that_fit_both_orders_are_asked_about_before_anything_is_run(signed_in, league):
    data = b"date,player_a,player_b,score_a\n03/04/2024,Ann,Bob,1\n05/02/2024,Bob,Ann,0\n"
    response = upload(signed_in, league, data)
    html = signed_in.get(response["Location"]).content.decode()
    assert "Which is the day, which the month?" in html
    assert "such as 03/04/2024" in html
    assert 'name="confirm"' not in html
    # A confirmation before the answer records nothing.
    signed_in.post(response["Location"], {"confirm": "1"})
    assert not Event.objects.matches().filter(league=league).exists()

    signed_in.post(response["Location"], {"date_order": "mdy"})
    html = signed_in.get(response["Location"]).content.decode()
    assert "03/04/2024 is 2024-03-04" in html
    signed_in.post(response["Location"], {"confirm": "1"})
    days = [
        league_day(league, m.played_at)
        for m in Event.objects.matches().filter(league=league).order_by("seq")
    ]
    assert days == [dt.date(2024, 3, 4), dt.date(2024, 5, 2)]


def test_the_date_order_chosen_at_upload_is_used(signed_in, league):
    data = b"date,player_a,player_b,score_a\n03/04/2024,Ann,Bob,1\n"
    response = upload(signed_in, league, data, date_order="dmy")
    html = signed_in.get(response["Location"]).content.decode()
    assert "03/04/2024 is 2024-04-03" in html
    signed_in.post(response["Location"], {"confirm": "1"})
    match = Event.objects.matches().get(league=league)
    assert league_day(league, match.played_at) == dt.date(2024, 4, 3)


def test_undo_voids_every_match_of_the_import_in_one_step(signed_in, league, players, organiser):
    ann, bob = players
    before = services.record_match(
        league, player_a=ann, player_b=bob, score_a=1, played_at=dt.date(2024, 2, 1)
    )
    response = upload(signed_in, league, GOOD)
    landing = signed_in.post(response["Location"], {"confirm": "1"})["Location"]
    token = re.search(r"imported=([^#&]+)", landing).group(1)
    after = services.record_match(
        league, player_a=bob, player_b=ann, score_a=0, played_at=dt.date(2024, 3, 5)
    )
    imported = list(Event.objects.matches().filter(league=league, idempotency_key__in=["r1", "r2"]))

    undone = signed_in.post(
        reverse("workspace:import_undo", args=[league.slug]), {"imported": token}
    )
    assert undone.status_code == 302
    voids = list(Event.objects.filter(league=league, kind="match_voided").order_by("seq"))
    assert sorted(void.voids_id for void in voids) == sorted(m.pk for m in imported)
    assert {(void.reason, void.recorded_by) for void in voids} == {
        ("Import of results.csv undone by the organiser.", organiser)
    }
    assert not Event.objects.filter(voids__in=[before, after]).exists()
    page = signed_in.get(undone["Location"]).content.decode()
    assert "Import of results.csv undone: 2 matches voided" in page
    assert "Undo this import" not in page

    # Again (a double click, another tab): nothing more is stored.
    count = Event.objects.count()
    signed_in.post(reverse("workspace:import_undo", args=[league.slug]), {"imported": token})
    assert Event.objects.count() == count


@pytest.mark.parametrize("token", ["", "forged", "eyJsZWFndWUiOjF9:forged"])
def test_an_undo_that_names_no_signed_import_voids_nothing(signed_in, league, players, token):
    ann, bob = players
    services.record_match(
        league, player_a=ann, player_b=bob, score_a=1, played_at=dt.date(2024, 2, 1)
    )
    before = events(league)
    response = signed_in.post(
        reverse("workspace:import_undo", args=[league.slug]), {"imported": token}
    )
    assert response.status_code == 302
    assert events(league) == before


def test_an_import_of_one_league_cannot_be_undone_from_another(
    client, organiser, league, other_league, players
):
    other_league.organisers.add(organiser)
    client.force_login(organiser)
    response = upload(client, league, GOOD)
    landing = client.post(response["Location"], {"confirm": "1"})["Location"]
    token = re.search(r"imported=([^#&]+)", landing).group(1)
    before = events()
    client.post(reverse("workspace:import_undo", args=[other_league.slug]), {"imported": token})
    assert events() == before


def test_a_second_confirmation_of_one_upload_imports_nothing_twice(signed_in, league):
    data = b"date,player_a,player_b,score_a\n2024-03-01,Ann,Bob,1\n"  # no ids to deduplicate
    response = upload(signed_in, league, data)
    signed_in.post(response["Location"], {"confirm": "1"})
    again = signed_in.post(response["Location"], {"confirm": "1"})
    assert again.status_code == 404
    assert Event.objects.matches().filter(league=league).count() == 1


def test_anonymous_visitors_are_sent_to_sign_in_and_nothing_is_stored(
    client, league, players, var_dir
):
    before = events()
    for response in (
        client.get(upload_url(league)),
        upload(client, league, GOOD),
        client.get(reverse("workspace:import_preview", args=[league.slug, "a" * 32])),
        client.post(reverse("workspace:import_undo", args=[league.slug]), {"imported": "x"}),
    ):
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("accounts:sign_in"))
    assert stored_uploads(var_dir) == []
    assert events() == before


def test_an_organiser_of_another_league_is_refused_and_nothing_is_stored(
    client, organiser, other_organiser, league, players, var_dir
):
    client.force_login(other_organiser)
    assert client.get(upload_url(league)).status_code == 403
    assert upload(client, league, GOOD).status_code == 403
    assert stored_uploads(var_dir) == []

    # Nor confirm or undo an upload made by the league's organiser (another session).
    client.force_login(organiser)
    location = upload(client, league, GOOD)["Location"]
    token = location.rstrip("/").rsplit("/", 1)[1]
    client.force_login(other_organiser)
    assert client.post(location, {"confirm": "1"}).status_code == 403
    assert not Event.objects.matches().filter(league=league).exists()
    assert (var_dir / "uploads" / f"{token}.csv").is_file()


def test_an_upload_is_bound_to_its_league(client, organiser, other_league, league, players):
    other_league.organisers.add(organiser)
    client.force_login(organiser)
    location = upload(client, league, GOOD)["Location"]
    token = location.rstrip("/").rsplit("/", 1)[1]
    elsewhere = reverse("workspace:import_preview", args=[other_league.slug, token])
    assert client.post(elsewhere, {"confirm": "1"}).status_code == 404
    assert not Event.objects.matches().exists()


def test_a_forged_token_is_a_404(signed_in, league):
    session = signed_in.session
    session[SESSION_KEY] = {"../../etc/passwd": {"league": league.pk, "name": "x"}}
    session.save()
    forged = upload_url(league) + "..%2F..%2Fetc%2Fpasswd/"
    assert signed_in.get(forged).status_code == 404
    assert signed_in.get(upload_url(league) + "abc/").status_code == 404


def test_a_superuser_may_import_into_any_league(client, superuser, other_league, var_dir):
    services.register_player(other_league, "Ann")
    services.register_player(other_league, "Bob")
    client.force_login(superuser)
    location = upload(client, other_league, GOOD)["Location"]
    client.post(location, {"confirm": "1"})
    assert Event.objects.matches().filter(league=other_league).count() == 2


def test_the_hub_and_the_nav_lead_to_the_import_page(signed_in, league):
    hub = signed_in.get(reverse("workspace:hub", args=[league.slug])).content.decode()
    assert f'href="{upload_url(league)}"' in hub
    nav = signed_in.get(reverse("workspace:log", args=[league.slug])).content.decode()
    assert f'<a href="{upload_url(league)}">Import</a>' in nav


def test_a_player_status_row_is_previewed_and_applied_on_confirming(signed_in, league):
    data = (
        b"date,player_a,player_b,score_a,id,note,player_status\n"
        b"2024-03-01,Ann,Bob,1-0,r1,,\n"
        b",Bob,,,,moved away,inactive\n"
    )
    response = upload(signed_in, league, data)
    html = signed_in.get(response["Location"]).content.decode()
    assert 'class="import-recorded"' in row_html(html, 3)
    assert Player.objects.get(display_name="Bob").active  # a preview changes nothing
    assert signed_in.post(response["Location"], {"confirm": "1"}).status_code == 302
    assert not Player.objects.get(display_name="Bob").active
    assert Event.objects.matches().filter(league=league).count() == 1
