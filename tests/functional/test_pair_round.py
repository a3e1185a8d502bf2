"""``manage.py pair_round``: the next round paired by the league's Swiss system and published;
a chess club's event from TRF in to TRF out."""

from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command

from league import competitions, services
from league.chess import trf
from league.chess.trf_export import export_competition
from league.chess.trf_import import import_trf
from league.competition_pairing import club_swiss, fide_dutch, pairing_engine_for
from league.models import Competition, Event
from tests.functional.test_trf import TWO_ROUNDS


def command(*args: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


@pytest.fixture
def four(league, organiser) -> Competition:
    """Four entrants in rating order, nothing paired yet."""
    event = competitions.create_competition(
        league, name="Rapid", planned_rounds=3, recorded_by=organiser
    )
    for name, rating in (("Ann", 2000), ("Bob", 1900), ("Cem", 1800), ("Dee", 1700)):
        competitions.enter_player(event, services.register_player(league, name), seed_rating=rating)
    return event


def test_a_chess_league_pairs_by_the_fide_dutch_system(league, four):
    assert pairing_engine_for(league) is fide_dutch
    out, _ = command("pair_round", "riverside", "rapid")
    # C.04.3: round 1 pairs the top half with the bottom half (1-3, 2-4); the top player has
    # the initial colour (White) and the boards alternate it (E.5): 1-3 and 4-2.
    assert out == "Rapid, round 1 (published):\n  1. Ann - Cem\n  2. Dee - Bob\n"
    four.refresh_from_db()
    assert four.rounds_paired == 1
    fixtures = four.fixtures.order_by("board")
    assert [(f.player_a.display_name, f.player_b.display_name) for f in fixtures] == [
        ("Ann", "Cem"),
        ("Dee", "Bob"),
    ]


def test_another_sport_pairs_by_the_club_generator(league, four):
    league.sport = "Table tennis"
    league.save(update_fields=["sport"])
    assert pairing_engine_for(league) is club_swiss
    out, _ = command("pair_round", "riverside", "rapid")
    assert out.startswith("Rapid, round 1 (published):\n")
    assert out.count(" - ") == 2


def test_a_dry_run_prints_the_pairing_and_publishes_nothing(four):
    before = Event.objects.count()
    out, _ = command("pair_round", "riverside", "rapid", "--dry-run")
    assert out.startswith("Rapid, round 1 (would be):\n")
    assert Event.objects.count() == before
    four.refresh_from_db()
    assert four.rounds_paired == 0


def test_the_pairings_bye_goes_to_the_lowest_ranked(league, four):
    competitions.enter_player(four, services.register_player(league, "Eve"), seed_rating=1600)
    out, _ = command("pair_round", "riverside", "rapid")
    # Five players: the lowest-ranked of the (single) score group sits out (C.04.3 C.2).
    assert out.endswith("  Bye: Eve\n")
    assert out.count(" - ") == 2


def test_requested_byes_are_honoured_and_printed(league, four):
    competitions.enter_player(four, services.register_player(league, "Eve"), seed_rating=1600)
    bob = four.entrants.get(number=2).player
    competitions.request_bye(four, bob, round_number=1, kind="requested_half")
    out, _ = command("pair_round", "riverside", "rapid")
    assert "  Requested bye (0.5): Bob\n" in out
    assert "  Bye:" not in out
    assert "Bob -" not in out
    assert "- Bob" not in out


def test_refusals_name_the_reason_and_change_nothing(league, four):
    with pytest.raises(CommandError, match="riverside has no event 'nope'"):
        command("pair_round", "riverside", "nope")
    command("pair_round", "riverside", "rapid")
    before = Event.objects.count()
    with pytest.raises(CommandError, match="Round 1 still has games without a result"):
        command("pair_round", "riverside", "rapid")
    assert Event.objects.count() == before


def test_a_chess_club_runs_its_event_from_trf_in_to_trf_out(league, organiser):
    report = import_trf(league, "\n".join(TWO_ROUNDS).encode(), recorded_by=organiser)
    assert report.ok, [str(p) for p in report.problems]
    out, _ = command("pair_round", "riverside", report.slug)
    assert out.startswith("Spring Swiss, round 3 (published):\n")
    event = Competition.objects.get(league=league, slug=report.slug)
    for fixture in event.fixtures.filter(round_number=3):
        services.record_fixture_result(league, fixture, score_a="0.5", recorded_by=organiser)
    written = trf.read(export_competition(event))
    assert written.round_count == 3
    assert written.pending_round is None
    third = [player.rounds[2] for player in written.players]
    games = [entry for entry in third if entry.opponent is not None]
    byes = [entry for entry in third if entry.result == "U"]
    # Seven players: three games and the pairing's bye; nobody meets an earlier opponent.
    assert (len(games), len(byes)) == (6, 1)
    for player in written.players:
        opponents = [entry.opponent for entry in player.rounds if entry.opponent is not None]
        assert len(opponents) == len(set(opponents)), player.name
