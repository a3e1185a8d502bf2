"""Pairing the next round of a competition: who is paired, by which engine.

``propose_round`` reads the competition's state (``league.competitions.competition_state``)
and proposes the next round without storing anything: the players who play in it (entered
by then, not withdrawn, without a requested bye) are paired by the league's Swiss engine
(``pairing_engine_for``) or, for a round robin, by its Berger table. The organiser sees the
proposal and publishes it with ``league.competitions.publish_round``, which checks it again.

A pairing engine is a function ``(state, round_number, players) -> EngineRound``; a league
whose sport needs other rules (chess: the FIDE Dutch system) gets its own engine here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal

from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from league.chess.pairing import dutch_round
from league.competitions import (
    PLAYED,
    CompetitionState,
    Outcome,
    competition_state,
)
from league.models import ByeKind, Competition, CompetitionFormat, League, RoundBye
from league.sports import is_chess
from league.validation import Errors
from pairings import SwissPlayer, round_robin, swiss_round
from pairings.swiss import NoPairing


@dataclass(frozen=True, slots=True)
class EngineRound:
    """What an engine pairs: (first, second) player ids, and the one given the bye."""

    pairings: tuple[tuple[int, int], ...]
    bye: int | None = None


#: A pairing engine: the competition's state, the round to pair and the players to pair in
#: it (player ids, best-ranked first) -> the round.
PairingEngine = Callable[[CompetitionState, int, Sequence[int]], EngineRound]


@dataclass(frozen=True, slots=True)
class ProposedRound:
    """A round ready to be shown and published: its games, the pairing's bye and the byes
    requested for it (player id, bye kind, points)."""

    round_number: int
    pairings: tuple[tuple[int, int], ...]
    bye: int | None
    requested: tuple[tuple[int, str, Decimal], ...]
    #: A knockout cup's round (``league.cups``): its byes and walkovers, each game's board
    #: (its tie in the bracket) and, in round 1, the bracket's slots.
    byes: tuple[int, ...] = ()
    boards: tuple[int, ...] = ()
    bracket: tuple[int | None, ...] = ()

    @property
    def all_byes(self) -> tuple[int, ...]:
        """Every player the round gives the pairing's bye (a cup may have several)."""
        return self.byes if self.bye is None else (self.bye, *self.byes)


def ranking(state: CompetitionState) -> list[int]:
    """Player ids best first: by seed rating (entries without one after those with one),
    then by pairing number."""
    entrants = sorted(
        state.entrants,
        key=lambda e: (e.seed_rating is None, -(e.seed_rating or 0.0), e.number),
    )
    return [entrant.player_id for entrant in entrants]


def club_swiss(state: CompetitionState, round_number: int, players: Sequence[int]) -> EngineRound:
    """The league's Swiss generator (``pairings.swiss``: score groups, no repeats,
    sides alternating, one bye) over the competition's results so far.

    Forfeited games are not games: the two may meet again, and neither side counts towards a
    player's sides; a forfeit win counts as a bye already had, as a pairing bye does. The
    event's forbidden pairings for the round are never made (refused when no pairing of the
    field avoids them).
    """
    rank = {player: index + 1 for index, player in enumerate(ranking(state))}
    by_player = {entrant.player_id: entrant for entrant in state.entrants}
    swiss_players = []
    played: set[frozenset[int]] = set()
    for player in players:
        entrant = by_player[player]
        sides = tuple(
            entry.side for entry in entrant.rounds if entry.outcome in PLAYED and entry.side
        )
        had_bye = any(
            entry.outcome in (Outcome.PAIRING_BYE, Outcome.FORFEIT_WIN) for entry in entrant.rounds
        )
        swiss_players.append(
            SwissPlayer(
                id=player,
                score=float(entrant.points),
                rank=rank[player],
                sides=sides,
                had_bye=had_bye,
            )
        )
        for entry in entrant.rounds:
            if entry.opponent_id is not None and entry.outcome not in (
                Outcome.FORFEIT_WIN,
                Outcome.FORFEIT_LOSS,
            ):
                played.add(frozenset((player, entry.opponent_id)))
    # Forbidden pairings (``forbid_pairing``) are never made: an absolute rule, unlike a
    # rematch, which is only avoided while the field allows it.
    try:
        paired = swiss_round(
            swiss_players, played, use_sides=True, forbidden=state.forbidden_in(round_number)
        )
    except NoPairing:
        raise ValidationError(
            {
                "round_number": [
                    _(
                        "No pairing of round %(round)s keeps every forbidden pair apart: record a "
                        "bye for one of their players, or withdraw one."
                    )
                    % {"round": round_number}
                ]
            }
        ) from None
    return EngineRound(
        tuple((int(p.first), int(p.second)) for p in paired.pairings),  # type: ignore[call-overload]
        None if paired.bye is None else int(paired.bye),  # type: ignore[call-overload]
    )


def fide_dutch(state: CompetitionState, round_number: int, players: Sequence[int]) -> EngineRound:
    """The FIDE Dutch system (C.04.3, ``pairings.dutch`` through
    ``league.chess.pairing``): White first on every board."""
    pairings, bye = dutch_round(state, round_number, players)
    return EngineRound(pairings, bye)


def pairing_engine_for(league: League) -> PairingEngine:
    """The Swiss engine of ``league``'s competitions: the FIDE Dutch system for a chess
    league (``league.chess.pairing``), the club generator for every other."""
    if is_chess(league.sport):
        return fide_dutch
    return club_swiss


def round_robin_round(
    state: CompetitionState, round_number: int, players: Sequence[int]
) -> EngineRound:
    """Round ``round_number`` of the Berger table of the event's field (the entrants of
    round 1, by pairing number; a second cycle, sides swapped, when the event plans more
    rounds than one cycle has). Games of a player not in the round are left out; the player
    the table sits out has the bye."""
    field_ = [e.player_id for e in state.entrants if e.from_round <= 1]
    cycle = max(1, len(field_) - 1 + len(field_) % 2)
    table = round_robin(field_, double=state.planned_rounds > cycle)
    if round_number > len(table):
        raise ValidationError(
            {
                "round_number": [
                    _("A round robin of %(n)s players has %(rounds)s rounds.")
                    % {"n": len(field_), "rounds": len(table)}
                ]
            }
        )
    chosen = table[round_number - 1]
    playing = set(players)
    pairings = tuple(
        (int(p.first), int(p.second))  # type: ignore[call-overload]
        for p in chosen.pairings
        if p.first in playing and p.second in playing
    )
    byes = [int(b) for b in chosen.byes if b in playing]  # type: ignore[call-overload]
    return EngineRound(pairings, byes[0] if byes else None)


def propose_round(competition: Competition) -> ProposedRound:
    """The next round of ``competition``, paired but not stored.

    Refused (``ValidationError``) when every planned round is paired, when a Swiss round's
    predecessor still has games without a result, and when fewer than two players play.
    """
    errors = Errors()
    if competition.format == CompetitionFormat.KNOCKOUT:
        errors.add(
            "round_number",
            _("A cup's rounds follow its bracket: pair the next round from the bracket."),
            "cup_bracket",
        )
        errors.raise_if_any()
    state = competition_state(competition)
    number = state.rounds_paired + 1
    if number > state.planned_rounds:
        errors.add(
            "round_number",
            _("All %(rounds)s rounds of %(event)s are paired."),
            "all_paired",
            rounds=state.planned_rounds,
            event=competition.name,
        )
        errors.raise_if_any()
    if (
        competition.format == CompetitionFormat.SWISS
        and state.complete_rounds < state.rounds_paired
    ):
        errors.add(
            "round_number",
            _("Round %(round)s still has games without a result: record them (or the "
              "forfeits) before pairing round %(next)s."),
            "round_incomplete",
            round=state.complete_rounds + 1,
            next=number,
        )  # fmt: skip
        errors.raise_if_any()
    requested = tuple(
        (bye.player_id, bye.kind, bye.points)
        for bye in RoundBye.objects.filter(competition=competition, round_number=number)
        .exclude(kind=ByeKind.PAIRING_ALLOCATED)
        .order_by("player__display_name")
        if (entrant := state.entrant(bye.player_id)) is not None and entrant.plays_in(number)
    )
    asked = {player for player, _kind, _points in requested}
    players = [
        player
        for player in ranking(state)
        if player not in asked and state.entrant(player).plays_in(number)  # type: ignore[union-attr]
    ]
    if len(players) < 2:
        errors.add(
            "round_number",
            _("Fewer than two players play in round %(round)s: enter players first."),
            "too_few_players",
            round=number,
        )
        errors.raise_if_any()
    if competition.format == CompetitionFormat.ROUND_ROBIN:
        paired = round_robin_round(state, number, players)
    else:
        paired = pairing_engine_for(competition.league)(state, number, players)
    return ProposedRound(number, paired.pairings, paired.bye, requested)


__all__ = [
    "EngineRound",
    "PairingEngine",
    "ProposedRound",
    "club_swiss",
    "pairing_engine_for",
    "propose_round",
    "ranking",
    "round_robin_round",
]
