"""Public pages of a league's events (competitions): the list, one event's page (standings
with the event's tie-breaks, crosstable and forecast from ``web.public.event_tables``; rounds
with pairings and results; entrants) and a round's printable pairing list.

The numbers come from ``ratings.selectors.competitions``; the words for outcomes and results
are composed here, once, for every page that shows them.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils.translation import gettext as _

from league.chess.vocabulary import result_text
from league.competitions import CompetitionState, Outcome, RoundEntry, competition_state
from league.models import ByeKind, Competition, CompetitionFormat, League, RoundBye
from league.seasons import points_text
from ratings.page_state import LeagueState, league_state
from ratings.selectors.competitions import (
    RoundView,
    StandingLine,
    event_rounds,
    event_standings,
    league_competitions,
)
from ratings.selectors.event_tables import event_table
from web.formatting import DASH
from web.public.event_tables import table_context
from web.public.page_cache import cached_page, known_league


def _league_state(league_slug: str, **_kwargs: str) -> LeagueState | None:
    return league_state(league_slug)


def _league(request: HttpRequest, slug: str) -> League:
    known = known_league(request, slug)
    return known if known is not None else get_object_or_404(League, slug=slug)


def outcome_cell(entry: RoundEntry) -> dict[str, str]:
    """One entrant's round in a table cell: a short text and what it means in words."""
    if entry.outcome == Outcome.WIN:
        return {"text": "1", "title": _("won")}
    if entry.outcome == Outcome.DRAW:
        return {"text": "½", "title": _("drawn")}
    if entry.outcome == Outcome.LOSS:
        return {"text": "0", "title": _("lost")}
    if entry.outcome == Outcome.FORFEIT_WIN:
        return {"text": "+", "title": _("won by forfeit (not rated)")}
    if entry.outcome == Outcome.FORFEIT_LOSS:
        return {"text": "−", "title": _("lost by forfeit (not rated)")}
    if entry.outcome == Outcome.PAIRING_BYE:
        return {
            "text": _("bye %(points)s") % {"points": points_text(entry.points or Decimal(0))},
            "title": _("bye allocated by the pairing"),
        }
    if entry.outcome == Outcome.HALF_BYE:
        return {"text": _("bye ½"), "title": _("half-point bye, requested")}
    if entry.outcome == Outcome.ZERO_BYE:
        return {"text": _("bye 0"), "title": _("zero-point bye, requested")}
    if entry.outcome == Outcome.FULL_BYE:
        return {"text": _("bye 1"), "title": _("full-point bye, not allocated by the pairing")}
    if entry.outcome == Outcome.PENDING:
        return {"text": "…", "title": _("to be played")}
    return {"text": DASH, "title": _("not paired")}


def game_result(entry: RoundEntry, *, chess: bool = False) -> str:
    """A game's result from the first-named player's side (a win, a draw, a loss, a forfeit);
    in a chess league from White's side in chess's words (``result_text``: "1-0", and "1-0F"
    for a forfeit, written with en dashes)."""
    if chess and entry.outcome in _CHESS_RESULTS:
        score, forfeit = _CHESS_RESULTS[entry.outcome]
        return result_text(score, forfeit=forfeit)
    return {
        Outcome.WIN: "1–0",
        Outcome.DRAW: "½–½",
        Outcome.LOSS: "0–1",
        Outcome.FORFEIT_WIN: _("1–0 forfeit"),
        Outcome.FORFEIT_LOSS: _("0–1 forfeit"),
        Outcome.PENDING: "",
    }.get(entry.outcome, "")


#: White's score and whether the game was forfeited, for each outcome a chess result names.
_CHESS_RESULTS = {
    Outcome.WIN: (Decimal(1), False),
    Outcome.DRAW: (Decimal("0.5"), False),
    Outcome.LOSS: (Decimal(0), False),
    Outcome.FORFEIT_WIN: (Decimal(1), True),
    Outcome.FORFEIT_LOSS: (Decimal(0), True),
}


def standing_cells(line: StandingLine) -> dict[str, Any]:
    """A line of the event's table as text."""
    return {
        "position": f"{'=' if line.tied else ''}{line.position}",
        "name": line.entrant.name,
        "slug": line.entrant.slug,
        "number": line.entrant.number,
        "points": points_text(line.points),
        "games": line.games,
        "wdl": f"{line.wins}{DASH}{line.draws}{DASH}{line.losses}",
        "forfeits": line.forfeits_won + line.forfeits_lost,
        "byes": line.byes,
        "withdrawn": line.entrant.withdrawn_from_round,
        "rounds": [outcome_cell(entry) for entry in line.entrant.rounds],
    }


def round_cells(round_view: RoundView, *, chess: bool = False) -> dict[str, Any]:
    """A round's games and byes as text (a chess league's results in chess's words)."""
    games = []
    for game in round_view.games:
        result = game_result(game.entry, chess=chess)
        second = game.second.rounds[round_view.number - 1]
        if game.entry.outcome == Outcome.FORFEIT_LOSS and second.outcome == Outcome.FORFEIT_LOSS:
            result = _("double forfeit")
        games.append(
            {
                "board": game.board or "",
                "first": game.first.name,
                "first_slug": game.first.slug,
                "first_points": points_text(_points_before(game.first, round_view.number)),
                "second": game.second.name,
                "second_slug": game.second.slug,
                "second_points": points_text(_points_before(game.second, round_view.number)),
                "result": result,
                "fixture_id": game.entry.fixture_id,
                "pending": game.entry.outcome == Outcome.PENDING,
            }
        )
    byes = [
        {"name": entrant.name, "slug": entrant.slug, **outcome_cell(entry)}
        for entrant, entry in round_view.byes
    ]
    return {
        "number": round_view.number,
        "games": games,
        "byes": byes,
        "complete": round_view.complete,
    }


def _points_before(entrant: Any, number: int) -> Decimal:
    return sum((e.points or Decimal(0) for e in entrant.rounds[: number - 1]), Decimal(0))


def event_context(
    competition: Competition, state: CompetitionState | None = None
) -> dict[str, Any]:
    """What the public event page and the organiser's event page share; ``chess`` says the
    league plays chess, so the pages say White and Black and write chess results."""
    state = state or competition_state(competition)
    chess = competition.league.is_chess
    names = {entrant.player_id: entrant.name for entrant in state.entrants}
    return {
        "competition": competition,
        "chess": chess,
        "state": state,
        "round_numbers": list(range(1, state.rounds_paired + 1)),
        "standings": [standing_cells(line) for line in event_standings(state)],
        "rounds": [round_cells(view, chess=chess) for view in event_rounds(state)],
        "entrants": state.entrants,
        "bye_points": points_text(competition.bye_points),
        "forbidden": [
            {"names": [names.get(player, "?") for player in players], "first": first, "last": last}
            for players, first, last in state.forbidden
        ],
        "coming_byes": [
            {"name": names.get(bye.player_id, "?"), "round": bye.round_number,
             "kind": ByeKind(bye.kind).label, "points": points_text(bye.points)}
            for bye in RoundBye.objects.filter(
                competition=competition, round_number__gt=state.rounds_paired
            ).order_by("round_number", "player__display_name")
        ],
    }  # fmt: skip


@cached_page("competitions", _league_state)
def competition_list(request: HttpRequest, league_slug: str) -> HttpResponse:
    """The league's events, newest first."""
    league = _league(request, league_slug)
    return render(
        request,
        "pages/competitions.html",
        {"league": league, "competitions": league_competitions(league)},
    )


def _competition(league: League, slug: str) -> Competition:
    return get_object_or_404(Competition, league=league, slug=slug)


@cached_page("competition", _league_state)
def competition(request: HttpRequest, league_slug: str, competition_slug: str) -> HttpResponse:
    """One event: its standings with the event's tie-breaks, its crosstable and forecast (the
    table of ``web.public.event_tables``, the one table of the event), its rounds with
    pairings and results, and its entrants."""
    league = _league(request, league_slug)
    chosen = _competition(league, competition_slug)
    context = {
        "league": league,
        **event_context(chosen),
        # After the event's context: the table's round numbers are its columns.
        **table_context(
            event_table(chosen, with_forecast=chosen.format != CompetitionFormat.KNOCKOUT)
        ),
    }
    return render(request, "pages/competition.html", context)


@cached_page("competition_round", _league_state)
def competition_round(
    request: HttpRequest, league_slug: str, competition_slug: str, round_number: int
) -> HttpResponse:
    """One round's pairing list, laid out for printing (and for a phone at the board)."""
    league = _league(request, league_slug)
    chosen = _competition(league, competition_slug)
    context = event_context(chosen)
    if not 1 <= round_number <= context["state"].rounds_paired:
        raise Http404(_("Round %(round)s is not paired yet.") % {"round": round_number})
    return render(
        request,
        "pages/competition_round.html",
        {"league": league, **context, "round": context["rounds"][round_number - 1]},
    )
