"""The projection swaps: a full replay builds its configuration's history beside the live one
and puts it in place (SQLite: the whole table, ``ratings.replay.table_swap``, when the
configuration's rows are most of it; PostgreSQL: the configuration's own partition, always,
``ratings.replay.partitions``).

A swap must give the same rows as the delete path, keep every other configuration's rows,
leave the table's constraints and indexes as the migrations made them, and change nothing
when the replay fails after the new table was built (one transaction).
"""

from __future__ import annotations

import datetime as dt
import random
import sqlite3
import threading
from contextlib import closing

import numpy as np
import pytest
from django.db import IntegrityError, connection, transaction

import engine.fold_process as fold_process
from league import services as league_services
from ratings import services
from ratings.models import PlayerPeriod, Replay
from ratings.replay import compute, runner, store, table_swap
from ratings.replay.partitions import ANALYZED_COLUMNS, partition_name, partitioned
from ratings.replay.table_swap import NEXT, swap_pays
from ratings.time import current_period
from tests.replay_support import KeptMatch, expected_projection, snapshot

START = dt.date(2024, 1, 1)
TABLE = PlayerPeriod._meta.db_table


def recorded(league, players, count: int, seed: int) -> list[KeptMatch]:
    """``count`` random results, rated with period updates (what ``expected_projection``
    folds; a league's first result would otherwise make the default, instant, version)."""
    services.create_config(league, update_mode="period")
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
    """Whether a table called ``name`` exists (Django's table list leaves partitions out)."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SELECT to_regclass(%s) IS NOT NULL", [f'"{name}"'])
            return bool(cursor.fetchone()[0])
        return name in connection.introspection.table_names(cursor)


def half_built_tables() -> list[str]:
    """Tables left by a swap that did not finish (none, whatever happened)."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                "SELECT relname FROM pg_class WHERE relkind IN ('r', 'p') AND relname LIKE %s",
                [f"%{NEXT}"],
            )
            return [row[0] for row in cursor.fetchall()]
        # ``__next`` (one transaction) or ``__next<config id>`` (built batch by batch).
        return [n for n in connection.introspection.table_names(cursor) if NEXT in n]


def swap_function() -> str:
    """The name, in ``ratings.replay.store``, of what a full replay swaps with here."""
    return "attach_partition" if partitioned() else "swap_table"


def partition_of_rows(config_id: int) -> set[str]:
    """The tables holding the configuration's history rows (PostgreSQL)."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT DISTINCT tableoid::regclass::text FROM {TABLE} WHERE config_id = %s",
            [config_id],
        )
        return {row[0].strip('"') for row in cursor.fetchall()}


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
    assert partitioned() or swap_pays(TABLE, config.pk)
    swaps = []
    swap = getattr(store, swap_function())
    monkeypatch.setattr(store, swap_function(), lambda *args: swaps.append(args) or swap(*args))

    replay = replayed(league, django_capture_on_commit_callbacks)

    assert replay.status == Replay.Status.COMPLETE
    assert len(swaps) == 1
    assert snapshot(config) == expected_projection(config, one_league, current_period(config))
    assert table_shape() == shape_before
    assert {"player_period_unique", "player_period_by_period"} <= set(shape_before)
    assert half_built_tables() == []


@pytest.mark.postgres
@pytest.mark.parametrize("which", ["big", "small"])
def test_postgres_swaps_each_configuration_s_own_partition_and_keeps_the_others(
    league, other_league, two_leagues, django_capture_on_commit_callbacks, monkeypatch, which
):
    big, small = two_leagues
    leagues = {"big": (league, big), "small": (other_league, small)}
    replayed_league, kept = leagues[which]
    other_league_, other_kept = leagues["small" if which == "big" else "big"]
    config = services.latest_config(replayed_league)
    other = services.latest_config(other_league_)
    other_before = snapshot(other)
    shape_before = table_shape()
    swaps = []
    swap = store.attach_partition
    monkeypatch.setattr(store, "attach_partition", lambda *args: swaps.append(args) or swap(*args))

    replay = replayed(replayed_league, django_capture_on_commit_callbacks)

    assert replay.status == Replay.Status.COMPLETE
    assert [args[0] for args in swaps] == [config.pk]
    assert snapshot(config) == expected_projection(config, kept, current_period(config))
    assert snapshot(other) == other_before
    assert snapshot(other) == expected_projection(other, other_kept, current_period(other))
    # Each configuration's rows in its own partition, the parent as the migrations made it.
    assert partition_of_rows(config.pk) == {partition_name(config.pk)}
    assert partition_of_rows(other.pk) == {partition_name(other.pk)}
    assert table_shape() == shape_before
    assert half_built_tables() == []


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
    assert half_built_tables() == []


@pytest.mark.sqlite
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
    assert partitioned() or swap_pays(TABLE, config.pk)
    # Runs in the swap's transaction (SQLite: after the new table replaced the old one;
    # PostgreSQL: before the attach).
    failing_replay_changes_nothing(
        league, config, "write_standings", monkeypatch, django_capture_on_commit_callbacks
    )


def failing_replay_changes_nothing(league, config, step: str, monkeypatch, capture) -> None:
    """Break ``store.<step>``, run a full replay: it fails with that error and leaves the
    history, the standings, the table's shape as they were, and no half-built table."""
    before = snapshot(config)
    shape_before = table_shape()

    def broken(*args, **kwargs):
        raise RuntimeError(f"{step} broke")

    monkeypatch.setattr(store, step, broken)
    replay = replayed(league, capture)

    assert replay.status == Replay.Status.FAILED
    assert f"{step} broke" in replay.error
    assert snapshot(config) == before
    assert table_shape() == shape_before
    assert half_built_tables() == []


def assert_one_row_per_player_and_period(config) -> None:
    """The history's unique rule holds after the swap: a second row for a (configuration,
    player, period) is refused."""
    row = PlayerPeriod.objects.filter(config=config).values().first()
    assert row is not None
    del row["id"]
    with pytest.raises(IntegrityError), transaction.atomic():
        PlayerPeriod.objects.create(**row)


@pytest.mark.sqlite
def test_sqlite_writes_a_large_league_s_history_while_a_fold_in_its_own_process_computes(
    league, one_league, django_capture_on_commit_callbacks, monkeypatch, settings
):
    """From ``REPLAY_STREAM_MIN_MATCHES`` matches on, a swapping full replay computes its fold
    in a process of its own and inserts each period's rows into the table built beside the
    live one as they come (ids in the fold's order), then puts it in place: the same rows,
    the same table, the unique rule kept, nothing left behind."""
    settings.REPLAY_STREAM_MIN_MATCHES = len(one_league)
    config = services.latest_config(league)
    shape_before = table_shape()
    elsewhere = []
    real = compute.fold_elsewhere
    monkeypatch.setattr(
        compute, "fold_elsewhere", lambda *a, **k: elsewhere.append(a[0]) or real(*a, **k)
    )

    replay = replayed(league, django_capture_on_commit_callbacks)

    assert replay.status == Replay.Status.COMPLETE
    assert len(elsewhere) == 1
    assert snapshot(config) == expected_projection(config, one_league, current_period(config))
    assert table_shape() == shape_before
    assert_one_row_per_player_and_period(config)
    assert half_built_tables() == []
    periods = list(
        PlayerPeriod.objects.filter(config=config).order_by("id").values_list("period_index")
    )
    assert len(periods) > 1
    assert periods == sorted(periods)
    # The unique rule is now a unique index of the same name, built after the rows.
    with connection.cursor() as cursor:
        create, indexes = table_swap._schema(cursor, TABLE)
    assert "UNIQUE" not in create
    assert any(sql.startswith('CREATE UNIQUE INDEX "player_period_unique"') for sql in indexes)


@pytest.mark.sqlite
def test_sqlite_below_the_stream_size_the_fold_runs_in_the_replay_s_process(
    league, one_league, django_capture_on_commit_callbacks, monkeypatch, settings
):
    settings.REPLAY_STREAM_MIN_MATCHES = len(one_league) + 1
    config = services.latest_config(league)
    monkeypatch.setattr(compute, "fold_elsewhere", lambda *a, **k: pytest.fail("elsewhere"))

    replay = replayed(league, django_capture_on_commit_callbacks)

    assert replay.status == Replay.Status.COMPLETE
    assert snapshot(config) == expected_projection(config, one_league, current_period(config))
    assert_one_row_per_player_and_period(config)


@pytest.mark.sqlite
def test_sqlite_a_large_league_s_swap_keeps_the_others_rows_and_ids(
    league, other_league, two_leagues, django_capture_on_commit_callbacks, settings, monkeypatch
):
    big, _small = two_leagues
    settings.REPLAY_STREAM_MIN_MATCHES = len(big)
    big_config = services.latest_config(league)
    small_config = services.latest_config(other_league)
    small_before = snapshot(small_config)
    small_ids = config_ids(small_config.pk)
    handed_out = sequence(TABLE)
    assert swap_pays(TABLE, big_config.pk)
    batches = []
    monkeypatch.setattr(store, "HistoryBatches", lambda *a: batches.append(a) or Batches(*a))

    replay = replayed(league, django_capture_on_commit_callbacks)

    assert replay.status == Replay.Status.COMPLETE
    assert len(batches) == 1
    assert snapshot(big_config) == expected_projection(big_config, big, current_period(big_config))
    assert snapshot(small_config) == small_before
    assert config_ids(small_config.pk) == small_ids
    # The new rows' ids come after every id the table had handed out.
    # The new rows' ids come after every id the table had handed out.
    assert min(config_ids(big_config.pk)) > handed_out >= max(small_ids)
    assert sequence(TABLE) >= max(config_ids(big_config.pk))
    assert half_built_tables() == []


@pytest.mark.sqlite
@pytest.mark.parametrize("step", ["fold", "write_standings"])
def test_sqlite_a_large_league_s_failed_build_leaves_the_old_history(
    league, one_league, django_capture_on_commit_callbacks, monkeypatch, settings, step
):
    """The fold's process dying, or a failure in the last transaction, changes nothing and
    leaves no half-built table."""
    settings.REPLAY_STREAM_MIN_MATCHES = len(one_league)
    settings.REPLAY_MAX_ATTEMPTS = 1
    config = services.latest_config(league)
    if step == "fold":
        monkeypatch.setattr(fold_process, "_SERVE", "sys.exit(3)")
        before, shape_before = snapshot(config), table_shape()
        replay = replayed(league, django_capture_on_commit_callbacks)
        assert replay.status == Replay.Status.FAILED
        assert "exit status 3" in replay.error
        assert snapshot(config) == before
        assert table_shape() == shape_before
        assert half_built_tables() == []
    else:
        failing_replay_changes_nothing(
            league, config, step, monkeypatch, django_capture_on_commit_callbacks
        )


#: The real sink (the tests wrap it).
Batches = store.HistoryBatches


@pytest.mark.sqlite
@pytest.mark.django_db(transaction=True)
def test_sqlite_commits_a_large_league_s_history_a_batch_at_a_time_with_the_progress(
    league, one_league, django_capture_on_commit_callbacks, monkeypatch, settings
):
    """Outside a transaction (as in a worker or ``replay --sync``) the rows go into the new
    table a transaction at a time, the fold's progress committed with them (other
    connections see it while the replay runs), and the live table stays readable and
    unchanged until the last transaction puts the new one in place."""
    settings.REPLAY_STREAM_MIN_MATCHES = len(one_league)
    monkeypatch.setattr(store, "SQLITE_BATCH", 1)
    monkeypatch.setattr(runner, "PROGRESS_INTERVAL", 0.0)
    config = services.latest_config(league)
    seen = []
    inserted = store.write_history

    def watched(config_id, rows, table, **kwargs):
        # What another connection sees as each batch goes in.
        with closing(sqlite3.connect(connection.settings_dict["NAME"])) as other:
            done = other.execute(
                "SELECT periods_done FROM ratings_replay WHERE config_id = ? "
                "ORDER BY id DESC LIMIT 1",
                [config.pk],
            ).fetchone()[0]
            live = other.execute(
                f"SELECT count(*) FROM {TABLE} WHERE config_id = ?", [config.pk]
            ).fetchone()[0]
        seen.append((done, live))
        inserted(config_id, rows, table, **kwargs)

    monkeypatch.setattr(store, "write_history", watched)
    live_rows = PlayerPeriod.objects.filter(config=config).count()

    replay = replayed(league, django_capture_on_commit_callbacks)

    assert replay.status == Replay.Status.COMPLETE
    assert snapshot(config) == expected_projection(config, one_league, current_period(config))
    assert len(seen) > 2
    # Progress committed batch by batch, the live rows untouched meanwhile.
    assert [done for done, _live in seen] == sorted(done for done, _live in seen)
    assert seen[-1][0] > seen[0][0]
    assert {live for _done, live in seen} == {live_rows}
    assert_one_row_per_player_and_period(config)
    assert half_built_tables() == []
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA wal_autocheckpoint")
        assert cursor.fetchone()[0] > 0


@pytest.mark.sqlite
@pytest.mark.django_db(transaction=True)
def test_sqlite_a_large_league_s_build_failing_half_way_changes_nothing(
    league, one_league, django_capture_on_commit_callbacks, monkeypatch, settings
):
    """Some batches committed into the new table, then a failure: the live history is as it
    was, the half-built table is gone, the connection is back in autocommit."""
    settings.REPLAY_STREAM_MIN_MATCHES = len(one_league)
    settings.REPLAY_MAX_ATTEMPTS = 1
    monkeypatch.setattr(store, "SQLITE_BATCH", 1)
    config = services.latest_config(league)
    before, shape_before = snapshot(config), table_shape()
    calls = []
    inserted = store.write_history

    def third_fails(*args, **kwargs):
        calls.append(1)
        if len(calls) == 3:
            raise RuntimeError("the disk is full")
        inserted(*args, **kwargs)

    monkeypatch.setattr(store, "write_history", third_fails)

    replay = replayed(league, django_capture_on_commit_callbacks)

    assert replay.status == Replay.Status.FAILED
    assert "the disk is full" in replay.error
    assert snapshot(config) == before
    assert table_shape() == shape_before
    assert half_built_tables() == []
    assert connection.get_autocommit()


def sequence(table: str) -> int:
    """The last id ``table``'s AUTOINCREMENT handed out (or had reserved)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT seq FROM sqlite_sequence WHERE name = %s", [table])
        return int(cursor.fetchone()[0])


@pytest.mark.sqlite
@pytest.mark.django_db(transaction=True)
def test_sqlite_a_batch_reserves_its_ids_under_the_write_lock(league, one_league):
    """A batch of the build holds SQLite's write lock from its start: no other writer can
    take the ids it reserves; once committed, the next id handed out comes after them."""
    config = services.latest_config(league)
    before = sequence(TABLE)
    new = table_swap.start_building(TABLE, config.pk)
    batches = store.HistoryBatches(config.pk, TABLE, new)
    history = PlayerPeriod.objects.filter(config=config).order_by("id")[:3]
    rows = store.HistoryRows(
        period=np.array([h.period_index for h in history], dtype=np.int64),
        player=np.array([h.player_id for h in history], dtype=np.int64),
        period_start=np.array([h.period_start for h in history], dtype="datetime64[D]"),
        period_end=np.array([h.period_end for h in history], dtype="datetime64[D]"),
        **{
            name: np.array([getattr(h, name) for h in history])
            for name in (
                "rating", "rd", "volatility", "rating_before", "rd_before",
                "games", "wins", "draws", "losses",
            )
        },
    )  # fmt: skip
    try:
        batches(rows)
        with closing(sqlite3.connect(connection.settings_dict["NAME"], timeout=0)) as other:
            with pytest.raises(sqlite3.OperationalError, match="locked"):
                other.execute("BEGIN IMMEDIATE")
            batches.flush()
            other.execute("BEGIN IMMEDIATE")
            other.execute("ROLLBACK")
        with connection.cursor() as cursor:
            cursor.execute(f'SELECT id FROM "{new}" ORDER BY id')
            built = [row[0] for row in cursor.fetchall()]
        assert built == list(range(before + 1, before + 4))
        assert sequence(TABLE) == before + 3
    finally:
        batches.abandon()
        table_swap.discard(new)


@pytest.mark.sqlite
def test_sqlite_ids_are_reserved_after_the_largest_when_the_table_has_no_sequence(
    league, one_league
):
    largest = max(config_ids(services.latest_config(league).pk))
    with connection.cursor() as cursor:
        cursor.execute("DELETE FROM sqlite_sequence WHERE name = %s", [TABLE])
    assert table_swap.reserve_ids(TABLE, 5) == largest + 1
    assert sequence(TABLE) == largest + 5


@pytest.mark.sqlite
def test_sqlite_a_full_replay_drops_its_league_s_half_built_tables_only(
    league, other_league, two_leagues, django_capture_on_commit_callbacks
):
    """A build a killed replay left behind is dropped by the league's next full replay,
    whichever way it writes; another league's is left to that league."""
    mine = table_swap.start_building(TABLE, services.latest_config(league).pk)
    theirs = table_swap.start_building(TABLE, services.latest_config(other_league).pk)

    replay = replayed(league, django_capture_on_commit_callbacks)

    assert replay.status == Replay.Status.COMPLETE
    assert half_built_tables() == [theirs]
    assert mine not in half_built_tables()


def config_ids(config_id: int) -> list[int]:
    """The ids of the configuration's history rows."""
    return list(PlayerPeriod.objects.filter(config_id=config_id).values_list("id", flat=True))


def next_history_id() -> int:
    """The id the history's sequence hands out next (PostgreSQL; it moves on)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT nextval('ratings_playerperiod_id_seq')")
        return cursor.fetchone()[0]


@pytest.mark.postgres
def test_postgres_writes_the_history_a_batch_at_a_time_with_reserved_ids(
    league, one_league, django_capture_on_commit_callbacks, monkeypatch, settings
):
    """A league of ``REPLAY_STREAM_MIN_MATCHES`` or more, inside a transaction (no other
    connection sees the new table): each batch is a COPY on the replay's connection, in the
    fold's order, with ids reserved for it."""
    settings.REPLAY_STREAM_MIN_MATCHES = 0
    monkeypatch.setattr(store, "COPY_CHUNK_ROWS", 7)
    copies = []
    write = store.write_history
    monkeypatch.setattr(
        store,
        "write_history",
        lambda config_id, rows, table, **kw: (
            copies.append((len(rows), kw)) or write(config_id, rows, table, **kw)
        ),
    )
    config = services.latest_config(league)

    replay = replayed(league, django_capture_on_commit_callbacks)

    assert replay.status == Replay.Status.COMPLETE
    assert snapshot(config) == expected_projection(config, one_league, current_period(config))
    assert len(copies) > 2
    assert {kw["ordered"] for _count, kw in copies} == {False}
    # Each batch its own block of ids; none of them will be handed out again.
    firsts = [kw["first_id"] for _count, kw in copies]
    assert firsts == sorted(firsts)
    ids = config_ids(config.pk)
    assert len(ids) == len(set(ids)) == sum(count for count, _kw in copies)
    assert next_history_id() > max(ids)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_postgres_writes_the_history_from_a_thread_of_its_own_while_the_fold_computes(
    league, one_league, django_capture_on_commit_callbacks, monkeypatch, settings
):
    """Outside a transaction (as in a worker) a writer thread with a connection of its own
    holds one COPY for the whole fold; the rows are the same as computed."""
    settings.REPLAY_STREAM_MIN_MATCHES = len(one_league)
    monkeypatch.setattr(store, "COPY_CHUNK_ROWS", 7)
    monkeypatch.setattr(store, "QUEUED_BATCHES", 1)
    writers = []
    packed = store._pg_binary
    monkeypatch.setattr(
        store,
        "_pg_binary",
        lambda *args: writers.append(threading.current_thread().name) or packed(*args),
    )
    config = services.latest_config(league)

    replay = replayed(league, django_capture_on_commit_callbacks)

    assert replay.status == Replay.Status.COMPLETE
    assert snapshot(config) == expected_projection(config, one_league, current_period(config))
    history_writes = [name for name in writers if name.startswith("history-copy-")]
    assert len(history_writes) > 2
    assert set(history_writes) == {f"history-copy-{config.pk}"}
    ids = config_ids(config.pk)
    assert len(ids) == len(set(ids))
    assert next_history_id() > max(ids)
    assert partition_of_rows(config.pk) == {partition_name(config.pk)}
    assert half_built_tables() == []
    assert not [t for t in threading.enumerate() if t.name.startswith("history-copy-")]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_postgres_writes_a_small_league_s_history_on_the_replay_s_own_connection(
    league, one_league, django_capture_on_commit_callbacks, monkeypatch, settings
):
    """Below ``REPLAY_STREAM_MIN_MATCHES`` no writer thread is started, even outside a transaction:
    the history goes by COPY on the replay's thread, into the partition swapped in, with
    the same rows as computed, and the statistics of the columns queries select by come
    with it."""
    settings.REPLAY_STREAM_MIN_MATCHES = len(one_league) + 1
    writers = []
    packed = store._pg_binary
    monkeypatch.setattr(
        store,
        "_pg_binary",
        lambda *args: writers.append(threading.current_thread().name) or packed(*args),
    )
    config = services.latest_config(league)

    replay = replayed(league, django_capture_on_commit_callbacks)

    assert replay.status == Replay.Status.COMPLETE
    assert snapshot(config) == expected_projection(config, one_league, current_period(config))
    assert writers
    assert set(writers) == {threading.main_thread().name}
    ids = config_ids(config.pk)
    assert len(ids) == len(set(ids))
    assert next_history_id() > max(ids)
    assert partition_of_rows(config.pk) == {partition_name(config.pk)}
    assert half_built_tables() == []
    assert analyzed_columns(partition_name(config.pk)) == set(ANALYZED_COLUMNS)


def analyzed_columns(table: str) -> set[str]:
    """The columns of ``table`` the planner has statistics of (PostgreSQL)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT attname FROM pg_stats WHERE tablename = %s", [table])
        return {row[0] for row in cursor.fetchall()}


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_postgres_a_small_league_s_build_fails_whole(
    league, one_league, django_capture_on_commit_callbacks, monkeypatch, settings
):
    """Below ``REPLAY_STREAM_MIN_MATCHES`` the new table is made, filled, indexed and put in
    place in one transaction (outside any other, as in a worker): a failure at its last
    step leaves the old history and standings, and no table behind."""
    settings.REPLAY_MAX_ATTEMPTS = 1
    settings.REPLAY_STREAM_MIN_MATCHES = len(one_league) + 1
    config = services.latest_config(league)
    failing_replay_changes_nothing(
        league, config, "attach_partition", monkeypatch, django_capture_on_commit_callbacks
    )
    assert partition_of_rows(config.pk) == {partition_name(config.pk)}


def break_the_writer(monkeypatch) -> str:
    """The writer thread fails on its third batch; the error it raises."""
    packed = store._pg_binary
    calls = []

    def failing(*args):
        calls.append(1)
        if threading.current_thread().name.startswith("history-copy-") and len(calls) > 2:
            raise OSError("connection lost")
        return packed(*args)

    monkeypatch.setattr(store, "_pg_binary", failing)
    return "connection lost"


def break_the_fold(monkeypatch) -> str:
    """The replay fails after the fold handed its rows over, before the writer's COPY is
    finished; the error it raises."""

    def broken(*args, **kwargs):
        raise RuntimeError("out of memory")

    monkeypatch.setattr(store.HistoryCopy, "flush", broken)
    return "out of memory"


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("breaking", [break_the_writer, break_the_fold], ids=["writer", "fold"])
def test_postgres_a_failure_of_the_writer_thread_or_the_fold_keeps_the_old_history(
    league, one_league, django_capture_on_commit_callbacks, monkeypatch, settings, breaking
):
    settings.REPLAY_MAX_ATTEMPTS = 1
    settings.REPLAY_STREAM_MIN_MATCHES = len(one_league)
    monkeypatch.setattr(store, "COPY_CHUNK_ROWS", 7)
    monkeypatch.setattr(store, "QUEUED_BATCHES", 1)
    config = services.latest_config(league)
    before = snapshot(config)
    message = breaking(monkeypatch)

    replay = replayed(league, django_capture_on_commit_callbacks)

    assert replay.status == Replay.Status.FAILED
    assert message in replay.error
    assert snapshot(config) == before
    assert half_built_tables() == []
    # The writer thread is gone (it neither hangs nor outlives the replay).
    assert not [t for t in threading.enumerate() if t.name.startswith("history-copy-")]


@pytest.mark.postgres
def test_postgres_replays_a_league_below_the_swap_size_by_deleting_and_inserting(
    league, one_league, django_capture_on_commit_callbacks, monkeypatch, settings
):
    settings.REPLAY_SWAP_MIN_MATCHES = len(one_league) + 1
    config = services.latest_config(league)
    attached = []
    monkeypatch.setattr(store, "attach_partition", lambda *args: attached.append(args))

    replay = replayed(league, django_capture_on_commit_callbacks)

    assert replay.status == Replay.Status.COMPLETE
    assert attached == []
    assert snapshot(config) == expected_projection(config, one_league, current_period(config))
    assert partition_of_rows(config.pk) == {partition_name(config.pk)}
    assert half_built_tables() == []


@pytest.mark.postgres
def test_a_configuration_version_comes_and_goes_with_its_own_partition(league):
    config = services.create_config(league, update_mode="period")
    assert table_exists(partition_name(config.pk))
    newer = services.create_config(league, tau=0.9, update_mode="period")
    newer_partition = partition_name(newer.pk)
    assert table_exists(newer_partition)
    newer.delete()
    assert not table_exists(newer_partition)
    assert table_exists(partition_name(config.pk))


@pytest.mark.postgres
def test_a_replay_recreates_a_missing_partition(
    league, one_league, django_capture_on_commit_callbacks
):
    """A partition dropped by hand (or never made) is made again before the replay writes."""
    config = services.latest_config(league)
    with connection.cursor() as cursor:
        cursor.execute(f'DROP TABLE "{partition_name(config.pk)}"')

    replay = replayed(league, django_capture_on_commit_callbacks)

    assert replay.status == Replay.Status.COMPLETE
    assert snapshot(config) == expected_projection(config, one_league, current_period(config))
    assert partition_of_rows(config.pk) == {partition_name(config.pk)}
