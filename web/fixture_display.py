"""Fixtures as display text: dates, states and each side's chances, written once in Python.

A chance names whose it is ("Ann 62 %", "draw 21 %", "Bob 17 %"), so it cannot be read as
the other side's; probabilities follow the engine's display rule (never "0 %" or "100 %").
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.utils import formats
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from engine.outcomes import OutcomeProbabilities
from league.sides import side_label
from ratings.selectors.fixtures import FixtureRow
from web import locale_format
from web.formatting import format_probability


def chances(forecast: OutcomeProbabilities | None, first: str, second: str) -> list[dict[str, str]]:
    """Each outcome's label and probability, first-named side first (empty without a forecast).

    The draw is listed only where the league has draws (its fitted draw parameter above 0).
    """
    if forecast is None:
        return []
    wins = _("%(name)s wins")
    parts = [{"who": wins % {"name": first}, "short": first, "p": format_probability(forecast.win)}]
    if forecast.draw > 0:
        draw = pgettext("result", "Draw")
        parts.append({"who": draw, "short": "draw", "p": format_probability(forecast.draw)})
    parts.append(
        {"who": wins % {"name": second}, "short": second, "p": format_probability(forecast.loss)}
    )
    return parts


def chances_text(forecast: OutcomeProbabilities | None, first: str, second: str) -> str:
    """One line: "Ann wins 62 % · draw 21 % · Bob wins 17 %" ("" without a forecast)."""
    draw = pgettext("chance", "draw")
    return " · ".join(
        f"{part['who'] if part['short'] != 'draw' else draw} {part['p']}"
        for part in chances(forecast, first, second)
    )


def weekday_and_day(moment: dt.datetime) -> str:
    """A fixture's day with its weekday, in the active language: "Mon 2 Jan 2024"."""
    return f"{formats.date_format(moment, 'D')} {locale_format.day(moment.date())}"


def side_names(side: Any) -> str:
    """One side's players as one name: "Ann & Bob"."""
    return " & ".join(player.name for player in side)


def side_cells(row: FixtureRow) -> list[dict[str, Any]]:
    """Each side of a fixture with sides: its letter, players (name, slug) and, once a game
    of three or more sides is played, its finishing position (empty for one against one)."""
    positions = row.positions or (None,) * len(row.sides)
    return [
        {
            "letter": side_label(index),
            "players": [{"name": p.name, "slug": p.slug} for p in side],
            "names": side_names(side),
            "position": position,
        }
        for index, (side, position) in enumerate(zip(row.sides, positions, strict=True))
    ]


def fixture_cells(row: FixtureRow) -> dict[str, Any]:
    """The fixture as the tables show it. A fixture with sides also lists ``sides``; its
    ``player_a`` and ``player_b`` are then sides A's and B's names ("Ann & Bob")."""
    if row.sides:
        sides = side_cells(row)
        first, second = sides[0]["names"], sides[1]["names"]
        versus = f" {pgettext('versus', 'v')} "
        title = versus.join(side["names"] for side in sides)
    else:
        sides, first, second = [], row.player_a, row.player_b
        title = f"{first} {pgettext('versus', 'v')} {second}"
    return {
        "id": row.id,
        "when_iso": row.scheduled_at.isoformat(),
        "day": weekday_and_day(row.scheduled_at),
        # With the zone's abbreviation: a player elsewhere must not misread the hour.
        "time": f"{row.scheduled_at:%H:%M} {row.scheduled_at.tzname()}",
        "deadline": locale_format.day(row.deadline),
        "deadline_iso": row.deadline.isoformat(),
        "player_a": first,
        "player_a_slug": row.player_a_slug,
        "player_b": second,
        "player_b_slug": row.player_b_slug,
        "venue": row.venue,
        "label": row.label,
        "status": row.status,
        "status_label": row.status_label,
        "result": row.result,
        "points": row.points,
        "match_seq": row.match_seq,
        "chances": chances(row.forecast, first, second),
        "chances_text": chances_text(row.forecast, first, second),
        "sides": sides,
        "title": title,
    }
