"""The block-wise import of plain rows stores what the row-by-row import stores, byte for byte.

``import_results`` reads a CSV file's plain rows a block at a time (``iter_result_blocks``,
``BulkAppender.add_plain_rows`` and the batch's column-wise insert); ``per_row=True`` reads
them one by one as before. The same file, imported both ways into two leagues set up alike,
must give the same events (every column but the ids, the league and the moment of
recording; players and events referred to by slug and seq), the same report, the same errors
on the same lines, and the same nothing on a second import or a bad file.
"""

from __future__ import annotations

import datetime as dt
import io
import random

import pytest

from league import services as league_services
from league.csv_format import PlainBlock, iter_result_blocks, iter_results
from league.csv_import import import_results
from league.models import Event, League, Player

HEADER = "date,player_a,player_b,score_a,id,note,neutral,points,void_reason\n"
NAMES = [f"Player {number:03d}" for number in range(60)]
SCORES = ["1", "0", "0.5", "1-0", "0-1", "½-½", " 1 ", "0.5-0.5"]


def plain_lines(count: int, seed: int, first_id: int = 0) -> list[str]:
    """``count`` plain rows between ``NAMES`` (some known, most new), in date order."""
    rng = random.Random(seed)
    lines = []
    for number in range(count):
        a, b = rng.sample(NAMES, 2)
        day = dt.date(2024, 1, 1) + dt.timedelta(days=300 * number // count)
        note = rng.choice(["", "", "board 2", "'=SUM(A1)"])
        lines.append(f"{day},{a},{b},{rng.choice(SCORES)},r-{first_id + number},{note},,,")
    return lines


def valid_file() -> bytes:
    """Plain rows across several blocks and batches, with every kind of other row among
    them (neutral ground, points, a void, a date-time, no id, a loose name, a repeated id)."""
    lines = plain_lines(4800, seed=3)
    others = [
        "2024-02-01,Player 001,Player 002,1,n-1,,yes,,",
        "2024-02-02,Player 003,Player 004,1,n-2,,,3-1,",
        "2024-02-03,Player 005,Player 006,0,n-3,,,,a wrong result",
        "2024-02-04T18:30,Player 007,Player 008,0.5,n-4,evening,,,",
        "2024-02-05,Player 009,Player 010,1,,,,,",
        "2024-02-06,player 011,PLAYER  012,0,n-6,,,,",
        "2024-02-07, Player 013 ,Player 014,1 - 0,n-7,,no,,",
        lines[10],
        lines[2500],
    ]
    for offset, line in enumerate(others):
        lines.insert(700 * offset + 5, line)
    return (HEADER + "".join(line + "\n" for line in lines)).encode("utf-8")


def bad_file() -> bytes:
    """Plain rows with problems of every kind scattered among them."""
    lines = plain_lines(3000, seed=5)
    problems = [
        "2024-03-01,Player 001,Player 002,2,b-1,,,,",
        "2024-13-01,Player 001,Player 002,1,b-2,,,,",
        "2024-03-03,Player 001,Player 001,1,b-3,,,,",
        "2024-03-04,Player 003,Player 004,1,p-7,,,,",
        "2099-03-05,Player 003,Player 004,1,b-5,,,,",
        "2023-03-06,Player 003,Player 004,1,b-6,,,,",
        "2024-03-07,Retired Rita,Player 004,1,b-7,,,,",
        "2024-03-08,Player 005,,1,b-8,,,,",
        "2024-03-09,Player 005,Player 006,1,b-9,,maybe,,",
        "2024-03-10,Player 005,Player 006,1,b-10,,,,,",
        "2024-03-11,Player 005,Player 006,1,b-\x0b11,,,,",
        "2024-03-12,Player 005,Player 006,1,b-12,,,,reason without id".replace(",b-12,", ",,"),
    ]
    for offset, line in enumerate(problems):
        lines.insert(250 * offset + 3, line)
    return (HEADER + "".join(line + "\n" for line in lines)).encode("utf-8")


def new_league(slug: str) -> League:
    league = League.objects.create(
        name=slug,
        slug=slug,
        sport="Table tennis",
        time_zone="Europe/London",
        start_date=dt.date(2024, 1, 1),
    )
    for name in NAMES[:20]:
        league_services.register_player(league, name)
    rita = league_services.register_player(league, "Retired Rita")
    league_services.deactivate_player(league, rita, reason="moved away", recorded_by=None)
    return league


def stored_events(league: League) -> list[tuple]:
    """Every column of the league's events but ids, league and moment of recording; players
    by slug, events by seq."""
    slugs = dict(Player.objects.filter(league=league).values_list("pk", "slug"))
    seqs = dict(Event.objects.filter(league=league).values_list("pk", "seq"))
    fields = [
        field
        for field in Event._meta.concrete_fields
        if field.name not in ("id", "league", "recorded_at")
    ]
    rows = []
    for values in (
        Event.objects.filter(league=league)
        .order_by("seq")
        .values_list(*(field.attname for field in fields))
    ):
        row = []
        for field, value in zip(fields, values, strict=True):
            target = field.related_model if field.is_relation else None
            if target is Player and value is not None:
                value = slugs[value]
            elif target is Event and value is not None:
                value = seqs[value]
            row.append(value)
        rows.append(tuple(row))
    return rows


def players_of(league: League) -> list[tuple]:
    return list(
        Player.objects.filter(league=league)
        .order_by("pk")
        .values_list("display_name", "slug", "active")
    )


def report_of(report) -> tuple:
    return (
        report.rows,
        report.recorded,
        report.skipped,
        report.voided,
        report.error_count,
        report.players_created,
        report.names_matched,
        [(error.line, error.message) for error in report.errors],
    )


def test_the_block_reader_yields_the_rows_of_the_row_reader():
    data = valid_file() + bad_file().partition(b"\n")[2]
    blocks = list(iter_result_blocks(io.BytesIO(data)))
    assert any(isinstance(item, PlainBlock) and len(item) > 1000 for item in blocks)
    flattened = [
        row for item in blocks for row in (item.rows() if isinstance(item, PlainBlock) else [item])
    ]
    assert flattened == list(iter_results(io.BytesIO(data)))


@pytest.mark.django_db
def test_blocks_and_rows_store_the_same_events_and_report_the_same():
    by_row, by_block = new_league("by-row"), new_league("by-block")
    data = valid_file()
    first = run(by_row, data, per_row=True)
    second = run(by_block, data)
    assert first.ok, first.errors[:3]
    assert first.recorded > 4800
    assert first.skipped == 2
    assert first.voided == 1
    assert len(first.players_created) == len(NAMES) - 20
    assert first.names_matched
    assert report_of(second) == report_of(first)
    assert stored_events(by_block) == stored_events(by_row)
    assert players_of(by_block) == players_of(by_row)

    # Idempotency: the file again records nothing new but its one row without an id,
    # either way.
    again_row, again_block = run(by_row, data, per_row=True), run(by_block, data)
    assert again_row.recorded == 1
    assert again_row.skipped == first.recorded + 1
    assert report_of(again_block) == report_of(again_row)
    assert stored_events(by_block) == stored_events(by_row)


@pytest.mark.django_db
def test_blocks_and_rows_refuse_a_bad_file_alike_and_change_nothing():
    by_row, by_block = new_league("bad-by-row"), new_league("bad-by-block")
    run(by_row, plain_lines_file(10), per_row=True)
    run(by_block, plain_lines_file(10))
    before = stored_events(by_block)
    data = bad_file()
    first = run(by_row, data, per_row=True, create_players=True)
    second = run(by_block, data, create_players=True)
    assert not first.ok
    assert first.error_count == 12
    assert report_of(second) == report_of(first)
    assert stored_events(by_block) == before == stored_events(by_row)
    assert players_of(by_block) == players_of(by_row)


def plain_lines_file(count: int) -> bytes:
    """``count`` plain rows with ids of their own (``p-0``, …)."""
    lines = [line.replace(",r-", ",p-") for line in plain_lines(count, seed=1)]
    return (HEADER + "".join(line + "\n" for line in lines)).encode("utf-8")


def run(league: League, data: bytes, **options):
    options.setdefault("create_players", True)
    return import_results(league, io.BytesIO(data), **options)
