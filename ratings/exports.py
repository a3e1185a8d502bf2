"""Rows for exports: standings, rating history and results, as plain values.

Each export is a ``Table``: column names and an iterator of rows (tuples), streamed from
the database so that a large league is never held in memory. Writers turn a table into
CSV or JSON: dates as YYYY-MM-DD, floats in full precision (``repr``, which round-trips).
Standings come from the leaderboard's own statement, ranked once for the whole field (the
same rows and numbers as the leaderboard's pages); history and results are read in one
ordered query each.
"""

from __future__ import annotations

import csv
import datetime as dt
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import IO, Any

from django.db.models import Count
from django.db.models.functions import Coalesce

from engine.intervals import ConfidenceLevel
from league.calendar import league_zone
from league.csv_format import COLOUR_COLUMNS, SIDE_LETTERS, SIDE_SEPARATOR
from league.csv_safety import neutralise
from league.models import Event, League, MatchParticipant, Player
from league.sides import positions_text
from ratings.models import PlayerPeriod, RatingConfig
from ratings.selectors.configurations import live_config
from ratings.selectors.standings import DEFAULT_LEVEL, every_standing

STANDINGS_COLUMNS = (
    "rank",
    "player",
    "rating",
    "rd",
    "interval_low",
    "interval_high",
    "volatility",
    "games",
    "wins",
    "draws",
    "losses",
    "last_played",
    "provisional",
    "not_ranked_because",
)
# History columns named like ``PlayerPeriod``'s own fields (read under the same names).
_HISTORY_FIELDS = (
    "period_start",
    "period_end",
    "rating",
    "rd",
    "volatility",
    "rating_before",
    "rd_before",
    "games",
    "wins",
    "draws",
    "losses",
)
HISTORY_COLUMNS = ("player", "period", *_HISTORY_FIELDS)
# The import format of ``league.csv_format``: an export re-imports as the same results.
RESULTS_COLUMNS = ("id", "date", "player_a", "player_b", "score_a", "points", "note")
#: Between the players of one side in a cell of the side format.
SIDE_SEPARATOR_TEXT = f"{SIDE_SEPARATOR} "
PAGE_SIZE = 1000


class NoStandingsError(Exception):
    """The league has no published standings yet (no replay has completed)."""


@dataclass
class Table:
    """An export: column names and rows (an iterator, consumed once)."""

    columns: tuple[str, ...]
    rows: Iterable[tuple[Any, ...]]


def _config(league: League, config: RatingConfig | None) -> RatingConfig:
    config = config or live_config(league)
    if config is None:
        raise NoStandingsError(
            f"{league.name} has no standings yet: no rating replay has completed."
        )
    return config


def standings(
    league: League, config: RatingConfig | None = None, *, level: ConfidenceLevel = DEFAULT_LEVEL
) -> Table:
    """The current standings as the leaderboard shows them: the ranked players by rank, then
    those the league's rules list separately (no rank, with the reason), by rating; the
    intervals (and a rank by the interval's lower end) at ``level``."""
    chosen = _config(league, config)

    def rows() -> Iterator[tuple[Any, ...]]:
        for row in every_standing(league, chosen, level=level):
            yield (
                row.rank,
                row.name,
                row.rating,
                row.rd,
                row.low,
                row.high,
                row.volatility,
                row.games,
                row.wins,
                row.draws,
                row.losses,
                row.last_played,
                row.provisional,
                "; ".join(row.reasons),
            )

    return Table(STANDINGS_COLUMNS, rows())


def history(league: League, config: RatingConfig | None = None) -> Table:
    """One row per player and period the player played, by player name then period."""
    chosen = _config(league, config)
    query = (
        PlayerPeriod.objects.filter(config=chosen)
        .order_by("player__display_name", "period_index")
        .values_list("player__display_name", "period_index", *_HISTORY_FIELDS)
    )
    return Table(HISTORY_COLUMNS, query.iterator(chunk_size=PAGE_SIZE))


def results(league: League, *, with_voided: bool = False) -> Table:
    """The league's matches in the CSV import format: the live ones, or with ``with_voided``
    every recorded match (the full log), voided ones carrying their void's reason.

    ``id`` is the match's idempotency key, or ``<league slug>#<seq>`` when it had none;
    ``date`` is the moment played, in the league's time zone with its UTC offset; players
    are named as they count now (a merged player as the player they were merged into). Rows
    are in the order the matches were recorded, so an import stores them in the same order.
    ``void_reason`` (full log only) makes ``import_results`` void the row once recorded.

    One writer for every match, one-vs-one or with sides: a league whose matches are all
    one-vs-one is written with ``player_a`` and ``player_b``; one with matches with sides in
    the side format (``side_a``, ``side_b``, … with players separated by ``;``, ``score_a``
    for two sides, ``place_a``… for more), its one-vs-one results as two sides of one.
    """
    zone = league_zone(league)
    matches = Event.objects.all_matches() if with_voided else Event.objects.live_all_matches()
    matches = matches.filter(league=league).order_by("seq")
    width = _side_width(matches.filter(kind=Event.Kind.SIDE_MATCH_RECORDED))
    inactive = _inactive_players(league)
    letters = SIDE_LETTERS[:width]
    pair = width == 0
    columns = (
        "id",
        "date",
        *(_pair_columns(league) if pair else (f"side_{x}" for x in letters)),
        "score_a",
        *((f"place_{x}" for x in letters) if width > 2 else ()),
        "points",
        "note",
        *(("void_reason",) if with_voided else ()),
        *(("player_status",) if inactive else ()),
    )
    # A merged player's matches are written under the name of the player they count for:
    # imported into an empty league they give the same standings.
    names = dict(
        Player.objects.filter(league=league)
        .annotate(counted=Coalesce("merged_into__display_name", "display_name"))
        .values_list("pk", "counted")
    )

    def rows() -> Iterator[tuple[Any, ...]]:
        query = matches.values_list(
            "pk", "seq", "idempotency_key", "played_at", "kind", "player_a", "player_b",
            "score_a", "points", "note", "voided_by__reason",
        )  # fmt: skip
        for chunk in _chunks(query.iterator(chunk_size=PAGE_SIZE), PAGE_SIZE):
            ids = [row[0] for row in chunk if row[4] == Event.Kind.SIDE_MATCH_RECORDED]
            sides_of = _sides_of(ids)
            for pk, seq, key, played_at, _kind, a, b, score, points, note, void in chunk:
                sides, ranks = sides_of.get(pk, ([[a], [b]], None))
                side_cells = [SIDE_SEPARATOR_TEXT.join(names[p] for p in side) for side in sides]
                side_cells += [""] * (max(width, 2) - len(side_cells))
                place_cells: list[Any] = []
                if width > 2:
                    shown = positions_text(ranks) if ranks and len(ranks) > 2 else []
                    place_cells = [*shown, *[""] * (width - len(shown))]
                row = (
                    key or f"{league.slug}#{seq}",
                    played_cell(played_at, zone),
                    *side_cells,
                    "" if score is None else _score_text(score),
                    *place_cells,
                    points,
                    note,
                )
                if with_voided:
                    # A void always states its reason; "voided" stands in for one stored empty.
                    row = (*row, "" if void is None else (void or "voided"))
                yield (*row, "") if inactive else row
        # After every match (an inactive player's results are recorded while they are
        # active): each deactivated player, with the reason, as a player_status row.
        # The other sides, score_a and the places stay empty; the reason goes in note.
        blank = [""] * (max(width, 2) - 1 + 1 + (width if width > 2 else 0))
        for pk, name, reason in inactive:
            cells = (f"{league.slug}#player-{pk}", "", name, *blank, "", reason)
            yield (*cells, *(("",) if with_voided else ()), "inactive")

    return Table(columns, rows())


def _inactive_players(league: League) -> list[tuple[int, str, str]]:
    """(id, name, reason of the latest deactivation) of the league's inactive players that
    were not merged into another (a merged player's results count for the other)."""
    players = Player.objects.filter(league=league, active=False, merged_into__isnull=True)
    reasons = dict(
        Event.objects.filter(league=league, kind=Event.Kind.PLAYER_DEACTIVATED, player__in=players)
        .order_by("seq")
        .values_list("player", "reason")
    )
    return [(p.pk, p.display_name, reasons.get(p.pk, "")) for p in players.order_by("pk")]


def _side_width(side_matches: Any) -> int:
    """The most sides of any of ``side_matches`` (at least 2), or 0 when there is none."""
    counts = (
        MatchParticipant.objects.filter(event__in=side_matches)
        .values("event")
        .annotate(sides=Count("side", distinct=True))
        .values_list("sides", flat=True)
    )
    return max((max(2, count) for count in counts), default=0)


def _sides_of(event_ids: list[int]) -> dict[int, tuple[list[list[int]], list[int]]]:
    """Each side's player ids and the stored places of the matches with sides ``event_ids``."""
    members: dict[int, dict[int, list[int]]] = {}
    places: dict[int, dict[int, int]] = {}
    for event_id, side, player, place in (
        MatchParticipant.objects.filter(event_id__in=event_ids)
        .order_by("event", "side", "id")
        .values_list("event", "side", "player", "place")
    ):
        members.setdefault(event_id, {}).setdefault(side, []).append(player)
        places.setdefault(event_id, {})[side] = place
    return {
        pk: (
            [members[pk][x] for x in sorted(members[pk])],
            [places[pk][x] for x in sorted(places[pk])],
        )
        for pk in members
    }


def _chunks(items: Iterator[Any], size: int) -> Iterator[list[Any]]:
    chunk: list[Any] = []
    for item in items:
        chunk.append(item)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _pair_columns(league: League) -> tuple[str, str]:
    """The columns of a one-vs-one match's players: ``white`` and ``black`` in a chess
    league (the import reads them as ``player_a`` and ``player_b``), else those."""
    if league.is_chess:
        return tuple(COLOUR_COLUMNS)  # type: ignore[return-value]
    return ("player_a", "player_b")


def _score_text(score: Decimal) -> str:
    return {Decimal("1"): "1", Decimal("0.5"): "0.5", Decimal("0"): "0"}[score.normalize()]


def played_cell(played_at: dt.datetime, zone: Any) -> str:
    """When a match was played, as the import format writes it: the local date alone for a
    result entered with a date (it stands for local noon, ``league.calendar.local_noon``),
    else the local date and time.

    A date alone reads back as the same moment, and is not "in the future" on the day it was
    played: a moment of noon today would be, until noon.
    """
    local = played_at.astimezone(zone)
    if local.time() == dt.time(12):
        return local.date().isoformat()
    return local.isoformat()


def csv_cell(value: Any) -> Any:
    """A value as written to CSV: dates ISO, floats in full precision, text that a
    spreadsheet would run as a formula prefixed with a quote (numbers stay numbers)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, dt.date):
        return value.isoformat()
    if value is None:
        return ""
    if isinstance(value, str):
        return neutralise(value)
    return value


def write_csv(table: Table, out: IO[str]) -> int:
    """Write ``table`` as CSV with a header row; returns the number of data rows."""
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(table.columns)
    count = 0
    for row in table.rows:
        writer.writerow([csv_cell(value) for value in row])
        count += 1
    return count


def csv_lines(table: Table) -> Iterator[str]:
    """``table`` as CSV text, one line at a time (for streaming HTTP responses)."""

    class _Line:
        def write(self, text: str) -> str:
            return text

    writer = csv.writer(_Line(), lineterminator="\n")
    yield writer.writerow(table.columns)
    for row in table.rows:
        yield writer.writerow([csv_cell(value) for value in row])


def _json_value(value: Any) -> Any:
    if isinstance(value, dt.date):
        return value.isoformat()
    return value


def write_json(table: Table, out: IO[str]) -> int:
    """Write ``table`` as a JSON array of objects, one per row, streamed; returns the count."""
    out.write("[")
    count = 0
    for row in table.rows:
        record = {name: _json_value(value) for name, value in zip(table.columns, row, strict=True)}
        out.write(("," if count else "") + "\n  " + json.dumps(record, ensure_ascii=False))
        count += 1
    out.write("\n]\n" if count else "]\n")
    return count
