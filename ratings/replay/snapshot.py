"""Reading a replay's inputs: the snapshot's matches and the stored checkpoint.

A snapshot is the event store at a sequence number S: the matches with seq <= S that no
event with seq <= S voids. Its matches are read into NumPy arrays in seq order, each with
its local date in the league's time zone (which decides its rating period). PostgreSQL
streams them with a binary COPY parsed by NumPy in one go; SQLite returns raw values
(moments as ISO text, parsed by NumPy): no Python object is made per match on either.

An incremental pass also reads the stored projection before its first period (the
checkpoint): each player's last row before it, the totals up to it, the players whose
stored rows from it on are replaced, and, for those without a match since, their latest
earlier match.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any
from zoneinfo import ZoneInfo

import numpy as np
import numpy.typing as npt
from django.db import connection
from django.db.models import Max, Q

from engine.fold import History
from engine.params import Glicko2Params
from league.calendar import league_zone, local_days_from_utc, local_midnight
from league.models import Competition, Event, Fixture, League, MatchParticipant
from league.prepared_queries import PreparedQuery
from ratings.models import PlayerPeriod, Standing
from ratings.replay.columns import NO_MOMENT, any_of, read_columns
from ratings.replay.identities import map_players, merges_at, players_counted_as
from ratings.replay.plan import ReplayPlan

#: The four counters of a player's results, in the order totals are stacked.
COUNTS = ("games", "wins", "draws", "losses")


# --- matches -------------------------------------------------------------------------------


@dataclass
class SideRows:
    """Live matches with sides of a snapshot: per match ``seq``, ``played_us``, ``day``;
    per (match, player) row ``match`` (index into those), ``side``, ``player`` (Player id)
    and ``place``. Rows are in (match, side) order."""

    seq: npt.NDArray[np.int64]
    played_us: npt.NDArray[np.int64]
    day: npt.NDArray[np.datetime64]
    match: npt.NDArray[np.int64]
    side: npt.NDArray[np.int64]
    player: npt.NDArray[np.int64]
    place: npt.NDArray[np.int64]

    def __len__(self) -> int:
        return int(self.seq.size)

    def take(self, keep: npt.NDArray[np.bool_]) -> SideRows:
        """The matches where ``keep`` (one flag per match) is True, renumbered in order."""
        renumber = np.cumsum(keep) - 1
        rows = keep[self.match]
        return SideRows(
            self.seq[keep],
            self.played_us[keep],
            self.day[keep],
            renumber[self.match[rows]],
            self.side[rows],
            self.player[rows],
            self.place[rows],
        )


@dataclass
class Matches:
    """Live matches of a snapshot, as arrays; players are Player ids, moments UTC µs.

    ``seq`` holds the matches' sequence numbers (the event store's order). ``sides`` holds
    the matches with sides (None when the snapshot has none, the one-vs-one league's case);
    both kinds of match interleave by ``seq``. ``neutral`` and ``margin`` (NaN when unknown)
    of the one-vs-one matches are read only when asked for (``extras``): a configuration with
    an advantage or the margin mapping.
    """

    seq: npt.NDArray[np.int64]
    player_a: npt.NDArray[np.int64]
    player_b: npt.NDArray[np.int64]
    score_a: npt.NDArray[np.float64]
    played_us: npt.NDArray[np.int64]
    day: npt.NDArray[np.datetime64]
    sides: SideRows | None = None
    neutral: npt.NDArray[np.bool_] | None = None
    margin: npt.NDArray[np.float64] | None = None

    def take(self, index: npt.NDArray) -> Matches:
        return Matches(
            self.seq[index],
            self.player_a[index],
            self.player_b[index],
            self.score_a[index],
            self.played_us[index],
            self.day[index],
            self.sides,
            None if self.neutral is None else self.neutral[index],
            None if self.margin is None else self.margin[index],
        )

    def player_moments(self) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """(Player id, played_us) of every player of every match, one pair each."""
        players = [self.player_a, self.player_b]
        moments = [self.played_us, self.played_us]
        if self.sides is not None:
            players.append(self.sides.player)
            moments.append(self.sides.played_us[self.sides.match])
        return np.concatenate(players), np.concatenate(moments)


def read_pass_matches(plan: ReplayPlan) -> Matches:
    """The snapshot's matches of the plan's periods (``first_period`` on)."""
    extras = needs_extras(plan.params)
    if plan.from_period is None:
        return read_live_matches(plan.league_id, plan.zone, plan.through_seq, extras=extras)
    # From the day before the period's local midnight: a moment's UTC date may precede its
    # local one; the exact cut is by local date, below.
    since = local_midnight(plan.spec.start_of(plan.from_period), plan.zone) - dt.timedelta(days=1)
    matches = read_live_matches(plan.league_id, plan.zone, plan.through_seq, since, extras=extras)
    taken = matches.take(plan.spec.indices_of(matches.day) >= plan.from_period)
    if matches.sides is not None:
        taken.sides = matches.sides.take(
            plan.spec.indices_of(matches.sides.day) >= plan.from_period
        )
    return taken


def needs_extras(params: Glicko2Params) -> bool:
    """Whether a fold with ``params`` reads the matches' neutral flags and margins."""
    return params.advantage != 0.0 or params.margin_scale is not None


def read_matches(
    league: League, through_seq: int, since: dt.datetime | None = None, *, extras: bool = False
) -> Matches:
    """The matches of ``league``'s snapshot at ``through_seq`` (for readers without a plan)."""
    return read_live_matches(league.pk, league_zone(league), through_seq, since, extras=extras)


# The live matches of a snapshot: not voided by an event the snapshot holds. ("voids_id IS
# NOT NULL" says nothing new, but lets PostgreSQL find the voids through their index instead
# of hashing every event of the table: 17 s of a 10,000,000-match read, spilled to disk.)
#
# A result on a fixture of an unrated competition is recorded but never rated: the
# competition's ``rated`` is fixed when it is created, so every snapshot reads it the same way.
_UNRATED_FIXTURES = (
    f"SELECT f.id FROM {Fixture._meta.db_table} f "
    f"JOIN {Competition._meta.db_table} c ON c.id = f.competition_id WHERE NOT c.rated"
)
_MATCHES_FROM = (
    """
FROM {event} e
LEFT JOIN {event} v ON v.voids_id = e.id AND v.voids_id IS NOT NULL AND v.seq <= %s
WHERE e.league_id = %s AND e.kind = %s AND e.seq <= %s AND v.id IS NULL
AND (e.fixture_id IS NULL OR e.fixture_id NOT IN ("""
    + _UNRATED_FIXTURES
    + """)){since}"""
)
_MATCHES_SQL = (
    """
SELECT {seq}e.player_a_id, e.player_b_id, {score}, {moment}{extras}"""
    + _MATCHES_FROM
    + """
{order}"""
)


# An unknown margin in the read's output (a margin is a difference of 9-digit numbers).
_NO_MARGIN = np.iinfo(np.int64).min
# The neutral flag and the margin (the sentinel when unknown), as two more integer columns.
_EXTRAS_SQL = f", CAST(e.neutral AS INTEGER) AS neutral, COALESCE(e.margin, {_NO_MARGIN}) AS margin"


def _extras(neutral: npt.NDArray[np.int64], margin: npt.NDArray[np.int64]) -> tuple[Any, Any]:
    """The integer columns of the read as the neutral flags and the margins (NaN: unknown)."""
    return neutral != 0, np.where(margin == _NO_MARGIN, np.nan, margin.astype(np.float64))


def read_live_matches(
    league_id: int,
    zone: ZoneInfo,
    through_seq: int,
    since: dt.datetime | None = None,
    *,
    extras: bool = False,
) -> Matches:
    """Matches with seq <= ``through_seq`` not voided by an event with seq <= ``through_seq``.

    ``since`` keeps only matches played at or after that moment; ``zone`` gives their dates.
    Players are the ones each match counts for in that snapshot (``identities``: a merged
    player's matches count as the surviving player's). ``extras`` reads the neutral flags
    and margins too.
    """
    sides = read_live_side_matches(league_id, zone, through_seq, since)
    params: list = [through_seq, league_id, Event.Kind.MATCH_RECORDED.value, through_seq]
    if since is not None:
        params.append(since)
    where_since = " AND e.played_at >= %s" if since is not None else ""
    event = Event._meta.db_table
    if connection.vendor == "postgresql":
        columns = _read_postgres(params, event, where_since, extras)
        seq, a, b, doubled, played_us = columns[:5]
        score = doubled.astype(np.float64) / 2.0
    else:
        columns = _read_sqlite(_MATCHES_SQL, params, event, where_since, since, extras)
        seq, a, b, score, played_us = columns[:5]
    neutral, margin = _extras(columns[5], columns[6]) if extras else (None, None)
    mapping = merges_at(league_id, through_seq)
    if sides is not None:
        # A merged-away player's side rows count for the surviving player, as A/B ids do.
        sides.player = map_players(sides.player, mapping)
    return Matches(
        seq=seq,
        player_a=map_players(a, mapping),
        player_b=map_players(b, mapping),
        score_a=score,
        played_us=played_us,
        day=local_days_from_utc(played_us, zone),
        neutral=neutral,
        margin=margin,
        sides=sides,
    )


_SIDE_MATCHES_SQL = """
SELECT e.seq, {moment}, p.side, p.player_id, p.place
FROM {event} e
JOIN {participant} p ON p.event_id = e.id
LEFT JOIN {event} v ON v.voids_id = e.id AND v.voids_id IS NOT NULL AND v.seq <= %s
WHERE e.league_id = %s AND e.kind = %s AND e.seq <= %s AND v.id IS NULL{since}
ORDER BY e.seq, p.side, p.id"""


_HAS_SIDE_MATCHES = PreparedQuery(
    lambda league_id: (
        Event.objects.filter(league_id=league_id, kind=Event.Kind.SIDE_MATCH_RECORDED)
        .order_by()
        .values_list("pk")[:1]
    )
)


def read_live_side_matches(
    league_id: int, zone: ZoneInfo, through_seq: int, since: dt.datetime | None = None
) -> SideRows | None:
    """The snapshot's live matches with sides (``read_live_matches``' rule), or None if none.

    A league of one-vs-one matches answers from the (league, kind, played_at) index at once.
    """
    kind = Event.Kind.SIDE_MATCH_RECORDED.value
    # No condition on seq here: with one, SQLite walks the (league, seq) index through every
    # event of the league (0.1 s at 200,000 matches) instead of finding none at once. A side
    # match stored after the snapshot only costs the query below, which excludes it.
    if not _HAS_SIDE_MATCHES.exists(league_id=league_id):
        return None
    params: list = [through_seq, league_id, kind, through_seq]
    where_since = ""
    if since is not None:
        where_since = " AND e.played_at >= %s"
        params.append(connection.ops.adapt_datetimefield_value(since))
    if connection.vendor == "postgresql":
        moment = "(EXTRACT(EPOCH FROM e.played_at) * 1000000)::int8"
    else:
        moment = "CAST(e.played_at AS TEXT)"
    sql = _SIDE_MATCHES_SQL.format(
        moment=moment,
        event=Event._meta.db_table,
        participant=MatchParticipant._meta.db_table,
        since=where_since,
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        values = cursor.fetchall()
    if not values:
        return None
    seq_t, moment_t, side_t, player_t, place_t = zip(*values, strict=True)
    row_seq = np.array(seq_t, dtype=np.int64)
    new_match = np.ones(row_seq.size, dtype=bool)
    new_match[1:] = row_seq[1:] != row_seq[:-1]
    starts = np.flatnonzero(new_match)
    if connection.vendor == "postgresql":
        row_us = np.array(moment_t, dtype=np.int64)
    else:
        row_us = np.array(moment_t, dtype="datetime64[us]").astype(np.int64)
    played_us = row_us[starts]
    return SideRows(
        seq=row_seq[starts],
        played_us=played_us,
        day=local_days_from_utc(played_us, zone),
        match=np.cumsum(new_match) - 1,
        side=np.array(side_t, dtype=np.int64),
        player=np.array(player_t, dtype=np.int64),
        place=np.array(place_t, dtype=np.int64),
    )


def _read_postgres(
    params: list, event: str, where_since: str, extras: bool = False
) -> tuple[npt.NDArray[np.int64], ...]:
    """The PostgreSQL read: the live matches' columns as NumPy arrays (``columns.read_columns``:
    one row of ``string_agg(int8send(…))`` columns).

    A binary COPY sends a message per row, and receiving 1,000,000 messages cost the client
    more than the query (0.9-1.0 s against 0.65 s for this, same run). ``seq`` comes along for
    the compute's ordering.
    """
    expressions = [
        "e.seq",
        "e.player_a_id",
        "e.player_b_id",
        "e.score_a * 2",
        "e.played_at",
    ]
    kinds = "iiiim"
    if extras:
        # (The sentinel's literal is numeric to PostgreSQL: cast back to int8 as a whole.)
        expressions += ["CAST(e.neutral AS INTEGER)", f"COALESCE(e.margin::int8, {_NO_MARGIN})"]
        kinds += "ii"
    body = _MATCHES_FROM.format(event=event, since=where_since)
    return read_columns(f"SELECT {', '.join(expressions)} {body}", params, kinds)


def _read_sqlite(
    template: str,
    params: list,
    event: str,
    where_since: str,
    since: dt.datetime | None,
    extras: bool = False,
) -> tuple[np.ndarray, ...]:
    """The SQLite read: one row of five comma-separated columns (``group_concat``), parsed
    by NumPy at once; fetching 200,000 rows as Python tuples took three times as long.

    Moments stay text (exact to the microsecond; NumPy parses ISO strings); ``seq`` comes
    along so the order never depends on how SQLite feeds the aggregate. With ``extras``
    two more integer columns follow: the neutral flag and the margin (``_NO_MARGIN`` when
    unknown: ``group_concat`` would skip a NULL).
    """
    inner = template.format(
        seq="e.seq, ",
        # No ORDER BY: to avoid sorting, SQLite would walk the (league, seq) index through
        # every event, where (league, kind, played_at) finds a recent period's matches at
        # once; the rows are put in seq order below.
        order="",
        event=event,
        score="CAST(e.score_a * 2 AS INTEGER) AS score",
        moment="CAST(e.played_at AS TEXT) AS moment",
        since=where_since,
        extras=_EXTRAS_SQL if extras else "",
    )
    more = ", group_concat(neutral), group_concat(margin)" if extras else ""
    sql = (
        "SELECT count(*), group_concat(seq), group_concat(player_a_id), "
        f"group_concat(player_b_id), group_concat(score), group_concat(moment){more} "
        f"FROM ({inner})"
    )
    if since is not None:
        params[-1] = connection.ops.adapt_datetimefield_value(since)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        count, *texts = cursor.fetchone()
    if not count:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty, np.zeros(0, dtype=np.float64), empty, empty, empty

    def numbers(text: str) -> npt.NDArray[np.int64]:
        return np.fromstring(text, dtype=np.int64, sep=",")

    seq, a, b, doubled = (numbers(text) for text in texts[:4])
    played_us = np.array(texts[4].split(","), dtype="datetime64[us]").astype(np.int64)
    more = [numbers(text) for text in texts[5:7]]
    if np.any(seq[1:] < seq[:-1]):
        order = np.argsort(seq, kind="stable")
        seq, a, b, doubled, played_us = (x[order] for x in (seq, a, b, doubled, played_us))
        more = [x[order] for x in more]
    return seq, a, b, doubled.astype(np.float64) / 2.0, played_us, *more


# --- the checkpoint of an incremental pass -------------------------------------------------

#: The longest pass (in periods) whose stored rows are read to be compared with its own. A
#: short pass (a result in the current period) changes few of the rows it computes, so
#: reading the stored ones saves rewriting the others; a pass from far back changes most of
#: them, and holding the stored rows too would double its memory (500,000 rows: +290 MiB).
COMPARE_MAX_PERIODS = 8


@dataclass(frozen=True)
class StoredStandings:
    """Stored ``Standing`` rows of some players: ``player`` holds dense indices; ``counts``
    the results (rows ``COUNTS``); ``last_played_us`` UTC µs (NO_MOMENT when unknown)."""

    player: npt.NDArray[np.int64]
    rating: npt.NDArray[np.float64]
    rd: npt.NDArray[np.float64]
    volatility: npt.NDArray[np.float64]
    last_period: npt.NDArray[np.int64]
    counts: npt.NDArray[np.int64]
    last_played_us: npt.NDArray[np.int64]

    def __len__(self) -> int:
        return int(self.player.size)


@dataclass(frozen=True)
class Checkpoint:
    """The stored projection before an incremental pass's first period, per dense player.

    Only the players the pass concerns are filled in: those with matches in the pass and
    those with stored rows from its first period on (``replaced``: their rows and
    standings are rewritten). A player's update reads only its own values and its
    opponents' (who play in the pass too), so nobody else's values are ever read.

    ``history`` holds each such player's last row before the period (what
    ``state_before`` resumes from); ``totals_before`` the results counted before it (rows
    ``COUNTS``); ``earlier_played_us`` the latest match before the period of each replaced
    player without a match in the pass (NO_MOMENT for everyone else). ``standings`` holds
    the stored standings of the players concerned and, for a pass of at most
    ``COMPARE_MAX_PERIODS`` periods, ``later`` the stored rows from the period on
    (``later_ids`` their ``PlayerPeriod`` ids; both None for a longer pass): the pass
    rewrites only the rows it changes.
    """

    history: History
    totals_before: npt.NDArray[np.int64]
    replaced: npt.NDArray[np.int64]
    earlier_played_us: npt.NDArray[np.int64]
    standings: StoredStandings
    later: History | None = None
    later_ids: npt.NDArray[np.int64] | None = None


def read_checkpoint(plan: ReplayPlan, matches: Matches) -> Checkpoint:
    """The checkpoint before an incremental pass's first period; ``matches`` are its matches."""
    from_period, player_ids, n = plan.first_period, plan.player_ids, plan.n_players
    config_id = plan.config.pk
    later_ids, later = None, None
    if plan.periods_total <= COMPARE_MAX_PERIODS:
        later_ids, later = _later_rows(config_id, from_period, player_ids)
        replaced = np.unique(later.player)
        later_totals = np.stack(
            [
                np.bincount(later.player, weights=getattr(later, name), minlength=n)
                for name in COUNTS
            ]
        ).astype(np.int64)
    else:
        ids, *sums = read_columns(
            _LATER_TOTALS.format(history=_HISTORY), [config_id, from_period], "iiiii"
        )
        replaced = np.searchsorted(player_ids, ids)
        later_totals = np.zeros((len(COUNTS), n), dtype=np.int64)
        later_totals[:, replaced] = np.stack(sums)
    played = np.zeros(n, dtype=bool)
    played[np.searchsorted(player_ids, matches.player_moments()[0])] = True
    concerned = np.union1d(replaced, np.flatnonzero(played))
    stored = _stored_standings(config_id, player_ids, player_ids[concerned])
    history = _checkpoint_history(config_id, from_period, player_ids, stored)

    # Totals before from_period = stored totals - stored rows from from_period on.
    totals = np.zeros((len(COUNTS), n), dtype=np.int64)
    totals[:, stored.player] = stored.counts
    totals -= later_totals

    earlier = np.full(n, NO_MOMENT, dtype=np.int64)
    idle = replaced[~played[replaced]].tolist()
    if idle:
        # Their matches from from_period on are gone (voided or moved earlier): their latest
        # match is an earlier one, if any.
        boundary = local_midnight(plan.spec.start_of(from_period), plan.zone)
        before = _live_in_snapshot(plan.league_id, plan.through_seq).filter(played_at__lt=boundary)
        mapping = merges_at(plan.league_id, plan.through_seq)
        for i in idle:
            stored_ids = players_counted_as(int(player_ids[i]), mapping)
            if not stored_ids:
                continue
            moment = before.filter(
                Q(player_a_id__in=stored_ids)
                | Q(player_b_id__in=stored_ids)
                | Q(participants__player_id__in=stored_ids)
            ).aggregate(top=Max("played_at"))["top"]
            if moment is not None:
                earlier[i] = np.datetime64(moment.replace(tzinfo=None), "us").astype(np.int64)
    return Checkpoint(history, totals, replaced, earlier, stored, later, later_ids)


def _live_in_snapshot(league_id: int, through_seq: int):
    """Matches of the snapshot at ``through_seq`` (as a queryset)."""
    return (
        Event.objects.all_matches()
        .filter(league_id=league_id, seq__lte=through_seq)
        .filter(Q(voided_by__isnull=True) | Q(voided_by__seq__gt=through_seq))
        .exclude(fixture__competition__rated=False)
    )


_HISTORY = PlayerPeriod._meta.db_table
_STANDING = Standing._meta.db_table
# Per player with stored rows from a period on: the sums of their results there.
_LATER_TOTALS = """
SELECT player_id, SUM(games), SUM(wins), SUM(draws), SUM(losses)
FROM {history}
WHERE config_id = %s AND period_index >= %s
GROUP BY player_id
ORDER BY player_id
"""
# The stored rows from a period on (the columns of ``History``, with each row's id).
_LATER_ROWS = """
SELECT id, period_index, player_id, rating, rd, volatility, rating_before, rd_before,
       games, wins, draws, losses
FROM {history}
WHERE config_id = %s AND period_index >= %s
"""
_STANDINGS = """
SELECT player_id, rating, rd, volatility, last_period, games, wins, draws, losses, last_played_at
FROM {standing}
WHERE config_id = %s AND {players}
"""


def _later_rows(
    config_id: int, from_period: int, player_ids: npt.NDArray[np.int64]
) -> tuple[npt.NDArray[np.int64], History]:
    """The ids and the values (players as dense indices) of the stored rows from
    ``from_period`` on."""
    row_id, period, player, *values = read_columns(
        _LATER_ROWS.format(history=_HISTORY), [config_id, from_period], "iiifffffiiii"
    )
    rating, rd, volatility, rating_before, rd_before, games, wins, draws, losses = values
    return row_id, History(
        period=period,
        player=np.searchsorted(player_ids, player),
        rating=rating,
        rd=rd,
        volatility=volatility,
        rating_before=rating_before,
        rd_before=rd_before,
        games=games,
        wins=wins,
        draws=draws,
        losses=losses,
    )


def _stored_standings(
    config_id: int, player_ids: npt.NDArray[np.int64], players: npt.NDArray[np.int64]
) -> StoredStandings:
    """The stored standings of ``players`` (Player ids; those without one are left out)."""
    condition, params = any_of("player_id", players)
    sql = _STANDINGS.format(standing=_STANDING, players=condition)
    pid, rating, rd, volatility, last_period, *counts, last_played = read_columns(
        sql, [config_id, *params], "ifffiiiiim"
    )
    return StoredStandings(
        player=np.searchsorted(player_ids, pid),
        rating=rating,
        rd=rd,
        volatility=volatility,
        last_period=last_period,
        counts=np.stack(counts) if pid.size else np.zeros((len(COUNTS), 0), dtype=np.int64),
        last_played_us=last_played,
    )


def _checkpoint_history(
    config_id: int, from_period: int, player_ids: npt.NDArray[np.int64], stored: StoredStandings
) -> History:
    """History rows holding each stored player's last row before ``from_period``.

    Players whose standing is before that period take it from ``Standing`` (it equals their
    last row); the others from their latest ``PlayerPeriod`` row before it.
    """
    early = stored.last_period < from_period
    period, player = stored.last_period[early], stored.player[early]
    rating, rd, volatility = stored.rating[early], stored.rd[early], stored.volatility[early]
    if not early.all():
        later = _last_rows_before(config_id, from_period)
        period = np.concatenate([period, later[0]])
        player = np.concatenate([player, np.searchsorted(player_ids, later[1])])
        rating, rd, volatility = (
            np.concatenate([mine, theirs])
            for mine, theirs in zip((rating, rd, volatility), later[2:], strict=True)
        )
    order = np.lexsort((player, period))
    period, player = period[order], player[order]
    rating, rd, volatility = rating[order], rd[order], volatility[order]
    zeros = np.zeros(period.size, dtype=np.int64)
    return History(
        period=period,
        player=player,
        rating=rating,
        rd=rd,
        volatility=volatility,
        rating_before=rating,
        rd_before=rd,
        games=zeros,
        wins=zeros,
        draws=zeros,
        losses=zeros,
    )


_LAST_ROWS_POSTGRES = """
SELECT pp.period_index, pp.player_id, pp.rating, pp.rd, pp.volatility
FROM {standing} s
CROSS JOIN LATERAL (
    SELECT q.period_index, q.player_id, q.rating, q.rd, q.volatility
    FROM {history} q
    WHERE q.config_id = %s AND q.player_id = s.player_id AND q.period_index < %s
    ORDER BY q.period_index DESC
    LIMIT 1
) pp
WHERE s.config_id = %s AND s.last_period >= %s
"""
# Per player, MAX over the unique (config, player, period) index: two probes each. (Grouping
# the rows before the period instead read nearly the whole history: 0.4 s at 1,000,000.)
_LAST_ROWS_PORTABLE = """
SELECT pp.period_index, pp.player_id, pp.rating, pp.rd, pp.volatility
FROM {standing} s
JOIN {history} pp ON pp.config_id = %s AND pp.player_id = s.player_id
    AND pp.period_index = (
        SELECT MAX(q.period_index) FROM {history} q
        WHERE q.config_id = %s AND q.player_id = s.player_id AND q.period_index < %s
    )
WHERE s.config_id = %s AND s.last_period >= %s
"""


def _last_rows_before(config_id: int, from_period: int) -> tuple[np.ndarray, ...]:
    """(period, player, rating, rd, volatility) columns of each player's last row before
    from_period, for the players whose standing is from from_period or later (one index
    probe each)."""
    return read_columns(*last_rows_statement(config_id, from_period), "iifff")


def last_rows_statement(config_id: int, from_period: int) -> tuple[str, list[int]]:
    """The SQL and parameters of :func:`_last_rows_before`.

    The history is named by the configuration's id itself, never through the standing's
    column: on PostgreSQL the history is partitioned by configuration, and a condition on a
    joined column leaves the planner every partition to plan (1.7 s of planning for a
    one-result replay with 1,000 leagues on the server), where a constant prunes them to one.
    """
    tables = {"history": _HISTORY, "standing": _STANDING}
    if connection.vendor == "postgresql":
        return _LAST_ROWS_POSTGRES.format(**tables), [config_id, from_period] * 2
    return _LAST_ROWS_PORTABLE.format(**tables), [config_id, *[config_id, from_period] * 2]
