"""PostgreSQL keeps each configuration's history in a partition of its own: a statement over
the history must name its configuration by a constant, so that the planner keeps that one
partition. A condition on a joined column (``q.config_id = s.config_id``) left it every
partition to plan: with 1,000 leagues on one server, 1.7 s of planning for a one-result
replay's checkpoint (``bench/bench_many_leagues.py --stream``).
"""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from league import services as league_services
from ratings.models import RatingConfig
from ratings.replay.partitions import partition_name
from ratings.replay.snapshot import last_rows_statement
from ratings.selectors.standings import LeaderboardQuery, leaderboard

pytestmark = pytest.mark.postgres

PARTITION = re.compile(r"ratings_playerperiod_c\d+")


@pytest.fixture
def two_rated_leagues(league, other_league, make_player, django_capture_on_commit_callbacks):
    """Two leagues with results over several weeks, each replayed into its own partition."""
    for which, target in enumerate((league, other_league)):
        players = [make_player(target, f"Player {which}-{i}") for i in range(4)]
        with django_capture_on_commit_callbacks(execute=True):
            for week in range(6):
                day = dt.date(2024, 1, 1) + dt.timedelta(weeks=week)
                league_services.record_match(
                    target, player_a=players[week % 4], player_b=players[(week + 1) % 4],
                    score_a="1", played_at=day,
                )  # fmt: skip
    return [
        RatingConfig.objects.filter(league=target).latest("version")
        for target in (league, other_league)
    ]


def planned_partitions(sql: str, params) -> set[str]:
    """The history partitions in the plan of ``sql`` (EXPLAIN: planned, not run)."""
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN {sql}", params)
        plan = "\n".join(row[0] for row in cursor.fetchall())
    return set(PARTITION.findall(plan))


def test_a_replay_s_checkpoint_plans_its_own_partition_only(two_rated_leagues):
    config, other = two_rated_leagues
    assert partition_name(config.pk) != partition_name(other.pk)
    sql, params = last_rows_statement(config.pk, 3)

    assert planned_partitions(sql, params) == {partition_name(config.pk)}


def test_past_standings_plan_their_own_partition_only(league, two_rated_leagues):
    config, _other = two_rated_leagues
    with CaptureQueriesContext(connection) as queries:
        board = leaderboard(league, LeaderboardQuery(as_of_period=2, everyone=True))
    assert board.rows, "the past standings list the league's players"
    history = [q["sql"] for q in queries if "ratings_playerperiod" in q["sql"]]
    assert history, "the past standings read the history"

    for sql in history:
        assert planned_partitions(sql, None) == {partition_name(config.pk)}
