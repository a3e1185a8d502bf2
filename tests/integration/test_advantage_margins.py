"""The first-named side's advantage and the margin mapping through the whole pipeline.

Matches store their neutral flag and margin; a configuration with an advantage or a margin
scale replays with them, incrementally exactly as in full (checked against the pure engine's
fold of the test's own match list, bit for bit); with advantage 0 and margins off the stored
flags change nothing, byte for byte.
"""

from __future__ import annotations

import datetime as dt
import io
import itertools
from decimal import Decimal

import pytest
from django.core.management import call_command
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from league import services as league_services
from league.csv_import import import_results
from league.models import Event, League
from ratings import services
from ratings.models import Replay
from ratings.time import current_period
from tests.replay_support import KeptMatch, expected_projection, snapshot

START = dt.date(2024, 1, 1)
_slugs = itertools.count()


def _new_league(organiser) -> League:
    league = League.objects.create(
        name="Home and away",
        slug=f"home-away-{next(_slugs)}",
        time_zone="Europe/London",
        start_date=START,
    )
    league.organisers.add(organiser)
    return league


@pytest.fixture
def league(league: League) -> League:
    """The shared league with home grounds: a chess game is never neutral."""
    league.sport = "Football"
    league.save()
    return league


def _goals_result(home: int, away: int) -> str:
    return "1" if home > away else "0.5" if home == away else "0"


# --- storage -------------------------------------------------------------------------------


def test_a_match_stores_its_neutral_flag_and_the_margin_of_its_points(league, make_player):
    a, b = make_player(league, "Ajax"), make_player(league, "Benfica")
    home = league_services.record_match(
        league, player_a=a, player_b=b, score_a="0", played_at=START, points="1–3"
    )
    away = league_services.record_match(
        league, player_a=b, player_b=a, score_a="1", played_at=START, points="11-7 9-11 11-5",
        neutral="yes",
    )  # fmt: skip
    assert (home.neutral, home.margin) == (False, -2)
    assert (away.neutral, away.margin) == (True, None)  # games, not one pair: unknown


def test_a_bad_neutral_value_is_refused_naming_the_field(league, make_player):
    a, b = make_player(league, "Ajax"), make_player(league, "Benfica")
    with pytest.raises(Exception) as refused:
        league_services.record_match(
            league, player_a=a, player_b=b, score_a="1", played_at=START, neutral="maybe"
        )
    assert "neutral" in refused.value.message_dict
    assert not Event.objects.filter(kind=Event.Kind.MATCH_RECORDED).exists()


def test_csv_neutral_column_is_stored_and_a_bad_value_names_its_line(league, make_player):
    make_player(league, "Ajax")
    make_player(league, "Benfica")
    good = (
        "date,player_a,player_b,points_a,points_b,neutral\n"
        "2024-01-05,Ajax,Benfica,2,0,true\n"
        "2024-01-06,Benfica,Ajax,1,1,\n"
        "2024-01-07,Ajax,Benfica,0,1,no\n"
    )
    report = import_results(league, io.BytesIO(good.encode()))
    assert report.ok, report.errors
    stored = list(
        Event.objects.filter(kind=Event.Kind.MATCH_RECORDED)
        .order_by("seq")
        .values_list("neutral", "margin")
    )
    assert stored == [(True, 2), (False, 0), (False, -1)]

    bad = "date,player_a,player_b,score_a,neutral\n2024-01-08,Ajax,Benfica,1,perhaps\n"
    report = import_results(league, io.BytesIO(bad.encode()))
    assert not report.ok
    assert [(error.line, "neutral" in error.message) for error in report.errors] == [(2, True)]
    assert Event.objects.filter(kind=Event.Kind.MATCH_RECORDED).count() == 3


def test_the_demo_rows_keep_the_files_neutral_column(tmp_path):
    from ratings.management.commands.load_demo import FIXTURE, IMPORT_COLUMNS, demo_rows

    rows = list(demo_rows(FIXTURE, dt.date(2022, 12, 18), dt.date(2022, 12, 18)))
    final = [row for row in rows if row[2] == "Argentina" and row[3] == "France"]
    assert len(final) == 1  # the World Cup final in Lusail: neutral ground
    assert dict(zip(IMPORT_COLUMNS, final[0], strict=True))["neutral"] == "true"
    kept = list(
        demo_rows(FIXTURE, dt.date(2022, 12, 18), dt.date(2022, 12, 18), neutral_flags=False)
    )
    assert [row[-1] for row in kept] == ["false"] * len(kept)


# --- the replay ----------------------------------------------------------------------------


def _record(league, kept, a, b, goals, day, neutral):
    home, away = goals
    score = _goals_result(home, away)
    event = league_services.record_match(
        league,
        player_a=a,
        player_b=b,
        score_a=score,
        played_at=day,
        points=f"{home}-{away}",
        neutral=neutral,
    )
    kept.append(KeptMatch(a.pk, b.pk, float(score), day, event, False, neutral, home - away))


def test_advantage_zero_and_margins_off_give_byte_identical_standings(
    organiser, make_player, django_capture_on_commit_callbacks
):
    """The same results with and without neutral flags and points: identical projections."""
    flagged, plain = _new_league(organiser), _new_league(organiser)
    results = [
        (0, 1, (2, 0), 3, True),
        (1, 2, (1, 1), 5, False),
        (2, 0, (0, 3), 9, True),
        (0, 2, (4, 2), 16, False),
        (1, 0, (1, 0), 23, False),
    ]
    configs = []
    for league, with_flags in ((flagged, True), (plain, False)):
        players = [make_player(league, f"Team {i}") for i in range(3)]
        with django_capture_on_commit_callbacks(execute=True):
            configs.append(
                services.create_config(league, tau=0.6, period_length=7, update_mode="period")
            )
            for a, b, (home, away), day, neutral in results:
                league_services.record_match(
                    league,
                    player_a=players[a],
                    player_b=players[b],
                    score_a=_goals_result(home, away),
                    played_at=START + dt.timedelta(days=day),
                    points=f"{home}-{away}" if with_flags else "",
                    neutral=neutral and with_flags,
                )
    first, second = (snapshot(config) for config in configs)
    # Player ids differ between the leagues: compare the rows without them, in order.
    assert [row[1:] for row in first[0]] == [row[1:] for row in second[0]]
    assert [row[1:] for row in first[1]] == [row[1:] for row in second[1]]
    assert len(first[0]) == 9  # 3 players in the first week, 2 in each of the next three


@settings(
    max_examples=6,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    steps=st.lists(
        st.tuples(
            st.integers(0, 3),  # home side
            st.integers(1, 3),  # away side, as an offset from the home side
            st.tuples(st.integers(0, 5), st.integers(0, 5)),  # goals
            st.integers(0, 59),  # day of the match after the league's start
            st.booleans(),  # neutral ground
        ),
        min_size=4,
        max_size=12,
    ),
    advantage=st.sampled_from([-40.0, 80.0, 150.0]),
    margin_scale=st.sampled_from([None, 0.5, 2.0]),
)
def test_incremental_equals_full_with_advantage_and_margins(
    organiser, make_player, django_capture_on_commit_callbacks, steps, advantage, margin_scale
):
    league = _new_league(organiser)
    players = [make_player(league, f"Team {i}") for i in range(4)]
    kept: list[KeptMatch] = []
    with django_capture_on_commit_callbacks(execute=True):
        config = services.create_config(
            league,
            tau=0.6,
            period_length=5,
            advantage=advantage,
            margin_scale=margin_scale,
            update_mode="period",
        )
    for home, offset, goals, day, neutral in steps:
        with django_capture_on_commit_callbacks(execute=True):
            _record(
                league,
                kept,
                players[home],
                players[(home + offset) % 4],
                goals,
                START + dt.timedelta(days=day),
                neutral,
            )
        assert snapshot(config) == expected_projection(config, kept, current_period(config))
    incremental = Replay.objects.filter(config=config, kind=Replay.Kind.INCREMENTAL)
    assert incremental.filter(status=Replay.Status.COMPLETE).exists()

    kept_rows = snapshot(config)
    with django_capture_on_commit_callbacks(execute=True):
        full = services.request_full_replay(league)
    full.refresh_from_db()
    assert full.status == Replay.Status.COMPLETE
    assert snapshot(config) == kept_rows


def test_the_advantage_changes_the_numbers_and_neutral_matches_are_spared(
    organiser, make_player, django_capture_on_commit_callbacks
):
    """A home win counts less with an advantage; on neutral ground it counts as without."""
    numbers = {}
    for advantage, neutral in ((0.0, False), (100.0, False), (100.0, True)):
        league = _new_league(organiser)
        a, b = make_player(league, "Home"), make_player(league, "Away")
        with django_capture_on_commit_callbacks(execute=True):
            config = services.create_config(league, advantage=advantage, update_mode="period")
            league_services.record_match(
                league, player_a=a, player_b=b, score_a="1", played_at=START, neutral=neutral
            )
        history, _ = snapshot(config)
        numbers[(advantage, neutral)] = [row[4] for row in history]  # ratings, as hex
    assert numbers[(100.0, True)] == numbers[(0.0, False)]
    home_gain = {key: float.fromhex(value[0]) - 1500 for key, value in numbers.items()}
    assert 0 < home_gain[(100.0, False)] < home_gain[(0.0, False)]


def test_set_config_takes_the_advantage_and_switches_margins_off(
    league, django_capture_on_commit_callbacks
):
    services.create_config(league, update_mode="period")
    with django_capture_on_commit_callbacks(execute=True):
        call_command(
            "set_config", league.slug, "--advantage", "65", "--margin-scale", "2",
            stdout=io.StringIO(),
        )  # fmt: skip
    latest = services.latest_config(league)
    assert (latest.advantage, latest.margin_scale) == (65.0, 2.0)
    with django_capture_on_commit_callbacks(execute=True):
        call_command("set_config", league.slug, "--margin-scale", "none", stdout=io.StringIO())
    latest = services.latest_config(league)
    assert (latest.advantage, latest.margin_scale) == (65.0, None)


def test_stored_margins_are_what_the_replay_reads(league, make_player):
    from ratings.replay.snapshot import read_matches

    a, b = make_player(league, "Ajax"), make_player(league, "Benfica")
    # Each score agrees with its points (a pair that contradicts the result is refused).
    for points, score, neutral in (("3-1", "1", True), ("", "0.5", False), ("0–2", "0", False)):
        league_services.record_match(
            league, player_a=a, player_b=b, score_a=Decimal(score), played_at=START,
            points=points, neutral=neutral,
        )  # fmt: skip
    matches = read_matches(league, 10**9, extras=True)
    assert matches.neutral.tolist() == [True, False, False]
    assert matches.margin[0] == 2.0
    assert matches.margin[1] != matches.margin[1]  # NaN: unknown
    assert matches.margin[2] == -2.0
    plain = read_matches(league, 10**9)
    assert plain.neutral is None
    assert plain.margin is None


def test_a_demo_league_stored_before_the_flag_is_loaded_again_without_it(league, make_player):
    """Loading the demo again must not conflict with matches stored before neutral flags:
    the loader sends every row as not neutral then (same content, same keys)."""
    from ratings.management.commands.load_demo import _stored_without_flags

    assert not _stored_without_flags(league)  # no matches: a fresh load keeps the flags
    a, b = make_player(league, "Ajax"), make_player(league, "Benfica")
    league_services.record_match(league, player_a=a, player_b=b, score_a="1", played_at=START)
    assert _stored_without_flags(league)
    league_services.record_match(
        league, player_a=b, player_b=a, score_a="1", played_at=START, neutral=True
    )
    assert not _stored_without_flags(league)
