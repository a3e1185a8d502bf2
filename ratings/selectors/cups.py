"""The read side of a knockout cup: its bracket with each open tie's chances from the current
ratings, and the cup's forecast (who wins it), as numbers; the pages and the API format them.

A game's chances are the fixtures page's (``ratings.selectors.fixtures.forecasts``: the
current ratings and RDs, the league's fitted draw model, the first-named side's advantage).
A drawn game is followed by a replay or a tie-break game of the same tie, so a tie's chance
is ``win / (win + loss)`` of one game. The order of a tie's sides is known once its game is
scheduled; before, both orders are averaged. The forecast plays the open ties out
(``ratings.forecasts.simulate_cup``; a double-elimination cup's through
``ratings.forecasts.simulate_double_elimination``, over its layout).
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

from engine.outcomes import OutcomeProbabilities
from league.cups import Bracket, cup_bracket
from league.models import Competition, Entrant
from pairings import double_elimination as de
from ratings.forecasts import (
    DEFAULT_SEED,
    DEFAULT_SIMULATIONS,
    Forecast,
    simulate_cup,
    simulate_double_elimination,
)
from ratings.selectors.configurations import live_config
from ratings.selectors.fixtures import forecasts


@dataclass(frozen=True, slots=True)
class TieChances:
    """An open tie's chances: the first side's chance of winning the tie and, while a game
    is scheduled, that game's win / draw / loss chances for its first-named player."""

    first_wins: float
    game: OutcomeProbabilities | None


@dataclass(frozen=True, slots=True)
class CupEntrant:
    player_id: int
    name: str
    slug: str
    seed: int
    withdrawn_from_round: int | None


@dataclass(frozen=True, slots=True)
class CupView:
    """A cup's bracket, its entrants by player id, the chances of its open ties (by round
    and tie) and its forecast (None once decided, or before the bracket exists)."""

    bracket: Bracket
    entrants: dict[int, CupEntrant]
    chances: dict[tuple[int, int], TieChances]
    forecast: Forecast | None


def _tie_win(game: OutcomeProbabilities) -> float:
    decisive = game.win + game.loss
    return 0.5 if decisive <= 0 else game.win / decisive


def cup_view(
    competition: Competition,
    *,
    simulations: int = DEFAULT_SIMULATIONS,
    seed: int = DEFAULT_SEED,
) -> CupView | None:
    """The cup's bracket with chances and forecast (None when the field does not fit the
    cup's rounds yet)."""
    bracket = cup_bracket(competition)
    if bracket is None:
        return None
    entrants = {
        entrant.player_id: CupEntrant(
            entrant.player_id,
            entrant.player.display_name,
            entrant.player.slug,
            bracket.seeds.get(entrant.player_id, 0),
            entrant.withdrawn_from_round,
        )
        for entrant in Entrant.objects.filter(competition=competition).select_related("player")
        if entrant.player_id in bracket.seeds
    }
    league = competition.league
    players = sorted(entrants)
    # Every ordered pair of the field: the forecast may bring any two together.
    pairs = [(a, b) for a in players for b in players if a != b]
    games = forecasts(league, live_config(league), pairs)

    def tie_chance(a: int, b: int) -> float:
        return (_tie_win(games[(a, b)]) + 1.0 - _tie_win(games[(b, a)])) / 2

    chances: dict[tuple[int, int], TieChances] = {}
    for ties in bracket.rounds:
        for tie in ties:
            if tie.decided or tie.first is None or tie.second is None:
                continue
            pending = next((g for g in tie.games if g.pending), None)
            if pending is not None:
                game = games[(pending.first_id, pending.second_id)]
                first_wins = _tie_win(game)
                if pending.first_id != tie.first:
                    first_wins = 1.0 - first_wins
                chances[(tie.round_number, tie.board)] = TieChances(first_wins, game)
            else:
                chances[(tie.round_number, tie.board)] = TieChances(
                    tie_chance(tie.first, tie.second), None
                )
    forecast = None
    if not bracket.decided:
        tie_win: dict[tuple[Hashable, Hashable], float] = {
            (a, b): tie_chance(a, b) for a, b in pairs
        }
        # An open tie whose game is scheduled: its sides' order is known.
        for ties in bracket.rounds:
            for tie in ties:
                chance = chances.get((tie.round_number, tie.board))
                if chance is not None and chance.game is not None and not tie.third_place:
                    tie_win[(tie.first, tie.second)] = chance.first_wins
                    tie_win[(tie.second, tie.first)] = 1.0 - chance.first_wins
        forecast = _forecast(bracket, entrants, tie_win, simulations, seed)
    return CupView(bracket, entrants, chances, forecast)


def _forecast(
    bracket: Bracket,
    entrants: dict[int, CupEntrant],
    tie_win: dict[tuple[Hashable, Hashable], float],
    simulations: int,
    seed: int,
) -> Forecast:
    slots = [side for tie in bracket.rounds[0] for side in (tie.first, tie.second)]
    out = frozenset(p for p, e in entrants.items() if e.withdrawn_from_round is not None)
    if bracket.double_elimination:
        # Round 1 of play holds exactly the winners' round 1, in slot order.
        specs = de.layout(bracket.depth, bracket.bracket_reset)
        done: dict[int, tuple[Hashable | None, Hashable | None]] = {
            tie.index: (tie.winner, tie.loser)
            for ties in bracket.rounds
            for tie in ties
            if tie.decided
        }
        return simulate_double_elimination(
            specs, slots, done, tie_win, out=out, simulations=simulations, seed=seed
        )
    decided: dict[tuple[int, int], Hashable | None] = {
        (tie.round_number, tie.position): tie.winner
        for ties in bracket.rounds
        for tie in ties
        if tie.decided and not tie.third_place
    }
    return simulate_cup(slots, decided, tie_win, out=out, simulations=simulations, seed=seed)
