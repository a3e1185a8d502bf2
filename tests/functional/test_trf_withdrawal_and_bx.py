"""A withdrawal in TRF (the rounds after it written blank, read back as the withdrawal) and
the TRF(bx) flavour (TRF(x) with bbpPairings' point records; XXA for accelerations)."""

from __future__ import annotations

import datetime as dt
import io

import pytest
from django.core.management import call_command

from league import competitions, services
from league.chess import trf
from league.chess.trf_export import export_competition
from league.chess.trf_import import import_trf
from league.models import Competition, League, RoundBye
from tests.unit.test_trf import player_line

pytestmark = pytest.mark.django_db

NAMES = ["Ann Able", "Bob Baker", "Cem Cole", "Dee Dunn", "Eve Eng"]


def make_event(league: League, **settings) -> Competition:
    event = competitions.create_competition(league, name="Club Swiss", **settings)
    for index, name in enumerate(NAMES):
        player = services.register_player(league, name)
        competitions.enter_player(event, player, seed_rating=2100 - 100 * index)
    return event


def play_round(league: League, event: Competition, round_number: int) -> None:
    call_command("pair_round", league.slug, event.slug, stdout=io.StringIO())
    for fixture in event.fixtures.filter(round_number=round_number):
        services.record_fixture_result(league, fixture, score_a="0.5")


def line_of(text: str, start_number: int) -> str:
    return next(line for line in text.split("\r\n") if line.startswith(f"001 {start_number:>4}"))


def test_a_withdrawal_is_written_blank_and_read_back_as_a_withdrawal(league, organiser):
    event = make_event(league, planned_rounds=4)
    play_round(league, event, 1)
    dee = event.entrants.get(number=4).player
    competitions.withdraw_player(event, dee, from_round=2, recorded_by=organiser)
    play_round(league, event, 2)
    play_round(league, event, 3)
    first = export_competition(event)
    dee_line = line_of(first, 4)
    # Rounds 2 and 3 (columns 102-109 and 112-119): no opponent, no result (the line's
    # trailing blanks are not written).
    assert dee_line[101:109] == "0000 -  "
    assert dee_line[111:] == "0000 -"
    assert trf.read(first.encode()).players[3].rounds[1].absent

    copy = League.objects.create(
        name="Copy", slug="copy", sport="Chess", start_date=dt.date(2024, 1, 1)
    )
    report = import_trf(copy, first.encode())
    assert report.ok, [str(problem) for problem in report.problems]
    assert report.withdrawals == 1
    imported = Competition.objects.get(league=copy, slug=report.slug)
    entrant = imported.entrants.get(number=4)
    assert entrant.withdrawn_from_round == 2
    assert not RoundBye.objects.filter(competition=imported, player=entrant.player).exists()
    assert export_competition(imported) == first


def test_a_blank_round_between_games_is_still_a_zero_point_bye(db):
    lines = [
        "012 Gaps",
        "142 3",
        player_line(1, "One", "1.5", ["   2 w 1", "0000 -  ", "   3 w ="], rating="2000"),
        player_line(2, "Two", "1.5", ["   1 b 0", "   3 w =", "0000 - U"], rating="1900"),
        player_line(3, "Three", "2.0", ["0000 - U", "   2 b =", "   1 b ="], rating="1800"),
    ]
    league = League.objects.create(
        name="Gaps", slug="gaps", sport="Chess", start_date=dt.date(2024, 1, 1)
    )
    report = import_trf(league, "\r\n".join(lines).encode())
    assert report.ok, [str(problem) for problem in report.problems]
    assert report.withdrawals == 0
    event = Competition.objects.get(league=league, slug=report.slug)
    bye = RoundBye.objects.get(competition=event, round_number=2, player__display_name="One")
    assert bye.kind == "requested_zero"
    assert event.entrants.get(number=1).withdrawn_from_round is None


def test_trf_bx_spells_out_the_point_system_and_writes_accelerations_as_xxa(league, organiser):
    event = make_event(league, planned_rounds=5, bye_points="0.5", accelerated=True)
    play_round(league, event, 1)
    text = export_competition(event, trf.TRF_BX)
    lines = text.split("\r\n")
    # TRF(x)'s XXR and XXC instead of 142 and 152; bbpPairings' BB? records (README of
    # bbpPairings: "BBW pp.p" for a win, draw, played loss, zero-point bye, forfeit loss,
    # pairing-allocated bye).
    assert "XXR 5" in lines
    assert "XXC white1" in lines
    assert not any(line.startswith(("142", "152", "250")) for line in lines)
    assert [line for line in lines if line.startswith("BB")] == [
        "BBW  1.0", "BBD  0.5", "BBL  0.0", "BBZ  0.0", "BBF  0.0", "BBU  0.5",
    ]  # fmt: skip
    # Baku for 5 players and 5 rounds: group A is 1-4, a point in rounds 1-2, half in 3.
    assert [line for line in lines if line.startswith("XXA")] == [
        f"XXA {number:>4}  1.0  1.0  0.5" for number in (1, 2, 3, 4)
    ]
    # TRF(x) has the same accelerations, without the point records.
    plain_x = export_competition(event, trf.TRF_X)
    assert "XXA    1  1.0  1.0  0.5" in plain_x
    assert "BBW" not in plain_x


def test_export_trf_and_the_api_offer_trf_bx(client, league, organiser, tmp_path):
    event = make_event(league, planned_rounds=3)
    play_round(league, event, 1)
    path = tmp_path / "event.trf"
    call_command(
        "export_trf", league.slug, event.slug, "--output", str(path), "--flavour", "trf-bx"
    )
    assert "BBW  1.0" in path.read_text()
    answer = client.get(
        f"/api/leagues/{league.slug}/competitions/{event.slug}/export.trf?flavour=trf-bx"
    )
    assert answer.status_code == 200
    assert answer.content == path.read_bytes()
