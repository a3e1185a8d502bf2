"""Computing a pass: the snapshot's matches -> rating periods -> the engine's fold -> rows.

Pure given the plan and the arrays read (no database access): players become dense indices
(their positions in ``plan.player_ids``), each match goes to the period of its local date and
within a period matches keep ``seq`` order, so every pass feeds the engine identical inputs.

- From scratch: fold periods 0..through_period; the projection replaces every row.
- Incremental from period p: resume from the checkpoint's state at the start of p
  (``state_before``), fold p..through_period; the projection replaces the rows >= p and the
  standings of the players concerned. Same inputs, same lazy idle-RD formula: the numbers are
  bit-identical to a fold from scratch.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from functools import partial

import numpy as np
import numpy.typing as npt

from engine.fold import FoldResult, History, MatchArrays, fold, state_before
from engine.fold_process import fold_elsewhere
from engine.instant import fold_instant, fold_sides_instant
from engine.params import Glicko2Params
from engine.periods import PeriodSpec
from engine.side_fold import fold_sides
from engine.sides import SideMatches, places_from_score
from engine.state import RatingState
from ratings.models import RatingConfig
from ratings.replay.plan import ReplayPlan
from ratings.replay.seeds import with_seeds
from ratings.replay.snapshot import COUNTS, NO_MOMENT, Checkpoint, Matches

ProgressCallback = Callable[[int, int], None]
#: Receives history rows as the fold produces them (a full pass that writes as it goes).
RowsSink = Callable[["HistoryRows"], None]


@dataclass
class HistoryRows:
    """Rows for ``PlayerPeriod``: one per (player, period) played; ``player`` holds Player ids."""

    period: npt.NDArray[np.int64]
    player: npt.NDArray[np.int64]
    period_start: npt.NDArray[np.datetime64]
    period_end: npt.NDArray[np.datetime64]
    rating: npt.NDArray[np.float64]
    rd: npt.NDArray[np.float64]
    volatility: npt.NDArray[np.float64]
    rating_before: npt.NDArray[np.float64]
    rd_before: npt.NDArray[np.float64]
    games: npt.NDArray[np.int64]
    wins: npt.NDArray[np.int64]
    draws: npt.NDArray[np.int64]
    losses: npt.NDArray[np.int64]

    def __len__(self) -> int:
        return int(self.player.size)

    @classmethod
    def concat(cls, parts: list[HistoryRows]) -> HistoryRows:
        """The rows of ``parts`` one after the other."""
        return cls(
            **{
                f.name: np.concatenate([getattr(part, f.name) for part in parts])
                for f in fields(cls)
            }
        )


@dataclass
class StandingRows:
    """Rows for ``Standing``: one per rated player; ``last_played_at`` in UTC microseconds."""

    player: npt.NDArray[np.int64]
    rating: npt.NDArray[np.float64]
    rd: npt.NDArray[np.float64]
    volatility: npt.NDArray[np.float64]
    last_period: npt.NDArray[np.int64]
    games: npt.NDArray[np.int64]
    wins: npt.NDArray[np.int64]
    draws: npt.NDArray[np.int64]
    losses: npt.NDArray[np.int64]
    last_played_at: npt.NDArray[np.datetime64]

    def __len__(self) -> int:
        return int(self.player.size)


@dataclass
class Projection:
    """What a pass writes: history rows from ``from_period`` and standings to replace.

    A pass from scratch replaces every row. An incremental pass replaces the stored rows
    from ``from_period`` on (``stale_history``: the ids of those that go, None for all of
    them) and the standings of ``replaced_players``; the rows it leaves as they were
    stored, bit for bit, are neither deleted nor written again.
    """

    from_period: int | None  # None: the whole projection
    history: HistoryRows
    standings: StandingRows
    replaced_players: npt.NDArray[np.int64] | None  # Player ids; None: every standing
    stale_history: npt.NDArray[np.int64] | None = None  # PlayerPeriod ids; None: all


def compute(
    plan: ReplayPlan,
    matches: Matches,
    checkpoint: Checkpoint | None = None,
    on_progress: ProgressCallback | None = None,
) -> Projection:
    """The projection of a pass: from scratch, or from ``checkpoint`` when incremental."""
    if checkpoint is None:
        return compute_full(plan, matches, on_progress)
    return compute_incremental(plan, matches, checkpoint, on_progress)


def engine_matches(
    spec: PeriodSpec,
    matches: Matches,
    player_ids: npt.NDArray[np.int64],
    *,
    played_order: bool = False,
) -> MatchArrays:
    """The matches as the engine's arrays, ordered by (period, seq), with their neutral
    flags and margins when they were read.

    ``played_order`` orders them by (period, played_at, seq) instead: the order instant
    updates rate them in (within a period the period fold's order only touches the last bits
    of its sums, so it keeps the store's).
    """
    period = spec.indices_of(matches.day)
    order = (
        np.lexsort((matches.seq, matches.played_us, period))
        if played_order
        else np.lexsort((matches.seq, period))
    )
    return MatchArrays(
        period=period[order],
        player_a=np.searchsorted(player_ids, matches.player_a[order]),
        player_b=np.searchsorted(player_ids, matches.player_b[order]),
        score_a=matches.score_a[order],
        neutral=None if matches.neutral is None else matches.neutral[order],
        margin=None if matches.margin is None else matches.margin[order],
    )


def engine_side_matches(
    spec: PeriodSpec,
    matches: Matches,
    player_ids: npt.NDArray[np.int64],
    *,
    played_order: bool = False,
) -> SideMatches:
    """Every match, one-vs-one and with sides, as the engine's sides, ordered by (period, seq)
    (``played_order``: by (period, played_at, seq), as :func:`engine_matches`).

    A one-vs-one match is two sides of one player (places from its score); ``matches.seq``
    holds true sequence numbers here, so the two kinds interleave in the store's order. The
    one-vs-one matches' neutral flags come along when they were read (matches with sides
    store none: they are never neutral).
    """
    sides = matches.sides
    assert sides is not None
    pair_period = spec.indices_of(matches.day)
    side_period = spec.indices_of(sides.day)
    n_pairs = pair_period.size
    period = np.concatenate([pair_period, side_period])
    seq = np.concatenate([matches.seq, sides.seq])
    if played_order:
        played = np.concatenate([matches.played_us, sides.played_us])
        order = np.lexsort((seq, played, period))
    else:
        order = np.lexsort((seq, period))
    position = np.empty(order.size, dtype=np.int64)
    position[order] = np.arange(order.size, dtype=np.int64)
    place_a, place_b = places_from_score(matches.score_a)
    pair_match = position[:n_pairs]
    neutral = None
    if matches.neutral is not None:
        neutral = np.zeros(order.size, dtype=bool)
        neutral[pair_match] = matches.neutral
    return SideMatches(
        period[order],
        np.concatenate([pair_match, pair_match, position[n_pairs + sides.match]]),
        np.concatenate(
            [np.zeros(n_pairs, dtype=np.int64), np.ones(n_pairs, dtype=np.int64), sides.side]
        ),
        np.searchsorted(
            player_ids, np.concatenate([matches.player_a, matches.player_b, sides.player])
        ),
        np.concatenate([place_a, place_b, sides.place]),
        neutral,
    )


def run_fold(
    plan: ReplayPlan,
    matches: Matches,
    first_period: int,
    start: RatingState | None,
    on_progress: ProgressCallback | None,
    on_history: Callable[[History], None] | None = None,
    *,
    elsewhere: bool = False,
) -> FoldResult:
    """The engine's fold of ``matches``: ``fold_sides`` when any match has sides, else the
    plain one-vs-one ``fold`` (a league of singles gets exactly today's numbers); with the
    configuration's instant updates, their instant counterparts, fed the matches in played
    order with the end of each one's local day as its moment in its period.

    ``elsewhere``: computed in a process of its own (``engine.fold_process``), the
    callbacks called here as it goes; the same numbers.
    """
    params: Glicko2Params = plan.params
    # Players seeded from a rating list start from their seed once (while still unrated).
    start = with_seeds(start, plan.seeds, plan.player_ids, params)
    span = (plan.n_players, params, first_period, plan.through_period, start)
    call = partial(_call, elsewhere=elsewhere, on_progress=on_progress, on_history=on_history)
    if plan.config.update_mode == RatingConfig.UpdateMode.INSTANT:
        return _run_instant(plan, matches, span, call)
    if matches.sides is not None and len(matches.sides):
        return call(fold_sides, engine_side_matches(plan.spec, matches, plan.player_ids), *span)
    return call(fold, engine_matches(plan.spec, matches, plan.player_ids), *span)


def _call(
    function: Callable[..., object],
    *args: object,
    elsewhere: bool,
    on_progress: ProgressCallback | None,
    on_history: Callable[[History], None] | None,
    attribute: str | None = None,
) -> FoldResult:
    """``function(*args)`` with the callbacks, here or in a process of its own; its result,
    or that result's ``attribute``."""
    if elsewhere:
        result = fold_elsewhere(
            function, *args, on_progress=on_progress, on_history=on_history, attribute=attribute
        )
    else:
        result = function(*args, on_progress=on_progress, on_history=on_history)
        if attribute is not None:
            result = getattr(result, attribute)
    assert isinstance(result, FoldResult)
    return result


def _run_instant(
    plan: ReplayPlan,
    matches: Matches,
    span: tuple[object, ...],
    call: Callable[..., FoldResult],
) -> FoldResult:
    """:func:`run_fold` with instant updates (``engine.instant``); ``span``: the fold's
    players, parameters, periods and start."""
    spec, ids = plan.spec, plan.player_ids
    if matches.sides is not None and len(matches.sides):
        sides = engine_side_matches(spec, matches, ids, played_order=True)
        days = np.concatenate([matches.day, matches.sides.day])
        order = np.lexsort(
            (
                np.concatenate([matches.seq, matches.sides.seq]),
                np.concatenate([matches.played_us, matches.sides.played_us]),
                spec.indices_of(days),
            )
        )
        moments = spec.end_of_day_fractions(days[order])
        return call(fold_sides_instant, sides, moments, *span, attribute="fold")
    pairs = engine_matches(spec, matches, ids, played_order=True)
    order = np.lexsort((matches.seq, matches.played_us, spec.indices_of(matches.day)))
    moments = spec.end_of_day_fractions(matches.day[order])
    return call(fold_instant, pairs, moments, *span, attribute="fold")


def compute_full(
    plan: ReplayPlan,
    matches: Matches,
    on_progress: ProgressCallback | None = None,
    on_rows: RowsSink | None = None,
    *,
    elsewhere: bool = False,
) -> Projection:
    """Fold periods 0..through_period from scratch.

    With ``on_rows`` the history rows go to it period by period as the fold produces them,
    and the projection's history is empty: the whole history is never held at once.
    ``elsewhere``: the fold computed in a process of its own (``run_fold``), so that
    ``on_rows`` writes the rows while it computes the next ones.
    """
    player_ids, n = plan.player_ids, plan.n_players
    streamed = np.zeros((len(COUNTS), n), dtype=np.int64)

    def emit(block: History) -> None:
        assert on_rows is not None
        # One row per player in a period: the fancy-indexed sums never collide.
        for k, name in enumerate(COUNTS):
            streamed[k, block.player] += getattr(block, name)
        on_rows(_history_rows(block, plan))

    result = run_fold(
        plan, matches, 0, None, on_progress, None if on_rows is None else emit, elsewhere=elsewhere
    )
    state = result.final_state
    rated = np.flatnonzero(state.last_period >= 0)
    totals = list(streamed) if on_rows is not None else _totals(result.history, n)
    latest = _last_played(matches, player_ids, n)
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
    return Projection(None, _history_rows(result.history, plan), standings, None)


def compute_incremental(
    plan: ReplayPlan,
    matches: Matches,
    checkpoint: Checkpoint,
    on_progress: ProgressCallback | None = None,
) -> Projection:
    """Fold periods from_period..through_period from the stored checkpoint before from_period.

    ``matches`` are the snapshot's matches of periods >= from_period.
    """
    from_period, player_ids, n = plan.first_period, plan.player_ids, plan.n_players
    start = state_before(checkpoint.history, n, plan.params, from_period)
    result = run_fold(plan, matches, from_period, start, on_progress)
    state, history = result.final_state, result.history
    totals = checkpoint.totals_before + np.stack(_totals(history, n))

    changed = np.union1d(checkpoint.replaced, np.unique(history.player))
    rated = changed[state.last_period[changed] >= 0]
    latest = _last_played(matches, player_ids, n)
    # Rated before from_period and no match since: their latest match is an earlier one.
    latest = np.where(latest == NO_MOMENT, checkpoint.earlier_played_us, latest)

    # Most rows of a pass come out as they were stored (one new result changes its two
    # players' rows): only the others are deleted and written.
    stored = checkpoint.standings
    new_same, old_same = unchanged_rows(
        rated,
        [state.rating, state.rd, state.volatility, state.last_period, *totals, latest],
        stored.player,
        [
            stored.rating,
            stored.rd,
            stored.volatility,
            stored.last_period,
            *stored.counts,
            stored.last_played_us,
        ],
    )
    rated = rated[~new_same]
    replaced = np.setdiff1d(changed, stored.player[old_same], assume_unique=True)
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
        last_played_at=latest[rated].astype("datetime64[us]"),
    )

    later, stale = checkpoint.later, None
    if later is not None and checkpoint.later_ids is not None:
        columns = ("rating", "rd", "volatility", "rating_before", "rd_before", *COUNTS)
        new_key, old_key = (rows.period * (n + 1) + rows.player for rows in (history, later))
        new_same, old_same = unchanged_rows(
            new_key,
            [getattr(history, name) for name in columns],
            old_key,
            [getattr(later, name) for name in columns],
            keyed=True,
        )
        history = history.take(~new_same)
        if old_same.any():
            stale = checkpoint.later_ids[~old_same]
    history_rows = _history_rows(history, plan)
    return Projection(from_period, history_rows, standings, player_ids[replaced], stale)


def unchanged_rows(
    new: npt.NDArray[np.int64],
    new_columns: list[np.ndarray],
    old: npt.NDArray[np.int64],
    old_columns: list[np.ndarray],
    *,
    keyed: bool = False,
) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
    """Which new rows equal a stored row bit for bit, and which stored rows are so matched.

    Rows are identified by unique keys: ``new`` and ``old``. By default the keys are also
    indices into ``new_columns`` (per-player arrays: row ``i`` holds ``column[i]``);
    ``keyed`` means every column already holds one value per row. ``old_columns`` hold one
    value per stored row. Floats compare by their bits (so a NaN equals itself and 0.0 is
    not -0.0): what is left alone must be exactly what would have been written.
    """
    same = np.zeros(new.size, dtype=bool)
    old_same = np.zeros(old.size, dtype=bool)
    if not new.size or not old.size:
        return same, old_same
    order = np.argsort(old, kind="stable")
    position = np.minimum(np.searchsorted(old, new, sorter=order), old.size - 1)
    match = order[position]
    same = old[match] == new
    for new_column, old_column in zip(new_columns, old_columns, strict=True):
        values = new_column if keyed else new_column[new]
        same &= _bits(values) == _bits(old_column[match])
    old_same[match[same]] = True
    return same, old_same


def _bits(values: np.ndarray) -> npt.NDArray[np.int64]:
    """Values as int64: floats by their IEEE bits, integers as they are."""
    if values.dtype.kind == "f":
        return np.ascontiguousarray(values, dtype=np.float64).view(np.int64)
    return values.astype(np.int64, copy=False)


def _history_rows(history: History, plan: ReplayPlan) -> HistoryRows:
    """Engine history (dense players) -> rows with Player ids and period dates."""
    periods, inverse = np.unique(history.period, return_inverse=True)
    starts = np.array([plan.spec.start_of(int(p)) for p in periods], dtype="datetime64[D]")
    ends = np.array([plan.spec.bounds(int(p))[1] for p in periods], dtype="datetime64[D]")
    inverse = inverse.reshape(-1)
    return HistoryRows(
        period=history.period,
        player=plan.player_ids[history.player],
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


def _last_played(
    matches: Matches, player_ids: npt.NDArray[np.int64], n: int
) -> npt.NDArray[np.int64]:
    """Per dense player, the latest ``played_us`` among ``matches`` (NO_MOMENT if none)."""
    latest = np.full(n, NO_MOMENT, dtype=np.int64)
    players, moments = matches.player_moments()
    if players.size:
        np.maximum.at(latest, np.searchsorted(player_ids, players), moments)
    return latest


def _totals(history: History, n: int) -> list[npt.NDArray[np.int64]]:
    """Per dense player, the sums of ``COUNTS`` over ``history``."""
    return [
        np.bincount(history.player, weights=getattr(history, name), minlength=n).astype(np.int64)
        for name in COUNTS
    ]
