"""An import whose batches are written in a thread of their own (``BackgroundWrites``:
INSERTs on SQLite, COPYs on PostgreSQL) stores what writing each batch at once stores; a
write that fails there fails the import and leaves nothing behind; new players take ids
after every id the table has used, and after those of players created meanwhile.
"""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from typing import Any

import pytest
from django.db import IntegrityError, connection, transaction

from league import services as league_services
from league.event_store.background_writes import BackgroundWrites
from league.event_store.bulk import BulkAppender, NewMatch
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
def threads_writing(monkeypatch: pytest.MonkeyPatch) -> Iterator[set[str]]:
    """The names of the threads that run the bulk path's writes meanwhile (the thread's
    ``_run``, or ``_run_here`` when there is none)."""
    names: set[str] = set()

    def recorded(method: Callable[..., None]) -> Callable[..., None]:
        def run(self: BackgroundWrites, write: Any) -> None:
            names.add(threading.current_thread().name)
            method(self, write)

        return run

    with monkeypatch.context() as patch:
        patch.setattr(BackgroundWrites, "_run", recorded(BackgroundWrites._run))
        patch.setattr(BackgroundWrites, "_run_here", recorded(BackgroundWrites._run_here))
        yield names


@pytest.mark.django_db
def test_batches_written_in_the_background_store_what_batches_written_at_once_store(
    monkeypatch,
):
    behind, at_once = new_league("behind"), new_league("at-once")
    data = valid_file()
    with threads_writing(monkeypatch) as writers_behind:
        first = run(behind, data)
    with monkeypatch.context() as patch, threads_writing(monkeypatch) as writers_at_once:
        # The appender without its scope: each batch written when it is full.
        patch.setattr(BulkAppender, "__enter__", lambda self: self)
        second = run(at_once, data)
    assert first.ok, first.errors[:3]
    assert first.recorded > 4800
    assert report_of(second) == report_of(first)
    assert stored_events(behind) == stored_events(at_once)
    assert players_of(behind) == players_of(at_once)
    assert writers_behind == {"background-writes"}
    assert writers_at_once == {threading.current_thread().name}


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
@pytest.mark.parametrize(
    "refused_line",
    [
        # In the first batch: the reading goes on, and learns of it at a later batch.
        100,
        # In the last batch, after others were written: learnt when the import ends.
        5200,
    ],
)
def test_a_write_failing_in_the_background_fails_the_import_and_stores_nothing(refused_line):
    league = new_league(f"refused-{refused_line}")
    events, players = stored_events(league), players_of(league)
    lines = plain_lines(6000, seed=11)
    lines[refused_line] = with_note(lines[refused_line], REFUSED)
    refuse_a_note_in_the_database()

    with pytest.raises(IntegrityError, match=REFUSED):
        run(league, (HEADER + "".join(line + "\n" for line in lines)).encode())

    assert stored_events(league) == events
    assert players_of(league) == players
    assert "background-writes" not in {thread.name for thread in threading.enumerate()}
    # The connection goes on: the same file without that note imports whole.
    lines[refused_line] = with_note(lines[refused_line], "")
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


@pytest.mark.django_db
@pytest.mark.parametrize("in_background", [True, False])
def test_a_player_created_elsewhere_between_batches_does_not_take_a_new_players_id(
    in_background,
):
    league = new_league("meanwhile")
    day = dt.date(2024, 3, 1)
    with transaction.atomic():
        appender = BulkAppender(league, batch_size=2)
        with appender if in_background else nullcontext():
            ann, bo = appender.register_player("Ann New"), appender.register_player("Bo New")
            appender.add(NewMatch(ann, bo, "1", day, ref=1))
            appender.add(NewMatch(bo, ann, "0", day, ref=2))  # the batch goes
            # A player row created through the ORM on the same connection meanwhile (not a
            # registration: its event would take a seq number the appender holds).
            outside = Player.objects.create(league=league, display_name="Cy Outside", slug="cy")
            di = appender.register_player("Di New")
            appender.add(NewMatch(di, ann, "1", day, ref=3))
            appender.add(NewMatch(di, bo, "0.5", day, ref=4))
            result = appender.close(announce=False)
    assert result.appended == 4
    assert not result.errors
    ids = {name: Player.objects.get(league=league, display_name=name).pk for name in (
        "Ann New", "Bo New", "Cy Outside", "Di New"
    )}  # fmt: skip
    assert len(set(ids.values())) == 4
    assert ids["Di New"] > outside.pk > ids["Bo New"] > ids["Ann New"]
