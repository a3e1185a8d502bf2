"""An import whose batches are written in a thread of their own (``BackgroundWrites``, on
SQLite) stores what writing each batch at once stores; a write that fails there fails the
import and leaves nothing behind; new players take ids after every id the table has used.

On PostgreSQL the appender writes at once (COPY already has the server work in its own
process): the same tests hold there, and say the same things of that path.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from django.db import IntegrityError, connection

from league import services as league_services
from league.event_store.bulk import BulkAppender
from league.models import Player
from tests.integration.test_csv_import_blocks import (
    HEADER,
    new_league,
    plain_lines,
    players_of,
    report_of,
    run,
    stored_events,
    valid_file,
)

REFUSED = "refused by the database"


@contextmanager
def threads_writing_events() -> Iterator[set[str]]:
    """The names of the threads that run INSERTs into the event table meanwhile (SQLite:
    the driver's trace callback, called in the thread running the statement)."""
    names: set[str] = set()
    if connection.vendor != "sqlite":
        yield names
        return

    def trace(sql: str) -> None:
        if sql.startswith('INSERT INTO "league_event"'):
            names.add(threading.current_thread().name)

    connection.ensure_connection()
    connection.connection.set_trace_callback(trace)
    try:
        yield names
    finally:
        connection.connection.set_trace_callback(None)


@pytest.mark.django_db
def test_batches_written_in_the_background_store_what_batches_written_at_once_store(
    monkeypatch,
):
    behind, at_once = new_league("behind"), new_league("at-once")
    data = valid_file()
    with threads_writing_events() as writers_behind:
        first = run(behind, data)
    with monkeypatch.context() as patch, threads_writing_events() as writers_at_once:
        # The appender without its scope: each batch written when it is full.
        patch.setattr(BulkAppender, "__enter__", lambda self: self)
        second = run(at_once, data)
    assert first.ok, first.errors[:3]
    assert first.recorded > 4800
    assert report_of(second) == report_of(first)
    assert stored_events(behind) == stored_events(at_once)
    assert players_of(behind) == players_of(at_once)
    if connection.vendor == "sqlite":
        assert "background-writes" in writers_behind
        assert writers_at_once == {threading.main_thread().name}


def refuse_a_note_in_the_database() -> None:
    """A trigger that fails the INSERT of an event whose note is ``REFUSED``: a write the
    checks of the import let through but the database refuses (a full disk would be one)."""
    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            cursor.execute(
                "CREATE TRIGGER refuse_note BEFORE INSERT ON league_event "
                f"WHEN NEW.note = '{REFUSED}' BEGIN SELECT RAISE(ABORT, '{REFUSED}'); END"
            )
            return
        cursor.execute(
            "CREATE FUNCTION refuse_note() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
            f"IF NEW.note = '{REFUSED}' THEN RAISE EXCEPTION '{REFUSED}' "
            "USING ERRCODE = 'check_violation'; END IF; RETURN NEW; END $$"
        )
        cursor.execute(
            "CREATE TRIGGER refuse_note BEFORE INSERT ON league_event "
            "FOR EACH ROW EXECUTE FUNCTION refuse_note()"
        )


def with_note(line: str, note: str) -> str:
    cells = line.split(",")
    cells[5] = note
    return ",".join(cells)


@pytest.mark.django_db
def test_a_write_failing_in_the_background_fails_the_import_and_stores_nothing():
    league = new_league("refused")
    events, players = stored_events(league), players_of(league)
    lines = plain_lines(6000, seed=11)
    # Well after the first batches, so that earlier ones are written (or being written).
    lines[5200] = with_note(lines[5200], REFUSED)
    refuse_a_note_in_the_database()

    with pytest.raises(IntegrityError, match=REFUSED):
        run(league, (HEADER + "".join(line + "\n" for line in lines)).encode())

    assert stored_events(league) == events
    assert players_of(league) == players
    assert "background-writes" not in {thread.name for thread in threading.enumerate()}
    # The connection goes on: the same file without that note imports whole.
    lines[5200] = with_note(lines[5200], "")
    report = run(league, (HEADER + "".join(line + "\n" for line in lines)).encode())
    assert report.ok, report.errors[:3]
    assert report.recorded == 6000
    assert len(stored_events(league)) == len(events) + 6000 + len(report.players_created)


@pytest.mark.django_db
def test_new_players_take_ids_after_every_id_the_table_has_used():
    league = new_league("ids")
    # The largest id so far belongs to a player removed since: no one gets it again.
    gone = Player.objects.create(league=league, display_name="Gone", slug="gone")
    Player.objects.filter(pk=gone.pk).delete()

    report = run(league, (HEADER + "".join(f"{line}\n" for line in plain_lines(3000, 2))).encode())

    assert report.ok, report.errors[:3]
    assert len(report.players_created) == 40
    ids = [
        Player.objects.get(league=league, display_name=name).pk for name in report.players_created
    ]
    # In the order the file named them, one after the other, after the removed player's.
    assert ids == list(range(ids[0], ids[0] + len(ids)))
    assert ids[0] > gone.pk
    later = league_services.register_player(league, "After The Import")
    assert later.pk > ids[-1]
