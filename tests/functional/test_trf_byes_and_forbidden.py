"""Full-point byes (TRF's F) and forbidden pairings (record 260): read by import_trf, kept as
events, honoured by pair_round (the FIDE Dutch engine never pairs a forbidden pair) and
written back by export_trf, so the file round-trips."""

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
from league.competition_pairing import propose_round
from league.competitions import Outcome, competition_state
from league.event_log import event_log
from league.models import ByeKind, Competition, Event, League, Player, RoundBye
from tests.unit.test_trf import player_line

pytestmark = pytest.mark.django_db

NAMES = ["Ann Able", "Bob Baker", "Cem Cole", "Dee Dunn", "Eve Eng"]


@pytest.fixture
def empty_league(db) -> League:
    return League.objects.create(
        name="Copy", slug="copy", sport="Chess", start_date=dt.date(2024, 1, 1)
    )


@pytest.fixture
def club(league, organiser) -> tuple[Competition, dict[str, Player]]:
    """Five entrants by rating; Ann has a full-point bye in round 1; Bob and Dee may not meet
    in rounds 1 to 3."""
    players = {name.split()[0]: services.register_player(league, name) for name in NAMES}
    event = competitions.create_competition(
        league, name="Club Swiss", planned_rounds=3, recorded_by=organiser
    )
    for rating, short in zip((2100, 2000, 1900, 1800, 1700), players, strict=True):
        competitions.enter_player(event, players[short], seed_rating=rating, recorded_by=organiser)
    competitions.request_bye(
        event, players["Ann"], round_number=1, kind="requested_full", recorded_by=organiser
    )
    competitions.forbid_pairing(
        event,
        [players["Bob"], players["Dee"]],
        first_round=1,
        last_round=3,
        reason="same family",
        recorded_by=organiser,
    )
    return event, players


def pair(league, event) -> str:
    out = io.StringIO()
    call_command("pair_round", league.slug, event.slug, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def white_wins(league, event, round_number: int) -> None:
    for fixture in event.fixtures.filter(round_number=round_number):
        services.record_fixture_result(league, fixture, score_a=1)


def pairs_of(event, round_number: int) -> set[frozenset[int]]:
    return {
        frozenset((f.player_a_id, f.player_b_id))
        for f in event.fixtures.filter(round_number=round_number)
    }


def test_a_full_point_bye_scores_a_win_and_is_written_as_f(client, league, club):
    event, p = club
    pair(league, event)
    white_wins(league, event, 1)
    ann = competition_state(event).entrant(p["Ann"].pk)
    assert (ann.rounds[0].outcome, ann.rounds[0].points) == (Outcome.FULL_BYE, 1)
    assert not any(p["Ann"].pk in pair for pair in pairs_of(event, 1))
    ann_line = next(
        line for line in export_competition(event).split("\r\n") if line.startswith("001    1")
    )
    assert ann_line[80:84] == " 1.0"
    assert ann_line[91:99] == "0000 - F"
    # The event's page and the API say so too.
    page = client.get(reverse("pages:competition", args=[league.slug, event.slug])).text
    assert "full-point bye, not allocated by the pairing" in page
    entrants = client.get(f"/api/leagues/{league.slug}/competitions/{event.slug}/entrants/")
    rounds = next(e for e in entrants.json() if e["player"] == p["Ann"].pk)["rounds"]
    assert (rounds[0]["outcome"], rounds[0]["points"]) == ("requested_full", 1.0)


def test_pair_round_never_pairs_a_forbidden_pair(league, club):
    event, p = club
    forbidden = frozenset((p["Bob"].pk, p["Dee"].pk))
    for round_number in (1, 2, 3):
        pair(league, event)
        assert forbidden not in pairs_of(event, round_number)
        white_wins(league, event, round_number)


def test_a_forbidden_pair_changes_the_pairing_it_would_have_been_in(league, organiser):
    players = [services.register_player(league, name) for name in NAMES[:4]]
    event = competitions.create_competition(league, name="Quad", planned_rounds=3)
    for rating, player in zip((2100, 2000, 1900, 1800), players, strict=True):
        competitions.enter_player(event, player, seed_rating=rating)
    free = propose_round(event).pairings
    first = free[0]
    competitions.forbid_pairing(event, list(first), recorded_by=organiser)
    proposed = propose_round(event).pairings
    assert frozenset(first) not in {frozenset(game) for game in proposed}
    assert len(proposed) == 2  # everyone still plays


def test_a_forbidden_pair_that_leaves_no_legal_pairing_is_refused_with_the_reason(
    league, organiser
):
    ann, bob = (services.register_player(league, name) for name in NAMES[:2])
    event = competitions.create_competition(league, name="Duel", planned_rounds=1)
    for player in (ann, bob):
        competitions.enter_player(event, player)
    competitions.forbid_pairing(event, [ann, bob], recorded_by=organiser)
    with pytest.raises(ValidationError, match="No pairing of round 1 satisfies"):
        propose_round(event)


@pytest.mark.parametrize(
    ("named", "arguments", "field"),
    [
        (["Ann"], {}, "players"),
        (["Ann", "Ann"], {}, "players"),
        (["Ann", "Out"], {}, "players"),
        (["Ann", "Cem"], {"first_round": 3, "last_round": 2}, "last_round"),
        (["Ann", "Cem"], {"last_round": 4}, "last_round"),
        (["Ann", "Cem"], {"first_round": 0}, "first_round"),
    ],
)
def test_a_bad_forbidden_pairing_names_its_field_and_stores_nothing(
    league, club, named, arguments, field
):
    event, p = club
    p["Out"] = services.register_player(league, "Out Sider")  # not entered
    before = Event.objects.count()
    with pytest.raises(ValidationError) as refused:
        competitions.forbid_pairing(event, [p[name] for name in named], **arguments)
    assert field in refused.value.message_dict
    assert Event.objects.count() == before


def test_the_log_names_the_players_and_the_rounds(league, club):
    texts = [row.summary for row in event_log(league).items if "paired together" in row.summary]
    assert texts == [
        "Bob Baker, Dee Dunn are not to be paired together in rounds 1 to 3 of Club Swiss"
    ]


def test_export_import_export_keeps_full_point_byes_and_forbidden_pairs(league, club, empty_league):
    event, _players = club
    for round_number in (1, 2):
        pair(league, event)
        white_wins(league, event, round_number)
    first = export_competition(event)
    assert "\r\n260 001 003    2    4\r\n" in first
    assert "0000 - F" in first
    # No tie-breaks chosen: none written (no 212, no values).
    assert "\r\n212 " not in first
    assert "###" not in first
    report = import_trf(empty_league, first.encode())
    assert report.ok, [str(problem) for problem in report.problems]
    assert report.forbidden == 1
    copy = Competition.objects.get(league=empty_league, slug=report.slug)
    assert export_competition(copy) == first
    bye = RoundBye.objects.get(competition=copy, round_number=1)
    assert (bye.player.display_name, bye.kind, bye.points) == ("Ann Able", "requested_full", 1)
    # The copy pairs its next round without the forbidden pair either.
    pair(empty_league, copy)
    bob, dee = (Player.objects.get(league=empty_league, display_name=n) for n in NAMES[1:4:2])
    assert frozenset((bob.pk, dee.pk)) not in pairs_of(copy, 3)


def test_a_hand_written_file_with_f_and_240_f_and_260(empty_league):
    lines = [
        "012 Byes",
        "142 3",
        player_line(1, "One", "1.0", ["0000 - F"], rating="2000"),
        player_line(2, "Two", "1.0", ["   3 w 1"], rating="1900"),
        player_line(3, "Three", "0.0", ["   2 b 0"], rating="1800"),
        "240 F   3    3",
        "260 002 003    1    2",
    ]
    report = import_trf(empty_league, "\n".join(lines).encode())
    assert report.ok, [str(problem) for problem in report.problems]
    assert "prohibited" not in " ".join(report.notes)
    event = Competition.objects.get(league=empty_league, slug=report.slug)
    byes = {
        (bye.player.display_name, bye.round_number, bye.kind)
        for bye in RoundBye.objects.filter(competition=event)
    }
    assert byes == {("One", 1, ByeKind.REQUESTED_FULL), ("Three", 3, ByeKind.REQUESTED_FULL)}
    assert competitions.forbidden_pairs(event) == (
        (
            tuple(
                Player.objects.get(league=empty_league, display_name=name).pk
                for name in ("One", "Two")
            ),
            2,
            3,
        ),
    )


def test_a_260_record_the_event_cannot_hold_is_refused_on_its_line(empty_league):
    lines = [
        "012 Byes",
        "142 1",
        player_line(1, "One", "1.0", ["   2 w 1"]),
        player_line(2, "Two", "0.0", ["   1 b 0"]),
        "260 001 002    1    2",
    ]
    report = import_trf(empty_league, "\n".join(lines).encode())
    assert [problem.line for problem in report.problems] == [5]
    assert "there is no round 2" in report.problems[0].message
    assert not Competition.objects.filter(league=empty_league).exists()


def _four_players(*extra: str) -> bytes:
    lines = [
        "012 Quad",
        "142 3",
        player_line(1, "One", "1.0", ["   3 w 1"], rating="2000"),
        player_line(2, "Two", "1.0", ["   4 w 1"], rating="1900"),
        player_line(3, "Three", "0.0", ["   1 b 0"], rating="1800"),
        player_line(4, "Four", "0.0", ["   2 b 0"], rating="1700"),
        *extra,
    ]
    return "\n".join(lines).encode()


def test_an_xxp_record_forbids_the_pairs_in_every_round_and_is_written_as_260(empty_league):
    report = import_trf(empty_league, _four_players("XXP 1 2"))
    assert report.ok, [str(problem) for problem in report.problems]
    assert report.forbidden == 1
    assert not any("extension record" in note for note in report.notes)
    event = Competition.objects.get(league=empty_league, slug=report.slug)
    one, two = (Player.objects.get(league=empty_league, display_name=n) for n in ("One", "Two"))
    assert competitions.forbidden_pairs(event) == (((one.pk, two.pk), 1, 3),)
    text = export_competition(event)
    assert "\r\n260 001 003    1    2\r\n" in text
    assert "XXP" not in text
    # The leaders (1 point each) would meet in round 2; they may not.
    pair(empty_league, event)
    assert frozenset((one.pk, two.pk)) not in pairs_of(event, 2)


@pytest.mark.parametrize("record", ["XXP 1 9", "XXP 1", "XXP 1 x"])
def test_a_bad_xxp_record_is_refused_on_its_line_and_stores_nothing(empty_league, record):
    report = import_trf(empty_league, _four_players(record))
    assert [problem.line for problem in report.problems] == [7]
    assert "XXP" in report.problems[0].message
    assert not Competition.objects.filter(league=empty_league).exists()
    assert not Player.objects.filter(league=empty_league).exists()
