"""The pure Glicko-2 engine: parameters, rating periods, one-period update, fold, prediction.

No Django here: plain dataclasses and NumPy arrays in, plain dataclasses and arrays out.
"""

from ratings.engine.errors import ConvergenceError, InvalidParameterError, MatchBeforeAnchorError
from ratings.engine.fold import FoldResult, History, MatchArrays, fold, state_before
from ratings.engine.glicko2 import PeriodGames, PeriodOutcome, apply, rate_period, rate_player
from ratings.engine.params import Glicko2Params
from ratings.engine.periods import PeriodSpec
from ratings.engine.prediction import brier, log_loss, win_probability
from ratings.engine.state import RatingState, grown_rd

__all__ = [
    "ConvergenceError",
    "FoldResult",
    "Glicko2Params",
    "History",
    "InvalidParameterError",
    "MatchArrays",
    "MatchBeforeAnchorError",
    "PeriodGames",
    "PeriodOutcome",
    "PeriodSpec",
    "RatingState",
    "apply",
    "brier",
    "fold",
    "grown_rd",
    "log_loss",
    "rate_period",
    "rate_player",
    "state_before",
    "win_probability",
]
