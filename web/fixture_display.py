"""Fixtures as display text: dates, states and each side's chances, written once in Python.

A chance names whose it is ("Ann 62 %", "draw 21 %", "Bob 17 %"), so it cannot be read as
the other side's; probabilities follow the engine's display rule (never "0 %" or "100 %").
"""

from __future__ import annotations

from typing import Any

from engine.outcomes import OutcomeProbabilities
from league.calendar import day_text
from ratings.selectors.fixtures import FixtureRow
from web.formatting import format_probability


def chances(forecast: OutcomeProbabilities | None, first: str, second: str) -> list[dict[str, str]]:
    """Each outcome's label and probability, first-named side first (empty without a forecast).

    The draw is listed only where the league has draws (its fitted draw parameter above 0).
    """
    if forecast is None:
        return []
    parts = [{"who": f"{first} wins", "short": first, "p": format_probability(forecast.win)}]
    if forecast.draw > 0:
        parts.append({"who": "Draw", "short": "draw", "p": format_probability(forecast.draw)})
    parts.append({"who": f"{second} wins", "short": second, "p": format_probability(forecast.loss)})
    return parts


def chances_text(forecast: OutcomeProbabilities | None, first: str, second: str) -> str:
    """One line: "Ann wins 62 % · draw 21 % · Bob wins 17 %" ("" without a forecast)."""
    return " · ".join(
        f"{part['who'] if part['short'] != 'draw' else 'draw'} {part['p']}"
        for part in chances(forecast, first, second)
    )


def fixture_cells(row: FixtureRow) -> dict[str, Any]:
    """The fixture as the tables show it."""
    return {
        "id": row.id,
        "when_iso": row.scheduled_at.isoformat(),
        "day": f"{row.scheduled_at:%a} {day_text(row.scheduled_at.date())}",
        # With the zone's abbreviation: a player elsewhere must not misread the hour.
        "time": f"{row.scheduled_at:%H:%M} {row.scheduled_at.tzname()}",
        "deadline": day_text(row.deadline),
        "deadline_iso": row.deadline.isoformat(),
        "player_a": row.player_a,
        "player_a_slug": row.player_a_slug,
        "player_b": row.player_b,
        "player_b_slug": row.player_b_slug,
        "venue": row.venue,
        "label": row.label,
        "status": row.status,
        "status_label": row.status_label,
        "result": row.result,
        "points": row.points,
        "match_seq": row.match_seq,
        "chances": chances(row.forecast, row.player_a, row.player_b),
        "chances_text": chances_text(row.forecast, row.player_a, row.player_b),
    }
