"""Individual Glicko-2 ratings from side results: team and multi-side matches in one period.

Every player keeps an individual rating. A match of two or more sides is decomposed into
pairwise side results (x against y scores 1, 0.5 or 0); a method then turns each player's
side results into *virtual games* -- (opponent mu, opponent phi, score, weight) -- and the
unchanged Glicko-2 period update (:func:`~engine.glicko2.update_from_sums`) rates
every player from the pre-period values of everyone. The methods (formulas and sources in
``engine/TEAMS.md``):

``composite``
    Williams (2013): the opposing side as one opponent with the mean mu of its players and
    phi = sqrt(mean phi^2); one game per opposing side.
``per_opponent``
    each opposing player as a virtual one-vs-one game, weighted 1 / (size of their side), so
    one side result counts as one game's worth of evidence.
``team_sum``
    the team-sum model of the study: everyone else in the pair of sides as one opponent,
    mu_opp = sum(opposing mu) - sum(teammates' mu), phi_opp^2 = sum of their phi^2. The
    win probability is then the team-sum probability, and each player's change scales with
    their own share of the uncertainty (phi_i^2 against everyone else's).

With one player per side every method gives exactly the one-vs-one engine's numbers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal, get_args

import numpy as np

from engine.errors import InvalidParameterError
from engine.glicko2 import PeriodOutcome, expectation, g, pre_period, update_from_sums
from engine.params import CENTRE, SCALE, Glicko2Params
from engine.sides import SideMatches, score_of_places, side_pairs
from engine.state import FloatArray, IntArray, RatingState

__all__ = [
    "DEFAULT_METHOD",
    "METHODS",
    "TeamMethod",
    "VirtualGames",
    "rate_sides_period",
    "virtual_games",
]

TeamMethod = Literal["composite", "per_opponent", "team_sum"]
METHODS: Final[tuple[TeamMethod, ...]] = get_args(TeamMethod)
#: Chosen by ``bench/team_simulation.py`` (see ``bench/results/team_simulation.md``).
DEFAULT_METHOD: Final[TeamMethod] = "team_sum"


@dataclass(frozen=True)
class VirtualGames:
    """One block of virtual games: who plays, against what opponent, scoring what, how much.

    ``opponent_mu``/``opponent_phi`` are on the Glicko-2 scale; ``weight`` multiplies the
    game's terms in v and Delta (1 for a full game).
    """

    player: IntArray
    opponent_mu: FloatArray
    opponent_phi: FloatArray
    score: FloatArray
    weight: FloatArray


@dataclass(frozen=True)
class _Sides:
    """The sides of one period's rows (sorted by match, side, player), with per-side sums."""

    start: IntArray  # first row of each side
    size: IntArray
    mu_sum: FloatArray
    phi2_sum: FloatArray
    place: IntArray
    match: IntArray


def _sides(matches: SideMatches, mu_row: FloatArray, phi_row: FloatArray) -> _Sides:
    rows = matches.n_rows
    new_side = np.ones(rows, dtype=bool)
    new_side[1:] = (matches.match[1:] != matches.match[:-1]) | (
        matches.side[1:] != matches.side[:-1]
    )
    start = np.flatnonzero(new_side).astype(np.int64)
    side_of_row = np.cumsum(new_side) - 1
    count = start.size
    return _Sides(
        start=start,
        size=np.diff(np.append(start, rows)).astype(np.int64),
        mu_sum=np.bincount(side_of_row, weights=mu_row, minlength=count),
        phi2_sum=np.bincount(side_of_row, weights=phi_row * phi_row, minlength=count),
        place=matches.place[start],
        match=matches.match[start],
    )


def _members(sides: _Sides, me: IntArray) -> tuple[IntArray, IntArray]:
    """Expand side pairs to rows: (row of each member of side ``me[k]``, k)."""
    size = sides.size[me]
    pair = np.repeat(np.arange(me.size, dtype=np.int64), size)
    within = np.arange(pair.size, dtype=np.int64) - np.repeat(np.cumsum(size) - size, size)
    return sides.start[me][pair] + within, pair


def virtual_games(
    matches: SideMatches,
    mu_all: FloatArray,
    phi_all: FloatArray,
    method: TeamMethod,
    advantage: float = 0.0,
) -> tuple[list[VirtualGames], IntArray, FloatArray]:
    """The virtual games of ``matches`` under ``method``, from everyone's mu and phi.

    Returns two blocks (members of the first side of each pair, then of the second, in match
    order -- for one-vs-one exactly the engine's two passes), and, one entry per (player,
    side pair), the player and their side's score, for counting wins, draws and losses.

    ``advantage`` (rating points) belongs to side 0, the home side, in every pair it is part
    of, unless the match is neutral: its players' opponent mu is lowered by
    ``advantage / 173.7178`` and its opponents' opponent mu raised by it (ADVANTAGE.md).
    """
    if method not in METHODS:
        raise InvalidParameterError(f"unknown team method {method!r}; use one of {METHODS}")
    player = matches.player
    mu_row, phi_row = mu_all[player], phi_all[player]
    sides = _sides(matches, mu_row, phi_row)
    x, y = side_pairs(sides.match)
    pair_score = score_of_places(sides.place[x], sides.place[y])
    # Home advantage per side pair: x is side 0 (sides are numbered 0..k-1 in order).
    shift: FloatArray | None = None
    if advantage != 0.0:
        home = matches.side[sides.start[x]] == 0
        if matches.neutral is not None:
            home &= ~matches.neutral[sides.match[x]]
        shift = np.where(home, advantage / SCALE, 0.0)
    blocks: list[VirtualGames] = []
    counted_players: list[IntArray] = []
    counted_scores: list[FloatArray] = []
    for me, them, score, sign in ((x, y, pair_score, -1.0), (y, x, 1.0 - pair_score, 1.0)):
        rows, pair = _members(sides, me)
        my_side, their_side = me[pair], them[pair]
        counted_players.append(player[rows])
        counted_scores.append(score[pair])
        if method == "per_opponent":
            block = _per_opponent(sides, player[rows], their_side, score[pair], mu_row, phi_row)
            if shift is not None:
                opponents_per_game = sides.size[their_side]
                game_shift = np.repeat(sign * shift[pair], opponents_per_game)
                block = VirtualGames(
                    block.player,
                    block.opponent_mu + game_shift,
                    block.opponent_phi,
                    block.score,
                    block.weight,
                )
            blocks.append(block)
            continue
        alone_them = sides.size[their_side] == 1
        # A one-player side stands for its player exactly (no rounding from sum and sqrt).
        their_first = sides.start[their_side]
        if method == "composite":
            opponent_mu = sides.mu_sum[their_side] / sides.size[their_side]
            spread = np.sqrt(sides.phi2_sum[their_side] / sides.size[their_side])
            opponent_phi = np.where(alone_them, phi_row[their_first], spread)
        else:
            alone_me = sides.size[my_side] == 1
            mates_mu = np.where(alone_me, 0.0, sides.mu_sum[my_side] - mu_row[rows])
            mates_phi2 = np.where(
                alone_me, 0.0, np.maximum(sides.phi2_sum[my_side] - phi_row[rows] ** 2, 0.0)
            )
            opponent_mu = sides.mu_sum[their_side] - mates_mu
            spread = np.sqrt(sides.phi2_sum[their_side] + mates_phi2)
            opponent_phi = np.where(alone_them & alone_me, phi_row[their_first], spread)
        if shift is not None:
            opponent_mu = opponent_mu + sign * shift[pair]
        blocks.append(
            VirtualGames(
                player=player[rows],
                opponent_mu=opponent_mu,
                opponent_phi=opponent_phi,
                score=score[pair],
                weight=np.ones(rows.size),
            )
        )
    return blocks, np.concatenate(counted_players), np.concatenate(counted_scores)


def _per_opponent(
    sides: _Sides,
    players: IntArray,
    their_side: IntArray,
    score: FloatArray,
    mu_row: FloatArray,
    phi_row: FloatArray,
) -> VirtualGames:
    """Each (player, opposing side) expanded to one game per opposing player, weight 1/size."""
    opponent_rows, game = _members(sides, their_side)
    return VirtualGames(
        player=players[game],
        opponent_mu=mu_row[opponent_rows],
        opponent_phi=phi_row[opponent_rows],
        score=score[game],
        weight=1.0 / sides.size[their_side][game],
    )


def _sums(
    blocks: list[VirtualGames], mu_all: FloatArray, n: int, bins: IntArray | None = None
) -> tuple[FloatArray, FloatArray]:
    """sum w g^2 E (1 - E) and sum w g (s - E) per player, block by block (as the engine).

    The sums are indexed by player (``n`` of them), or with ``bins`` by ``bins[player]``
    (``n`` bins): a caller rating a few players of many sums them in a few bins, in the
    same order, so to the same bits.
    """
    v_inverse = np.zeros(n)
    improvement = np.zeros(n)
    for block in blocks:
        g_j = g(block.opponent_phi)
        E, v_terms = expectation(g_j * (mu_all[block.player] - block.opponent_mu))
        v_terms *= g_j
        v_terms *= g_j
        v_terms *= block.weight
        where = block.player if bins is None else bins[block.player]
        v_inverse += np.bincount(where, weights=v_terms, minlength=n)
        surprise = block.score - E
        surprise *= g_j
        surprise *= block.weight
        improvement += np.bincount(where, weights=surprise, minlength=n)
    return v_inverse, improvement


def rate_sides_period(
    state: RatingState,
    matches: SideMatches,
    params: Glicko2Params,
    period: int,
    method: TeamMethod,
) -> PeriodOutcome:
    """Rate one period of side matches: every player who played, from pre-period values.

    ``matches`` are the period's matches (their ``period`` entries are not read). ``state``
    is not modified; pass the outcome to :func:`~engine.glicko2.apply`.
    History counts: ``games`` is matches played; wins, draws and losses count side results
    (a match of k sides gives each player k - 1 of them).
    """
    n = state.n_players
    player = matches.player
    if player.size and (player.min() < 0 or player.max() >= n):
        raise InvalidParameterError(f"player indices must be in 0..{n - 1}")
    games_all = np.bincount(player, minlength=n)
    players = np.flatnonzero(games_all).astype(np.int64)
    rating_before, rd_before, sigma = pre_period(state, players, params, period)
    mu_all = np.zeros(n)
    mu_all[players] = (rating_before - CENTRE) / SCALE
    phi_all = np.zeros(n)
    phi_all[players] = rd_before / SCALE

    blocks, counted, scores = virtual_games(matches, mu_all, phi_all, method, params.advantage)
    v_inverse, improvement = _sums(blocks, mu_all, n)
    code = (scores * 2.0).astype(np.int64)
    results = np.bincount(counted * 3 + code, minlength=3 * n).reshape(n, 3)
    return update_from_sums(
        period,
        players,
        (rating_before, rd_before, sigma),
        v_inverse,
        improvement,
        games_all[players].astype(np.int64),
        results[players].astype(np.int64),
        params,
    )
