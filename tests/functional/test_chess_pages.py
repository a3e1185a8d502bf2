"""A chess league's pages through the test client: White and Black everywhere, no neutral
box, White's advantage, the PGN import on the workspace (preview, confirm, undo) and seeds
from the players page. Other sports keep their words."""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from league import services
from league.fixtures import schedule_fixture
from league.models import Event, League
from tests.functional.conftest import rate, record_results

PGN = b"""[Event "Club Championship"]
[Date "2024.03.01"]
[Round "1"]
[White "Ann"]
[Black "Bob"]
[Result "1-0"]

1. e4 e5 1-0

[Event "Club Championship"]
[Date "2024.03.02"]
[Round "2"]
[White "Bob"]
[Black "Ann"]
[Result "1/2-1/2"]

1. d4 d5 1/2-1/2
"""


@pytest.fixture
def var_dir(settings, tmp_path):
    settings.VAR_DIR = tmp_path
    return tmp_path


@pytest.fixture
def players(league):
    return services.register_player(league, "Ann"), services.register_player(league, "Bob")


@pytest.fixture
def signed_in(client, organiser, players, var_dir):
    client.force_login(organiser)
    return client


def page(client, name: str, league, *args) -> str:
    response = client.get(reverse(name, args=[league.slug, *args]))
    assert response.status_code == 200
    return response.content.decode()


def test_the_round_page_names_white_and_black_and_has_no_neutral_box(signed_in, league):
    # A chess league made by ``create_league --sport chess --results-only``.
    league.records_points = False
    league.save()
    html = page(signed_in, "workspace:round", league)
    head = re.search(r"<thead>(.*?)</thead>", html, re.S).group(1)
    assert re.findall(r"<th[^>]*>([^<]*)</th>", head)[1:4] == ["White", "Result", "Black"]
    assert "neutral" not in html
    assert "Neutral" not in head
    assert 'aria-label="White"' in html
    assert 'aria-label="Black"' in html
    assert "The result is from White's side" in html


def test_the_match_form_names_white_and_black(signed_in, league):
    html = page(signed_in, "workspace:record", league)
    assert re.search(r'<label for="id_player_a">White', html)
    assert re.search(r'<label for="id_player_b">Black', html)
    assert 'name="neutral"' not in html


def test_other_sports_keep_first_and_second_player_and_the_neutral_box(
    client, other_league, other_organiser
):
    client.force_login(other_organiser)
    html = page(client, "workspace:round", other_league)
    assert ">First player</th>" in html
    assert 'name="results-0-neutral"' in html
    assert "White" not in html


def test_public_pages_show_colours(client, league, players):
    ann, bob = players
    record_results(
        league, [(ann, bob, "1", dt.date(2024, 3, 1)), (bob, ann, "0.5", dt.date(2024, 3, 2))]
    )
    rate(league, advantage=35.0)
    matches = page(client, "pages:matches", league)
    assert re.search(
        r"data-key>White</th>.*data-key>Result</th>.*data-key>Black</th>", matches, re.S
    )
    assert "Player A" not in matches
    assert "\u00bd\u2013\u00bd" in matches
    player = page(client, "pages:player", league, ann.slug)
    colours = re.findall(r'<td class="colour colour--(white|black)">(\w+)</td>', player)
    # Newest first: Black against Bob on 2 March, White on 1 March.
    assert colours == [("black", "Black"), ("white", "White")]
    versus = client.get(
        reverse("pages:versus", args=[league.slug]), {"a": ann.slug, "b": bob.slug}
    ).content.decode()
    assert re.search(r'<label for="id_a">White</label>', versus)
    assert re.search(r'<label for="id_b">Black</label>', versus)
    assert "Ann has White and gets this league's White's advantage of 35" in versus
    assert "home side" not in versus


def test_the_configuration_page_calls_the_advantage_white_s(signed_in, league):
    rate(league, advantage=35.0)
    html = page(signed_in, "workspace:config", league)
    assert re.search(r'<label for="id_advantage">White&#x27;s advantage', html)
    assert "<dt>White's advantage</dt>" in html
    assert "35.0 rating points for White in every game" in html
    assert "First-named side" not in html


def test_fixtures_show_who_has_white(client, league, players):
    ann, bob = players
    schedule_fixture(
        league, player_a=ann, player_b=bob, scheduled_at=dt.datetime(2030, 1, 5, 18, tzinfo=dt.UTC),
        deadline=dt.date(2030, 1, 12),
    )  # fmt: skip
    html = page(client, "pages:fixtures", league)
    assert re.search(r'colour--white">White</span> <a [^>]*>Ann</a>', html)
    assert re.search(r'colour--black">Black</span> <a [^>]*>Bob</a>', html)


# --- PGN import on the workspace ---


def upload(client, league, data: bytes, name: str = "games.pgn"):
    return client.post(
        reverse("workspace:import", args=[league.slug]),
        {"file": SimpleUploadedFile(name, data, "application/x-chess-pgn")},
    )


def test_a_pgn_file_is_previewed_confirmed_and_undone_like_a_csv_file(signed_in, league, organiser):
    before = Event.objects.filter(league=league).count()
    response = upload(signed_in, league, PGN)
    assert response.status_code == 302
    preview = signed_in.get(response["Location"]).content.decode()
    assert "2 results would be recorded" in preview
    head = re.search(r"<thead>(.*?)</thead>", preview, re.S).group(1)
    assert re.findall(r'<th scope="col"[^>]*>([^<]*)</th>', head) == [
        "Line", "Outcome", "White", "Black", "Result", "Date", "Note",
    ]  # fmt: skip
    # The second game's tags start on line 10 (six tags, an empty line, moves, an empty line).
    row = re.search(r'<tr class="import-recorded" id="line-10">(.*?)</tr>', preview, re.S).group(1)
    assert re.findall(r'<td data-label="[^"]*">(.*?)</td>', row) == [
        "Bob", "Ann", "\u00bd\u2013\u00bd", "2024-03-02", "Club Championship, round 2",
    ]  # fmt: skip
    assert Event.objects.filter(league=league).count() == before

    done = signed_in.post(response["Location"], {"confirm": "1"})
    assert done.status_code == 302
    games = Event.objects.matches().filter(league=league).order_by("seq")
    assert [(g.player_a.display_name, g.player_b.display_name, g.score_a) for g in games] == [
        ("Ann", "Bob", Decimal("1")),
        ("Bob", "Ann", Decimal("0.5")),
    ]
    assert {g.recorded_by for g in games} == {organiser}
    token = re.search(r"imported=([^#&]+)", done["Location"]).group(1)
    undone = signed_in.post(
        reverse("workspace:import_undo", args=[league.slug]), {"imported": token}
    )
    assert undone.status_code == 302
    assert not Event.objects.live_matches().filter(league=league).exists()


def test_a_bad_pgn_file_shows_each_bad_game_and_records_nothing(signed_in, league):
    bad = PGN.replace(b'[Result "1/2-1/2"]', b'[Result "*"]').replace(
        b'[Date "2024.03.01"]', b'[Date "2024.03.??"]'
    )
    response = upload(signed_in, league, bad)
    preview = signed_in.get(response["Location"]).content.decode()
    before = Event.objects.filter(league=league).count()
    assert "2 bad rows (of 2): nothing was recorded." in preview
    first = re.search(r'id="line-1">(.*?)</tr>', preview, re.S).group(1)
    assert "game 1: the Date tag “2024.03.??” is not a day" in first
    second = re.search(r'id="line-10">(.*?)</tr>', preview, re.S).group(1)
    assert "game 2: the Result tag is “*”" in second
    assert 'name="confirm"' not in preview
    assert signed_in.post(response["Location"], {"confirm": "1"}).status_code == 200
    assert Event.objects.filter(league=league).count() == before


def test_a_service_message_names_the_pgn_tag(signed_in, league):
    early = PGN.replace(b'[Date "2024.03.01"]', b'[Date "2023.03.01"]')
    response = upload(signed_in, league, early)
    preview = signed_in.get(response["Location"]).content.decode()
    assert "Date: 2023-03-01 is before the league started" in preview


# --- seeds on the players page ---


def test_an_organiser_seeds_a_player_from_the_players_page(signed_in, league, players):
    ann, _bob = players
    url = reverse("workspace:player", args=[league.slug, ann.slug])
    response = signed_in.post(
        url,
        {"action": "seed", "rating": "1850", "list_kind": "fide", "games": "64", "rd": "",
         "reason": "FIDE list, March"},
    )  # fmt: skip
    assert response.status_code == 302
    seed = Event.objects.get(league=league, kind="player_seeded")
    assert (seed.player, seed.seed_rating, seed.seed_rd, seed.reason) == (
        ann, 1850.0, 80.0, "FIDE list, March",
    )  # fmt: skip
    html = signed_in.get(url).content.decode()
    assert "Seeded at 1850, RD 80." in html


@pytest.mark.parametrize(
    ("posted", "message"),
    [
        ({"rating": "eighteen hundred", "list_kind": "fide"}, "The listed rating must be"),
        ({"rating": "1800", "list_kind": "elo"}, "Unknown rating list"),
        ({"rating": "1800", "list_kind": "club", "rd": "1000"}, "The RD must be a number"),
        ({"rating": "1800", "list_kind": "club", "games": "many"}, "number of rated games"),
    ],
)
def test_a_bad_seed_on_the_page_says_why_and_stores_nothing(
    signed_in, league, players, posted, message
):
    ann, _bob = players
    before = Event.objects.filter(league=league).count()
    response = signed_in.post(
        reverse("workspace:player", args=[league.slug, ann.slug]),
        {"action": "seed", "reason": "list", **posted},
    )
    assert response.status_code == 400
    assert message in response.content.decode()
    assert Event.objects.filter(league=league).count() == before


def test_another_league_s_organiser_cannot_seed(client, other_organiser, league, players):
    ann, _bob = players
    client.force_login(other_organiser)
    response = client.post(
        reverse("workspace:player", args=[league.slug, ann.slug]),
        {"action": "seed", "rating": "1800", "list_kind": "club", "reason": "x"},
    )
    assert response.status_code in (403, 404)
    assert not Event.objects.filter(kind="player_seeded").exists()


# --- starting a chess league from the browser ---


def test_a_league_started_as_chess_from_the_workspace_is_a_chess_league(client, db):
    from tests.functional.test_self_service import sign_up, start_league

    sign_up(client)
    form = client.get(reverse("workspace:new_league")).content.decode()
    assert 'list="known-sports"' in form
    assert '<option value="Chess"></option>' in form
    assert start_league(client).status_code == 302
    league = League.objects.get(slug="riverside-chess")
    assert league.is_chess
    assert not league.records_points
    html = page(client, "workspace:round", league)
    assert 'aria-label="White"' in html


def test_a_50_mb_pgn_file_is_refused_by_the_page_with_the_command_to_use(signed_in, league):
    before = Event.objects.filter(league=league).count()
    response = upload(signed_in, league, PGN + b"\n" * (50 * 2**20))
    assert response.status_code == 200
    assert "The file is 50.0 MiB" in response.content.decode()
    assert "manage.py import_pgn" in response.content.decode()
    assert Event.objects.filter(league=league).count() == before


def test_head_to_head_calibration_speaks_of_white_and_black(client, league, players):
    ann, bob = players
    day = dt.date(2024, 3, 5)
    record_results(league, [(ann, bob, "1", day), (bob, ann, "0.5", day), (ann, bob, "0", day)])
    rate(league, advantage=30.0)
    response = client.get(reverse("pages:versus", args=[league.slug]), {"a": "ann", "b": "bob"})
    body = response.content.decode()
    assert "Calibration of White and Black" in body
    # White scored 1 (Ann), 0.5 (Bob) and 0 (Ann): 0.5 on average over three games.
    assert re.search(r"In 3 games, White scored 0\.500 on average against an expected", body)
    assert "home side" not in body
