"""Does seeding predict better? The backtest of a league's seeds from rating lists.

``compare_seeds`` scores the league's matches twice with one configuration (the live one by
default), as the replay folds them: once with the seeded players starting from their seeds
(``ratings.replay.seeds``), once with everyone starting from the initial rating. Each match
is predicted before its result is known, so the comparison is out of sample; the paired
difference of log-loss per match gets a 95 % interval by the period bootstrap the sweeps
use (``engine.bootstrap``), and the verdict says "better" only when the whole interval is
below zero.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.bootstrap import PeriodBootstrap, compare_sums
from engine.params import Glicko2Params
from engine.scoring import Scores, score_fold, score_instant
from engine.state import RatingState
from league.models import League
from ratings import services as rating_services
from ratings.backtest import walk_forward
from ratings.backtest.services import BOOTSTRAP_DRAWS, BOOTSTRAP_SEED, LoadedMatches, load
from ratings.models import RatingConfig
from ratings.replay.positions import league_player_ids, max_seq
from ratings.replay.seeds import seeds_of, with_seeds
from ratings.selectors.configurations import live_config
from ratings.time import engine_params

#: The verdicts: seeds predict better, worse, or the data cannot tell them apart.
BETTER, WORSE, NO_DIFFERENCE = "better", "worse", "no_difference"


@dataclass(frozen=True)
class SeedComparison:
    """Log-loss per match with and without seeds, and their paired difference
    (``difference = with - without``: below zero, the seeds predict better)."""

    config_version: int
    matches: int
    seeded_players: int
    log_loss_with: float
    log_loss_without: float
    difference: float
    low: float
    high: float

    @property
    def verdict(self) -> str:
        if self.high < 0.0:
            return BETTER
        if self.low > 0.0:
            return WORSE
        return NO_DIFFERENCE


def compare_seeds(league: League, config: RatingConfig | None = None) -> SeedComparison | None:
    """Score ``league``'s matches with and without its seeds under ``config`` (the live
    configuration, else the newest); None when the league has no seed, no configuration
    or no match to score."""
    config = config or live_config(league) or rating_services.latest_config(league)
    if config is None:
        return None
    through_seq = max_seq(league.pk)
    seeds = seeds_of(league.pk, through_seq)
    if not seeds:
        return None
    loaded = load(league, config, through_seq)
    if len(loaded.matches) == 0:
        return None
    params = engine_params(config)
    seeded = with_seeds(None, seeds, league_player_ids(league), params)
    with_scores = _score(loaded, params, seeded)
    without_scores = _score(loaded, params, None)
    results = loaded.matches.score_a
    with_sums = walk_forward.period_sums(loaded.unit, with_scores.predictions, results)
    without_sums = walk_forward.period_sums(loaded.unit, without_scores.predictions, results)
    boot = PeriodBootstrap(
        np.repeat(np.arange(len(with_sums["units"])), with_sums["matches"]),
        draws=BOOTSTRAP_DRAWS,
        seed=BOOTSTRAP_SEED,
    )
    compared = compare_sums(boot, with_sums["log_loss"], without_sums["log_loss"])
    return SeedComparison(
        config_version=config.version,
        matches=len(loaded.matches),
        seeded_players=len(seeds),
        log_loss_with=with_scores.glicko2.log_loss,
        log_loss_without=without_scores.glicko2.log_loss,
        difference=compared.difference.estimate,
        low=compared.difference.low,
        high=compared.difference.high,
    )


def _score(loaded: LoadedMatches, params: Glicko2Params, start: RatingState | None) -> Scores:
    """The replay's fold of the loaded matches from ``start``, every match predicted."""
    if loaded.moment is not None:
        return score_instant(
            loaded.matches,
            loaded.moment,
            loaded.n_players,
            params,
            loaded.first_period,
            loaded.last_period,
            start,
        )
    return score_fold(
        loaded.matches,
        loaded.n_players,
        params,
        loaded.first_period,
        loaded.last_period,
        start,
    )
