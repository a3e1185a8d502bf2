"""The fold: matches bucketed in periods -> the engine, period by period -> history rows.

History holds one row per (player, period) played, ordered by (period, player). It doubles as
the checkpoint store: :func:`state_before` rebuilds the full rating state at the start of any
period from the rows before it, so a later replay can resume anywhere with no extra storage,
and a resumed fold gives bit-identical numbers to a full one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.advantage import game_advantage, outcome_scores
from engine.errors import InvalidParameterError
from engine.glicko2 import PeriodGames, PeriodOutcome, apply, rate_period
from engine.params import Glicko2Params
from engine.state import FloatArray, IntArray, RatingState

__all__ = ["FoldResult", "History", "MatchArrays", "fold", "state_before"]


@dataclass(frozen=True)
class MatchArrays:
    """Matches as parallel arrays, in any order: period index, players, first player's score.

    Optional, one entry per match: ``neutral`` (the first-named side has no advantage there)
    and ``margin`` (the first-named side's points minus the opponent's, NaN when unknown),
    read only when ``Glicko2Params.advantage`` / ``margin_scale`` turn them on.
    """

    period: IntArray
    player_a: IntArray
    player_b: IntArray
    score_a: FloatArray
    neutral: npt.NDArray[np.bool_] | None = None
    margin: FloatArray | None = None

    def __post_init__(self) -> None:
        arrays = [
            np.asarray(getattr(self, name))
            for name in ("period", "player_a", "player_b", "score_a")
        ]
        if any(x.ndim != 1 for x in arrays) or len({x.size for x in arrays}) != 1:
            raise InvalidParameterError(
                "period, player_a, player_b and score_a must be 1-D arrays of the same length"
            )
        period, a, b, s = arrays
        if period.size and not all(np.issubdtype(x.dtype, np.integer) for x in (period, a, b)):
            raise InvalidParameterError("period, player_a and player_b must be integer arrays")
        object.__setattr__(self, "period", period.astype(np.int64, copy=False))
        object.__setattr__(self, "player_a", a.astype(np.int64, copy=False))
        object.__setattr__(self, "player_b", b.astype(np.int64, copy=False))
        object.__setattr__(self, "score_a", s.astype(np.float64, copy=False))
        if self.margin is not None:
            margin = np.asarray(self.margin, dtype=np.float64)
            if margin.shape != self.period.shape:
                raise InvalidParameterError("margin must have one entry per match")
            if np.any(np.isinf(margin)):
                raise InvalidParameterError("a margin must be finite (or NaN when unknown)")
            object.__setattr__(self, "margin", margin)
        # Validates players, scores and neutral flags once for the whole league.
        games = PeriodGames(self.player_a, self.player_b, self.score_a, self.neutral)
        object.__setattr__(self, "neutral", games.neutral)

    def __len__(self) -> int:
        return int(self.period.size)

    def take(self, index: npt.NDArray[Any]) -> MatchArrays:
        """The matches at ``index`` (a boolean mask or positions)."""
        return MatchArrays(
            self.period[index],
            self.player_a[index],
            self.player_b[index],
            self.score_a[index],
            None if self.neutral is None else self.neutral[index],
            None if self.margin is None else self.margin[index],
        )

    def outcome(self, params: Glicko2Params) -> FloatArray | None:
        """The scores the update uses under ``params``' margin mapping, or None when it is off
        (no ``margin_scale``, or no margins): the plain results are used."""
        if params.margin_scale is None or self.margin is None:
            return None
        return outcome_scores(self.score_a, self.margin, params.margin_scale)

    def advantage(self, advantage: float) -> FloatArray:
        """Per match, the first-named side's advantage in rating points (0 where neutral)."""
        return game_advantage(len(self), self.neutral, advantage)


@dataclass(frozen=True)
class History:
    """One row per (player, period) played, ordered by (period, player), as parallel arrays.

    ``rating``/``rd``/``volatility`` are the values after the period (RD capped);
    ``rating_before``/``rd_before`` the values the player entered it with (RD grown while idle,
    unrated players: the initial values) -- exactly what predictions for that period use.
    """

    period: IntArray
    player: IntArray
    rating: FloatArray
    rd: FloatArray
    volatility: FloatArray
    rating_before: FloatArray
    rd_before: FloatArray
    games: IntArray
    wins: IntArray
    draws: IntArray
    losses: IntArray

    @classmethod
    def empty(cls) -> History:
        def floats() -> FloatArray:
            return np.empty(0, dtype=np.float64)

        def ints() -> IntArray:
            return np.empty(0, dtype=np.int64)

        return cls(
            period=ints(),
            player=ints(),
            rating=floats(),
            rd=floats(),
            volatility=floats(),
            rating_before=floats(),
            rd_before=floats(),
            games=ints(),
            wins=ints(),
            draws=ints(),
            losses=ints(),
        )

    @classmethod
    def from_outcome(cls, outcome: PeriodOutcome) -> History:
        return cls(
            period=np.full(outcome.players.size, outcome.period, dtype=np.int64),
            player=outcome.players,
            rating=outcome.rating,
            rd=outcome.rd,
            volatility=outcome.volatility,
            rating_before=outcome.rating_before,
            rd_before=outcome.rd_before,
            games=outcome.games,
            wins=outcome.wins,
            draws=outcome.draws,
            losses=outcome.losses,
        )

    @classmethod
    def concat(cls, parts: Sequence[History]) -> History:
        """Rows of ``parts`` one after the other (pass them in period order)."""
        if not parts:
            return cls.empty()
        return cls(
            **{f.name: np.concatenate([getattr(p, f.name) for p in parts]) for f in fields(cls)}
        )

    def take(self, index: npt.NDArray[Any] | slice) -> History:
        return History(**{f.name: getattr(self, f.name)[index] for f in fields(self)})

    def slice_from(self, period: int) -> History:
        """Rows of ``period`` and later."""
        return self.take(slice(int(np.searchsorted(self.period, period, side="left")), None))

    def slice_before(self, period: int) -> History:
        """Rows before ``period``."""
        return self.take(slice(0, int(np.searchsorted(self.period, period, side="left"))))

    def __len__(self) -> int:
        return int(self.period.size)


@dataclass(frozen=True)
class FoldResult:
    """History rows of periods ``first_period..last_period`` and the state after the last."""

    history: History
    final_state: RatingState
    first_period: int
    last_period: int


def check_fold_range(periods: IntArray, first_period: int, last_period: int) -> None:
    """A fold runs ``first_period..last_period`` (possibly empty) and every match's period
    falls inside it; ``InvalidParameterError`` otherwise."""
    if last_period < first_period - 1:
        raise InvalidParameterError(
            f"last_period ({last_period}) must not be before first_period ({first_period})"
        )
    if first_period < 0:
        raise InvalidParameterError(f"first_period must be >= 0, got {first_period}")
    if periods.size:
        low, high = int(periods.min()), int(periods.max())
        if low < first_period or high > last_period:
            raise InvalidParameterError(
                f"matches in periods {low}..{high} fall outside the folded range "
                f"{first_period}..{last_period}"
            )


def initial_state(
    start_state: RatingState | None, n_players: int, first_period: int, params: Glicko2Params
) -> RatingState:
    """The state a fold from ``first_period`` starts from: ``start_state`` (a checkpoint
    before that period) grown to ``n_players``, or every player unrated."""
    if start_state is None:
        return RatingState.unrated(n_players, params)
    if start_state.n_players > n_players:
        raise InvalidParameterError(
            f"start_state has {start_state.n_players} players, more than n_players={n_players}"
        )
    if np.any(start_state.last_period >= first_period):
        raise InvalidParameterError(f"start_state already contains period {first_period} or later")
    return start_state.resized(n_players, params)


def fold(
    matches: MatchArrays,
    n_players: int,
    params: Glicko2Params,
    first_period: int,
    last_period: int,
    start_state: RatingState | None = None,
    on_progress: Callable[[int, int], None] | None = None,
    on_history: Callable[[History], None] | None = None,
) -> FoldResult:
    """Run periods ``first_period..last_period`` (inclusive, empty ones included) in order.

    ``start_state`` is the state at the start of ``first_period`` (default: everyone unrated),
    for example :func:`state_before` of an earlier history. ``on_progress(done, total)`` is
    called with the number of periods done, at most about a hundred times plus once at the end.
    ``on_history(rows)``, when given, receives each played period's history rows as soon as
    they are computed, and the result's history is then empty (a caller that writes them as
    they come never holds the whole history). Matches outside the range, or players outside
    ``0..n_players-1``, are refused.
    """
    check_fold_range(matches.period, first_period, last_period)
    if len(matches):
        top = int(max(matches.player_a.max(), matches.player_b.max()))
        if top >= n_players:
            raise InvalidParameterError(f"player index {top} is not below n_players={n_players}")
        bottom = int(min(matches.player_a.min(), matches.player_b.min()))
        if bottom < 0:
            raise InvalidParameterError(
                f"player indices must be in 0..{n_players - 1}, got {bottom}"
            )
    state = initial_state(start_state, n_players, first_period, params)

    # Matches in period order already (as the replay passes them) are used as they are: a
    # sorted copy of every column would double their memory (1.3 GB at 10,000,000 matches).
    in_order = bool(np.all(matches.period[1:] >= matches.period[:-1]))
    order = None if in_order else np.argsort(matches.period, kind="stable")

    def ordered(column: npt.NDArray[Any]) -> npt.NDArray[Any]:
        return column if order is None else column[order]

    period = ordered(matches.period)
    a, b, s = ordered(matches.player_a), ordered(matches.player_b), ordered(matches.score_a)
    neutral = None
    if params.advantage != 0.0 and matches.neutral is not None:
        neutral = ordered(matches.neutral)
    update_scores = matches.outcome(params)
    if update_scores is not None:
        update_scores = ordered(update_scores)
    played, starts = period_starts(period)
    ends = np.append(starts[1:], period.size) if period.size else starts

    progress = Progress(on_progress, first_period, last_period)
    parts: list[History] = []
    for p, start, end in zip(played.tolist(), starts.tolist(), ends.tolist(), strict=True):
        games = PeriodGames(
            a[start:end],
            b[start:end],
            s[start:end],
            None if neutral is None else neutral[start:end],
            None if update_scores is None else update_scores[start:end],
        )
        outcome = rate_period(state, games, params, p)
        apply(state, outcome)
        keep(parts, History.from_outcome(outcome), on_history)
        del games, outcome
        progress.period_done(p)
    progress.finish()
    return FoldResult(
        history=_concat_consuming(parts),
        final_state=state,
        first_period=first_period,
        last_period=last_period,
    )


class Progress:
    """A fold's ``on_progress(done, total)``: called with the number of periods done, at most
    about a hundred times, and once at the end (every fold reports the same way)."""

    def __init__(
        self, on_progress: Callable[[int, int], None] | None, first_period: int, last_period: int
    ) -> None:
        self.on_progress = on_progress
        self.first_period = first_period
        self.total = last_period - first_period + 1
        self.step = max(1, self.total // 100)
        self.reported = 0

    def period_done(self, period: int) -> None:
        """Period ``period`` (and every one before it) is done."""
        done = period - self.first_period + 1
        if self.on_progress is not None and done - self.reported >= self.step:
            self.on_progress(done, self.total)
            self.reported = done

    def finish(self) -> None:
        """Every period of the fold is done."""
        if self.on_progress is not None and self.reported < self.total:
            self.on_progress(self.total, self.total)


def period_starts(period: IntArray) -> tuple[IntArray, IntArray]:
    """The periods present in ``period`` (sorted) and the index of each one's first match:
    what ``np.unique(period, return_index=True)`` gives, without its sorted copy."""
    if period.size == 0:
        return period[:0], np.zeros(0, dtype=np.int64)
    starts = np.flatnonzero(period[1:] != period[:-1]) + 1
    starts = np.concatenate([np.zeros(1, dtype=starts.dtype), starts]).astype(np.int64)
    return period[starts], starts


def keep(parts: list[History], rows: History, on_history: Callable[[History], None] | None) -> None:
    """A period's rows: handed to ``on_history`` when given, else kept in ``parts``."""
    if on_history is None:
        parts.append(rows)
    else:
        on_history(rows)


def _concat_consuming(parts: list[History]) -> History:
    """:meth:`History.concat` of ``parts``, emptying the list column by column as it goes.

    Each column's pieces are released as soon as they are joined, so peak memory is the pieces
    plus one joined column rather than twice the history.
    """
    if not parts:
        return History.empty()
    pieces = {f.name: [getattr(part, f.name) for part in parts] for f in fields(History)}
    parts.clear()
    return History(**{name: np.concatenate(pieces.pop(name)) for name in list(pieces)})


def state_before(
    history: History, n_players: int, params: Glicko2Params, period: int
) -> RatingState:
    """The rating state at the start of ``period``, from the history rows before it.

    Each player gets the values of their last row before ``period``; players with no such row
    are unrated. Resuming a fold from this state reproduces the full fold bit for bit.
    """
    earlier = history.slice_before(period)
    state = RatingState.unrated(n_players, params)
    if len(earlier) == 0:
        return state
    if int(earlier.player.max()) >= n_players:
        raise InvalidParameterError(
            f"history has player index {int(earlier.player.max())}, n_players={n_players}"
        )
    # Last row per player: first occurrence in the reversed rows.
    reversed_players = earlier.player[::-1]
    players, first = np.unique(reversed_players, return_index=True)
    last = earlier.player.size - 1 - first
    state.rating[players] = earlier.rating[last]
    state.rd[players] = earlier.rd[last]
    state.volatility[players] = earlier.volatility[last]
    state.last_period[players] = earlier.period[last]
    return state
