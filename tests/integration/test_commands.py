"""Management commands: what they create, what they print, and bad input refused unchanged."""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.urls import reverse

from league import services as league_services
from league.models import Event, League, Player
from ratings.models import Publication, RatingConfig, Replay, Standing
from tests.functional.conftest import rank_everyone


def command(*args: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def state() -> tuple:
    """Everything the commands may change."""
    return (
        list(League.objects.order_by("pk").values_list()),
        list(Player.objects.order_by("pk").values_list()),
        list(Event.objects.order_by("pk").values_list()),
        list(RatingConfig.objects.order_by("pk").values_list("pk", "version")),
        list(Replay.objects.order_by("pk").values_list("pk", "status")),
    )


def run_queued() -> None:
    from ratings.services import run_replay

    for pk in Replay.objects.filter(status=Replay.Status.QUEUED).values_list("pk", flat=True):
        run_replay(pk)


@pytest.fixture
def rated_league(league):
    """The league with a configuration, three players, results and live standings."""
    call_command("set_config", league.slug, "--period-days", "7", stdout=io.StringIO())
    ann, bob, cy = (league_services.register_player(league, n) for n in ("Ann", "Bob", "Cy"))
    for day, a, b, score in [(3, ann, bob, "1"), (5, bob, cy, "0.5"), (12, cy, ann, "0")]:
        league_services.record_match(
            league, player_a=a, player_b=b, score_a=score, played_at=dt.date(2024, 1, day)
        )
    run_queued()
    return league


# --- create_league ----------------------------------------------------------------------------


def test_create_league_creates_the_league_and_its_first_configuration(db, organiser):
    out, _ = command(
        "create_league",
        "chess-club",
        "--name",
        "Chess Club",
        "--period-months",
        "1",
        "--start-date",
        "2024-01-15",
        "--tau",
        "0.7",
        "--initial-rd",
        "300",
        "--max-rd",
        "360",
        "--organiser",
        "organiser",
    )
    league = League.objects.get(slug="chess-club")
    config = RatingConfig.objects.get(league=league)
    assert (league.name, league.start_date) == ("Chess Club", dt.date(2024, 1, 15))
    assert list(league.organisers.all()) == [organiser]
    organiser.refresh_from_db()
    assert organiser.is_staff  # so that they can sign in to the admin
    assert (config.version, config.period_unit, config.period_length) == (1, "months", 1)
    assert config.period_anchor == dt.date(2024, 1, 1)
    assert (config.tau, config.initial_rd, config.max_rd) == (0.7, 300.0, 360.0)
    assert "Created league 'Chess Club' (chess-club)" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["riverside", "--name", "Again"], "already exists"),
        (["bad slug!", "--name", "X"], "not a valid slug"),
        (["new", "--name", "  "], "--name must not be empty"),
        (["new", "--name", "X", "--tau", "-1"], "tau must be greater than 0"),
        (["new", "--name", "X", "--initial-rd", "400"], "initial_rd"),
        (["new", "--name", "X", "--period-days", "0"], "at least 1"),
        (["new", "--name", "X", "--period-days", "7", "--period-months", "1"], "not allowed"),
        (["new", "--name", "X", "--period-anchor", "2024-02-31"], "not a date"),
        (["new", "--name", "X", "--time-zone", "Mars/Olympus"], "Unknown time zone"),
        (["new", "--name", "X", "--organiser", "nobody"], "No such user"),
        (
            ["new", "--name", "X", "--start-date", "2024-01-01", "--period-anchor", "2024-02-01"],
            "must not be after the league's start",
        ),
    ],
)
def test_create_league_refuses_bad_input_and_changes_nothing(league, args, message):
    before = state()
    with pytest.raises(CommandError, match=message):
        command("create_league", *args)
    assert state() == before


# --- set_config -------------------------------------------------------------------------------


def test_set_config_creates_a_new_version_and_queues_its_replay(rated_league):
    out, _ = command("set_config", rated_league.slug, "--tau", "0.3")
    latest = RatingConfig.objects.filter(league=rated_league).latest("version")
    assert (latest.version, latest.tau, latest.period_length) == (2, 0.3, 7)
    replay = Replay.objects.filter(config=latest).get()
    assert (replay.kind, replay.status) == ("full", "queued")
    assert f"replay #{replay.pk} is queued" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["riverside"], "at least one parameter"),
        (["nowhere", "--tau", "0.4"], "No league with the slug 'nowhere'"),
        (["riverside", "--tau", "0"], "tau must be greater than 0"),
        (["riverside", "--initial-volatility", "-0.1"], "initial_volatility"),
        (["riverside", "--period-anchor", "2030-01-01"], "period_anchor"),
    ],
)
def test_set_config_refuses_bad_input_and_changes_nothing(rated_league, args, message):
    before = state()
    with pytest.raises(CommandError, match=message):
        command("set_config", *args)
    assert state() == before


# --- import_results ---------------------------------------------------------------------------


def write(tmp_path, text: str, name: str = "results.csv"):
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    return str(path)


def test_import_results_records_the_file(league, tmp_path):
    path = write(tmp_path, "date,player_a,player_b,score_a\n2024-02-01,Ann,Bob,1-0\n")
    out, _ = command("import_results", league.slug, path, "--create-players")
    assert Event.objects.matches().filter(league=league).count() == 1
    assert "recorded 1 result(s)" in out
    assert "New players: Ann, Bob." in out


def test_import_results_dry_run_records_nothing(league, tmp_path):
    path = write(tmp_path, "date,player_a,player_b,score_a\n2024-02-01,Ann,Bob,1-0\n")
    before = state()
    out, _ = command("import_results", league.slug, path, "--create-players", "--dry-run")
    assert "would record 1 result(s)" in out
    assert state() == before


def test_import_results_prints_every_bad_row_and_records_nothing(league, tmp_path):
    path = write(
        tmp_path,
        "date,player_a,player_b,score_a\n2024-02-01,Ann,Bob,1\n2024-02-31,Ann,Bob,1\n"
        "2024-02-02,Ann,Bob,3\n",
    )
    before = state()
    err = io.StringIO()
    with pytest.raises(CommandError, match="2 bad row"):
        call_command(
            "import_results",
            league.slug,
            path,
            "--create-players",
            stdout=io.StringIO(),
            stderr=err,
        )
    assert f"{path}: line 3: bad date '2024-02-31'" in err.getvalue()
    assert f"{path}: line 4: unknown score_a '3'" in err.getvalue()
    assert state() == before


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["riverside", "/no/such/file.csv"], "Cannot read /no/such/file.csv"),
        (["nowhere", "{file}"], "No league with the slug"),
        (["riverside", "{file}", "--recorded-by", "ghost"], "No such user"),
        (["riverside", "{file}"], "unknown player|1 bad row"),
    ],
)
def test_import_results_refuses_bad_input(league, tmp_path, args, message):
    path = write(tmp_path, "date,player_a,player_b,score_a\n2024-02-01,Ann,Bob,1\n")
    before = state()
    with pytest.raises(CommandError, match=message):
        call_command(
            "import_results",
            *[arg.format(file=path) for arg in args],
            stdout=io.StringIO(),
            stderr=io.StringIO(),
        )
    assert state() == before


# --- replay -----------------------------------------------------------------------------------


def test_replay_sync_runs_the_replay_here_and_publishes_the_standings(rated_league):
    call_command("set_config", rated_league.slug, "--tau", "0.9", stdout=io.StringIO())
    out, _ = command("replay", rated_league.slug, "--sync")
    newest = RatingConfig.objects.filter(league=rated_league).latest("version")
    assert Publication.objects.get(league=rated_league).config == newest
    assert Standing.objects.filter(config=newest).count() == 3
    assert "complete" in out
    assert f"configuration version {newest.version} are live" in out
    assert not Replay.objects.filter(config__league=rated_league, status="queued").exists()


def test_replay_sync_sends_no_message_to_the_workers(
    rated_league, monkeypatch, django_capture_on_commit_callbacks
):
    """It runs the replay itself: a message would only make a worker find it done."""
    sent: list[int] = []
    monkeypatch.setattr("ratings.services._publish", sent.append)
    with django_capture_on_commit_callbacks(execute=True):
        command("replay", rated_league.slug, "--sync")
    assert sent == []
    with django_capture_on_commit_callbacks(execute=True):
        command("replay", rated_league.slug)  # the control: queued for the workers
    queued = Replay.objects.filter(config__league=rated_league).latest("pk")
    assert sent == [queued.pk]


def test_replay_without_sync_queues_and_says_how_to_follow(rated_league):
    out, _ = command("replay", rated_league.slug)
    replay = Replay.objects.filter(config__league=rated_league).latest("pk")
    assert replay.status == "queued"
    assert f"Queued full replay #{replay.pk}" in out
    assert f"manage.py replay {rated_league.slug} --watch" in out


def test_replay_of_an_unknown_league_is_refused(db):
    with pytest.raises(CommandError, match="No league with the slug 'nowhere'"):
        command("replay", "nowhere", "--sync")
    assert not Replay.objects.exists()


# --- export_ratings ---------------------------------------------------------------------------


def test_export_ratings_writes_the_standings_in_full_precision(rated_league):
    rank_everyone(rated_league)
    out, _ = command("export_ratings", rated_league.slug)
    rows = list(csv.DictReader(io.StringIO(out)))
    standings = {
        s.player.display_name: s
        for s in Standing.objects.filter(config=rated_league.publication.config).select_related(
            "player"
        )
    }
    assert [row["rank"] for row in rows] == ["1", "2", "3"]
    assert {row["player"] for row in rows} == set(standings)
    for row in rows:
        assert float(row["rating"]) == standings[row["player"]].rating
        assert float(row["volatility"]) == standings[row["player"]].volatility


def test_export_ratings_history_has_one_row_per_player_and_period(rated_league, tmp_path):
    target = tmp_path / "history.json"
    out, _ = command(
        "export_ratings",
        rated_league.slug,
        "--history",
        "--format",
        "json",
        "--output",
        str(target),
    )
    rows = json.loads(target.read_text())
    assert f"Wrote {len(rows)} row(s)" in out
    assert {"player", "period_start", "period_end", "rating", "rd", "volatility", "games"} <= set(
        rows[0]
    )
    played = sorted((row["player"], row["period_start"]) for row in rows)
    assert played == [
        ("Ann", "2024-01-01"),
        ("Ann", "2024-01-08"),
        ("Bob", "2024-01-01"),
        ("Cy", "2024-01-01"),
        ("Cy", "2024-01-08"),
    ]
    ann = [row for row in rows if row["player"] == "Ann"]
    assert ann[0]["period_end"] == "2024-01-07"
    assert ann[0]["games"] == 1


def test_export_ratings_results_reimport_as_the_same_matches(rated_league, tmp_path):
    target = tmp_path / "results.csv"
    command("export_ratings", rated_league.slug, "--results", "--output", str(target))
    copy = League.objects.create(name="Copy", slug="copy", start_date=dt.date(2024, 1, 1))
    command("import_results", "copy", str(target), "--create-players")
    assert Event.objects.matches().filter(league=copy).count() == 3


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nowhere"], "No league with the slug"),
        (["riverside", "--config-version", "9"], "no configuration version 9"),
        (["riverside", "--output", "/no/such/dir/out.csv"], "no such directory"),
        (["riverside", "--format", "xml"], "invalid choice"),
    ],
)
def test_export_ratings_refuses_bad_input(rated_league, args, message):
    with pytest.raises(CommandError, match=message):
        command("export_ratings", *args)


def test_export_ratings_without_standings_says_how_to_get_them(league):
    with pytest.raises(CommandError, match=r"no standings yet.*replay riverside --sync"):
        command("export_ratings", league.slug)


# --- load_demo --------------------------------------------------------------------------------


@pytest.fixture
def demo_settings(settings, tmp_path):
    settings.VAR_DIR = tmp_path
    return settings


def test_load_demo_builds_a_rated_league_and_is_safe_to_run_again(db, demo_settings):
    demo_settings.DEBUG = True
    out, _ = command("load_demo", "--since", "2025-01-01")
    league = League.objects.get(slug="international-football")
    matches = Event.objects.matches().filter(league=league)
    assert matches.count() > 500
    first = matches.order_by("played_at").first()
    assert first.played_at.date() >= dt.date(2025, 1, 1)
    config = league.publication.config
    assert (config.period_unit, config.period_length) == ("months", 1)
    # What the demo's walk-forward backtest recommends (docs/backtests.md).
    assert (config.advantage, config.update_mode) == (115.0, "instant")
    assert (config.tau, config.initial_rd, config.initial_volatility) == (0.5, 350.0, 0.06)
    assert (
        Standing.objects.filter(config=config).count()
        == Player.objects.filter(league=league).count()
    )
    organiser = get_user_model().objects.get(username="organiser")
    password = (demo_settings.VAR_DIR / "demo-organiser-password.txt").read_text().strip()
    assert f"password '{password}'" in out
    assert organiser.check_password(password)
    assert organiser.is_staff
    assert league.is_organiser(organiser)

    before = state()
    out, _ = command("load_demo", "--since", "2025-01-01", "--no-replay")
    assert "0 matches recorded" in out
    assert state() == before


def test_load_demo_runs_one_replay_and_none_when_nothing_changed(db, demo_settings):
    demo_settings.DEBUG = True
    command("load_demo", "--since", "2025-06-01")
    league = League.objects.get(slug="international-football")
    replays = Replay.objects.filter(config__league=league)
    assert replays.filter(status=Replay.Status.COMPLETE).exists()
    assert not replays.filter(status__in=[Replay.Status.QUEUED, Replay.Status.RUNNING]).exists()
    count = replays.count()

    out, _ = command("load_demo", "--since", "2025-06-01")

    assert "0 matches recorded" in out
    assert "Standings computed" not in out
    assert replays.count() == count


def test_load_demo_refuses_the_demo_account_when_debug_is_off(db, demo_settings):
    demo_settings.DEBUG = False
    out, _ = command("load_demo", "--since", "2026-01-01", "--no-replay")
    assert "Demo organiser account not created" in out
    assert not get_user_model().objects.filter(username="organiser").exists()
    command("load_demo", "--since", "2026-01-01", "--no-replay", "--force-demo-user")
    assert get_user_model().objects.get(username="organiser").is_staff


def test_load_demo_gives_an_older_demo_the_recommended_parameters(db, demo_settings):
    from ratings.management.commands.load_demo import OLD_DEMO_NOTE
    from ratings.services import create_config

    demo_settings.DEBUG = True
    league = League.objects.create(
        name="International football",
        slug="international-football",
        sport="Football",
        time_zone="UTC",
        start_date=dt.date(2026, 1, 1),
    )
    create_config(
        league,
        period_unit="months",
        period_length=1,
        period_anchor=dt.date(2026, 1, 1),
        note=OLD_DEMO_NOTE,
    )
    out, _ = command("load_demo", "--since", "2026-01-01", "--no-replay")
    assert "home advantage 115, instant updates" in out
    latest = RatingConfig.objects.filter(league=league).latest("version")
    assert (latest.version, latest.advantage, latest.update_mode) == (2, 115.0, "instant")
    assert (latest.period_unit, latest.period_length) == ("months", 1)
    # Loading again changes nothing more; a demo whose organiser chose its own is left alone.
    command("load_demo", "--since", "2026-01-01", "--no-replay")
    create_config(league, advantage=60.0, note="mine")
    command("load_demo", "--since", "2026-01-01", "--no-replay")
    assert list(
        RatingConfig.objects.filter(league=league).order_by("version").values_list("advantage")
    ) == [(0.0,), (115.0,), (60.0,)]


def test_load_demo_refuses_a_bad_date(db):
    with pytest.raises(CommandError, match="not a date"):
        command("load_demo", "--since", "1990-13-01")
    assert not League.objects.exists()


# --- CSV downloads from the pages --------------------------------------------------------------


def download(client, name: str, slug: str, query: str = "") -> list[dict[str, str]]:
    response = client.get(reverse(f"pages:{name}", args=[slug]) + query)
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert f'filename="{slug}-' in response["Content-Disposition"]
    text = b"".join(response.streaming_content).decode()
    return list(csv.DictReader(io.StringIO(text)))


def test_pages_offer_the_standings_and_history_as_csv(client, rated_league):
    command_rows = list(csv.DictReader(io.StringIO(command("export_ratings", "riverside")[0])))
    assert download(client, "export_standings", "riverside") == command_rows
    history = download(client, "export_history", "riverside", "?version=1")
    assert len(history) == 5
    assert history[0]["player"] == "Ann"


@pytest.mark.parametrize("query", ["?version=7", "?version=x"])
def test_csv_downloads_of_unknown_versions_are_404(client, rated_league, query):
    assert (
        client.get(reverse("pages:export_history", args=["riverside"]) + query).status_code == 404
    )


def test_csv_downloads_without_standings_are_404(client, league):
    assert client.get(reverse("pages:export_standings", args=["riverside"])).status_code == 404
    assert client.get(reverse("pages:export_standings", args=["nowhere"])).status_code == 404


def test_replay_watch_follows_the_latest_replay_until_it_ends(rated_league):
    out, _ = command("replay", rated_league.slug, "--watch")
    replay = Replay.objects.filter(config__league=rated_league).latest("pk")
    assert f"Replay #{replay.pk} (full, configuration version 1): complete" in out
    assert Replay.objects.filter(config__league=rated_league).count() == 1


def test_replay_watch_without_any_replay_is_refused(league):
    with pytest.raises(CommandError, match="has no replay yet"):
        command("replay", league.slug, "--watch")


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["create_league", "bad slug!", "--name", "X"], 1, "is not a valid slug"),
        (["export_ratings", "any", "--format", "xml"], 2, "invalid choice: 'xml'"),
        (["replay", "any", "--sync", "--watch"], 2, "not allowed with argument"),
    ],
)
def test_bad_input_from_the_shell_exits_non_zero_with_the_message(args, code, message):
    root = Path(__file__).resolve().parents[2]
    result = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=root,
        capture_output=True,
        text=True,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "tests.settings"},
        timeout=60,
        check=False,
    )
    assert result.returncode == code
    assert message in result.stderr


def test_export_ratings_pages_through_a_large_leaderboard(league):
    rank_everyone(league)
    from league.csv_import import import_results
    from league.event_log import MAX_PER_PAGE
    from ratings.services import create_config

    pairs = MAX_PER_PAGE // 2 + 5
    lines = "".join(f"2024-01-02,P{i}a,P{i}b,1\n" for i in range(pairs))
    data = ("date,player_a,player_b,score_a\n" + lines).encode()
    assert import_results(league, io.BytesIO(data), create_players=True).ok
    create_config(league, period_unit="days", period_length=7)
    run_queued()
    rows = list(csv.DictReader(io.StringIO(command("export_ratings", league.slug)[0])))
    assert len(rows) == 2 * pairs > MAX_PER_PAGE
    assert {row["player"] for row in rows} == {f"P{i}{side}" for i in range(pairs) for side in "ab"}
    ranks = [int(row["rank"]) for row in rows]
    assert ranks == sorted(ranks)
    assert ranks[-1] == pairs + 1  # every winner ties for first, every loser for pairs + 1
