"""Chess leagues end to end: making one, PGN import, colours, seeds in the replay and the
backtest, the API's and the export's colours."""

from __future__ import annotations

import csv
import datetime as dt
import io
import math
import random
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from django.db.models import Q
from django.urls import reverse
from rest_framework.test import APIClient

from league import services as league_services
from league.chess.vocabulary import colour_history
from league.csv_import import import_results
from league.event_log import event_log
from league.models import Event, League, Player
from league.seeding import seed_player, seed_rd
from ratings import exports
from ratings import services as rating_services
from ratings.backtest.seeds import BETTER, compare_seeds
from ratings.backtest.services import run_sweep_sync
from ratings.models import PlayerPeriod, RatingConfig, Replay, Standing
from tests.integration.test_commands import command, run_queued, state
from tests.replay_support import snapshot
from tests.unit.scalar_glicko2 import rate_one

pytestmark = pytest.mark.django_db

PGN = """[Event "Club Championship"]
[Site "Riverside"]
[Date "2024.03.01"]
[Round "1"]
[White "Ann Able"]
[Black "Ben Best"]
[Result "1-0"]

1. e4 e5 2. Nf3 Nc6 1-0

[Event "Club Championship"]
[Site "Riverside"]
[Date "2024.03.01"]
[Round "1"]
[White "Cy Cole"]
[Black "Di Dean"]
[Result "1/2-1/2"]

1. d4 d5 1/2-1/2

[Event "Club Championship"]
[Site "Riverside"]
[Date "2024.03.08"]
[Round "2"]
[White "Ben Best"]
[Black "Cy Cole"]
[Result "0-1"]

1. c4 0-1
"""


def write(tmp_path, text: str | bytes, name: str = "games.pgn") -> str:
    path = tmp_path / name
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return str(path)


# --- a chess league ---


def test_create_league_with_sport_chess_makes_a_chess_league():
    out, _ = command(
        "create_league", "castle", "--name", "Castle Chess", "--sport", "chess", "--results-only"
    )
    league = League.objects.get(slug="castle")
    assert league.is_chess
    assert not league.records_points
    assert not league.has_home_ground
    assert "Created league 'Castle Chess'" in out


def test_other_sports_are_not_chess(other_league):
    assert not other_league.is_chess


# --- PGN import ---


def test_import_pgn_records_each_game_with_white_first(league, tmp_path):
    out, _ = command("import_pgn", league.slug, write(tmp_path, PGN), "--create-players")
    assert "recorded 3 result(s)" in out
    games = list(
        Event.objects.matches()
        .filter(league=league)
        .order_by("seq")
        .values_list("player_a__display_name", "player_b__display_name", "score_a", "note")
    )
    assert games == [
        ("Ann Able", "Ben Best", Decimal("1.0"), "Club Championship, round 1"),
        ("Cy Cole", "Di Dean", Decimal("0.5"), "Club Championship, round 1"),
        ("Ben Best", "Cy Cole", Decimal("0.0"), "Club Championship, round 2"),
    ]


def test_import_pgn_again_records_nothing_twice(league, tmp_path):
    path = write(tmp_path, PGN)
    command("import_pgn", league.slug, path, "--create-players")
    before = state()
    out, _ = command("import_pgn", league.slug, path)
    assert "recorded 0 result(s), 3 already recorded (skipped)" in out
    assert state() == before


def test_a_game_whose_result_changed_in_the_file_is_refused_not_recorded_twice(league, tmp_path):
    command("import_pgn", league.slug, write(tmp_path, PGN), "--create-players")
    changed = write(tmp_path, PGN.replace('[Result "0-1"]', '[Result "1-0"]'), "changed.pgn")
    before = state()
    err = io.StringIO()
    with pytest.raises(CommandError, match="nothing was recorded"):
        call_command("import_pgn", league.slug, changed, stdout=io.StringIO(), stderr=err)
    assert f"{changed}: line 21: " in err.getvalue()
    assert state() == before


def test_import_pgn_dry_run_records_nothing(league, tmp_path):
    before = state()
    out, _ = command(
        "import_pgn", league.slug, write(tmp_path, PGN), "--create-players", "--dry-run"
    )
    assert "would record 3 result(s)" in out
    assert state() == before


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ('[Result "0-1"]', '[Result "*"]', "line 21: game 3: the Result tag is “*”"),
        ('[Date "2024.03.08"]\n', "", "line 21: game 3: missing tag(s) Date"),
        ('[Date "2024.03.08"]', '[Date "2024.13.08"]', "line 21: game 3: the Date tag"),
        ('[Black "Cy Cole"]', '[Black "Cy\x00Cole"]', "line 26: the line holds the control"),
        ('[Date "2024.03.01"]', '[Date "2023.03.01"]', "line 1: Date: 2023-03-01 is before"),
    ],
    ids=["unfinished", "no date", "bad month", "nul byte", "before the league"],
)
def test_import_pgn_names_the_bad_game_and_records_nothing(league, tmp_path, old, new, expected):
    # Games start on lines 1, 11 and 21 (seven tags, an empty line, moves, an empty line).
    path = write(tmp_path, PGN.replace(old, new, 1))
    before = state()
    err = io.StringIO()
    with pytest.raises(CommandError, match="nothing was recorded"):
        call_command(
            "import_pgn", league.slug, path, "--create-players", stdout=io.StringIO(), stderr=err
        )
    assert f"{path}: {expected}" in err.getvalue()
    assert state() == before


def test_import_pgn_refuses_a_50_mb_file_without_loading_it(league, tmp_path):
    path = tmp_path / "huge.pgn"
    with path.open("wb") as handle:
        handle.write(b'[Event "')
        chunk = b"x" * 2**20
        for _ in range(50):
            handle.write(chunk)
        handle.write(b'"]\n')
    before = state()
    err = io.StringIO()
    with pytest.raises(CommandError, match="nothing was recorded"):
        call_command("import_pgn", league.slug, str(path), stdout=io.StringIO(), stderr=err)
    assert f"{path}: line 1: the line is longer than 65,536 bytes" in err.getvalue()
    assert state() == before


# --- colours ---


def test_colour_history_lists_each_live_game_in_the_order_played(league, make_player):
    ann, ben, cy = (make_player(league, name) for name in ("Ann", "Ben", "Cy"))
    record = league_services.record_match
    record(league, player_a=ann, player_b=ben, score_a="1", played_at=dt.date(2024, 2, 3))
    record(league, player_a=cy, player_b=ann, score_a="0", played_at=dt.date(2024, 2, 1))
    voided = record(league, player_a=ann, player_b=cy, score_a="1", played_at=dt.date(2024, 2, 5))
    record(league, player_a=ben, player_b=ann, score_a="0.5", played_at=dt.date(2024, 2, 7))
    league_services.void_match(league, voided, reason="entered twice")
    assert colour_history(ann) == ["b", "w", "b"]
    assert colour_history(cy) == ["w"]


def test_colour_history_counts_the_games_of_players_merged_in(league, make_player):
    ann, ann2, ben = (make_player(league, name) for name in ("Ann", "Ann Second", "Ben"))
    league_services.record_match(
        league, player_a=ann2, player_b=ben, score_a="1", played_at=dt.date(2024, 2, 1)
    )
    league_services.record_match(
        league, player_a=ben, player_b=ann, score_a="1", played_at=dt.date(2024, 2, 2)
    )
    league_services.merge_player(league, ann2, ann, reason="same person", recorded_by=None)
    assert colour_history(ann) == ["w", "b"]


# --- seeds ---


@pytest.mark.parametrize(
    ("kind", "games", "rd"),
    [
        ("fide", 120, 80.0),
        ("fide", 50, 80.0),
        ("fide", 49, 110.0),
        ("fide", 3, 150.0),
        ("fide", None, 150.0),
        ("national", 60, 100.0),
        ("national", 25, 130.0),
        ("club", 0, 200.0),
        ("club", 20, 160.0),
    ],
)
def test_seed_rd_follows_the_list_and_its_games(kind, games, rd):
    assert seed_rd(kind, games) == rd


def test_a_seed_is_an_event_in_the_log(league, make_player, organiser):
    ann = make_player(league, "Ann")
    event = seed_player(
        league, ann, rating="1850", list_kind="FIDE", games="64", reason="FIDE list, March",
        recorded_by=organiser,
    )  # fmt: skip
    assert (event.kind, event.seed_rating, event.seed_rd, event.seed_list, event.seed_games) == (
        "player_seeded",
        1850.0,
        80.0,
        "fide",
        64,
    )
    (row, *_rest) = event_log(league).items
    assert row.summary == "Ann seeded at 1850, RD 80 (FIDE rating, 64 rated games)"
    assert row.reason == "FIDE list, March"


@pytest.mark.parametrize(
    ("arguments", "field"),
    [
        ({"rating": "abc", "list_kind": "fide"}, "rating"),
        ({"rating": "nan", "list_kind": "fide"}, "rating"),
        ({"rating": "9000", "list_kind": "fide"}, "rating"),
        ({"rating": "1800", "list_kind": "elo"}, "list_kind"),
        ({"rating": "1800", "list_kind": "club", "games": "-3"}, "games"),
        ({"rating": "1800", "list_kind": "club", "games": "2.5"}, "games"),
        ({"rating": "1800", "list_kind": "club", "rd": "5"}, "rd"),
        ({"rating": "1800", "list_kind": "club", "rd": "400"}, "rd"),
    ],
)
def test_a_bad_seed_names_its_field_and_stores_nothing(league, make_player, arguments, field):
    ann = make_player(league, "Ann")
    before = state()
    with pytest.raises(ValidationError) as raised:
        seed_player(league, ann, **arguments)
    assert list(raised.value.message_dict) == [field]
    assert state() == before


def test_a_merged_player_cannot_be_seeded(league, make_player):
    ann, ann2 = make_player(league, "Ann"), make_player(league, "Ann Second")
    league_services.merge_player(league, ann2, ann, reason="same person", recorded_by=None)
    with pytest.raises(ValidationError, match="merged into another player"):
        seed_player(league, ann2, rating=1800, list_kind="club")


def _period_config(league: League) -> RatingConfig:
    config = rating_services.create_config(
        league, update_mode="period", period_unit="days", period_length=7, advantage=0.0
    )
    run_queued()
    return config


def test_the_replay_starts_a_seeded_player_from_the_seed(league, make_player):
    ann, ben = make_player(league, "Ann"), make_player(league, "Ben")
    seed_player(league, ann, rating=1900, list_kind="fide", games=64)
    league_services.record_match(
        league, player_a=ann, player_b=ben, score_a="1", played_at=dt.date(2024, 1, 3)
    )
    config = _period_config(league)
    row = PlayerPeriod.objects.get(config=config, player=ann)
    assert (row.rating_before, row.rd_before) == (1900.0, 80.0)
    other = PlayerPeriod.objects.get(config=config, player=ben)
    assert (other.rating_before, other.rd_before) == (config.initial_rating, config.initial_rd)
    # The independent scalar Glicko-2 of the paper, from the seed.
    rating, rd, _sigma = rate_one(
        1900.0, 80.0, config.initial_volatility, [(1500.0, 350.0, 1.0)], config.tau
    )
    assert math.isclose(row.rating, rating, abs_tol=1e-6)
    assert math.isclose(row.rd, rd, abs_tol=1e-6)
    # A seeded player who has not played yet is not rated.
    cy = make_player(league, "Cy")
    seed_player(league, cy, rating=2000, list_kind="club")
    run_queued()
    assert not Standing.objects.filter(config=config, player=cy).exists()


def test_the_latest_seed_counts(league, make_player):
    ann, ben = make_player(league, "Ann"), make_player(league, "Ben")
    seed_player(league, ann, rating=1900, list_kind="fide", games=64)
    seed_player(league, ann, rating=1700, list_kind="club", rd=120, reason="corrected")
    league_services.record_match(
        league, player_a=ben, player_b=ann, score_a="0.5", played_at=dt.date(2024, 1, 3)
    )
    config = _period_config(league)
    row = PlayerPeriod.objects.get(config=config, player=ann)
    assert (row.rating_before, row.rd_before) == (1700.0, 120.0)


@pytest.mark.parametrize("mode", ["period", "instant"])
def test_a_seed_after_the_games_replays_as_a_full_fold_would(
    league, make_player, mode, django_capture_on_commit_callbacks
):
    rng = random.Random(5)
    players = [make_player(league, f"Player {i}") for i in range(6)]
    config = rating_services.create_config(league, update_mode=mode, period_length=7)
    for day in range(40):
        a, b = rng.sample(players, 2)
        league_services.record_match(
            league, player_a=a, player_b=b, score_a=rng.choice(["1", "0.5", "0"]),
            played_at=dt.date(2024, 1, 1) + dt.timedelta(days=day),
        )  # fmt: skip
    run_queued()
    before = snapshot(config)
    with django_capture_on_commit_callbacks(execute=True):
        # The seed asks for a catch-up, as any fact that can change a rating does.
        seed_player(league, players[2], rating=2100, list_kind="national", games=30)
    run_queued()
    catch_up = Replay.objects.filter(config=config).latest("pk")
    assert (catch_up.kind, catch_up.status) == (Replay.Kind.INCREMENTAL, Replay.Status.COMPLETE)
    first_game = (
        Event.objects.matches()
        .filter(Q(player_a=players[2]) | Q(player_b=players[2]))
        .order_by("played_at")
        .first()
    )
    assert catch_up.from_period == (first_game.played_at.date() - dt.date(2024, 1, 1)).days // 7
    seeded = snapshot(config)
    assert seeded != before
    rating_services.request_full_replay(league)
    run_queued()
    assert snapshot(config) == seeded


def test_sweeps_score_the_seeds_as_the_replay_folds_them(league, make_player):
    ann, ben = make_player(league, "Ann"), make_player(league, "Ben")
    seed_player(league, ann, rating=2200, list_kind="fide", games=100)
    league_services.record_match(
        league, player_a=ann, player_b=ben, score_a="1", played_at=dt.date(2024, 1, 3)
    )
    config = _period_config(league)
    sweep = run_sweep_sync(league, {"tau": [config.tau]}, holdout=False)
    (log_loss,) = set(sweep.runs.values_list("log_loss", flat=True))
    # Ann's start-of-period prediction from the seed, 2200 ± 80 against 1500 ± 350 (Glicko-2's
    # expected score with both deviations, written out here).
    phi = math.hypot(80.0, 350.0) / 173.7178
    g = 1 / math.sqrt(1 + 3 * phi * phi / math.pi**2)
    expected = 1 / (1 + math.exp(-g * (2200.0 - 1500.0) / 173.7178))
    assert math.isclose(log_loss, -math.log(expected), rel_tol=1e-9)


def test_compare_seeds_finds_that_true_seeds_predict_better(league, make_player):
    rng = random.Random(11)
    strengths = [1500 + 120 * (i - 5) for i in range(11)]
    players = [make_player(league, f"Player {i}") for i in range(11)]
    for player, strength in zip(players, strengths, strict=True):
        seed_player(league, player, rating=strength, list_kind="fide", games=80)
    for day in range(200):
        i, j = rng.sample(range(11), 2)
        p = 1 / (1 + 10 ** ((strengths[j] - strengths[i]) / 400))
        league_services.record_match(
            league, player_a=players[i], player_b=players[j],
            score_a="1" if rng.random() < p else "0",
            played_at=dt.date(2024, 1, 1) + dt.timedelta(days=day // 3),
        )  # fmt: skip
    _period_config(league)
    result = compare_seeds(league)
    assert result is not None
    assert (result.matches, result.seeded_players) == (200, 11)
    assert result.log_loss_with < result.log_loss_without
    assert result.verdict == BETTER
    out, _ = command("seed_players", league.slug, "--compare")
    assert "the seeds predict better" in out


def test_compare_seeds_without_seeds_says_so(league):
    assert compare_seeds(league) is None


def test_seed_players_command_seeds_every_line_or_none(league, make_player, tmp_path):
    make_player(league, "Ann")
    make_player(league, "Ben")
    good = write(tmp_path, "player,rating,list,games\nAnn,1850,fide,64\nben,1600,club,\n", "s.csv")
    out, _ = command("seed_players", league.slug, good)
    assert "seeded 2 player(s)" in out
    seeds = Event.objects.filter(league=league, kind="player_seeded").order_by("seq")
    assert list(seeds.values_list("player__display_name", "seed_rating", "seed_rd")) == [
        ("Ann", 1850.0, 80.0),
        ("Ben", 1600.0, 200.0),
    ]
    bad = write(tmp_path, "player,rating,list\nAnn,1900,fide\nZed,1700,club\nBen,x,club\n", "b.csv")
    before = state()
    err = io.StringIO()
    with pytest.raises(CommandError, match="2 bad line"):
        call_command("seed_players", league.slug, bad, stdout=io.StringIO(), stderr=err)
    assert f"{bad}: line 3: no player “Zed”" in err.getvalue()
    assert f"{bad}: line 4: rating: The listed rating must be a number" in err.getvalue()
    assert state() == before


# --- API and export ---


def test_the_api_gives_a_chess_game_its_colours(league, other_league, make_player):
    ann, ben = make_player(league, "Ann"), make_player(league, "Ben")
    league_services.record_match(
        league, player_a=ann, player_b=ben, score_a="0.5", played_at=dt.date(2024, 2, 1)
    )
    cat, dan = make_player(other_league, "Cat"), make_player(other_league, "Dan")
    league_services.record_match(
        other_league, player_a=cat, player_b=dan, score_a="1", played_at=dt.date(2024, 2, 1)
    )
    client = APIClient()
    chess = client.get(reverse("api:match-list", kwargs={"league_slug": league.slug})).json()
    assert chess["results"][0]["colours"] == {
        "white": ann.pk,
        "black": ben.pk,
        "result": "\u00bd\u2013\u00bd",
    }
    other = client.get(reverse("api:match-list", kwargs={"league_slug": other_league.slug}))
    assert other.json()["results"][0]["colours"] is None


def test_a_chess_export_names_white_and_black_and_imports_back(league, make_player, tmp_path):
    ann, ben = make_player(league, "Ann"), make_player(league, "Ben")
    league_services.record_match(
        league, player_a=ben, player_b=ann, score_a="1", played_at=dt.date(2024, 2, 1)
    )
    path = tmp_path / "results.csv"
    with path.open("w", newline="") as handle:
        exports.write_csv(exports.results(league), handle)
    rows = list(csv.reader(path.read_text().splitlines()))
    assert rows[0][:4] == ["id", "date", "white", "black"]
    assert rows[1][2:4] == ["Ben", "Ann"]
    empty = League.objects.create(
        name="Copy", slug="copy", sport="Chess", start_date=dt.date(2024, 1, 1)
    )
    with path.open("rb") as handle:
        report = import_results(empty, handle, create_players=True)
    assert report.ok, report.errors
    copied = Event.objects.matches().get(league=empty)
    assert (copied.player_a.display_name, copied.player_b.display_name) == ("Ben", "Ann")
    assert Player.objects.filter(league=empty).count() == 2
