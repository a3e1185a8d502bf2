"""Predictions in a player's words: expected score, win / draw / loss, and how well they did.

The league's draw model (``engine.outcomes``, documented in OUTCOMES.md) is fitted
on the league's own results: every counted match, predicted from the ratings and RDs both
players entered its period with (the projection's ``rating_before`` / ``rd_before``). The
same predictions, compared with what happened, are the backtest of the live configuration:
its calibration table says, for each band of expected score, how the favourites really did,
and two more say how the home and the away sides did (non-neutral matches only).

Every prediction gives the first-named side the configuration's advantage unless the match
is on neutral ground (``first_named_advantage``), through ``engine.prediction.win_probability``:
the function the engine's backtest scores (``engine.scoring.match_predictions``).

Both are computed once per state of the projection and kept in the default cache.
"""

from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass

import numpy as np
from django.core.cache import cache

from engine.errors import InvalidParameterError
from engine.outcomes import DrawModel, fit_draw_model, outcome_probabilities
from engine.prediction import win_probability, win_probability_array
from league.calendar import league_zone
from league.models import League
from ratings.models import PlayerPeriod, ProjectionState, RatingConfig
from ratings.replay.snapshot import read_live_matches
from ratings.time import period_spec

#: Calibration bands of the expected score of the first-named player (tenths).
BANDS = 10
#: The two sides of a non-neutral match: the first-named side is at home.
HOME, AWAY = "home", "away"
#: A league draws "enough" for win / draw / loss to be shown when this share of its
#: games are draws (below it, expected score alone says as much).
MIN_DRAW_SHARE = 0.005
#: How long a request waits for another's fit of the same model before fitting it itself.
FIT_WAIT_SECONDS = 10.0


@dataclass(frozen=True)
class CalibrationBand:
    """Games whose favourite's expected score fell in ``[low, high)``, and what happened."""

    low: float
    high: float
    games: int
    mean_expected: float
    mean_score: float
    draws: int


@dataclass(frozen=True)
class SideCalibration:
    """How one side (home or away) of the league's non-neutral matches did against its
    predictions: over all of them, and by bands of the side's own expected score (tenths)."""

    side: str
    games: int
    mean_expected: float
    mean_score: float
    bands: tuple[CalibrationBand, ...]


@dataclass(frozen=True)
class LeagueModel:
    """The league's fitted draw model and the calibration of its predictions.

    ``bands`` are seen from each game's favourite; ``sides`` from the home and the away side
    of the non-neutral games (empty when the league has none).
    """

    draw_model: DrawModel | None
    bands: list[CalibrationBand]
    games: int
    sides: tuple[SideCalibration, ...] = ()

    @property
    def has_draws(self) -> bool:
        model = self.draw_model
        return model is not None and model.games > 0 and model.draws / model.games >= MIN_DRAW_SHARE

    def band_for(self, expected: float) -> CalibrationBand | None:
        """The calibration band of a favourite's expected score (``expected >= 0.5``)."""
        for band in self.bands:
            if band.low <= expected < band.high or (band.high == 1.0 and expected == 1.0):
                return band
        return None


@dataclass(frozen=True)
class Prediction:
    """A's chances against B: the expected score and, where the league has draws, win / draw /
    loss (probabilities; the pages write them as text)."""

    expected_score: float
    win: float | None
    draw: float | None
    loss: float | None


def first_named_advantage(config: RatingConfig | None, *, neutral: bool = False) -> float:
    """The first-named side's advantage in rating points under ``config`` (0 on neutral
    ground or without a configuration), as the engine gives it in a recorded match."""
    if config is None or neutral:
        return 0.0
    return float(config.advantage)


def predict(
    model: LeagueModel,
    rating_a: float,
    rd_a: float,
    rating_b: float,
    rd_b: float,
    advantage: float = 0.0,
) -> Prediction:
    """A's expected score against B and, where the league has draws, win / draw / loss.

    ``advantage`` (rating points) is A's: ``first_named_advantage`` of the configuration.
    """
    expected = float(win_probability(rating_a, rd_a, rating_b, rd_b, advantage))
    if model.has_draws and model.draw_model is not None:
        chances = outcome_probabilities(
            rating_a, rd_a, rating_b, rd_b, model.draw_model.nu, advantage
        )
        return Prediction(expected, chances.win, chances.draw, chances.loss)
    return Prediction(expected, None, None, None)


def _cache_key(config: RatingConfig) -> str | None:
    state = (
        ProjectionState.objects.filter(config=config)
        .values_list("through_seq", "computed_at")
        .first()
    )
    if state is None:
        return None
    return f"league-model:{config.pk}:{state[0]}:{state[1].isoformat()}"


def league_model(league: League, config: RatingConfig) -> LeagueModel:
    """The league's draw model and calibration under ``config`` (cached per projection).

    One fit per projection: while one request fits it, the others asking for the same model
    (a crowd on the player pages just after a replay) wait for its result instead of each
    fitting it again, up to :data:`FIT_WAIT_SECONDS` (then they fit it themselves).
    """
    key = _cache_key(config)
    if key is not None:
        cached = cache.get(key)
        if cached is not None:
            return cached
        if not cache.add(f"{key}:fitting", True, FIT_WAIT_SECONDS):
            deadline = time.monotonic() + FIT_WAIT_SECONDS
            while time.monotonic() < deadline:
                time.sleep(0.02)
                cached = cache.get(key)
                if cached is not None:
                    return cached
    model = _fit(league, config)
    if key is not None:
        cache.set(key, model, 24 * 3600)
        cache.delete(f"{key}:fitting")
    return model


def _fit(league: League, config: RatingConfig) -> LeagueModel:
    """Predict every counted match from its period's starting ratings; fit and calibrate.

    The matches are those the projection has folded in (through its ``through_seq``), read
    as arrays by the replay's own reader, and matched to their players' period rows with
    one sorted search: a page that misses the cache after a new result (every first reader
    after each replay) costs one read of each table, not a Python loop over every match.
    """
    through_seq = (
        ProjectionState.objects.filter(config=config).values_list("through_seq", flat=True).first()
    )
    if through_seq is None:
        return LeagueModel(None, [], 0)
    spec = period_spec(config)
    matches = read_live_matches(league.pk, league_zone(league), through_seq, extras=True)
    counted = matches.day >= np.datetime64(spec.anchor, "D")
    player_a, player_b = matches.player_a[counted], matches.player_b[counted]
    score = matches.score_a[counted]
    neutral_flags = (
        np.zeros(player_a.size, dtype=bool)
        if matches.neutral is None
        else np.asarray(matches.neutral, dtype=bool)[counted]
    )
    index = spec.indices_of(matches.day[counted])
    periods = np.array(
        PlayerPeriod.objects.filter(config=config)
        .order_by()
        .values_list("player_id", "period_index", "rating_before", "rd_before"),
        dtype=np.float64,
    ).reshape(-1, 4)
    if not player_a.size or not periods.size:
        return LeagueModel(None, [], 0)
    # (player, period) as one sortable integer key.
    stride = int(max(periods[:, 1].max(), index.max())) + 1
    keys = periods[:, 0].astype(np.int64) * stride + periods[:, 1].astype(np.int64)
    order = np.argsort(keys)
    keys, starts = keys[order], periods[order, 2:]

    def lookup(players: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        wanted = players.astype(np.int64) * stride + index
        at = np.minimum(np.searchsorted(keys, wanted), keys.size - 1)
        return at, keys[at] == wanted

    at_a, found_a = lookup(player_a)
    at_b, found_b = lookup(player_b)
    both = found_a & found_b
    if not both.any():
        return LeagueModel(None, [], 0)
    a, b = starts[at_a[both]], starts[at_b[both]]
    neutral = neutral_flags[both]
    advantage = np.where(neutral, 0.0, first_named_advantage(config))
    expected = win_probability_array(a[:, 0], a[:, 1], b[:, 0], b[:, 1], advantage)
    scores = score[both].astype(np.float64)
    try:
        draw_model: DrawModel | None = fit_draw_model(expected, scores)
    except InvalidParameterError:
        draw_model = None
    return LeagueModel(
        draw_model,
        _calibration(expected, scores),
        int(both.sum()),
        _side_calibration(expected[~neutral], scores[~neutral]),
    )


def _bands(
    expected: np.ndarray, scores: np.ndarray, edges: np.ndarray
) -> tuple[CalibrationBand, ...]:
    """The games of each band ``[low, high)`` of ``expected`` (the last closed), non-empty only."""
    bands = []
    for low, high in itertools.pairwise(edges):
        last = math.isclose(high, 1.0)
        inside = (expected >= low) & ((expected <= high) if last else (expected < high))
        count = int(np.count_nonzero(inside))
        if count == 0:
            continue
        bands.append(
            CalibrationBand(
                low=float(low),
                high=float(high),
                games=count,
                mean_expected=float(np.mean(expected[inside])),
                mean_score=float(np.mean(scores[inside])),
                draws=int(np.count_nonzero(scores[inside] == 0.5)),
            )
        )
    return tuple(bands)


def _side_calibration(
    home_expected: np.ndarray, home_scores: np.ndarray
) -> tuple[SideCalibration, ...]:
    """The home and the away side of the non-neutral games against their predictions.

    The first-named side is at home; the away side's expected score and result are the
    complements. A favourite-only table folds a home favourite and an away favourite
    together, which hides an advantage the predictions miss; these keep them apart.
    """
    if home_expected.size == 0:
        return ()
    edges = np.linspace(0.0, 1.0, BANDS + 1)
    sides = []
    for side, expected, scores in (
        (HOME, home_expected, home_scores),
        (AWAY, 1.0 - home_expected, 1.0 - home_scores),
    ):
        sides.append(
            SideCalibration(
                side=side,
                games=int(expected.size),
                mean_expected=float(np.mean(expected)),
                mean_score=float(np.mean(scores)),
                bands=_bands(expected, scores, edges),
            )
        )
    return tuple(sides)


def _calibration(expected: np.ndarray, scores: np.ndarray) -> list[CalibrationBand]:
    """Bands of the favourite's expected score (50-60 %, ..., 90-100 %) and their outcomes.

    Each game is seen from its favourite (the side expected to score at least half), so a
    band says: "when the favourite was expected to score 70-80 %, it scored 74 %".
    """
    favourite = np.where(expected >= 0.5, expected, 1.0 - expected)
    score = np.where(expected >= 0.5, scores, 1.0 - scores)
    return list(_bands(favourite, score, np.linspace(0.5, 1.0, BANDS // 2 + 1)))
