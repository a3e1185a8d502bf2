"""Pages of a league with matches with sides: match list, event log, player page."""

from __future__ import annotations

import datetime as dt
import html
import re

import pytest
from django.urls import reverse

from league import services
from league.models import MatchFormat
from ratings import services as rating_services

DAY = dt.date(2024, 1, 3)


@pytest.fixture
def club(league, make_player, django_capture_on_commit_callbacks):
    league.match_format = MatchFormat.ANY
    league.save()
    ana, ben, cai, dee = (make_player(league, n) for n in ("Ana", "Ben", "Cai", "Dee"))
    doubles = services.record_match(
        league, sides=[[ana, ben], [cai, dee]], score_a="1", played_at=DAY, points="21-15"
    )
    services.record_match(league, sides=[[ana, cai], [ben, dee]], score_a="0", played_at=DAY)
    board = services.record_match(
        league, sides=[[ana], [ben], [cai], [dee]], places=[2, 1, 2, 4], played_at=DAY
    )
    wrong = services.record_match(
        league, sides=[[ana, dee], [ben, cai]], score_a="1", played_at=DAY
    )
    services.void_match(league, wrong, reason="never played")
    with django_capture_on_commit_callbacks(execute=True):
        rating_services.create_config(league, period_length=7)
    return {"league": league, "players": (ana, ben, cai, dee), "doubles": doubles, "board": board}


def _text(response) -> str:
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.content.decode())))


def test_the_match_list_shows_sides_and_finishing_orders(client, club):
    league = club["league"]
    response = client.get(reverse("pages:matches", args=[league.slug]))
    assert response.status_code == 200
    text = _text(response)
    assert "Side A" in text
    assert "Ana & Ben 1–0 Cai & Dee" in text
    assert "1st Ben =2nd Ana =2nd Cai 4th Dan" not in text  # Dee, not Dan
    assert "1st Ben =2nd Ana =2nd Cai 4th Dee" in text
    assert "Voided by event" in text


def test_the_event_log_describes_team_matches_and_their_voids(client, club):
    league = club["league"]
    text = _text(client.get(reverse("pages:events", args=[league.slug])))
    assert "Ana & Ben 1–0 Cai & Dee (21-15), played 3 Jan 2024" in text
    assert "1st Ben, =2nd Ana, =2nd Cai, 4th Dee" in text
    assert re.search(r"Match #\d+ \(Ana & Dee v Ben & Cai\) voided", text)


def test_the_player_page_shows_team_results_partners_and_opponents(client, club):
    league = club["league"]
    ana = club["players"][0]
    response = client.get(reverse("pages:player", args=[league.slug, ana.slug]))
    assert response.status_code == 200
    page = response.content.decode()
    text = _text(response)
    assert "Team and multi-player results" in text
    assert "=2nd of 4" in text
    # Three matches, five side results (1 + 1 + 3): the card says which is which.
    assert "Games · results (W–D–L) 3 · 2–1–2" in text
    # Partners: Ben (won together), Cai (lost together); the voided match with Dee is gone.
    partners = _text_of_table(page, "partners")
    assert "Ben 1 1–0–0" in partners
    assert "Cai 1 0–0–1" in partners
    assert "Dee" not in partners
    # Opponents, per side result: Cai in doubles (W) + board game (tie) = 1-1-0.
    opponents = _text_of_table(page, "team-opponents")
    assert "Cai 2 1–1–0" in opponents
    assert "Ben 2 0–0–2" in opponents  # lost to Ben with Cai, and placed behind him
    assert "Dee 3 2–0–1" in opponents  # won, lost (Ben & Dee won), placed ahead
    # The individual change of each period is Ana's own.
    assert "Own rating change in period" in text


def _text_of_table(page: str, table_id: str) -> str:
    start = page.index(f'<table id="{table_id}"')
    end = page.index("</table>", start)
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page[start:end]))).strip()


def test_a_singles_league_pages_are_unchanged(client, league, make_player):
    # A sport without colours: a chess league names White and Black (test_chess_pages.py).
    league.sport = "Table tennis"
    league.save()
    ann, bob = make_player(league, "Ann"), make_player(league, "Bob")
    services.record_match(league, player_a=ann, player_b=bob, score_a="1", played_at=DAY)
    text = _text(client.get(reverse("pages:matches", args=[league.slug])))
    assert "Player A" in text
    assert "Side A" not in text
    player = client.get(reverse("pages:player", args=[league.slug, ann.slug])).content.decode()
    assert "Team and multi-player results" not in player
