"""A league of three divisions with a season played, for the divisions' tests.

Spring 2024 (March): nine players in three divisions of three, a round robin in each where
X1 beats X2 and X3 and X2 beats X3 (3/1/0: X1 6 points, X2 3, X3 0), and one game across
divisions (B1 beats A3) that counts for neither table. Autumn 2024 (September) follows,
without divisions. Ned is registered but was in no division: a newcomer.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from league import seasons
from league.divisions import DivisionInput, fix_divisions, set_divisions
from league.models import League
from tests.functional.conftest import rate, record_results

NAMES = ("A1", "A2", "A3", "B1", "B2", "B3", "C1", "C2", "C3")


def three_divisions(league: League, make_player: Any, *, fixed: bool = True) -> dict[str, Any]:
    """The league set up as the module says; ``fixed``: spring's divisions are fixed."""
    players = {name: make_player(league, f"Player {name}") for name in NAMES}
    players["Ned"] = make_player(league, "Ned Newcomer")
    spring = seasons.create_season(
        league, name="Spring 2024", start_date="2024-03-01", end_date="2024-03-31"
    )
    autumn = seasons.create_season(
        league, name="Autumn 2024", start_date="2024-09-01", end_date="2024-09-30"
    )
    set_divisions(
        spring,
        [
            DivisionInput(f"Division {n}", tuple(players[f"{x}{i}"].pk for i in (1, 2, 3)))
            for n, x in ((1, "A"), (2, "B"), (3, "C"))
        ],
        promotion=1,
    )
    if fixed:
        fix_divisions(spring)
    day = dt.date(2024, 3, 5)
    results = []
    for x in "ABC":
        one, two, three = (players[f"{x}{i}"] for i in (1, 2, 3))
        results += [(one, two, "1", day), (one, three, "1", day), (two, three, "1", day)]
    results.append((players["B1"], players["A3"], "1", day + dt.timedelta(days=1)))
    record_results(league, results)
    rate(league)
    return {"league": league, "players": players, "spring": spring, "autumn": autumn}
