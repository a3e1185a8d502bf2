"""Migration ``ratings.0008``: PostgreSQL's ``PlayerPeriod`` becomes partitioned by
configuration, every row kept (ids included), and back again.

It runs the migration both ways on the test database with history rows in it, then leaves the
schema as the other tests expect it (migrated forward), whatever happened.
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

BEFORE = [("ratings", "0007_ranking_rules")]
AFTER = [("ratings", "0008_player_period_partitions")]
ROWS = "SELECT * FROM ratings_playerperiod ORDER BY config_id, player_id, period_index"


def migrate(targets: list[tuple[str, str]]) -> None:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)


def migrate_to_latest() -> None:
    """Every app to its newest migration: the schema the other tests expect (migrations
    after 0008, such as 0009's ``update_mode``, included)."""
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())


def query(sql: str, params: list | None = None) -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params or [])
        return cursor.fetchall() if cursor.description else []


def partitions() -> list[str]:
    return [
        row[0]
        for row in query(
            "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
            "WHERE i.inhparent = 'ratings_playerperiod'::regclass ORDER BY c.relname"
        )
    ]


def test_the_history_moves_into_partitions_and_back_unchanged(league, make_player):
    from ratings import services

    players = [make_player(league, name) for name in ("Ann", "Bob")]
    first = services.create_config(league).pk
    second = services.create_config(league, tau=0.9).pk
    try:
        migrate(BEFORE)
        assert query("SELECT relkind FROM pg_class WHERE relname = 'ratings_playerperiod'") == [
            ("r",)
        ]
        for config_id, rating in ((first, 1512.25), (second, 1488.0625)):
            for index, player in enumerate(players):
                query(
                    "INSERT INTO ratings_playerperiod (config_id, player_id, period_index, "
                    "period_start, period_end, rating, rd, volatility, rating_before, "
                    "rd_before, games, wins, draws, losses) VALUES (%s, %s, %s, '2024-01-01', "
                    "'2024-01-07', %s, 80.5, 0.06, 1500, 350, 1, 1, 0, 0)",
                    [config_id, player.pk, index, rating + index],
                )
        rows = query(ROWS)

        migrate(AFTER)

        assert query(ROWS) == rows
        assert partitions() == sorted(
            f"ratings_playerperiod_c{config_id}" for config_id in (first, second)
        )
        # A new row takes an id past the ones moved.
        query(
            "INSERT INTO ratings_playerperiod (config_id, player_id, period_index, period_start, "
            "period_end, rating, rd, volatility, rating_before, rd_before, games, wins, draws, "
            "losses) VALUES (%s, %s, 9, '2024-03-04', '2024-03-10', 1500, 90, 0.06, 1500, 95, "
            "1, 0, 1, 0)",
            [first, players[0].pk],
        )
        (newest,) = query("SELECT max(id) FROM ratings_playerperiod")[0]
        assert newest > max(row[0] for row in rows)

        migrate(BEFORE)
        assert len(query(ROWS)) == len(rows) + 1
        assert query(
            "SELECT count(*) FROM pg_class WHERE relname LIKE 'ratings_playerperiod_c%%'"
        ) == [(0,)]
    finally:
        migrate_to_latest()
    assert query("SELECT relkind FROM pg_class WHERE relname = 'ratings_playerperiod'") == [("p",)]
