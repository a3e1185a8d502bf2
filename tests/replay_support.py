"""Helpers for replay tests: expected numbers straight from the pure engine, and exact snapshots.

The expectation is computed from a match list the test itself keeps (players, scores, local
dates, order of recording), bucketed with the engine's ``PeriodSpec`` and folded with the
engine's ``fold``: it shares no code with ``ratings.replay`` except the engine.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import numpy as np

from engine import Glicko2Params, MatchArrays, PeriodSpec, fold
from engine.fold import FoldResult
from league.models import Player
from ratings.models import (
    PlayerPeriod,
    ProjectionState,
    Publication,
    RatingConfig,
    Replay,
    Standing,
)


@dataclass
class KeptMatch:
    """A match as the test recorded it: ``day`` is its local date; ``event`` its stored event;
    ``neutral`` and ``margin`` (a's points minus b's, None when unknown) as recorded."""

    a: int
    b: int
    score: float
    day: dt.date
    event: object = None
    voided: bool = False
    neutral: bool = False
    margin: float | None = None


def config_spec(config: RatingConfig) -> tuple[PeriodSpec, Glicko2Params]:
    spec = PeriodSpec(config.period_unit, config.period_length, config.period_anchor)
    params = Glicko2Params(
        tau=config.tau,
        initial_rating=config.initial_rating,
        initial_rd=config.initial_rd,
        initial_volatility=config.initial_volatility,
        max_rd=config.max_rd,
        volatility_ceiling=config.volatility_ceiling,
        rating_floor=config.rating_floor,
        advantage=config.advantage,
        margin_scale=config.margin_scale,
    )
    return spec, params


def expected_projection(
    config: RatingConfig, matches: list[KeptMatch], through_period: int
) -> tuple[list[tuple], list[tuple]]:
    """(history rows, standing rows) the projection must hold, as :func:`snapshot` shows them."""
    spec, params = config_spec(config)
    ids = sorted(Player.objects.filter(league=config.league_id).values_list("pk", flat=True))
    live = [m for m in matches if not m.voided]
    # Recording order within a period, as the event store's seq orders them.
    ordered = sorted(enumerate(live), key=lambda im: (spec.index_of(im[1].day), im[0]))
    arrays = MatchArrays(
        period=np.array([spec.index_of(m.day) for _, m in ordered], dtype=np.int64),
        player_a=np.array([ids.index(m.a) for _, m in ordered], dtype=np.int64),
        player_b=np.array([ids.index(m.b) for _, m in ordered], dtype=np.int64),
        score_a=np.array([m.score for _, m in ordered], dtype=np.float64),
        neutral=np.array([m.neutral for _, m in ordered], dtype=bool),
        margin=np.array(
            [np.nan if m.margin is None else m.margin for _, m in ordered], dtype=np.float64
        ),
    )
    return fold_rows(fold(arrays, len(ids), params, 0, through_period), ids, spec)


def fold_rows(
    result: FoldResult, ids: list[int], spec: PeriodSpec
) -> tuple[list[tuple], list[tuple]]:
    """(history rows, standing rows) of the engine's fold (``fold`` or ``fold_sides``) of
    the players ``ids`` (in the fold's order), as :func:`snapshot` shows them."""
    h = result.history
    history = sorted(
        (
            ids[int(h.player[i])],
            int(h.period[i]),
            spec.bounds(int(h.period[i]))[0],
            spec.bounds(int(h.period[i]))[1],
            *(float(getattr(h, f)[i]).hex() for f in FLOATS),
            *(int(getattr(h, f)[i]) for f in COUNTS),
        )
        for i in range(len(h))
    )
    state = result.final_state
    standings = []
    for index, pid in enumerate(ids):
        if state.last_period[index] < 0:
            continue
        rows = [row for row in history if row[0] == pid]
        standings.append(
            (
                pid,
                float(state.rating[index]).hex(),
                float(state.rd[index]).hex(),
                float(state.volatility[index]).hex(),
                int(state.last_period[index]),
                *(sum(row[9 + k] for row in rows) for k in range(4)),
            )
        )
    return history, sorted(standings)


FLOATS = ("rating", "rd", "volatility", "rating_before", "rd_before")
COUNTS = ("games", "wins", "draws", "losses")


def snapshot(config: RatingConfig) -> tuple[list[tuple], list[tuple]]:
    """Every stored number of ``config``'s projection, floats as exact hex strings."""
    history = sorted(
        (
            row[0],
            row[1],
            row[2],
            row[3],
            *(float(x).hex() for x in row[4:9]),
            *row[9:],
        )
        for row in PlayerPeriod.objects.filter(config=config).values_list(
            "player_id", "period_index", "period_start", "period_end", *FLOATS, *COUNTS
        )
    )
    standings = sorted(
        (row[0], *(float(x).hex() for x in row[1:4]), *row[4:])
        for row in Standing.objects.filter(config=config).values_list(
            "player_id", "rating", "rd", "volatility", "last_period", *COUNTS
        )
    )
    return history, standings


def _row_differences(label: str, actual: list[tuple], expected: list[tuple], limit: int) -> str:
    extra = sorted(set(actual) - set(expected))
    missing = sorted(set(expected) - set(actual))
    if not extra and not missing:
        return f"{label}: identical ({len(actual)} rows)"
    lines = [
        f"{label}: {len(actual)} stored, {len(expected)} expected; "
        f"{len(extra)} stored rows not expected, {len(missing)} expected rows not stored"
    ]
    lines += [f"  stored:   {row}" for row in extra[:limit]]
    lines += [f"  expected: {row}" for row in missing[:limit]]
    return "\n".join(lines)


def _clock(moment: dt.datetime | None) -> str:
    return "-" if moment is None else moment.strftime("%H:%M:%S.%f")


def replay_history(league_id: int) -> str:
    """The league's Replay rows, projection states and live version, one line each."""
    lines = []
    for replay in Replay.objects.filter(config__league_id=league_id).order_by("pk"):
        lines.append(
            f"  replay {replay.pk} v{replay.config.version} {replay.kind} {replay.status} "
            f"attempts={replay.attempts} from={replay.from_period} "
            f"periods={replay.periods_done}/{replay.periods_total} "
            f"through_seq={replay.through_seq} queued={_clock(replay.queued_at)} "
            f"started={_clock(replay.started_at)} finished={_clock(replay.finished_at)} "
            f"error={replay.error!r}"
        )
    for state in ProjectionState.objects.filter(config__league_id=league_id).order_by("pk"):
        lines.append(
            f"  projection v{state.config.version} complete={state.complete} "
            f"through_seq={state.through_seq} through_period={state.through_period}"
        )
    live = Publication.objects.filter(league_id=league_id).values_list("config__version").first()
    lines.append(f"  published: {'none' if live is None else f'v{live[0]}'}")
    return "\n".join(lines)


def explain_difference(
    config: RatingConfig,
    actual: tuple[list[tuple], list[tuple]],
    expected: tuple[list[tuple], list[tuple]],
    limit: int = 10,
) -> str:
    """Why two projections differ: the rows each lacks, and the league's replay history."""
    return "\n".join(
        [
            f"projection of {config} differs:",
            _row_differences("history", actual[0], expected[0], limit),
            _row_differences("standings", actual[1], expected[1], limit),
            "replays:",
            replay_history(config.league_id),
        ]
    )


def noon(day: dt.date, zone) -> dt.datetime:
    return dt.datetime.combine(day, dt.time(12), tzinfo=zone)
