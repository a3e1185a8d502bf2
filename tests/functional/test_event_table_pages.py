"""An event's table page and its API: tie-break columns, the round-by-round table, the
round robin's grid and forecast (the values are hand-checked in tests/unit/test_tiebreaks.py
and tests/integration/test_event_tables.py)."""

from __future__ import annotations

import pytest
import requests
from django.urls import reverse

from league import competitions, services
from tests.integration.test_event_tables import build_swiss

pytestmark = pytest.mark.django_db


@pytest.fixture
def chess(league):
    league.sport = "Chess"
    league.save(update_fields=["sport"])
    return league


def test_the_event_page_shows_tie_breaks_and_the_round_by_round_table(
    client, chess, make_player, organiser
):
    event, _ = build_swiss(chess, make_player, organiser)
    page = client.get(reverse("pages:competition_table", args=[chess.slug, event.slug]))
    assert page.status_code == 200
    lines = page.context["lines"]
    # Eve ahead of Ann on Buchholz Cut-1 (5 to 3½).
    assert [(x["name"], x["position"], x["points"], x["values"]) for x in lines] == [
        ("Eve", 1, "2½", ["5", "5½", "4¼"]),
        ("Ann", 2, "2½", ["3½", "4", "2¾"]),
        ("Cem", 3, "2", ["3", "5", "3½"]),
        ("Dee", 4, "½", ["4½", "5", "1"]),
        ("Bob", 5, "0", ["5", "5", "0"]),
    ]
    rows = {row["name"]: row["cells"] for row in page.context["swiss"]}
    # Ann: r1 v Bob (5) White won, r2 v Dee (4) Black won, r3 v Eve (1) White drew.
    assert rows["Ann"] == ["5w1", "4b1", "1w½"]
    assert rows["Eve"] == ["bye 1", "5b1", "2b½"]
    # A forfeit has no colour: nobody played.
    assert rows["Cem"] == ["4w½", "bye ½", "5+"]
    assert rows["Bob"][2] == "3-"
    assert rows["Dee"][2] == "–"
    html = page.content.decode()
    assert "FIDE C.07 art. 8.1, 14.1" in html
    assert "(withdrew from round 3)" in html
    assert 'id="round-table"' in html


def test_a_round_robin_page_shows_the_grid_and_the_forecast(client, chess, make_player, organiser):
    event = competitions.create_competition(
        chess, name="Club Championship", format="round_robin", planned_rounds=3,
        recorded_by=organiser,
    )  # fmt: skip
    players = [make_player(chess, name) for name in ("Ann", "Bob", "Cem", "Dee")]
    for player in players:
        competitions.enter_player(event, player, recorded_by=organiser)
    r1 = competitions.publish_round(
        event, 1, [(players[0], players[1]), (players[2], players[3])], recorded_by=organiser
    )
    services.record_fixture_result(chess, r1.fixtures[0], score_a="1", recorded_by=organiser)
    services.record_fixture_result(chess, r1.fixtures[1], score_a="0", recorded_by=organiser)
    page = client.get(reverse("pages:competition_table", args=[chess.slug, event.slug]))
    grid = {row["name"]: row["cells"] for row in page.context["grid"]}
    # Ann and Dee won (level on 1; direct encounter: not met; SB: 0 each; wins: 1 each).
    assert grid["Ann"][grid_index(page, "Bob")] == "1"
    assert grid["Bob"][grid_index(page, "Ann")] == "0"
    assert grid["Ann"][grid_index(page, "Ann")] == ""
    forecast = page.context["forecast"]
    assert forecast["remaining"] == 4
    assert forecast["simulations"] == 2000
    assert "Who wins the event?" in page.content.decode()


def test_the_event_page_carries_the_same_table(client, chess, make_player, organiser):
    event, _ = build_swiss(chess, make_player, organiser)
    page = client.get(event.get_absolute_url())
    assert page.status_code == 200
    # The same hand-checked lines as the table page (Eve ahead of Ann on Buchholz Cut-1).
    assert [(x["name"], x["position"], x["values"]) for x in page.context["lines"]][:2] == [
        ("Eve", 1, ["5", "5½", "4¼"]),
        ("Ann", 2, ["3½", "4", "2¾"]),
    ]
    rows = {row["name"]: row["cells"] for row in page.context["swiss"]}
    assert rows["Ann"] == ["5w1", "4b1", "1w½"]
    html = page.content.decode()
    assert "FIDE C.07 art. 8.1, 14.1" in html
    assert html.count('id="event-standings"') == 1
    # The round table's headings and the rounds' headings do not share an id.
    assert html.count('id="rounds-heading"') == 1
    assert html.count('id="event-rounds-heading"') == 1


def test_a_round_robin_event_page_shows_the_grid_and_the_forecast(
    client, chess, make_player, organiser
):
    event = competitions.create_competition(
        chess, name="Club Championship", format="round_robin", planned_rounds=3,
        recorded_by=organiser,
    )  # fmt: skip
    players = [make_player(chess, name) for name in ("Ann", "Bob", "Cem", "Dee")]
    for player in players:
        competitions.enter_player(event, player, recorded_by=organiser)
    r1 = competitions.publish_round(
        event, 1, [(players[0], players[1]), (players[2], players[3])], recorded_by=organiser
    )
    services.record_fixture_result(chess, r1.fixtures[0], score_a="1", recorded_by=organiser)
    page = client.get(event.get_absolute_url())
    html = page.content.decode()
    assert 'id="crosstable"' in html
    assert 'id="event-forecast"' in html
    assert "Who wins the event?" in html
    # Round 1 is half played: the table stands before it; the forecast plays out the five of
    # the six games (four players, each pair once) that have no result yet.
    assert page.context["table"].after_round == 0
    assert page.context["forecast"]["remaining"] == 5
    chances = [row["chance"] for row in page.context["forecast"]["rows"]]
    assert len(chances) == 4


def grid_index(page, name: str) -> int:
    return next(row["number"] for row in page.context["grid"] if row["name"] == name) - 1


def test_an_unknown_event_is_a_404(client, chess):
    page = client.get(reverse("pages:competition_table", args=[chess.slug, "no-such-event"]))
    assert page.status_code == 404


@pytest.mark.django_db(transaction=True)
def test_the_event_table_in_the_api(live_server, chess, make_player, organiser):
    event, key_of = build_swiss(chess, make_player, organiser)
    url = f"{live_server.url}/api/leagues/{chess.slug}/competitions/{event.slug}/table/"
    body = requests.get(url, timeout=10).json()
    assert body["tiebreak_order"] == ["BH-C1", "BH", "SB"]
    assert [(key_of[r["player_id"]], r["position"], r["points"]) for r in body["rows"]] == [
        ("E", 1, 2.5), ("A", 2, 2.5), ("C", 3, 2.0), ("D", 4, 0.5), ("B", 5, 0.0),
    ]  # fmt: skip
    assert body["rows"][0]["tiebreaks"] == {"BH-C1": 5.0, "BH": 5.5, "SB": 4.25}
    ann = next(row for row in body["crosstable"] if key_of[row["player_id"]] == "A")
    assert [(r["opponent"], r["colour"], r["score"]) for r in ann["results"]] == [
        (5, "white", 1.0), (4, "black", 1.0), (1, "white", 0.5),
    ]  # fmt: skip
    assert body["forecast"] is None
    missing = requests.get(url.replace(event.slug, "nope"), timeout=10)
    assert missing.status_code == 404
    assert missing.headers["Content-Type"].startswith("application/json")
