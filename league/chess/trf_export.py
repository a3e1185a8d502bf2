"""A competition (an event of a league) as a TRF file: ``competition_tournament`` builds the
``league.chess.trf.Tournament`` from ``league.competitions.competition_state``, and
``export_competition`` writes it (TRF-2026 by default).

What the file holds and where it comes from:

- header: 012 the event's name; 042/052 its start and end dates (else its first and last
  round's days); 062/072 its entrants and those with a seed rating; 092 the format; 132 each
  round's day (the league's local day of its first game); 142 the planned rounds; 152 the
  colour the lowest-numbered entrant with a game in round 1 had; 162 the points of a
  pairing-allocated bye when they are not 1; 192 ``FIDE_DUTCH_2025`` for a Swiss event of a
  chess league (paired by ``pairings.dutch``); 202 the event's tie-break codes;
  250 the virtual points of Baku acceleration (C.04.5.1) for an event paired with it;
- one 001 record per entrant: the pairing number, the player's name (cut to the format's 33
  characters), FIDE title, seed rating, federation and FIDE id (``player_identified``), the
  points and the rank by points (ties share a rank), then every paired round: opponent,
  colour (the first-named player is White), and 1 = 0 for a game, + - for a forfeit, U H Z
  for the byes, Z for a round before a late entry, a blank column (no opponent, no result)
  for a round after a withdrawal, and a blank result for a game still to be played.

Sex and birth date are left blank: the league does not keep them. Tie-break values have no
field in the TRF-2026 player record; the codes go in 202.
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

from league import tiebreaks
from league.calendar import league_zone, local_day
from league.chess import trf
from league.competition_tiebreaks import chosen_tiebreaks, event_tournament
from league.competitions import CompetitionState, Outcome, competition_state
from league.competitions import RoundEntry as StateEntry
from league.models import Competition, CompetitionFormat, Fixture, Player
from league.sports import sport_words
from pairings.dutch import baku_records

#: The result code of each outcome (a game's code is the entrant's own).
RESULT_CODE = {
    Outcome.WIN: "1",
    Outcome.DRAW: "=",
    Outcome.LOSS: "0",
    Outcome.FORFEIT_WIN: "+",
    Outcome.FORFEIT_LOSS: "-",
    Outcome.PAIRING_BYE: "U",
    Outcome.HALF_BYE: "H",
    Outcome.ZERO_BYE: "Z",
    Outcome.FULL_BYE: "F",
    Outcome.NOT_PAIRED: "Z",
    Outcome.PENDING: trf.PENDING,
}
#: Record 092 for each format (free text in the specification).
TYPE_TEXT = {
    CompetitionFormat.SWISS: "Individual: Swiss-System",
    CompetitionFormat.ROUND_ROBIN: "Individual: round robin",
    CompetitionFormat.KNOCKOUT: "Individual: knockout",
    CompetitionFormat.TEAM_MATCH: "Individual games of a team match",
}
#: Record 192 of a Swiss event of a chess league: the system ``pair_round`` pairs it by.
DUTCH_TYPE = "FIDE_DUTCH_2025"
NAME_COLUMNS = 33


def plays_chess(competition: Competition) -> bool:
    """Whether the event's league plays chess (its sport names chess)."""
    return "chess" in sport_words(competition.league.sport)


def entry_code(entry: StateEntry, withdrawn_from: int | None) -> str:
    """The result code of an entrant's round: a round after their withdrawal is blank (not
    paired: TRF-2026 reads it as Z, and the import as the withdrawal it is)."""
    if (
        entry.outcome == Outcome.NOT_PAIRED
        and withdrawn_from is not None
        and entry.round_number >= withdrawn_from
    ):
        return trf.PENDING
    return RESULT_CODE[entry.outcome]


def _entry(
    entry: StateEntry, numbers: dict[int, int], withdrawn_from: int | None
) -> trf.RoundEntry:
    code = entry_code(entry, withdrawn_from)
    if entry.opponent_id is None:
        return trf.RoundEntry(None, "-", code)
    colour = "w" if entry.side == "first" else "b"
    return trf.RoundEntry(numbers[entry.opponent_id], colour, code)


def _ranks(state: CompetitionState) -> dict[int, int]:
    """Rank by points, ties sharing the better rank (1, 2, 2, 4)."""
    ordered = sorted(state.entrants, key=lambda e: -e.points)
    ranks: dict[int, int] = {}
    for index, entrant in enumerate(ordered):
        if index and entrant.points == ordered[index - 1].points:
            ranks[entrant.player_id] = ranks[ordered[index - 1].player_id]
        else:
            ranks[entrant.player_id] = index + 1
    return ranks


def _round_days(competition: Competition) -> dict[int, str]:
    """Each round's local day (of its first game), as TRF's YYYY/MM/DD."""
    zone = league_zone(competition.league)
    days: dict[int, str] = {}
    fixtures = Fixture.objects.filter(competition=competition, cancelled=False).order_by(
        "round_number", "scheduled_at"
    )
    for number, moment in fixtures.values_list("round_number", "scheduled_at"):
        days.setdefault(number, local_day(moment, zone).strftime("%Y/%m/%d"))
    return days


def _initial_colour(state: CompetitionState) -> str:
    """W or B: the colour of the lowest-numbered entrant who had a game in round 1."""
    for entrant in sorted(state.entrants, key=lambda e: e.number):
        if entrant.rounds and entrant.rounds[0].side is not None:
            return "W" if entrant.rounds[0].side == "first" else "B"
    return ""


def _value_text(value: Fraction | int | float | None) -> str:
    """A tie-break value as the file writes it: whole numbers bare, else up to two decimals
    (``6.25``, ``4.5``); ``-`` where it has none (no games to average)."""
    if value is None:
        return "-"
    if isinstance(value, int) or (isinstance(value, Fraction) and value.denominator == 1):
        return str(int(value))
    return f"{float(value):.2f}".rstrip("0")


def _standings(
    competition: Competition, state: CompetitionState
) -> tuple[tuple[str, ...], list[tiebreaks.Placing]]:
    """The event's chosen tie-breaks this site computes and the standings by them after the
    complete rounds (as the event's page shows them); none when no tie-break was chosen."""
    codes, _ignored = chosen_tiebreaks(competition)
    coloured = not competition.league.has_home_ground
    usable = tuple(code for code in codes if coloured or code not in tiebreaks.NEED_COLOURS)
    if not usable or not state.complete_rounds:
        return usable, []
    tournament = event_tournament(state, state.complete_rounds, coloured)
    return usable, tiebreaks.rank(tournament, usable)


def _tiebreak_comments(
    state: CompetitionState, codes: tuple[str, ...], placings: list[tiebreaks.Placing]
) -> list[str]:
    """Comment lines (``###``) with each entrant's tie-break values: TRF-2026 has no field
    for them (202 and 212 name the tie-breaks, the rank column says what they decided)."""
    numbers = {entrant.player_id: entrant.number for entrant in state.entrants}
    widths = [max(6, len(code)) for code in codes]
    head = "".join(f" {code:>{width}}" for code, width in zip(codes, widths, strict=True))
    lines = [
        f"### Tie-break values after round {state.complete_rounds} (start number, points, "
        f"{', '.join(codes)})",
        f"### Start Points{head}",
    ]
    for placing in sorted(placings, key=lambda p: numbers[p.player]):  # type: ignore[index]
        cells = "".join(
            f" {_value_text(placing.values.get(code)):>{width}}"
            for code, width in zip(codes, widths, strict=True)
        )
        score = f"{float(placing.score):.1f}"
        lines.append(f"### {numbers[placing.player]:>5} {score:>6}{cells}")  # type: ignore[index]
    return lines


def competition_tournament(competition: Competition) -> trf.Tournament:
    """The TRF view of ``competition``: header, players and every paired round."""
    state = competition_state(competition)
    numbers = {entrant.player_id: entrant.number for entrant in state.entrants}
    players = Player.objects.in_bulk(list(numbers))
    days = _round_days(competition)
    ranks = _ranks(state)
    codes, placings = _standings(competition, state)
    if placings and state.complete_rounds == state.rounds_paired:
        # Every paired round is complete: the rank is the standings' (points, then the
        # event's tie-breaks; level on everything shares a rank), as the event's page.
        ranks = {placing.player: placing.position for placing in placings}  # type: ignore[misc]
    round_days = [days.get(number, "") for number in range(1, state.rounds_paired + 1)]
    known_days = sorted(day for day in round_days if day)
    start = competition.start_date
    end = competition.end_date
    tournament = trf.Tournament(
        name=competition.name,
        start_date=start.strftime("%Y/%m/%d") if start else (known_days[0] if known_days else ""),
        end_date=end.strftime("%Y/%m/%d") if end else (known_days[-1] if known_days else ""),
        player_count=len(state.entrants),
        rated_player_count=sum(1 for e in state.entrants if e.seed_rating is not None),
        tournament_type=TYPE_TEXT.get(CompetitionFormat(competition.format), ""),
        round_dates=[day[2:] for day in round_days],
        rounds_planned=competition.planned_rounds,
        initial_colour=_initial_colour(state),
        tiebreaks=list(competition.tiebreaks or []),
        standings_tiebreaks=["PTS", *codes] if codes else [],
    )
    if competition.bye_points != Decimal(1):
        tournament.scoring["P"] = Decimal(competition.bye_points)
    if competition.format == CompetitionFormat.SWISS and plays_chess(competition):
        tournament.encoded_type = DUTCH_TYPE
    if competition.accelerated:
        # Baku acceleration (C.04.5.1): group A's virtual points, as the pairing adds them.
        for points, first, last, group_a in baku_records(len(state.entrants), state.planned_rounds):
            tournament.accelerations.append(
                trf.AccelerationRecord(
                    Decimal(points.numerator) / points.denominator, first, last, 1, group_a
                )
            )
    for player_ids, first, last in state.forbidden:
        tournament.prohibited.append(
            trf.ProhibitedPairing(first, last, tuple(numbers[p] for p in player_ids))
        )
    for entrant in sorted(state.entrants, key=lambda e: e.number):
        player = players[entrant.player_id]
        tournament.players.append(
            trf.PlayerRecord(
                start_number=entrant.number,
                name=player.display_name[:NAME_COLUMNS],
                title=player.title,
                rating=None if entrant.seed_rating is None else round(entrant.seed_rating),
                federation=player.federation,
                fide_id=player.fide_id,
                points=entrant.points,
                rank=ranks[entrant.player_id],
                rounds=[
                    _entry(entry, numbers, entrant.withdrawn_from_round) for entry in entrant.rounds
                ],
            )
        )
    if placings:
        tournament.extension_records.extend(_tiebreak_comments(state, codes, placings))
    return tournament


def export_competition(competition: Competition, flavour: trf.Flavour = trf.TRF_2026) -> str:
    """``competition`` as the text of a TRF file (TRF-2026 unless ``flavour`` says TRF(x))."""
    return trf.write(competition_tournament(competition), flavour)


def file_name(competition: Competition) -> str:
    """The download's file name: ``<league>-<event>.trf``."""
    return f"{competition.league.slug}-{competition.slug}.trf"
