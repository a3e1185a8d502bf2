"""An event's tie-breaks: which ones it uses and its rounds as ``league.tiebreaks`` reads them.

One place for the event table's page (``ratings.selectors.event_tables``) and the TRF export
(``league.chess.trf_export``), so the file's ranks and tie-break values are the page's.

* Order: the event's tie-breaks as its organisers listed them; common spellings of the FIDE
  codes are read as those (``BH-1`` is ``BH-C1``). A code this site does not compute is
  listed as ignored, not guessed. With none listed: a round robin by direct encounter,
  Sonneborn-Berger and wins; a Swiss event by Buchholz Cut-1, Buchholz, Sonneborn-Berger,
  direct encounter and wins (C.07's recommended families for each).
* Colours (``coloured``): the first-named player is White where the sport is played on a
  board; elsewhere there are no colours and BPG/BWG are not given.
* Ratings (average rating of opponents): each entrant's seed rating, the event's list.
"""

from __future__ import annotations

from fractions import Fraction

from league import tiebreaks
from league.competitions import BYES, PLAYED, CompetitionState, Outcome
from league.models import Competition, CompetitionFormat

DEFAULT_ORDERS = {
    CompetitionFormat.ROUND_ROBIN: ("DE", "SB", "WIN"),
    CompetitionFormat.SWISS: ("BH-C1", "BH", "SB", "DE", "WIN"),
}
BYE_KINDS = {
    Outcome.PAIRING_BYE: tiebreaks.Unplayed.PAIRING_BYE,
    Outcome.HALF_BYE: tiebreaks.Unplayed.HALF_BYE,
    Outcome.ZERO_BYE: tiebreaks.Unplayed.ZERO_BYE,
    Outcome.FULL_BYE: tiebreaks.Unplayed.FULL_BYE,
}


def chosen_tiebreaks(competition: Competition) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The tie-breaks the event's organisers chose, as codes of ``league.tiebreaks``, and the
    codes it ignores (not computed here); both empty when none was chosen."""
    chosen, ignored = [], []
    for raw in competition.tiebreaks or ():
        code = tiebreaks.canonical_code(str(raw))
        if code in tiebreaks.TIEBREAKS and code not in chosen:
            chosen.append(code)
        elif code not in tiebreaks.TIEBREAKS:
            ignored.append(str(raw))
    return tuple(chosen), tuple(ignored)


def tiebreak_order(competition: Competition) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The event's tie-breaks as codes of ``league.tiebreaks`` and the codes it ignores
    (with none chosen, the format's default order)."""
    chosen, ignored = chosen_tiebreaks(competition)
    if not chosen and not ignored:
        chosen = DEFAULT_ORDERS.get(CompetitionFormat(competition.format), ("BH", "SB"))
    return chosen, ignored


def event_tournament(state: CompetitionState, rounds: int, coloured: bool) -> tiebreaks.Tournament:
    """The first ``rounds`` rounds of ``state`` as the tie-breaks read them."""
    games, byes = [], []
    for entrant in state.entrants:
        for entry in entrant.rounds[:rounds]:
            if entry.outcome in BYES:
                byes.append(
                    tiebreaks.Bye(entrant.player_id, entry.round_number, BYE_KINDS[entry.outcome])
                )
            elif entry.side == "first" and entry.opponent_id is not None:
                if entry.outcome in PLAYED:
                    score, forfeit = Fraction(entry.points or 0), False
                elif entry.outcome in (Outcome.FORFEIT_WIN, Outcome.FORFEIT_LOSS):
                    score, forfeit = Fraction(int(entry.outcome == Outcome.FORFEIT_WIN)), True
                else:
                    continue
                games.append(
                    tiebreaks.Game(
                        entrant.player_id,
                        entry.opponent_id,
                        score,
                        entry.round_number,
                        forfeit=forfeit,
                        coloured=coloured,
                    )
                )
    points = tiebreaks.Points(pairing_bye=Fraction(state.bye_points))
    ratings = {e.player_id: e.seed_rating for e in state.entrants}
    return tiebreaks.Tournament(ratings, games, byes, points, rounds=rounds)
