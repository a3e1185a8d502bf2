"""The engine's named errors."""

from __future__ import annotations


class InvalidParameterError(ValueError):
    """A rating parameter, or an input to the engine, that the algorithm cannot accept."""


class ConvergenceError(ArithmeticError):
    """The volatility iteration (step 5) did not converge within ``max_iterations``."""


class MatchBeforeAnchorError(ValueError):
    """A match was played before the anchor date of the league's first rating period."""
