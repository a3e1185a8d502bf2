"""The organiser tasks the hub lists, in the order an organiser meets them.

To add a task, add a :class:`Section` here (its URL name must take ``league_slug`` only).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Section:
    """One organiser task: its title, the URL name of its page and one line saying what it is."""

    key: str
    title: str
    url_name: str
    blurb: str


SECTIONS: tuple[Section, ...] = (
    Section(
        "configuration",
        "Rating configuration",
        "pages:config",
        "τ, initial rating, RD and volatility, the rating-period length; every change is a "
        "new version, replayed in the background.",
    ),
    Section(
        "backtest",
        "Backtest",
        "pages:backtest",
        "How well each configuration would have predicted the league's own results.",
    ),
    Section(
        "fixtures",
        "Fixtures and results",
        "workspace:fixtures",
        "Schedule fixtures, enter results against them by score, move or cancel them; "
        "fixtures not played by their deadline are listed.",
    ),
    Section(
        "pairings",
        "Pairings",
        "workspace:pairings",
        "Generate a Swiss round, a round robin or ladder challenges from the ratings, see each "
        "pairing's prediction, adjust it and publish it as fixtures.",
    ),
)
