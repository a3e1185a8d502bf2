"""Every accepted configuration rates the demo league's history safely (issue 27).

"Accepted" is what ``ratings.parameters.clean_config_params`` accepts: every configuration
drawn here passes it (the test asserts so), with each number anywhere in its range, the ends
of the ranges drawn often. The history is the demo league's, exactly as ``manage.py
load_demo`` imports it: every played match of ``league/demo/international_football.csv.gz``
from 1990-01-01 on (``load_demo.demo_rows``: about 32,000 matches, the file's neutral flags,
the goal margins), in calendar-month periods anchored on 1990-01-01 as the demo's
configuration has them. The full history is folded, not a sample of it, with the engine's
fold directly (the replay's own fold, without the database): ``engine.fold.fold`` for
"period" updates, ``engine.instant.fold_instant`` (each match at the end of its day) for
"instant" ones.

What is drawn: every rating parameter over its whole accepted range (τ, initial rating, RD
and volatility, RD ceiling, volatility ceiling, rating floor or none, advantage, margin scale
or none, update mode). The period is held to calendar months, 1 to 12 of them, as the demo
league rates by months. Shorter periods are *not* covered: with weekly or daily periods a
high volatility grows an idle player's RD to the ceiling within weeks, and some games' RD
updates then do reach the ceiling (measured in ``docs/parameters.md``).

The properties, for every history row (one per player and period played) and the final
state: rating, RD and volatility are finite; RD is above 0; volatility is above 0 and at most
the volatility ceiling; the rating is within 4000 points of the initial rating (23 times the
Glicko-2 scale: far beyond any football team's, and far short of the ±10^45 of τ = 8 without
a ceiling).

"Hit the RD cap" means: a history row, that is a period the player played, whose RD after
that period equals the RD ceiling (``max_rd``). The RD a player *enters* a period with may be
the ceiling (``rd_before``): an idle player's RD grows toward it between periods, by design,
and the final state of a player idle for years may sit at it too. Neither is checked.

Marked ``property``; its own ``max_examples`` keeps it to about a dozen folds of the whole
history (a few seconds each), and ``bin/test`` runs it once more with a random seed.
"""

from __future__ import annotations

import datetime as dt
import functools
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from django.core.exceptions import ValidationError
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.fold import FoldResult, MatchArrays, fold
from engine.instant import fold_instant
from engine.params import Glicko2Params
from engine.periods import PeriodSpec
from league.scores import points_margin, points_score
from ratings.management.commands.load_demo import DEFAULT_SINCE, FIXTURE, demo_rows
from ratings.parameters import BY_NAME, clean_config_params

pytestmark = pytest.mark.property

#: How far from the initial rating a rating may be and still be called sensible.
SENSIBLE_SPREAD = 4000.0


@dataclass(frozen=True)
class DemoHistory:
    """The demo league's matches as the engine takes them (periods computed per setting)."""

    days: np.ndarray
    player_a: np.ndarray
    player_b: np.ndarray
    score_a: np.ndarray
    neutral: np.ndarray
    margin: np.ndarray
    n_players: int

    def matches(self, spec: PeriodSpec) -> MatchArrays:
        return MatchArrays(
            period=spec.indices_of(self.days),
            player_a=self.player_a,
            player_b=self.player_b,
            score_a=self.score_a,
            neutral=self.neutral,
            margin=self.margin,
        )


@functools.cache
def demo_history() -> DemoHistory:
    """Every match ``load_demo`` imports, with its score, neutral flag and goal margin."""
    teams: dict[str, int] = {}
    days, a, b, score, neutral, margin = [], [], [], [], [], []
    for row in demo_rows(FIXTURE, DEFAULT_SINCE, dt.date.today()):
        _key, day, home, away, goals_home, goals_away, _note, on_neutral = row
        days.append(day)
        a.append(teams.setdefault(home, len(teams)))
        b.append(teams.setdefault(away, len(teams)))
        score.append(float(points_score(int(goals_home), int(goals_away))))
        neutral.append(on_neutral == "true")
        found = points_margin(f"{goals_home}-{goals_away}")
        margin.append(np.nan if found is None else float(found))
    return DemoHistory(
        days=np.array(days, dtype="datetime64[D]"),
        player_a=np.array(a, dtype=np.int64),
        player_b=np.array(b, dtype=np.int64),
        score_a=np.array(score, dtype=np.float64),
        neutral=np.array(neutral, dtype=bool),
        margin=np.array(margin, dtype=np.float64),
        n_players=len(teams),
    )


def _range(name: str, low: float | None = None, high: float | None = None) -> Any:
    """Numbers of the parameter's accepted range (narrowed to [low, high]), its ends often."""
    parameter = BY_NAME[name]
    assert parameter.minimum is not None
    assert parameter.maximum is not None
    lo = parameter.minimum.value if low is None else max(low, parameter.minimum.value)
    hi = parameter.maximum.value if high is None else min(high, parameter.maximum.value)
    return st.one_of(st.sampled_from([lo, hi]), st.floats(lo, hi))


@st.composite
def accepted_configurations(draw: st.DrawFn) -> dict[str, Any]:
    """A configuration the table accepts, with the demo's calendar-month periods."""
    max_rd = draw(_range("max_rd"))
    initial_volatility = draw(_range("initial_volatility"))
    initial_rating = draw(_range("initial_rating"))
    floor = draw(st.one_of(st.none(), _range("rating_floor", high=initial_rating)))
    scale = draw(st.one_of(st.none(), _range("margin_scale")))
    return {
        "tau": draw(_range("tau")),
        "initial_rating": initial_rating,
        "initial_rd": draw(_range("initial_rd", high=max_rd)),
        "initial_volatility": initial_volatility,
        "period_unit": "months",
        "period_length": draw(st.one_of(st.just(1), st.integers(1, 12))),
        "period_anchor": DEFAULT_SINCE,
        "max_rd": max_rd,
        "volatility_ceiling": draw(_range("volatility_ceiling", low=initial_volatility)),
        "rating_floor": floor,
        "advantage": draw(_range("advantage")),
        "margin_scale": scale,
        "update_mode": draw(st.sampled_from(["period", "instant"])),
    }


def rate_demo(config: dict[str, Any]) -> tuple[FoldResult, Glicko2Params]:
    """The demo history folded with ``config`` as the replay would (without the database)."""
    history = demo_history()
    params = Glicko2Params(
        **{
            name: config[name]
            for name in (
                "tau",
                "initial_rating",
                "initial_rd",
                "initial_volatility",
                "max_rd",
                "volatility_ceiling",
                "rating_floor",
                "advantage",
                "margin_scale",
            )
        }
    )
    spec = PeriodSpec(
        unit=config["period_unit"], length=config["period_length"], anchor=config["period_anchor"]
    )
    matches = history.matches(spec)
    last = int(matches.period.max())
    if config["update_mode"] == "instant":
        moments = spec.end_of_day_fractions(history.days)
        result = fold_instant(matches, moments, history.n_players, params, 0, last).fold
    else:
        result = fold(matches, history.n_players, params, 0, last)
    return result, params


def check_safe(result: FoldResult, params: Glicko2Params) -> None:
    rows = result.history
    state = result.final_state
    rated = state.last_period >= 0
    assert np.unique(rows.player).size == demo_history().n_players  # every team was rated
    for name, values in (
        ("rating", rows.rating),
        ("rd", rows.rd),
        ("volatility", rows.volatility),
        ("final rating", state.rating[rated]),
        ("final rd", state.rd[rated]),
        ("final volatility", state.volatility[rated]),
    ):
        assert np.isfinite(values).all(), name
    assert params.volatility_ceiling is not None
    assert (rows.volatility > 0).all()
    assert (rows.volatility <= params.volatility_ceiling).all()
    assert (rows.rd > 0).all()
    at_cap = rows.rd >= params.max_rd
    assert not at_cap.any(), (
        f"{int(at_cap.sum())} played rows at the RD ceiling {params.max_rd}, "
        f"e.g. player {int(rows.player[at_cap][0])} in period {int(rows.period[at_cap][0])}"
    )
    spread = np.abs(rows.rating - params.initial_rating).max()
    assert spread <= SENSIBLE_SPREAD


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(accepted_configurations())
def test_every_accepted_configuration_rates_the_demo_safely(config: dict[str, Any]) -> None:
    cleaned = clean_config_params(
        config, start_date=DEFAULT_SINCE, first_match_day=dt.date(1990, 1, 1)
    )
    assert cleaned == config
    check_safe(*rate_demo(config))


def test_the_worst_corner_measured_is_safe_and_the_old_bounds_were_not() -> None:
    """The corner the bounds were set by, and what the old bounds let through.

    Fails before the bounds: τ = 8 with no volatility ceiling, and an RD ceiling of 200,
    were both accepted and break the properties on the demo.
    """
    worst = {
        "tau": 2.0,
        "initial_rating": 1500.0,
        "initial_rd": 300.0,
        "initial_volatility": 0.15,
        "period_unit": "months",
        "period_length": 1,
        "period_anchor": DEFAULT_SINCE,
        "max_rd": 350.0,
        "volatility_ceiling": 0.15,
        "rating_floor": None,
        "advantage": -200.0,
        "margin_scale": None,
        "update_mode": "period",
    }
    check_safe(*rate_demo(worst))
    for unsafe in (
        {"tau": 8.0, "volatility_ceiling": None},
        {"max_rd": 200.0, "initial_rd": 200.0},
    ):
        with pytest.raises(AssertionError):
            check_safe(*rate_demo({**worst, **unsafe}))
        refusal = r"τ must be at most 2|RD ceiling must be at least"
        with pytest.raises(ValidationError, match=refusal):
            clean_config_params({**worst, **unsafe}, start_date=DEFAULT_SINCE, first_match_day=None)
