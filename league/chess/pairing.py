"""The FIDE Dutch system as a competition's pairing engine (``league.competition_pairing``
wraps ``dutch_round`` as its engine ``fide_dutch`` for chess leagues).

``dutch_round`` turns a competition's state (``league.competitions.competition_state``) into
the input of ``pairings.dutch.pair_round`` and its answer back into player ids:

- the pairing number is the entrant's number, which is also the start number of the TRF
  export, so that a checker reading the exported file (bbpPairings) sees the same players in
  the same order; the rating is the entrant's seed rating (0 without one);
- each earlier round becomes a ``DutchGame``: a game over the board (played, with its colour,
  the first-named player White), a forfeit (not played: the Dutch rules count it neither for
  colours nor as a meeting, C.04.1), the pairing-allocated bye, a requested half- or
  zero-point bye, and a round the entrant was not in (not yet entered, withdrawn) as absent;
- the players the pairing leaves out of this round (requested byes, withdrawn, not yet
  entered) are absent for it;
- the event's forbidden pairings for this round (``forbid_pairing``, TRF record 260) are
  pairs the engine must not make;
- an event created ``accelerated`` is paired with Baku acceleration (C.04.5.1): the
  engine adds the virtual points to group A's scores in the first half of the rounds.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from league.competitions import CompetitionState, Outcome
from league.competitions import RoundEntry as StateEntry
from pairings import dutch

#: How each outcome of ``competition_state`` reads for the Dutch rules.
RESULT_KIND = {
    Outcome.WIN: dutch.WIN,
    Outcome.DRAW: dutch.DRAW,
    Outcome.LOSS: dutch.LOSS,
    Outcome.FORFEIT_WIN: dutch.FORFEIT_WIN,
    Outcome.FORFEIT_LOSS: dutch.FORFEIT_LOSS,
    Outcome.PAIRING_BYE: dutch.PAIRING_BYE,
    Outcome.HALF_BYE: dutch.HALF_BYE,
    Outcome.ZERO_BYE: dutch.ZERO_BYE,
    Outcome.FULL_BYE: dutch.FULL_BYE,
    Outcome.NOT_PAIRED: dutch.ZERO_BYE,
}


def _game(entry: StateEntry, numbers: dict[int, int]) -> dutch.DutchGame:
    if entry.outcome == Outcome.PENDING:
        # ``propose_round`` refuses to pair after a round with games still to play.
        raise ValidationError(
            {"round_number": [_("Round %(round)s has games without a result.") % {
                "round": entry.round_number}]}
        )  # fmt: skip
    colour: dutch.Colour | None = None
    if entry.side is not None:
        colour = dutch.WHITE if entry.side == "first" else dutch.BLACK
    return dutch.DutchGame(
        opponent=None if entry.opponent_id is None else numbers[entry.opponent_id],
        colour=colour,
        played=entry.outcome in (Outcome.WIN, Outcome.DRAW, Outcome.LOSS),
        result=RESULT_KIND[entry.outcome],
    )


def dutch_players(state: CompetitionState, players: Sequence[int]) -> list[dutch.DutchPlayer]:
    """Every entrant as the Dutch engine reads them; those not in ``players`` are absent."""
    numbers = {entrant.player_id: entrant.number for entrant in state.entrants}
    playing = set(players)
    return [
        dutch.DutchPlayer(
            number=entrant.number,
            score=Decimal(entrant.points),
            rating=round(entrant.seed_rating or 0),
            rounds=tuple(_game(entry, numbers) for entry in entrant.rounds),
            absent_this_round=entrant.player_id not in playing,
        )
        for entrant in state.entrants
    ]


def dutch_round(
    state: CompetitionState, round_number: int, players: Sequence[int]
) -> tuple[tuple[tuple[int, int], ...], int | None]:
    """Pair ``round_number`` of the competition by the FIDE Dutch system (C.04.3): the
    games as (White, Black) player ids by board, and the player given the pairing's bye
    (it scores the event's bye points)."""
    by_number = {entrant.number: entrant.player_id for entrant in state.entrants}
    numbers = {player: number for number, player in by_number.items()}
    try:
        paired = dutch.pair_round(
            dutch_players(state, players),
            round_number,
            state.planned_rounds,
            bye_points=state.bye_points,
            accelerated=state.accelerated,
            forbidden=[
                tuple(numbers[player] for player in pair)  # type: ignore[misc]
                for pair in state.forbidden_in(round_number)
                if all(player in numbers for player in pair)
            ],
        )
    except ValueError as error:  # NoValidPairing, or history the rules cannot read
        raise ValidationError(
            {
                "round_number": [
                    _("No pairing of round %(round)s satisfies the FIDE Dutch rules: %(why)s")
                    % {"round": round_number, "why": error}
                ]
            }
        ) from None
    return (
        tuple((by_number[white], by_number[black]) for white, black in paired.pairs),
        None if paired.bye is None else by_number[paired.bye],
    )
