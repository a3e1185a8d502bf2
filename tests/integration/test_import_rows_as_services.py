"""The rows a CSV import stores are the rows the one-at-a-time services store, column by column.

The import writes its events through the event store's bulk path, which builds its
INSERT (SQLite) or COPY (PostgreSQL) itself and leaves out the columns that are NULL in
every row it writes. The same file is imported into one league and entered row by row into
another through ``register_player`` and ``record_match``; every stored column of every
event and player must be the same (ids, the league and the moments of recording aside;
players named by slug, events by seq), down to NULL against "" and, on SQLite, the storage
class of each value.
"""

from __future__ import annotations

import datetime as dt
import io

import pytest
from django.db import connection

from league import services as league_services
from league.csv_format import ResultRow, iter_results
from league.csv_import import import_results
from league.models import Event, League, Player

HEADER = "date,player_a,player_b,score_a,id,note,neutral,points\n"
KNOWN = ["Ann Lee", "Bob Roy", "Cy Tam"]


def rows_file(count: int) -> bytes:
    """``count`` plain rows (more than a batch: in blocks and batches) among known and new
    players, with every other kind of one-vs-one row among them."""
    lines = []
    names = KNOWN + [f"New {number:02d}" for number in range(30)]
    for number in range(count):
        a, b = names[number % len(names)], names[(number * 7 + 3) % len(names)]
        if a == b:
            continue
        day = dt.date(2024, 1, 1) + dt.timedelta(days=number // 20)
        note = "board 2" if number % 5 == 0 else ""
        key = f"r-{number}" if number % 11 else ""
        score = ("1", "0", "0.5", "1-0", "½-½")[number % 5]
        lines.append(f"{day},{a},{b},{score},{key},{note},,")
    lines[40:40] = [
        "2024-02-01,Ann Lee,Bob Roy,1,n-1,,yes,",
        "2024-02-02,Bob Roy,Cy Tam,1,n-2,,,3-1",
        "2024-02-03T18:30,Cy Tam,Ann Lee,0.5,n-3,evening,,",
        "2024-02-04,Ann Lee,New 00,0,  n-4 ,,no,1-2",
    ]
    return (HEADER + "".join(line + "\n" for line in lines)).encode("utf-8")


def new_league(slug: str, recorded_by) -> League:
    league = League.objects.create(
        name=slug,
        slug=slug,
        sport="Table tennis",
        time_zone="Europe/London",
        start_date=dt.date(2024, 1, 1),
    )
    league.organisers.add(recorded_by)
    for name in KNOWN:
        league_services.register_player(league, name, recorded_by=recorded_by)
    return league


def enter_one_by_one(league: League, data: bytes, recorded_by) -> None:
    """Each row of ``data`` through the services, registering a name the first time."""
    players = {player.display_name: player for player in Player.objects.filter(league=league)}
    for row in iter_results(io.BytesIO(data)):
        assert isinstance(row, ResultRow), row
        (name_a,), (name_b,) = row.sides
        for name in (name_a, name_b):
            if name not in players:
                players[name] = league_services.register_player(
                    league, name, recorded_by=recorded_by
                )
        league_services.record_match(
            league,
            played_at=row.played,
            player_a=players[name_a],
            player_b=players[name_b],
            score_a=row.score_a,
            points=row.points,
            note=row.note,
            idempotency_key=row.key,
            neutral=row.neutral,
            recorded_by=recorded_by,
        )


def stored_events(league: League) -> list[tuple]:
    """Every stored column of the league's events but the id, the league and the moment of
    recording, as the driver returns it (with SQLite's storage class of each value); players
    by slug, events by seq. Sorted by content: a bulk append numbers the registrations of
    a batch before its queued matches."""
    slugs = dict(Player.objects.filter(league=league).values_list("pk", "slug"))
    seqs = dict(Event.objects.filter(league=league).values_list("pk", "seq"))
    fields = [
        field
        for field in Event._meta.concrete_fields
        if field.name not in ("id", "league", "recorded_at", "seq")
    ]
    columns = [connection.ops.quote_name(field.column) for field in fields]
    if connection.vendor == "sqlite":
        columns += [f"typeof({column})" for column in columns]
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {', '.join(columns)} FROM league_event WHERE league_id = %s",
            [league.pk],
        )
        found = cursor.fetchall()
    rows = []
    for values in found:
        row = []
        for index, value in enumerate(values):
            field = fields[index] if index < len(fields) else None
            target = field.related_model if field is not None and field.is_relation else None
            if target is Player and value is not None:
                value = slugs[value]
            elif target is Event and value is not None:
                value = seqs[value]
            row.append((type(value).__name__, value))
        rows.append(tuple(row))
    return sorted(rows, key=repr)


def players_of(league: League) -> list[tuple]:
    fields = [
        field.attname
        for field in Player._meta.concrete_fields
        if field.name not in ("id", "league", "created_at")
    ]
    return sorted(Player.objects.filter(league=league).values_list(*fields))


@pytest.mark.django_db
@pytest.mark.parametrize(("by_organiser", "count"), [(False, 2200), (True, 300)])
def test_an_import_stores_the_rows_the_services_store(organiser, by_organiser, count):
    recorded_by = organiser if by_organiser else None
    imported = new_league("imported", organiser)
    entered = new_league("entered", organiser)
    data = rows_file(count)
    report = import_results(
        imported, io.BytesIO(data), create_players=True, recorded_by=recorded_by
    )
    assert report.ok, report.errors[:3]
    assert report.recorded > 0.9 * count
    assert len(report.players_created) > 20
    enter_one_by_one(entered, data, recorded_by)
    stored = stored_events(imported)
    assert len(stored) == report.recorded + len(KNOWN) + len(report.players_created)
    assert stored == stored_events(entered)
    assert players_of(imported) == players_of(entered)
