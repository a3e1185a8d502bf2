"""The projection table swap (``ratings.replay.table_swap``): a full replay that replaces most
of ``PlayerPeriod`` builds the table beside the live one and renames it in.

The swap must give the same rows as the delete path, keep every other configuration's rows
(SQLite; PostgreSQL swaps only a table holding no other configuration), leave the table's
constraints and indexes as the migrations made them, and change nothing when the replay fails
after the new table was built (one transaction).
"""

from __future__ import annotations

import datetime as dt
import random

import pytest
from django.db import connection

from league import services as league_services
from ratings import services
from ratings.models import PlayerPeriod, Replay
from ratings.replay import store
from ratings.replay.table_swap import NEXT, swap_pays
from ratings.time import current_period
from tests.replay_support import KeptMatch, expected_projection, snapshot

START = dt.date(2024, 1, 1)
TABLE = PlayerPeriod._meta.db_table


def recorded(league, players, count: int, seed: int) -> list[KeptMatch]:
    rng = random.Random(seed)
    kept = []
    for _ in range(count):
        a, b = rng.sample(players, 2)
        day = START + dt.timedelta(days=rng.randrange(0, 90))
        score = rng.choice(["1", "0.5", "0"])
        event = league_services.record_match(
            league, player_a=a, player_b=b, score_a=score, played_at=day
        )
        kept.append(KeptMatch(a.pk, b.pk, float(score), day, event))
    return kept


def replayed(league, capture):
    """Queue a full replay of the league's newest configuration and run it; its config."""
    with capture(execute=False):
        replay = services.request_full_replay(league)
    services.run_replay(replay.pk)
    replay.refresh_from_db()
    return replay


def table_shape() -> dict[str, tuple]:
    """The table's constraints and indexes by name: (columns, unique, primary key, index)."""
    with connection.cursor() as cursor:
        found = connection.introspection.get_constraints(cursor, TABLE)
    return {
        name: (tuple(c["columns"]), c["unique"], c["primary_key"], c["index"])
        for name, c in found.items()
        # SQLite names the UNIQUE constraint's own index after the table.
        if not name.startswith("__unnamed")
    }


def table_exists(name: str) -> bool:
    with connection.cursor() as cursor:
        return name in connection.introspection.table_names(cursor)


@pytest.fixture
def one_league(league, make_player, django_capture_on_commit_callbacks):
    """One league (80 matches), replayed once: the table holds its rows only."""
    players = [make_player(league, f"Only {i}") for i in range(6)]
    with django_capture_on_commit_callbacks(execute=True):
        return recorded(league, players, 80, seed=5)


@pytest.fixture
def two_leagues(league, other_league, make_player, django_capture_on_commit_callbacks):
    """A big league (120 matches) and a small one (6), both replayed once."""
    big_players = [make_player(league, f"Big {i}") for i in range(8)]
    small_players = [make_player(other_league, f"Small {i}") for i in range(3)]
    with django_capture_on_commit_callbacks(execute=True):
        big = recorded(league, big_players, 120, seed=3)
        small = recorded(other_league, small_players, 6, seed=4)
    return big, small


def test_a_configuration_alone_in_the_table_is_swapped_with_the_same_rows(
    league, one_league, django_capture_on_commit_callbacks, monkeypatch
):
    config = services.latest_config(league)
    shape_before = table_shape()
    assert swap_pays(TABLE, config.pk)
    swaps = []
    swap = store.swap_table
    monkeypatch.setattr(store, "swap_table", lambda *args: swaps.append(args) or swap(*args))

    replay = replayed(league, django_capture_on_commit_callbacks)

    assert replay.status == Replay.Status.COMPLETE
    assert len(swaps) == 1
    assert snapshot(config) == expected_projection(config, one_league, current_period(config))
    assert table_shape() == shape_before
    assert {"player_period_unique", "player_period_by_period"} <= set(shape_before)
    assert not table_exists(f"{TABLE}{NEXT}")


@pytest.mark.postgres
def test_postgres_never_swaps_a_table_shared_with_other_configurations(league, two_leagues):
    # The swap would lock every other league's replay out of the table while it writes.
    assert not swap_pays(TABLE, services.latest_config(league).pk)


@pytest.mark.sqlite
def test_a_dominant_configuration_is_swapped_with_the_same_rows_and_the_others_kept(
    league, other_league, two_leagues, django_capture_on_commit_callbacks
):
    big, small = two_leagues
    big_config = services.latest_config(league)
    small_config = services.latest_config(other_league)
    small_before = snapshot(small_config)
    shape_before = table_shape()
    assert swap_pays(TABLE, big_config.pk)

    replay = replayed(league, django_capture_on_commit_callbacks)

    assert replay.status == Replay.Status.COMPLETE
    through = current_period(big_config)
    assert snapshot(big_config) == expected_projection(big_config, big, through)
    assert snapshot(small_config) == small_before
    assert snapshot(small_config) == expected_projection(
        small_config, small, current_period(small_config)
    )
    assert table_shape() == shape_before
    assert {"player_period_unique", "player_period_by_period"} <= set(shape_before)
    assert not table_exists(f"{TABLE}{NEXT}")


def test_a_configuration_among_bigger_ones_keeps_the_delete_path(
    league, other_league, two_leagues, django_capture_on_commit_callbacks, monkeypatch
):
    small_config = services.latest_config(other_league)
    assert not swap_pays(TABLE, small_config.pk)
    swapped = []
    monkeypatch.setattr(store, "swap_table", lambda *args: swapped.append(args))

    replay = replayed(other_league, django_capture_on_commit_callbacks)

    assert replay.status == Replay.Status.COMPLETE
    assert swapped == []
    _big, small = two_leagues
    assert snapshot(small_config) == expected_projection(
        small_config, small, current_period(small_config)
    )


def test_a_replay_failing_after_the_swap_leaves_the_old_table(
    league, one_league, django_capture_on_commit_callbacks, monkeypatch, settings
):
    settings.REPLAY_MAX_ATTEMPTS = 1
    config = services.latest_config(league)
    assert swap_pays(TABLE, config.pk)
    before = snapshot(config)
    shape_before = table_shape()

    def broken(*args, **kwargs):
        raise RuntimeError("disk full")

    # Runs after the new table replaced the old one, in the same transaction.
    monkeypatch.setattr(store, "write_standings", broken)
    replay = replayed(league, django_capture_on_commit_callbacks)

    assert replay.status == Replay.Status.FAILED
    assert "disk full" in replay.error
    assert snapshot(config) == before
    assert table_shape() == shape_before
    assert not table_exists(f"{TABLE}{NEXT}")
