"""The fold for matches with sides: periods in order -> the engine -> history rows.

The same shape as :func:`engine.fold.fold`: the result is a
:class:`~engine.fold.FoldResult` whose :class:`~engine.fold.History` doubles
as the checkpoint store (:func:`~engine.fold.state_before` works on it unchanged), so
a fold resumed from any period's checkpoint gives bit-identical numbers to a full fold.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from engine.errors import InvalidParameterError
from engine.fold import (
    FoldResult,
    History,
    Progress,
    check_fold_range,
    initial_state,
    keep,
    period_starts,
)
from engine.glicko2 import apply
from engine.params import Glicko2Params
from engine.sides import SideMatches
from engine.state import RatingState
from engine.teams import DEFAULT_METHOD, TeamMethod, rate_sides_period

__all__ = ["fold_sides"]


def fold_sides(
    matches: SideMatches,
    n_players: int,
    params: Glicko2Params,
    first_period: int,
    last_period: int,
    start_state: RatingState | None = None,
    method: TeamMethod = DEFAULT_METHOD,
    on_progress: Callable[[int, int], None] | None = None,
    on_history: Callable[[History], None] | None = None,
) -> FoldResult:
    """Run periods ``first_period..last_period`` of side matches (inclusive) in order.

    Arguments as for :func:`engine.fold.fold`, plus the team ``method``. Within a
    period, matches keep their input order (the order only matters to the last bits of sums).
    """
    check_fold_range(matches.period, first_period, last_period)
    if len(matches) and (int(matches.player.max()) >= n_players or int(matches.player.min()) < 0):
        raise InvalidParameterError(f"player indices must be in 0..{n_players - 1}")
    state = initial_state(start_state, n_players, first_period, params)

    order = np.argsort(matches.period, kind="stable")
    ordered = matches.take(order)
    played, starts = period_starts(ordered.period)
    ends = np.append(starts[1:], len(ordered)) if len(ordered) else starts
    # Rows are sorted by match, so each period's rows are one slice.
    row_starts = np.searchsorted(ordered.match, starts, side="left")
    row_ends = np.searchsorted(ordered.match, ends, side="left")

    progress = Progress(on_progress, first_period, last_period)
    parts: list[History] = []
    for p, start, end, row_start, row_end in zip(
        played.tolist(),
        starts.tolist(),
        ends.tolist(),
        row_starts.tolist(),
        row_ends.tolist(),
        strict=True,
    ):
        rows = slice(row_start, row_end)
        period_matches = SideMatches(
            ordered.period[start:end],
            ordered.match[rows] - start,
            ordered.side[rows],
            ordered.player[rows],
            ordered.place[rows],
            None if ordered.neutral is None else ordered.neutral[start:end],
        )
        outcome = rate_sides_period(state, period_matches, params, p, method)
        apply(state, outcome)
        keep(parts, History.from_outcome(outcome), on_history)
        progress.period_done(p)
    progress.finish()
    return FoldResult(
        history=History.concat(parts),
        final_state=state,
        first_period=first_period,
        last_period=last_period,
    )
