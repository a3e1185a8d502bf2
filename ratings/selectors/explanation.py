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
from engine.glicko2 import expectation, g
from engine.params import CENTRE, SCALE
from engine.sides import SideMatches
from engine.teams import DEFAULT_METHOD, virtual_games
from league.calendar import league_zone, local_day, local_midnight
from league.models import Event, League, MatchParticipant, Player
from league.scores import outcome_word, points_for
from league.sides import places_of_score
from ratings.models import PlayerPeriod, RatingConfig
from ratings.selectors.common import PeriodInfo, period_info

ONE_DAY = dt.timedelta(days=1)


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
    #: The player's partners on their side ("" in a one-vs-one game).
    partners: str = ""

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


@dataclass(frozen=True)
class _PeriodMatch:
    """A counted match of the period, whatever its sides: each side's player ids, the
    sides' places (0 is best), and what the one-vs-one fold also reads."""

    played_at: dt.datetime
    seq: int
    sides: list[list[int]]
    places: list[int]
    points: str
    neutral: bool = False
    margin: int | None = None


def _period_matches(
    league: League, player: Player, start: dt.datetime, end: dt.datetime
) -> list[_PeriodMatch]:
    """``player``'s counted matches played from ``start`` to before ``end``, one-vs-one
    ones as two sides of one player, in the order the engine reads them."""
    window = {"league": league, "played_at__gte": start, "played_at__lt": end}
    matches = [
        _PeriodMatch(played_at, seq, [[a], [b]], list(places_of_score(score)), points, neutral, m)
        for played_at, seq, a, b, score, points, neutral, m in Event.objects.rated_matches()
        .filter(Q(player_a=player) | Q(player_b=player), **window)
        .values_list(
            "played_at", "seq", "player_a_id", "player_b_id", "score_a", "points", "neutral",
            "margin",
        )
    ]  # fmt: skip
    with_sides = {
        pk: (played_at, seq, points)
        for pk, played_at, seq, points in Event.objects.side_matches()
        .filter(voided_by__isnull=True, participants__player=player, **window)
        .values_list("pk", "played_at", "seq", "points")
        .distinct()
    }
    members: dict[int, dict[int, list[int]]] = {}
    places: dict[int, dict[int, int]] = {}
    for event_id, side, player_id, place in (
        MatchParticipant.objects.filter(event_id__in=list(with_sides))
        .order_by("event", "side", "id")
        .values_list("event_id", "side", "player_id", "place")
    ):
        members.setdefault(event_id, {}).setdefault(side, []).append(player_id)
        places.setdefault(event_id, {})[side] = place
    for pk, (played_at, seq, points) in with_sides.items():
        order = sorted(members[pk])
        sides = [members[pk][x] for x in order]
        matches.append(_PeriodMatch(played_at, seq, sides, [places[pk][x] for x in order], points))
    return sorted(matches, key=lambda match: (match.played_at, match.seq))


def _games(
    league: League,
    config: RatingConfig,
    player: Player,
    info: PeriodInfo,
    rating_before: float,
    rd_before: float,
    volatility_after: float,
) -> list[GameTerm]:
    """The period's counted games of ``player``, whatever their sides, with each one's terms
    of the update.

    Every match is read as sides (a one-vs-one result: two sides of one player) and turned
    into the virtual games the engine rates (``engine.teams.virtual_games``: one game against
    each opposing side, which for one player a side is exactly the one-vs-one game). The
    margin mapping is the one-vs-one fold's: it applies while the league holds no match with
    sides (``ratings.replay.compute.run_fold``). The new φ' is recomputed from the games
    (steps 3, 6 and 7) rather than read back from the stored RD, which the RD ceiling may
    have capped.
    """
    tz = league_zone(league)
    start = local_midnight(info.start, tz)
    matches = _period_matches(league, player, start, local_midnight(info.end + ONE_DAY, tz))
    if not matches:
        return []
    ids = sorted({pid for match in matches for side in match.sides for pid in side})
    before = {
        pid: (rating, rd)
        for pid, rating, rd in PlayerPeriod.objects.filter(
            config=config, period_index=info.index, player_id__in=ids
        ).values_list("player_id", "rating_before", "rd_before")
    }
    before[player.pk] = (rating_before, rd_before)
    names = {
        pid: (name, slug)
        for pid, name, slug in Player.objects.filter(pk__in=ids).values_list(
            "pk", "display_name", "slug"
        )
    }
    local = {pid: index for index, pid in enumerate(ids)}
    mu_all = np.array([(before[pid][0] - CENTRE) / SCALE for pid in ids])
    phi_all = np.array([before[pid][1] / SCALE for pid in ids])
    margins = config.margin_scale is not None and not (
        Event.objects.side_matches().filter(league=league, voided_by__isnull=True).exists()
    )
    games = [
        game
        for match in matches
        for game in _virtual_games(match, player.pk, local, mu_all, phi_all, config, margins)
    ]
    weights = np.array([game.g for game in games])
    expected, spread = expectation(
        weights * (mu_all[local[player.pk]] - np.array([game.opponent_mu for game in games]))
    )
    # Step 3: 1 / v; step 6: φ* from the new volatility; step 7: φ'.
    v_inverse = float(np.sum(np.array([game.w for game in games]) * weights * weights * spread))
    phi = rd_before / SCALE
    phi_star_squared = phi * phi + volatility_after * volatility_after
    phi_new = 1.0 / math.sqrt(1.0 / phi_star_squared + v_inverse)
    terms = []
    for index, game in enumerate(games):
        match, mine, theirs = game.match, game.mine, game.theirs
        opponents = match.sides[theirs]
        first = mine == 0
        plain = Decimal(str(game.plain))
        terms.append(
            GameTerm(
                played_on=local_day(match.played_at, tz),
                opponent=" & ".join(names[pid][0] for pid in opponents),
                opponent_slug=names[opponents[0]][1] if len(opponents) == 1 else "",
                opponent_rating=CENTRE + SCALE * game.opponent_mu_shown,
                opponent_rd=SCALE * game.opponent_phi,
                score=game.score,
                outcome=outcome_word(plain),
                points=points_for(match.points, first) if len(match.sides) == 2 else "",
                weight=game.g,
                expected=float(expected[index]),
                effect=SCALE * phi_new * phi_new * game.w * game.g * (game.score - expected[index]),
                advantage=game.advantage,
                home=" & ".join(names[pid][0] for pid in match.sides[0]) if game.advantage else "",
                margin_shaped=game.score != game.plain,
                partners=" & ".join(names[pid][0] for pid in match.sides[mine] if pid != player.pk),
            )
        )
    return terms


@dataclass(frozen=True)
class _VirtualGame:
    """One virtual game of a match from the player's side: against side ``theirs``."""

    match: _PeriodMatch
    mine: int
    theirs: int
    opponent_mu: float
    opponent_mu_shown: float
    opponent_phi: float
    g: float
    w: float
    plain: float
    score: float
    advantage: float


def _virtual_games(
    match: _PeriodMatch,
    player_id: int,
    local: dict[int, int],
    mu_all: np.ndarray,
    phi_all: np.ndarray,
    config: RatingConfig,
    margins: bool,
) -> list[_VirtualGame]:
    """The player's virtual games in ``match``, as the engine's side fold makes them (one
    per opposing side, in the engine's order: the pairs where the player's side is first,
    then those where it is second)."""
    rows = [
        (x, pid, place)
        for x, (side, place) in enumerate(zip(match.sides, match.places, strict=True))
        for pid in side
    ]
    sides = SideMatches(
        period=np.zeros(1, dtype=np.int64),
        match=np.zeros(len(rows), dtype=np.int64),
        side=np.array([x for x, _pid, _place in rows], dtype=np.int64),
        player=np.array([local[pid] for _x, pid, _place in rows], dtype=np.int64),
        place=np.array([place for _x, _pid, place in rows], dtype=np.int64),
        neutral=np.array([match.neutral]),
    )
    blocks, _players, _scores = virtual_games(
        sides, mu_all, phi_all, DEFAULT_METHOD, config.advantage
    )
    mine = next(x for x, side in enumerate(match.sides) if player_id in side)
    opposing = (list(range(mine + 1, len(match.sides))), list(range(mine)))
    me = local[player_id]
    games = []
    for block, others, sign in zip(blocks, opposing, (-1.0, 1.0), strict=True):
        for row, theirs in zip(np.flatnonzero(block.player == me), others, strict=True):
            home = (mine == 0 or theirs == 0) and not match.neutral
            advantage = config.advantage if home else 0.0
            plain = float(block.score[row])
            score = plain
            if margins and len(match.sides) == 2:
                margin = np.nan if match.margin is None else float(match.margin)
                first = float(
                    outcome_scores(
                        np.array([1.0 - plain if mine else plain]),
                        np.array([margin]),
                        config.margin_scale,
                    )[0]
                )
                score = 1.0 - first if mine else first
            opponent_mu = float(block.opponent_mu[row])
            games.append(
                _VirtualGame(
                    match=match,
                    mine=mine,
                    theirs=theirs,
                    opponent_mu=opponent_mu,
                    opponent_mu_shown=opponent_mu - sign * advantage / SCALE,
                    opponent_phi=float(block.opponent_phi[row]),
                    g=float(g(np.array([block.opponent_phi[row]]))[0]),
                    w=float(block.weight[row]),
                    plain=plain,
                    score=score,
                    advantage=advantage,
                )
            )
    return games
