"""Export in the import format and back: an empty league gets byte-identical standings.

Through the management commands as an organiser would run them: ``export_ratings --results``
or ``--event-log``, ``create_league`` with the same parameters, ``import_results``,
``replay --sync``, then the standings and history CSVs of both leagues compared as bytes.
"""

from __future__ import annotations

import datetime as dt
import io
import random
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from django.core.management import call_command

from league import services
from league.models import Event, League

PARAMS = ["--period-days", "14", "--period-anchor", "2024-01-01", "--tau", "0.4"]


def run(*args: str) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


@pytest.fixture
def busy_league(league, make_player, organiser):
    """60 results among six players at odd times, with voids, a correction and free text."""
    call_command("set_config", league.slug, *PARAMS, stdout=io.StringIO())
    rng = random.Random(16)
    names = ["Ann Archer", "Bob Baker", "Cat Cooper", "=Dan Dyer", 'Eve, "E" Evans', "Fay Fox"]
    players = [make_player(league, name) for name in names]
    matches = []
    for i in range(60):
        a, b = rng.sample(players, 2)
        score = rng.choice(["1", "0.5", "0"])
        played = dt.datetime(2024, 1, 1, 9, tzinfo=dt.UTC) + dt.timedelta(
            hours=rng.randrange(24 * 150)
        )
        matches.append(
            services.record_match(
                league,
                player_a=a,
                player_b=b,
                score_a=score,
                played_at=played,
                points=rng.choice(["", {"1": "3-1", "0.5": "2-2", "0": "0-3"}[score], "w/o"]),
                note=rng.choice(["", "cup, round 2"]),
                idempotency_key=f"m{i}" if i % 3 else None,
                recorded_by=organiser,
            )
        )
    services.void_match(league, matches[5], reason="entered twice", recorded_by=organiser)
    services.void_match(league, matches[17], reason="not a league game", recorded_by=organiser)
    services.correct_match(
        league, matches[30], reason="players swapped", recorded_by=organiser,
        player_a=matches[30].player_b, player_b=matches[30].player_a,
        score_a=1 - matches[30].score_a, points="",
    )  # fmt: skip
    run("replay", league.slug, "--sync")
    return league


def standings_bytes(slug: str) -> tuple[str, str]:
    return run("export_ratings", slug), run("export_ratings", slug, "--history")


@pytest.mark.parametrize("flag", ["--results", "--event-log"])
def test_export_and_import_give_byte_identical_standings(busy_league, tmp_path: Path, flag):
    exported = tmp_path / "league.csv"
    run("export_ratings", busy_league.slug, flag, "--output", str(exported))
    run(
        "create_league", "copy", "--name", "Copy", "--period-days", "14",
        "--period-anchor", "2024-01-01", "--tau", "0.4",
    )  # fmt: skip
    copy = League.objects.get(slug="copy")
    copy.time_zone, copy.start_date = busy_league.time_zone, busy_league.start_date
    copy.save()
    run("import_results", "copy", str(exported), "--create-players")
    run("replay", "copy", "--sync")

    original, imported = standings_bytes(busy_league.slug), standings_bytes("copy")
    assert original[0].count("\n") == 7  # a header and six rated players
    assert imported == original
    live = Event.objects.live_matches()
    assert live.filter(league=copy).count() == live.filter(league=busy_league).count()
    recorded = Event.objects.matches()
    if flag == "--event-log":
        assert recorded.filter(league=copy).count() == recorded.filter(league=busy_league).count()
        voids = Event.objects.filter(league=copy, kind=Event.Kind.MATCH_VOIDED)
        assert sorted(voids.values_list("reason", flat=True)) == sorted(
            ["entered twice", "not a league game", "players swapped"]
        )
    # Importing the same file again records and voids nothing more.
    before = Event.objects.filter(league=copy).count()
    assert "recorded 0 result(s)" in run("import_results", "copy", str(exported))
    assert Event.objects.filter(league=copy).count() == before


def test_create_league_results_only_makes_the_entry_pages_ask_for_a_result(db):
    run("create_league", "chess", "--name", "Chess", "--results-only")
    run("create_league", "squash", "--name", "Squash")
    assert League.objects.get(slug="chess").records_points is False
    assert League.objects.get(slug="squash").records_points is True


def test_a_result_entered_today_by_date_exports_as_a_date_and_imports_back_today(
    league, make_player, tmp_path: Path
):
    """A date alone means local noon: exported as a moment, noon today would be refused as
    "in the future" on import until noon. The export writes the date alone instead."""
    from django.utils import timezone

    from league.calendar import league_day

    ann, bob = make_player(league, "Ann Archer"), make_player(league, "Bob Baker")
    today = league_day(league, timezone.now())
    services.record_match(league, player_a=ann, player_b=bob, score_a=1, played_at=today)
    timed = dt.datetime.combine(today, dt.time(0, 0, 1), tzinfo=dt.UTC)
    services.record_match(league, player_a=bob, player_b=ann, score_a=0, played_at=timed)
    exported = tmp_path / "today.csv"
    run("export_ratings", league.slug, "--results", "--output", str(exported))
    rows = [line.split(",") for line in exported.read_text().splitlines()]
    assert rows[1][1] == today.isoformat()
    # A result with its own time keeps it.
    assert rows[2][1] == timed.astimezone(ZoneInfo(league.time_zone)).isoformat()
    copy = League.objects.create(
        name="Copy", slug="copy", time_zone=league.time_zone, start_date=league.start_date
    )
    run("import_results", "copy", str(exported), "--create-players")
    imported = Event.objects.matches().filter(league=copy).order_by("seq")
    original = Event.objects.matches().filter(league=league).order_by("seq")
    assert list(imported.values_list("played_at", flat=True)) == list(
        original.values_list("played_at", flat=True)
    )


@pytest.mark.parametrize("flag", ["--results", "--event-log"])
def test_a_deactivated_player_stays_inactive_through_export_and_import(
    busy_league, make_player, tmp_path: Path, flag, organiser
):
    fay = busy_league.players.get(display_name="Fay Fox")
    services.deactivate_player(busy_league, fay, reason="moved away", recorded_by=organiser)
    # A player who never played and left: carried too, with the reason.
    make_player(busy_league, "Gus Gray", active=False)
    exported = tmp_path / "league.csv"
    run("export_ratings", busy_league.slug, flag, "--output", str(exported))
    run("create_league", "copy", "--name", "Copy", *PARAMS)
    copy = League.objects.get(slug="copy")
    copy.time_zone, copy.start_date = busy_league.time_zone, busy_league.start_date
    copy.save()
    run("import_results", "copy", str(exported), "--create-players")
    status = dict(copy.players.values_list("display_name", "active"))
    assert status == dict(busy_league.players.values_list("display_name", "active"))
    assert (status["Fay Fox"], status["Gus Gray"], status["Ann Archer"]) == (False, False, True)
    reasons = Event.objects.filter(league=copy, kind=Event.Kind.PLAYER_DEACTIVATED)
    assert sorted(reasons.values_list("reason", flat=True)) == [
        "inactive from the start",
        "moved away",
    ]
    # The same standings, and importing the file again changes nothing.
    run("replay", "copy", "--sync")
    assert standings_bytes("copy") == standings_bytes(busy_league.slug)
    before = Event.objects.filter(league=copy).count()
    run("import_results", "copy", str(exported))
    assert Event.objects.filter(league=copy).count() == before
