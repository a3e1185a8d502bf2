"""The replay's SQL helpers on the configured database: a query as NumPy columns, a condition
on many ids (``ratings.replay.columns``)."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest

from ratings.models import Standing
from ratings.replay.columns import NO_MOMENT, any_of, read_columns
from ratings.services import create_config, latest_config

pytestmark = pytest.mark.django_db

# Floats whose decimal forms are long or awkward: they must come back bit for bit.
FLOATS = [1500.0, 0.1 + 0.2, 1 / 3, 5e-324, 1.7976931348623157e308, -1e-300, 2.0**-1022]


def _standings(config, players, moments):
    for index, (player, moment) in enumerate(zip(players, moments, strict=True)):
        Standing.objects.create(
            config=config,
            player=player,
            rating=FLOATS[index % len(FLOATS)],
            rd=FLOATS[(index + 1) % len(FLOATS)],
            volatility=0.06,
            last_period=index,
            games=index + 1,
            wins=index,
            draws=0,
            losses=1,
            last_played_at=moment,
        )


@pytest.fixture
def config(league):
    return latest_config(league) or create_config(league)


def test_read_columns_returns_each_column_as_an_array_bit_for_bit(config, make_player):
    players = [make_player(config.league, f"Player {i}") for i in range(len(FLOATS))]
    moment = dt.datetime(2024, 3, 1, 12, 30, 15, 123456, tzinfo=dt.UTC)
    _standings(config, players, [moment, None, *[moment] * (len(FLOATS) - 2)])

    pid, rating, last_period, played = read_columns(
        "SELECT player_id, rating, last_period, last_played_at FROM ratings_standing "
        "WHERE config_id = %s ORDER BY last_period",
        [config.pk],
        "ifim",
    )

    assert [pid.dtype, rating.dtype, played.dtype] == [np.int64, np.float64, np.int64]
    assert pid.tolist() == [p.pk for p in players]
    assert rating.view(np.int64).tolist() == np.array(FLOATS).view(np.int64).tolist()
    assert last_period.tolist() == list(range(len(FLOATS)))
    expected_us = int(np.datetime64("2024-03-01T12:30:15.123456", "us").astype(np.int64))
    assert played[0] == expected_us
    assert played[1] == NO_MOMENT  # NULL


def test_read_columns_of_no_rows_are_empty_arrays(config):
    columns = read_columns(
        "SELECT player_id, rating FROM ratings_standing WHERE config_id = %s", [config.pk], "if"
    )
    assert [(c.size, c.dtype) for c in columns] == [(0, np.int64), (0, np.float64)]


def test_any_of_selects_exactly_the_given_ids(config, make_player):
    players = [make_player(config.league, f"Player {i}") for i in range(5)]
    _standings(config, players, [None] * 5)
    wanted = np.array([players[0].pk, players[3].pk, 10**12], dtype=np.int64)
    condition, params = any_of("player_id", wanted)

    (found,) = read_columns(
        f"SELECT player_id FROM ratings_standing WHERE config_id = %s AND {condition} "
        "ORDER BY player_id",
        [config.pk, *params],
        "i",
    )
    assert found.tolist() == [players[0].pk, players[3].pk]

    condition, params = any_of("player_id", np.zeros(0, dtype=np.int64))
    (none,) = read_columns(f"SELECT player_id FROM ratings_standing WHERE {condition}", params, "i")
    assert none.size == 0
