"""The read side of a league's competitions (events): their standings by points and their
rounds, as numbers; the pages and the API format them.

Everything here is read from ``league.competitions.competition_state``, the one structure
tie-breaks, crosstables, TRF export and pairing engines share.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from league.competition_pairing import ranking
from league.competitions import (
    BYES,
    CompetitionState,
    EntrantState,
    Outcome,
    RoundEntry,
)
from league.models import Competition, League


@dataclass(frozen=True, slots=True)
class StandingLine:
    """One entrant's line of the event's table: position by points (``tied``: shared)."""

    position: int
    tied: bool
    entrant: EntrantState
    points: Decimal
    games: int
    wins: int
    draws: int
    losses: int
    forfeits_won: int
    forfeits_lost: int
    byes: int
    withdrawn: bool


def _count(entrant: EntrantState, *outcomes: Outcome) -> int:
    return sum(1 for entry in entrant.rounds if entry.outcome in outcomes)


def event_standings(state: CompetitionState) -> list[StandingLine]:
    """The entrants by points (most first); level on points, by seed (rating at entry, then
    pairing number). Tie-break columns come from the event's tie-break order elsewhere."""
    order = {player: index for index, player in enumerate(ranking(state))}
    entrants = sorted(state.entrants, key=lambda e: (-e.points, order[e.player_id]))
    lines: list[StandingLine] = []
    for index, entrant in enumerate(entrants):
        points = entrant.points
        same_as_before = index > 0 and entrants[index - 1].points == points
        same_as_next = index + 1 < len(entrants) and entrants[index + 1].points == points
        position = lines[-1].position if same_as_before else index + 1
        lines.append(
            StandingLine(
                position=position,
                tied=same_as_before or same_as_next,
                entrant=entrant,
                points=points,
                games=entrant.games,
                wins=_count(entrant, Outcome.WIN),
                draws=_count(entrant, Outcome.DRAW),
                losses=_count(entrant, Outcome.LOSS),
                forfeits_won=_count(entrant, Outcome.FORFEIT_WIN),
                forfeits_lost=_count(entrant, Outcome.FORFEIT_LOSS),
                byes=_count(entrant, *BYES),
                withdrawn=entrant.withdrawn_from_round is not None,
            )
        )
    return lines


@dataclass(frozen=True, slots=True)
class Game:
    """A game of a round: its board, its two entrants and the first-named one's round."""

    board: int | None
    first: EntrantState
    second: EntrantState
    entry: RoundEntry


@dataclass(frozen=True, slots=True)
class RoundView:
    """A paired round: its games by board, its byes, who sits it out without one."""

    number: int
    games: list[Game]
    byes: list[tuple[EntrantState, RoundEntry]]
    complete: bool


def event_rounds(state: CompetitionState) -> list[RoundView]:
    """Every paired round, first to last."""
    by_player = {entrant.player_id: entrant for entrant in state.entrants}
    rounds = []
    for number in range(1, state.rounds_paired + 1):
        games, byes = [], []
        for entrant in state.entrants:
            entry = entrant.rounds[number - 1]
            if entry.side == "first" and entry.opponent_id is not None:
                games.append(Game(entry.board, entrant, by_player[entry.opponent_id], entry))
            elif entry.outcome in BYES:
                byes.append((entrant, entry))
        games.sort(key=lambda game: (game.board or 0, game.first.number))
        complete = all(game.entry.outcome != Outcome.PENDING for game in games)
        rounds.append(RoundView(number, games, byes, complete))
    return rounds


def league_competitions(league: League) -> list[Competition]:
    """The league's events, newest first."""
    return list(Competition.objects.filter(league=league).order_by("-created_at", "-pk"))
