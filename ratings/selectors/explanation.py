"""Why a rating moved: one player's rating period taken apart, game by game.

The period's numbers are read from the projection (the player's and each opponent's
``rating_before``/``rd_before``, the player's volatility after the period) and the Glicko-2
steps are redone with the engine's own ``g`` and ``E``:

* each game's effect is ``173.7178 · φ'² · g(φ_j) · (s_j - E_j)``, where ``φ'`` is the
  player's new RD on the Glicko-2 scale (step 7: ``μ' = μ + φ'² Σ g(φ_j)(s_j - E_j)``);
* so the effects add up to the period's change exactly (up to float rounding), unless the
  league's rating floor lifted the result, which the page then says.

With the configuration's home ``advantage`` or ``margin_scale`` on (engine/ADVANTAGE.md),
each game's expected score and actual score are the engine's own: the per-game advantage from
``game_advantage`` (none on neutral ground) shifts the first-named player's side of ``E``
exactly as ``rate_period`` does, and ``outcome_scores`` maps the stored margin to the score.

No number here is stored twice: a replay's projection is the only source, so the page
always explains the change the player page shows.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass
from decimal import Decimal

import numpy as np
from django.db.models import Q

from engine import outcome_scores
from engine.advantage import game_advantage
from engine.glicko2 import expectation, g
from engine.params import CENTRE, SCALE
from league.calendar import league_zone, local_day, local_midnight
from league.models import Event, League, Player
from league.scores import outcome_word, points_for
from ratings.models import PlayerPeriod, RatingConfig
from ratings.selectors.common import PeriodInfo, period_info


@dataclass(frozen=True)
class GameTerm:
    """One game of the period, seen from the player, with its share of the change."""

    played_on: dt.date
    opponent: str
    opponent_slug: str
    opponent_rating: float
    opponent_rd: float
    score: float
    outcome: str
    points: str
    #: g(φ_j): how much the opponent's uncertainty damps this game (1 = not at all).
    weight: float
    #: E_j: the score the update expected from this game (a draw counts half).
    expected: float
    #: The game's effect on the rating, in rating points.
    effect: float
    #: The home advantage in this game, in rating points (0: none, neutral or switched off).
    advantage: float = 0.0
    #: Who had it: the first-named player's name ("" when there was none).
    home: str = ""
    #: True when the margin mapping made ``score`` differ from the plain result.
    margin_shaped: bool = False

    @property
    def surprise(self) -> float:
        """Actual minus expected score."""
        return self.score - self.expected


@dataclass(frozen=True)
class PeriodExplanation:
    """A player's rating period, from the state before it to the state after it."""

    period: PeriodInfo
    rating_before: float
    #: RD after the player's previous period (None: first period, the initial RD).
    rd_last: float | None
    previous_period: PeriodInfo | None
    idle_periods: int
    #: RD entering the period: ``rd_last`` grown over the idle periods (or the initial RD).
    rd_before: float
    volatility_before: float
    volatility_after: float
    #: RD after the volatility step, before the games narrow it (step 6).
    rd_widened: float
    rd_after: float
    rating_after: float
    games: list[GameTerm]
    floor: float | None
    next_period: int | None
    #: The configuration rates each game when it is played (``update_mode`` "instant"): the
    #: games above are taken apart with the period's formula, which it does not use.
    instant: bool = False

    @property
    def change(self) -> float:
        return self.rating_after - self.rating_before

    @property
    def effects_total(self) -> float:
        return math.fsum(game.effect for game in self.games)

    @property
    def floor_applied(self) -> bool:
        """True when the rating floor lifted the result above what the games gave (never said
        of instant updates, whose effects here do not add up to the change anyway)."""
        return (
            not self.instant
            and self.floor is not None
            and abs(self.effects_total - self.change) > 1e-6
        )

    @property
    def expected_total(self) -> float:
        return math.fsum(game.expected for game in self.games)

    @property
    def actual_total(self) -> float:
        return math.fsum(game.score for game in self.games)

    @property
    def step(self) -> float:
        """Rating points per point of surprise against a perfectly known opponent (173.7 φ'²)."""
        phi = self.rd_after / SCALE
        return SCALE * phi * phi


def explain_period(
    league: League, config: RatingConfig, player: Player, period: int
) -> PeriodExplanation | None:
    """The explanation of ``player``'s rating change in ``period``; None if they did not play."""
    rows = list(
        PlayerPeriod.objects.filter(config=config, player=player, period_index__lte=period)
        .order_by("-period_index")
        .values_list("period_index", "rating", "rd", "volatility", "rating_before", "rd_before")[:2]
    )
    if not rows or rows[0][0] != period:
        return None
    _, rating_after, rd_after, volatility_after, rating_before, rd_before = rows[0]
    if len(rows) > 1:
        previous_index, _, rd_last, volatility_before, _, _ = rows[1]
        previous: PeriodInfo | None = period_info(config, previous_index)
        idle = period - previous_index - 1
    else:
        previous, rd_last, idle = None, None, 0
        volatility_before = config.initial_volatility
    next_period = (
        PlayerPeriod.objects.filter(config=config, player=player, period_index__gt=period)
        .order_by("period_index")
        .values_list("period_index", flat=True)
        .first()
    )
    info = period_info(config, period)
    phi, sigma = rd_before / SCALE, volatility_after
    games = _games(league, config, player, info, rating_before, rd_before, volatility_after)
    return PeriodExplanation(
        period=info,
        rating_before=rating_before,
        rd_last=rd_last,
        previous_period=previous,
        idle_periods=idle,
        rd_before=rd_before,
        volatility_before=volatility_before,
        volatility_after=volatility_after,
        rd_widened=SCALE * math.sqrt(phi * phi + sigma * sigma),
        rd_after=rd_after,
        rating_after=rating_after,
        games=games,
        floor=config.rating_floor,
        next_period=next_period,
        instant=config.update_mode == RatingConfig.UpdateMode.INSTANT,
    )


def _games(
    league: League,
    config: RatingConfig,
    player: Player,
    info: PeriodInfo,
    rating_before: float,
    rd_before: float,
    volatility_after: float,
) -> list[GameTerm]:
    """The period's counted games of ``player`` with each one's terms of the update.

    The new φ' is recomputed from the games (steps 3, 6 and 7) rather than read back from
    the stored RD, which the RD ceiling may have capped.
    """
    tz = league_zone(league)
    matches = list(
        Event.objects.live_matches()
        .filter(
            Q(player_a=player) | Q(player_b=player),
            league=league,
            played_at__gte=local_midnight(info.start, tz),
            played_at__lt=local_midnight(info.end + dt.timedelta(days=1), tz),
        )
        .order_by("played_at", "seq")
        .values_list(
            "played_at",
            "player_a_id",
            "player_b_id",
            "player_a__display_name",
            "player_a__slug",
            "player_b__display_name",
            "player_b__slug",
            "score_a",
            "points",
            "neutral",
            "margin",
        )
    )
    opponents = {b if a == player.pk else a for _, a, b, *_ in matches}
    before = {
        pid: (rating, rd)
        for pid, rating, rd in PlayerPeriod.objects.filter(
            config=config, period_index=info.index, player_id__in=opponents
        ).values_list("player_id", "rating_before", "rd_before")
    }
    if not matches:
        return []
    mu = (rating_before - CENTRE) / SCALE
    as_a = np.array([a == player.pk for _, a, *_ in matches])
    opponent_rating = np.array([before[b if a == player.pk else a][0] for _, a, b, *_ in matches])
    opponent_rd = np.array([before[b if a == player.pk else a][1] for _, a, b, *_ in matches])
    weights = g(opponent_rd / SCALE)
    # As rate_period: the first-named player's μ minus the second's, plus the advantage h'
    # (skipped when it is 0, as the engine skips it), seen from the player's side.
    mu_opponent = (opponent_rating - CENTRE) / SCALE
    mu_diff = np.where(as_a, mu - mu_opponent, mu_opponent - mu)
    advantage = np.zeros(len(matches))
    if config.advantage != 0.0:
        neutral = np.array([row[9] for row in matches], dtype=bool)
        advantage = game_advantage(len(matches), neutral, config.advantage)
        mu_diff = mu_diff + advantage / SCALE
    sign = np.where(as_a, 1.0, -1.0)
    expected, spread = expectation(sign * weights * mu_diff)
    plain = np.array([float(row[7]) for row in matches])
    first_scores = plain
    if config.margin_scale is not None:
        margins = np.array(
            [np.nan if row[10] is None else float(row[10]) for row in matches], dtype=np.float64
        )
        first_scores = outcome_scores(plain, margins, config.margin_scale)
    scores = np.where(as_a, first_scores, 1.0 - first_scores)
    plain_scores = np.where(as_a, plain, 1.0 - plain)
    # Step 3: 1 / v; step 6: φ* from the new volatility; step 7: φ'.
    v_inverse = float(np.sum(weights * weights * spread))
    phi = rd_before / SCALE
    phi_star_squared = phi * phi + volatility_after * volatility_after
    phi_new = 1.0 / math.sqrt(1.0 / phi_star_squared + v_inverse)
    terms = []
    for index, row in enumerate(matches):
        played_at, _, _, a_name, a_slug, b_name, b_slug, score_a, points = row[:9]
        first = bool(as_a[index])
        score = score_a if first else Decimal(1) - score_a
        s = float(scores[index])
        terms.append(
            GameTerm(
                played_on=local_day(played_at, tz),
                opponent=b_name if first else a_name,
                opponent_slug=b_slug if first else a_slug,
                opponent_rating=float(opponent_rating[index]),
                opponent_rd=float(opponent_rd[index]),
                score=s,
                outcome=outcome_word(score),
                points=points_for(points, first),
                weight=float(weights[index]),
                expected=float(expected[index]),
                effect=SCALE * phi_new * phi_new * float(weights[index]) * (s - expected[index]),
                advantage=float(advantage[index]),
                home=a_name if advantage[index] != 0.0 else "",
                margin_shaped=s != float(plain_scores[index]),
            )
        )
    return terms
