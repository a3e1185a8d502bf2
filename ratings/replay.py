"""The replay: a league's live matches -> rating periods -> the engine's fold -> projection rows.

Reading takes a snapshot at the league's highest event ``seq`` S (matches with seq <= S that no
event with seq <= S voids) into NumPy arrays; players get dense indices (their ids in ascending
order); each match goes to the period containing its local date in the league's time zone;
within a period matches keep ``seq`` order, so every replay feeds the engine identical inputs.

- Full replay: fold periods 0..current from scratch and rewrite the configuration's projection.
- Incremental replay from period p (the requested period, or an earlier one touched by an event
  newer than the stored projection): rebuild the checkpoint at the start of p from the stored
  rows before p (``state_before``), fold p..current, then in one transaction replace the rows
  >= p and the standings of the players concerned. Same inputs, same lazy idle-RD formula: the
  numbers are bit-identical to a full replay.

After writing, a replay catches up with events stored meanwhile, then finalises in one
transaction holding the league's write lock: the projection is current (no newer seq), the
configuration is published if it is the newest version, otherwise a full replay is superseded.
"""

from __future__ import annotations

import datetime as dt
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum

import numpy as np
import numpy.typing as npt
from django.conf import settings
from django.db import connection, transaction
from django.db.models import F, Max, Q, Sum
from django.utils import timezone

from league.calendar import league_zone, local_day, local_days_from_utc, local_midnight
from league.event_store import lock_league
from league.models import Event, League, Player
from ratings.engine.fold import History, MatchArrays, fold, state_before
from ratings.engine.periods import PeriodSpec
from ratings.locks import LeagueReplayLock, LockLost
from ratings.models import (
    PlayerPeriod,
    ProjectionState,
    Publication,
    RatingConfig,
    Replay,
    Standing,
)
from ratings.projection_io import (
    HistoryRows,
    StandingRows,
    analyze,
    delete_history,
    delete_standings,
    write_history,
    write_standings,
)
from ratings.time import current_period, engine_params, latest_match_day, period_spec

logger = logging.getLogger(__name__)

FINISHED = (Replay.Status.COMPLETE, Replay.Status.FAILED, Replay.Status.SUPERSEDED)
#: Seconds between two progress saves (and lease renewals, and staleness checks).
PROGRESS_INTERVAL = 0.5
NO_MOMENT = np.iinfo(np.int64).min


class Outcome(StrEnum):
    """What became of a request to run a replay."""

    COMPLETE = "complete"
    FAILED = "failed"
    SUPERSEDED = "superseded"
    SKIPPED = "skipped"  # already finished (a redelivered or duplicate message)
    BUSY = "busy"  # another replay of the league holds the lock


class Superseded(Exception):
    """A newer configuration version exists: this full replay must never go live."""


# --- reading -------------------------------------------------------------------------------


@dataclass
class Matches:
    """Live matches of a snapshot, as arrays; players are Player ids, moments UTC µs.

    ``seq`` orders the matches as the event store does: their sequence numbers (PostgreSQL)
    or their rank in that order (SQLite); nothing but the order is used.
    """

    seq: npt.NDArray[np.int64]
    player_a: npt.NDArray[np.int64]
    player_b: npt.NDArray[np.int64]
    score_a: npt.NDArray[np.float64]
    played_us: npt.NDArray[np.int64]
    day: npt.NDArray[np.datetime64]

    def take(self, index: npt.NDArray) -> Matches:
        return Matches(
            self.seq[index],
            self.player_a[index],
            self.player_b[index],
            self.score_a[index],
            self.played_us[index],
            self.day[index],
        )


def max_seq(league_id: int) -> int:
    """The league's highest event sequence number (0 without events)."""
    return Event.objects.filter(league_id=league_id).aggregate(top=Max("seq"))["top"] or 0


_MATCHES_SQL = """
SELECT {seq}e.player_a_id, e.player_b_id, {score}, {moment}
FROM {event} e
LEFT JOIN {event} v ON v.voids_id = e.id AND v.seq <= %s
WHERE e.league_id = %s AND e.kind = %s AND e.seq <= %s AND v.id IS NULL{since}
{order}"""
# One fixed-width tuple of PostgreSQL's binary COPY output: 5 int8 columns.
_COPY_ROW = np.dtype(
    [("n", ">i2")]
    + [(f"{name}{i}", t) for i in range(5) for name, t in (("l", ">i4"), ("v", ">i8"))]
)
_COPY_HEADER = 19  # signature (11) + flags (4) + header extension length (4), extension empty


def read_matches(league: League, through_seq: int, since: dt.datetime | None = None) -> Matches:
    """Matches with seq <= ``through_seq`` not voided by an event with seq <= ``through_seq``.

    ``since`` keeps only matches played at or after that moment. PostgreSQL streams the rows
    with a binary COPY parsed by NumPy in one go; SQLite returns raw values (timestamps as
    ISO text, parsed by NumPy), so no Python object is made per match on either.
    """
    params: list = [through_seq, league.pk, Event.Kind.MATCH_RECORDED.value, through_seq]
    if since is not None:
        params.append(since)
    where_since = " AND e.played_at >= %s" if since is not None else ""
    event = Event._meta.db_table
    if connection.vendor == "postgresql":
        sql = _MATCHES_SQL.format(
            seq="e.seq, ",
            order="",
            event=event,
            score="(e.score_a * 2)::int8",
            moment="(EXTRACT(EPOCH FROM e.played_at) * 1000000)::int8",
            since=where_since,
        )
        buffer = bytearray()
        copy_sql = f"COPY ({sql}) TO STDOUT (FORMAT BINARY)"
        with connection.cursor() as cursor, cursor.cursor.copy(copy_sql, params) as copy:
            for chunk in copy:
                buffer += chunk
        rows = np.frombuffer(bytes(buffer[_COPY_HEADER:-2]), dtype=_COPY_ROW)
        columns = [rows[f"v{i}"].astype(np.int64) for i in range(5)]
        seq, a, b, doubled, played_us = columns
        score = doubled.astype(np.float64) / 2.0
    else:
        sql = _MATCHES_SQL.format(
            # In seq order (read along the (league, seq) index) instead of a seq column: only
            # the order matters. Moments as text: no per-row datetime converter; NumPy
            # parses the ISO strings at once.
            seq="",
            order="ORDER BY e.seq",
            event=event,
            score="e.score_a",
            moment="CAST(e.played_at AS TEXT)",
            since=where_since,
        )
        if since is not None:
            params[-1] = connection.ops.adapt_datetimefield_value(since)
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            values = cursor.fetchall()
        if values:
            a_t, b_t, score_t, moment_t = zip(*values, strict=True)
        else:
            a_t = b_t = score_t = moment_t = ()
        seq = np.arange(len(values), dtype=np.int64)  # the rows' order is seq order
        a = np.array(a_t, dtype=np.int64)
        b = np.array(b_t, dtype=np.int64)
        score = np.array(score_t, dtype=np.float64)
        played_us = np.array(moment_t, dtype="datetime64[us]").astype(np.int64)
    return Matches(
        seq=seq,
        player_a=a,
        player_b=b,
        score_a=score,
        played_us=played_us,
        day=local_days_from_utc(played_us, league_zone(league)),
    )


def league_player_ids(league: League) -> npt.NDArray[np.int64]:
    """Every player id of the league, ascending: position = dense engine index."""
    ids = Player.objects.filter(league=league).order_by("pk").values_list("pk", flat=True)
    return np.fromiter(ids, dtype=np.int64)


# --- computing -----------------------------------------------------------------------------


@dataclass
class Projection:
    """What a replay writes: history rows from ``from_period`` and standings to replace."""

    from_period: int | None  # None: the whole projection
    history: HistoryRows
    standings: StandingRows
    replaced_players: npt.NDArray[np.int64] | None  # None: every standing
    through_period: int


def engine_matches(spec: PeriodSpec, matches: Matches, player_ids) -> MatchArrays:
    """The matches as the engine's arrays, ordered by (period, seq)."""
    period = spec.indices_of(matches.day)
    order = np.lexsort((matches.seq, period))
    return MatchArrays(
        period=period[order],
        player_a=np.searchsorted(player_ids, matches.player_a[order]),
        player_b=np.searchsorted(player_ids, matches.player_b[order]),
        score_a=matches.score_a[order],
    )


def history_rows(history: History, player_ids, spec: PeriodSpec) -> HistoryRows:
    """Engine history (dense players) -> rows with Player ids and period dates."""
    periods, inverse = np.unique(history.period, return_inverse=True)
    starts = np.array([spec.start_of(int(p)) for p in periods], dtype="datetime64[D]")
    ends = np.array([spec.bounds(int(p))[1] for p in periods], dtype="datetime64[D]")
    inverse = inverse.reshape(-1)
    return HistoryRows(
        period=history.period,
        player=player_ids[history.player],
        period_start=starts[inverse] if periods.size else starts,
        period_end=ends[inverse] if periods.size else ends,
        rating=history.rating,
        rd=history.rd,
        volatility=history.volatility,
        rating_before=history.rating_before,
        rd_before=history.rd_before,
        games=history.games,
        wins=history.wins,
        draws=history.draws,
        losses=history.losses,
    )


def last_played(matches: Matches, player_ids, n: int) -> npt.NDArray[np.int64]:
    """Per dense player, the latest ``played_us`` among ``matches`` (NO_MOMENT if none)."""
    latest = np.full(n, NO_MOMENT, dtype=np.int64)
    if matches.seq.size:
        players = np.searchsorted(player_ids, np.concatenate([matches.player_a, matches.player_b]))
        np.maximum.at(latest, players, np.concatenate([matches.played_us, matches.played_us]))
    return latest


def _totals(history: History, n: int) -> list[npt.NDArray[np.int64]]:
    return [
        np.bincount(history.player, weights=getattr(history, name), minlength=n).astype(np.int64)
        for name in ("games", "wins", "draws", "losses")
    ]


def compute_full(
    config: RatingConfig,
    matches: Matches,
    player_ids,
    through_period: int,
    on_progress: Callable[[int, int], None] | None = None,
) -> Projection:
    """Fold periods 0..through_period from scratch."""
    spec, params, n = period_spec(config), engine_params(config), len(player_ids)
    result = fold(
        engine_matches(spec, matches, player_ids), n, params, 0, through_period, None, on_progress
    )
    state = result.final_state
    rated = np.flatnonzero(state.last_period >= 0)
    totals = _totals(result.history, n)
    latest = last_played(matches, player_ids, n)
    standings = StandingRows(
        player=player_ids[rated],
        rating=state.rating[rated],
        rd=state.rd[rated],
        volatility=state.volatility[rated],
        last_period=state.last_period[rated],
        games=totals[0][rated],
        wins=totals[1][rated],
        draws=totals[2][rated],
        losses=totals[3][rated],
        last_played_at=latest[rated].astype("datetime64[us]"),
    )
    return Projection(
        None, history_rows(result.history, player_ids, spec), standings, None, through_period
    )


def _checkpoint_history(config: RatingConfig, from_period: int, player_ids) -> tuple[History, dict]:
    """History rows holding each player's last stored row before ``from_period``.

    Players whose standing is before ``from_period`` take it from ``Standing`` (it equals their
    last row); the others from their latest ``PlayerPeriod`` row before ``from_period``. Also
    returns the stored standings by player id (totals and last played moment).
    """
    standing = {
        row[0]: row
        for row in Standing.objects.filter(config=config).values_list(
            "player_id",
            "rating",
            "rd",
            "volatility",
            "last_period",
            "games",
            "wins",
            "draws",
            "losses",
            "last_played_at",
        )
    }
    early = [row for row in standing.values() if row[4] < from_period]
    late_players = [pid for pid, row in standing.items() if row[4] >= from_period]
    rows = [(row[4], row[0], row[1], row[2], row[3]) for row in early]
    if late_players:
        rows += _last_rows_before(config.pk, from_period)
    rows.sort(key=lambda row: (row[0], row[1]))
    count = len(rows)
    period = np.array([row[0] for row in rows], dtype=np.int64)
    floats = [np.array([row[i] for row in rows], dtype=np.float64) for i in (2, 3, 4)]
    zeros = np.zeros(count, dtype=np.int64)
    history = History(
        period=period,
        player=np.searchsorted(player_ids, np.array([row[1] for row in rows], dtype=np.int64)),
        rating=floats[0],
        rd=floats[1],
        volatility=floats[2],
        rating_before=floats[0],
        rd_before=floats[1],
        games=zeros,
        wins=zeros,
        draws=zeros,
        losses=zeros,
    )
    return history, standing


_LAST_ROWS_POSTGRES = """
SELECT pp.period_index, pp.player_id, pp.rating, pp.rd, pp.volatility
FROM {standing} s
CROSS JOIN LATERAL (
    SELECT q.period_index, q.player_id, q.rating, q.rd, q.volatility
    FROM {history} q
    WHERE q.config_id = s.config_id AND q.player_id = s.player_id AND q.period_index < %s
    ORDER BY q.period_index DESC
    LIMIT 1
) pp
WHERE s.config_id = %s AND s.last_period >= %s
"""
_LAST_ROWS_PORTABLE = """
SELECT pp.period_index, pp.player_id, pp.rating, pp.rd, pp.volatility
FROM {history} pp
JOIN (
    SELECT q.player_id, MAX(q.period_index) AS last
    FROM {history} q
    JOIN {standing} s ON s.config_id = q.config_id AND s.player_id = q.player_id
    WHERE q.config_id = %s AND q.period_index < %s AND s.last_period >= %s
    GROUP BY q.player_id
) m ON pp.player_id = m.player_id AND pp.period_index = m.last
WHERE pp.config_id = %s
"""


def _last_rows_before(config_id: int, from_period: int) -> list[tuple]:
    """(period, player, rating, rd, volatility) of each player's last row before from_period,
    for the players whose standing is from from_period or later (one index probe each)."""
    tables = {
        "history": PlayerPeriod._meta.db_table,
        "standing": Standing._meta.db_table,
    }
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                _LAST_ROWS_POSTGRES.format(**tables), [from_period, config_id, from_period]
            )
        else:
            cursor.execute(
                _LAST_ROWS_PORTABLE.format(**tables),
                [config_id, from_period, from_period, config_id],
            )
        return cursor.fetchall()


def compute_incremental(
    config: RatingConfig,
    league: League,
    from_period: int,
    through_seq: int,
    through_period: int,
    matches: Matches,
    player_ids,
    on_progress: Callable[[int, int], None] | None = None,
) -> Projection:
    """Fold periods from_period..through_period from the stored checkpoint before from_period.

    ``matches`` are the snapshot's matches of periods >= from_period.
    """
    spec, params, n = period_spec(config), engine_params(config), len(player_ids)
    checkpoint, stored = _checkpoint_history(config, from_period, player_ids)
    start = state_before(checkpoint, n, params, from_period)
    result = fold(
        engine_matches(spec, matches, player_ids),
        n,
        params,
        from_period,
        through_period,
        start,
        on_progress,
    )
    state, history = result.final_state, result.history

    # Totals before from_period = stored totals - stored rows from from_period on.
    before = np.zeros((4, n), dtype=np.int64)
    stored_ids = np.fromiter(stored.keys(), dtype=np.int64, count=len(stored))
    if stored_ids.size:
        index = np.searchsorted(player_ids, stored_ids)
        for k in range(4):
            before[k, index] = [row[5 + k] for row in stored.values()]
    old_rows = (
        PlayerPeriod.objects.filter(config=config, period_index__gte=from_period)
        .values("player_id")
        .annotate(g=Sum("games"), w=Sum("wins"), d=Sum("draws"), lost=Sum("losses"))
        .values_list("player_id", "g", "w", "d", "lost")
    )
    old_players = []
    for pid, *sums in old_rows:
        i = int(np.searchsorted(player_ids, pid))
        old_players.append(i)
        before[:, i] -= np.array(sums, dtype=np.int64)
    new_totals = np.stack(_totals(history, n))
    totals = before + new_totals

    changed = np.union1d(np.array(old_players, dtype=np.int64), np.unique(history.player))
    rated = changed[state.last_period[changed] >= 0]
    latest = last_played(matches, player_ids, n)
    moments = latest[rated]
    missing = np.flatnonzero(moments == NO_MOMENT)
    if missing.size:
        # Rated before from_period and no match since: their latest match is an earlier one.
        boundary = local_midnight(spec.start_of(from_period), league_zone(league))
        for j in missing.tolist():
            pid = int(player_ids[rated[j]])
            moment = (
                Event.objects.matches()
                .filter(league=league, seq__lte=through_seq, played_at__lt=boundary)
                .filter(Q(voided_by__isnull=True) | Q(voided_by__seq__gt=through_seq))
                .filter(Q(player_a_id=pid) | Q(player_b_id=pid))
                .aggregate(top=Max("played_at"))["top"]
            )
            moments[j] = np.datetime64(moment.replace(tzinfo=None), "us").astype(np.int64)
    standings = StandingRows(
        player=player_ids[rated],
        rating=state.rating[rated],
        rd=state.rd[rated],
        volatility=state.volatility[rated],
        last_period=state.last_period[rated],
        games=totals[0, rated],
        wins=totals[1, rated],
        draws=totals[2, rated],
        losses=totals[3, rated],
        last_played_at=moments.astype("datetime64[us]"),
    )
    return Projection(
        from_period,
        history_rows(history, player_ids, spec),
        standings,
        player_ids[changed],
        through_period,
    )


# --- writing -------------------------------------------------------------------------------


def write_projection(
    config: RatingConfig, projection: Projection, through_seq: int, lock: LeagueReplayLock
) -> None:
    """Replace the rows of ``projection`` and record how far it reaches, in one transaction.

    The lock is checked inside that transaction: on SQLite a lease that expired while this
    replay computed may already belong to another replay, and then nothing is written.
    """
    with transaction.atomic():
        lock.check_in_transaction()
        delete_history(config.pk, projection.from_period)
        write_history(config.pk, projection.history)
        delete_standings(config.pk, projection.replaced_players)
        write_standings(config.pk, projection.standings)
        ProjectionState.objects.update_or_create(
            config=config,
            defaults={
                "complete": True,
                "through_seq": through_seq,
                "through_period": projection.through_period,
                "computed_at": timezone.now(),
            },
        )
    if projection.from_period is None:
        analyze()


# --- running -------------------------------------------------------------------------------


@dataclass
class Timer:
    """Seconds spent reading, computing and writing (summed over catch-up rounds)."""

    seconds: dict[str, float] = field(
        default_factory=lambda: {"reading": 0.0, "computing": 0.0, "writing": 0.0}
    )
    mark: float = field(default_factory=time.perf_counter)

    def lap(self, phase: str) -> None:
        now = time.perf_counter()
        self.seconds[phase] += now - self.mark
        self.mark = now

    def as_dict(self) -> dict[str, float]:
        result = {k: round(v, 4) for k, v in self.seconds.items()}
        result["total"] = round(sum(self.seconds.values()), 4)
        return result


class Progress:
    """The fold's progress callback: throttled saves, lease renewal, staleness checks."""

    def __init__(self, replay: Replay, lock: LeagueReplayLock, *, check_stale: bool) -> None:
        self.replay = replay
        self.lock = lock
        self.check_stale = check_stale
        self.saved_at = 0.0
        self.slept_for = 0

    def __call__(self, done: int, total: int) -> None:
        delay = settings.REPLAY_PERIOD_DELAY
        if delay > 0:
            time.sleep(delay * (done - self.slept_for))
            self.slept_for = done
        now = time.monotonic()
        if now - self.saved_at < PROGRESS_INTERVAL and done < total:
            return
        self.saved_at = now
        Replay.objects.filter(pk=self.replay.pk).update(periods_done=done, periods_total=total)
        self.lock.renew()
        if self.check_stale and newer_config_exists(self.replay.config):
            raise Superseded()


def newer_config_exists(config: RatingConfig) -> bool:
    return RatingConfig.objects.filter(
        league_id=config.league_id, version__gt=config.version
    ).exists()


def affected_period(
    config: RatingConfig, league: League, after_seq: int, through_seq: int
) -> int | None:
    """Earliest period touched by the match events with seq in (after_seq, through_seq]."""
    rows = Event.objects.filter(
        league=league,
        seq__gt=after_seq,
        seq__lte=through_seq,
        kind__in=[Event.Kind.MATCH_RECORDED, Event.Kind.MATCH_VOIDED],
    ).values_list("played_at", "voids__played_at")
    moments = [moment for pair in rows for moment in pair if moment is not None]
    if not moments:
        return None
    spec, zone = period_spec(config), league_zone(league)
    return max(0, spec.index_of(max(spec.anchor, local_day(min(moments), zone))))


def _recompute(
    replay: Replay,
    config: RatingConfig,
    league: League,
    from_period: int | None,
    lock: LeagueReplayLock,
    timer: Timer,
) -> int:
    """Read, fold and write from ``from_period`` (None: from scratch); return the seq read."""
    through_seq = max_seq(league.pk)
    state = ProjectionState.objects.filter(config=config, complete=True).first()
    spec = period_spec(config)
    if from_period is not None and state is None:
        from_period = None
    if from_period is not None:
        # The snapshot holds every event newer than the stored projection, including one
        # whose own request has not reached a replay yet (it lands on a new replay once this
        # one is claimed, and that replay then finds nothing newer to do): cover them all.
        touched = affected_period(config, league, state.through_seq, through_seq)
        if touched is not None:
            from_period = min(from_period, touched)
    if from_period is None:
        matches = read_matches(league, through_seq)
        latest = None if not matches.day.size else matches.day.max().astype(dt.date)
    else:
        since = local_midnight(spec.start_of(from_period), league_zone(league)) - dt.timedelta(
            days=1
        )
        matches = read_matches(league, through_seq, since)
        matches = matches.take(spec.indices_of(matches.day) >= from_period)
        latest = matches.day.max().astype(dt.date) if matches.day.size else latest_match_day(league)
    player_ids = league_player_ids(league)
    through_period = current_period(config, latest_day=latest)
    if from_period is not None:
        from_period = min(from_period, through_period)
        if state.through_seq >= through_seq and state.through_period == through_period:
            timer.lap("reading")
            return through_seq  # the stored projection already is this snapshot's
    first = 0 if from_period is None else from_period
    Replay.objects.filter(pk=replay.pk).update(
        from_period=first,
        periods_total=through_period - first + 1,
        periods_done=0,
        through_seq=through_seq,
    )
    timer.lap("reading")
    progress = Progress(replay, lock, check_stale=replay.kind == Replay.Kind.FULL)
    if from_period is None:
        projection = compute_full(config, matches, player_ids, through_period, progress)
    else:
        projection = compute_incremental(
            config, league, from_period, through_seq, through_period, matches, player_ids, progress
        )
    timer.lap("computing")
    lock.renew()
    write_projection(config, projection, through_seq, lock)
    timer.lap("writing")
    return through_seq


def _finalise(
    replay: Replay, config: RatingConfig, league: League, through_seq: int, lock, timer
) -> bool:
    """Publish/complete in one transaction holding the league's write lock.

    Returns False (nothing done) when events were stored after ``through_seq``.
    """
    with transaction.atomic():
        lock_league(league)
        if max_seq(league.pk) != through_seq:
            return False
        lock.check_in_transaction()
        newest = not newer_config_exists(config)
        if newest:
            if not Publication.objects.filter(league=league, config=config).exists():
                Publication.objects.update_or_create(
                    league=league, defaults={"config": config, "published_at": timezone.now()}
                )
            status = Replay.Status.COMPLETE
        else:
            status = (
                Replay.Status.SUPERSEDED
                if replay.kind == Replay.Kind.FULL
                else Replay.Status.COMPLETE
            )
        ProjectionState.objects.filter(config=config).update(through_seq=through_seq)
        Replay.objects.filter(pk=replay.pk).update(
            status=status,
            through_seq=through_seq,
            periods_done=F("periods_total"),
            finished_at=timezone.now(),
            timings=timer.as_dict(),
            error="",
        )
    return True


def _run_claimed(replay: Replay, lock: LeagueReplayLock) -> Outcome:
    """Run a claimed replay to its end (catching up with new events), under the lock."""
    config = replay.config
    league = config.league
    timer = Timer()
    from_period = None if replay.kind == Replay.Kind.FULL else replay.from_period
    through_seq = _recompute(replay, config, league, from_period, lock, timer)
    while not _finalise(replay, config, league, through_seq, lock, timer):
        newest = max_seq(league.pk)
        period = affected_period(config, league, through_seq, newest)
        if period is None:
            ProjectionState.objects.filter(config=config).update(through_seq=newest)
            through_seq = newest
            continue
        through_seq = _recompute(replay, config, league, period, lock, timer)
    replay.refresh_from_db(fields=["status", "from_period"])
    logger.info(
        "Replay %s (%s, v%s, attempt %s) %s: from period %s through seq %s",
        replay.pk,
        replay.kind,
        config.version,
        replay.attempts,
        replay.status,
        replay.from_period,
        through_seq,
    )
    return Outcome(replay.status)


def run_claimable(replay_id: int, lock: LeagueReplayLock) -> Outcome:
    """Claim replay ``replay_id`` (one more attempt) and run it; the lock must be held."""
    claimed = Replay.objects.filter(
        pk=replay_id, status__in=[Replay.Status.QUEUED, Replay.Status.RUNNING]
    ).update(status=Replay.Status.RUNNING, attempts=F("attempts") + 1, started_at=timezone.now())
    if not claimed:
        return Outcome.SKIPPED
    replay = Replay.objects.select_related("config__league").get(pk=replay_id)
    if replay.attempts > settings.REPLAY_MAX_ATTEMPTS:
        _mark(replay, Replay.Status.FAILED, error=_gave_up(replay))
        return Outcome.FAILED
    if replay.kind == Replay.Kind.FULL and newer_config_exists(replay.config):
        _mark(replay, Replay.Status.SUPERSEDED)
        return Outcome.SUPERSEDED
    try:
        return _run_claimed(replay, lock)
    except Superseded:
        _mark(replay, Replay.Status.SUPERSEDED)
        return Outcome.SUPERSEDED
    except LockLost:
        Replay.objects.filter(pk=replay_id).update(status=Replay.Status.QUEUED)
        raise
    except Exception as error:
        logger.exception("Replay %s failed (attempt %s)", replay_id, replay.attempts)
        message = f"{type(error).__name__}: {error}"
        if replay.attempts >= settings.REPLAY_MAX_ATTEMPTS:
            _mark(replay, Replay.Status.FAILED, error=message)
            return Outcome.FAILED
        Replay.objects.filter(pk=replay_id).update(status=Replay.Status.QUEUED, error=message)
        return run_claimable(replay_id, lock)


def _gave_up(replay: Replay) -> str:
    last = f" Last error: {replay.error}" if replay.error else " The worker running it stopped."
    return f"Gave up after {settings.REPLAY_MAX_ATTEMPTS} attempts.{last}"


def _mark(replay: Replay, status: str, *, error: str | None = None) -> None:
    changes = {"status": status, "finished_at": timezone.now()}
    if error is not None:
        changes["error"] = error
    Replay.objects.filter(pk=replay.pk).update(**changes)


def execute(replay_id: int) -> Outcome:
    """Run replay ``replay_id`` if the league's lock is free, then any replay queued meanwhile.

    Returns BUSY (nothing done) when another replay of the league holds the lock.
    """
    replay = Replay.objects.select_related("config").filter(pk=replay_id).first()
    if replay is None or replay.status in FINISHED:
        return Outcome.SKIPPED
    lock = LeagueReplayLock(replay.config.league_id)
    if not lock.acquire():
        return Outcome.BUSY
    try:
        outcome = run_claimable(replay_id, lock)
        while True:
            queued = (
                # Holding the lock, a "running" replay of this league is one whose worker died.
                Replay.objects.filter(
                    config__league_id=replay.config.league_id,
                    status__in=[Replay.Status.QUEUED, Replay.Status.RUNNING],
                )
                .order_by("pk")
                .values_list("pk", flat=True)
                .first()
            )
            if queued is None:
                break
            run_claimable(queued, lock)
        return outcome
    except LockLost:
        # The lease expired under us (SQLite) and the replay went back to the queue: the
        # caller re-sends it, to run after whoever holds the lease now.
        return Outcome.BUSY
    finally:
        lock.release()
