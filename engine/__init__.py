"""The pure Glicko-2 engine: parameters, rating periods, one-period update, fold, prediction,
the first-named side's advantage and margins (ADVANTAGE.md), the Glicko and Elo yardsticks,
matches with sides (teams, multi-side games) rated individually (see TEAMS.md), and instant
updates with fractional rating periods (``engine.instant``, docs/intervals.md).

No Django here: plain dataclasses and NumPy arrays in, plain dataclasses and arrays out.
"""

from engine.advantage import margin_score, outcome_scores
from engine.errors import ConvergenceError, InvalidParameterError, MatchBeforeAnchorError
from engine.fold import FoldResult, History, MatchArrays, fold, state_before
from engine.glicko2 import PeriodGames, PeriodOutcome, apply, rate_period, rate_player
from engine.instant import InstantFold, fold_instant, fold_sides_instant
from engine.params import Glicko2Params
from engine.periods import PeriodSpec
from engine.prediction import brier, log_loss, win_probability
from engine.side_fold import fold_sides
from engine.sides import SideMatches, places_from_score
from engine.state import RatingState, grown_rd
from engine.teams import DEFAULT_METHOD, METHODS, TeamMethod, rate_sides_period
from engine.yardsticks import GlickoParams, glicko_fold, score_yardsticks

__all__ = [
    "DEFAULT_METHOD",
    "METHODS",
    "ConvergenceError",
    "FoldResult",
    "Glicko2Params",
    "GlickoParams",
    "History",
    "InstantFold",
    "InvalidParameterError",
    "MatchArrays",
    "MatchBeforeAnchorError",
    "PeriodGames",
    "PeriodOutcome",
    "PeriodSpec",
    "RatingState",
    "SideMatches",
    "TeamMethod",
    "apply",
    "brier",
    "fold",
    "fold_instant",
    "fold_sides",
    "fold_sides_instant",
    "glicko_fold",
    "grown_rd",
    "log_loss",
    "margin_score",
    "outcome_scores",
    "places_from_score",
    "rate_period",
    "rate_player",
    "rate_sides_period",
    "score_yardsticks",
    "state_before",
    "win_probability",
]
