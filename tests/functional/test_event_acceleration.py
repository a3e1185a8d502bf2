"""Baku acceleration as an event setting (FIDE C.04.5.1): created from the workspace or the
API, honoured by pair_round, written to the TRF file as 250 records and read back from one.

The expected pairings are worked out by hand from the rules: with 8 players and 5 rounds,
group A is the top 2 * ceil(8 / 4) = 4 players; the accelerated rounds are the first
ceil(5 / 2) = 3, with one virtual point in rounds 1 and 2 (the first half, rounded up) and
half a point in round 3.
"""

from __future__ import annotations

import datetime as dt
import io

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.urls import reverse

from league import competitions, services
from league.chess.trf_export import export_competition
from league.chess.trf_import import import_trf
from league.event_log import event_log
from league.models import Competition, Event, League
from tests.api.support import token_client

pytestmark = pytest.mark.django_db

NAMES = ["Ann", "Bob", "Cem", "Dee", "Eve", "Fay", "Gus", "Hal"]


def make_event(league: League, organiser, *, accelerated: bool) -> Competition:
    event = competitions.create_competition(
        league,
        name="Open" if accelerated else "Plain",
        planned_rounds=5,
        accelerated=accelerated,
        recorded_by=organiser,
    )
    for index, name in enumerate(NAMES):
        player = services.register_player(league, f"{name} {'A' if accelerated else 'P'}")
        competitions.enter_player(event, player, seed_rating=2400 - 100 * index)
    return event


def pair(league: League, event: Competition) -> None:
    call_command("pair_round", league.slug, event.slug, stdout=io.StringIO())


def numbered_pairs(event: Competition, round_number: int) -> set[frozenset[int]]:
    number = {e.player_id: e.number for e in event.entrants.all()}
    return {
        frozenset((number[f.player_a_id], number[f.player_b_id]))
        for f in event.fixtures.filter(round_number=round_number)
    }


def higher_rated_wins(league: League, event: Competition, round_number: int) -> None:
    number = {e.player_id: e.number for e in event.entrants.all()}
    for fixture in event.fixtures.filter(round_number=round_number):
        first_wins = number[fixture.player_a_id] < number[fixture.player_b_id]
        services.record_fixture_result(league, fixture, score_a=1 if first_wins else 0)


def test_an_accelerated_event_pairs_group_a_among_itself_in_its_first_rounds(league, organiser):
    event = make_event(league, organiser, accelerated=True)
    pair(league, event)
    # Round 1: group A (1-4) has a virtual point, so it is a score group of its own: 1-3,
    # 2-4; group B likewise 5-7, 6-8 (C.04.3: top half against bottom half).
    assert numbered_pairs(event, 1) == {frozenset(p) for p in ((1, 3), (2, 4), (5, 7), (6, 8))}
    higher_rated_wins(league, event, 1)
    pair(league, event)
    # Round 2: 1 and 2 have 1 + 1 virtual; 3, 4 (0 + 1) and 5, 6 (1 + 0) form one group of
    # four (3-5, 4-6, colours compatible); 7 and 8 have nothing.
    assert numbered_pairs(event, 2) == {frozenset(p) for p in ((1, 2), (3, 5), (4, 6), (7, 8))}


def test_the_same_field_unaccelerated_pairs_top_half_against_bottom_half(league, organiser):
    event = make_event(league, organiser, accelerated=False)
    pair(league, event)
    assert numbered_pairs(event, 1) == {frozenset(p) for p in ((1, 5), (2, 6), (3, 7), (4, 8))}


def test_the_trf_file_carries_the_acceleration_and_round_trips(league, organiser, db):
    event = make_event(league, organiser, accelerated=True)
    pair(league, event)
    higher_rated_wins(league, event, 1)
    text = export_competition(event)
    records = [line for line in text.split("\r\n") if line.startswith("250")]
    # TRF-2026: game points in columns 10-13, rounds 15-17 and 19-21, players 23-26, 28-31.
    assert [(r[9:13], r[14:17], r[18:21], r[22:26], r[27:31]) for r in records] == [
        (" 1.0", "001", "002", "0001", "0004"),
        (" 0.5", "003", "003", "0001", "0004"),
    ]
    copy_league = League.objects.create(
        name="Copy", slug="copy", sport="Chess", start_date=dt.date(2024, 1, 1)
    )
    report = import_trf(copy_league, text.encode())
    assert report.ok, [str(problem) for problem in report.problems]
    assert not any("250" in note for note in report.notes)
    copy = Competition.objects.get(league=copy_league, slug=report.slug)
    assert copy.accelerated
    assert export_competition(copy) == text


def test_250_records_that_are_not_baku_are_not_kept_with_a_note(league, organiser):
    event = make_event(league, organiser, accelerated=True)
    pair(league, event)
    higher_rated_wins(league, event, 1)
    # Group A of six players instead of four: another method, not Baku's.
    text = export_competition(event).replace(" 0001 0004", " 0001 0006")
    copy_league = League.objects.create(
        name="Copy", slug="copy", sport="Chess", start_date=dt.date(2024, 1, 1)
    )
    report = import_trf(copy_league, text.encode())
    assert report.ok, [str(problem) for problem in report.problems]
    assert any("not Baku acceleration" in note for note in report.notes)
    assert not Competition.objects.get(league=copy_league, slug=report.slug).accelerated


@pytest.mark.parametrize(
    ("sport", "format", "accelerated", "code"),
    [
        ("Chess", "round_robin", True, "not_swiss"),
        ("Go", "swiss", True, "not_chess"),
        ("Chess", "swiss", "yes", "invalid"),
    ],
)
def test_acceleration_is_refused_where_the_rules_do_not_apply(
    organiser, sport, format, accelerated, code
):
    league = League.objects.create(
        name="Club", slug="club", sport=sport, start_date=dt.date(2024, 1, 1)
    )
    before = Event.objects.count()
    with pytest.raises(ValidationError) as refused:
        competitions.create_competition(
            league, name="E", format=format, planned_rounds=5, accelerated=accelerated
        )
    assert [e.code for e in refused.value.error_dict["accelerated"]] == [code]
    assert Event.objects.count() == before


def test_the_workspace_and_the_api_create_an_accelerated_event(client, league, organiser):
    client.force_login(organiser)
    form = client.get(reverse("workspace:competitions", args=[league.slug])).text
    assert 'name="accelerated"' in form
    response = client.post(
        reverse("workspace:competitions", args=[league.slug]),
        {"name": "Weekend Open", "format": "swiss", "planned_rounds": "5", "accelerated": "on",
         "rated": "on", "bye_points": "1"},
    )  # fmt: skip
    assert response.status_code == 302
    created = Competition.objects.get(league=league, slug="weekend-open")
    assert created.accelerated
    page = client.get(reverse("pages:competition", args=[league.slug, created.slug])).text
    assert "paired with Baku acceleration" in page
    assert any("Baku acceleration" in row.summary for row in event_log(league).items)

    api = token_client(organiser)
    body = {"name": "Rapid Open", "format": "swiss", "planned_rounds": 7, "accelerated": True}
    answer = api.post(f"/api/leagues/{league.slug}/competitions/", body, format="json")
    assert answer.status_code == 201, answer.content
    assert answer.json()["accelerated"] is True
    refused = api.post(
        f"/api/leagues/{league.slug}/competitions/",
        {**body, "name": "Cup", "format": "knockout", "planned_rounds": 3},
        format="json",
    )
    assert refused.status_code in (400, 422)
    assert "accelerated" in refused.content.decode()
    assert not Competition.objects.filter(league=league, name="Cup").exists()
