"""A knockout cup's public bracket page: every round's ties with their games, winners and,
for each open tie, each side's chance of winning it from the current ratings; and the cup's
forecast (who wins it), with its number of simulations and Monte Carlo error.

The numbers come from ``ratings.selectors.cups``; this module writes them.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils.translation import gettext as _

from league.cups import DECIDER, REPLAY, Tie, TieGame
from league.models import Competition, CompetitionFormat, League
from pairings import double_elimination as de
from ratings.forecasts import Forecast
from ratings.page_state import LeagueState, league_state
from ratings.selectors.cups import CupEntrant, CupView, TieChances, cup_view
from web import locale_format
from web.formatting import format_chance
from web.public.page_cache import cached_page, known_league


def round_title(number: int, rounds: int) -> str:
    """A round's name: the final, the semi-finals, the quarter-finals, else its number."""
    left = rounds - number
    if left == 0:
        return _("Final")
    if left == 1:
        return _("Semi-finals")
    if left == 2:
        return _("Quarter-finals")
    return _("Round %(round)s") % {"round": number}


def _game_text(game: TieGame, first: int | None) -> str:
    """A game's result from the tie's first side."""
    kind = {REPLAY: _("Replay"), DECIDER: _("Tie-break game")}.get(game.kind, _("Game"))
    flipped = game.first_id != first
    if game.forfeited:
        if game.forfeit_winner is None:
            result = _("double forfeit")
        else:
            won = game.forfeit_winner == first
            result = _("1–0 forfeit") if won else _("0–1 forfeit")
    elif game.score_first is not None:
        score = Decimal(1) - game.score_first if flipped else game.score_first
        result = {Decimal(1): "1–0", Decimal("0.5"): "½–½", Decimal(0): "0–1"}[score]
    else:
        result = _("to be played")
    return _("%(kind)s: %(result)s") % {"kind": kind, "result": result}


def _side(
    player: int | None, waiting: bool, tie: Tie, entrants: dict[int, CupEntrant],
    chance: float | None,
) -> dict[str, Any]:  # fmt: skip
    if player is None:
        return {
            "name": _("winner to come") if waiting else _("bye"),
            "empty": True,
            "won": False,
            "chance": "",
        }
    entrant = entrants[player]
    return {
        "name": entrant.name,
        "slug": entrant.slug,
        "seed": entrant.seed,
        "empty": False,
        "won": tie.decided and tie.winner == player,
        "lost": tie.decided and tie.winner is not None and tie.winner != player,
        "chance": "" if chance is None else format_chance(chance),
    }


def _status(tie: Tie, entrants: dict[int, CupEntrant]) -> str:
    if not tie.needed:
        return _("Not needed: the winners' bracket champion won the grand final.")
    if tie.decided:
        if tie.winner is None:
            return _("Nobody goes through.")
        name = entrants[tie.winner].name
        if tie.part == de.FINAL and not tie.bye:
            return _("%(player)s wins the grand final.") % {"player": name}
        if tie.part == de.RESET and not tie.bye:
            return _("%(player)s wins the second game.") % {"player": name}
        if tie.bye:
            return _("%(player)s goes through without a game.") % {"player": name}
        return _("%(player)s goes through.") % {"player": name}
    if not tie.sides_known:
        return _("Waiting for the earlier ties.")
    if not tie.started:
        return _("Not paired yet.")
    if tie.games and not any(game.pending for game in tie.games):
        return _("Drawn: the tie waits for its replay or tie-break game.")
    return _("To be played.")


def forecast_context(forecast: Forecast | None, entrants: dict[int, CupEntrant]) -> Any:
    if forecast is None:
        return None
    return {
        "simulations": forecast.simulations,
        "largest_error": locale_format.number(forecast.largest_error * 100, 1),
        "rows": [
            {
                "name": entrants[key].name,  # type: ignore[index]
                "slug": entrants[key].slug,  # type: ignore[index]
                "seed": entrants[key].seed,  # type: ignore[index]
                "chance": format_chance(chance.probability),
                "error": locale_format.number(chance.standard_error * 100, 1),
            }
            for key, chance in sorted(
                forecast.chances.items(),
                key=lambda item: (-item[1].probability, entrants[item[0]].seed),  # type: ignore[index]
            )
            if chance.probability > 0
        ],
    }


def _tie_row(tie: Tie, view: CupView) -> dict[str, Any]:
    entrants = view.entrants
    chance: TieChances | None = view.chances.get((tie.round_number, tie.board))
    first_chance = None if chance is None else chance.first_wins
    second_chance = None if chance is None else 1.0 - chance.first_wins
    return {
        "id": f"tie-{tie.round_number}-{tie.board}",
        "position": tie.position,
        "round_number": tie.round_number,
        "board": tie.board,
        "third_place": tie.third_place,
        "first": _side(tie.first, tie.first_waiting, tie, entrants, first_chance),
        "second": _side(tie.second, tie.second_waiting, tie, entrants, second_chance),
        "games": [_game_text(game, tie.first) for game in tie.games if not game.pending],
        "status": _status(tie, entrants),
    }


def _part_round_title(part: str, number: int, rounds: int) -> str:
    """A round's name in a double-elimination cup's bracket."""
    if part == de.WINNERS:
        if number == rounds:
            return _("Winners' final")
        return _("Winners' round %(round)s") % {"round": number}
    if part == de.LOSERS:
        if number == rounds:
            return _("Losers' final")
        return _("Losers' round %(round)s") % {"round": number}
    if part == de.FINAL:
        return _("Grand final")
    return _("Grand final, second game")


def _double_sections(view: CupView) -> list[dict[str, Any]]:
    """A double-elimination cup's bracket in three parts: the winners' bracket, the
    losers' bracket, the grand final (with its reset)."""
    by_part: dict[str, dict[int, list[Tie]]] = {}
    for ties in view.bracket.rounds:
        for tie in ties:
            by_part.setdefault(tie.part, {}).setdefault(tie.part_round, []).append(tie)
    titles = {
        de.WINNERS: _("Winners' bracket"),
        de.LOSERS: _("Losers' bracket"),
        de.FINAL: _("Grand final"),
    }
    sections = []
    for part in (de.WINNERS, de.LOSERS, de.FINAL):
        parts = [part] if part != de.FINAL else [de.FINAL, de.RESET]
        rounds = []
        for each in parts:
            numbered = by_part.get(each, {})
            for number in sorted(numbered):
                rounds.append(
                    {
                        "number": f"{each}-{number}",
                        "title": _part_round_title(each, number, len(numbered)),
                        "ties": [
                            _tie_row(tie, view)
                            for tie in sorted(numbered[number], key=lambda t: t.position)
                        ],
                    }
                )
        if rounds:
            sections.append({"id": part, "title": titles[part], "rounds": rounds})
    return sections


def bracket_context(view: CupView) -> dict[str, Any]:
    """What the bracket page shows, as text."""
    bracket, entrants = view.bracket, view.entrants
    depth = len(bracket.rounds)
    rounds = []
    sections: list[dict[str, Any]] = []
    if bracket.double_elimination:
        sections = _double_sections(view)
    else:
        for number, ties in enumerate(bracket.rounds, start=1):
            rows = [_tie_row(tie, view) for tie in ties]
            rounds.append({"number": number, "title": round_title(number, depth), "ties": rows})
    champion = bracket.champion
    return {
        "double_elimination": bracket.double_elimination,
        "bracket_reset": bracket.bracket_reset,
        "sections": sections,
        "rounds": rounds,
        "projected": bracket.projected,
        "size": bracket.size,
        "champion": None if champion is None else entrants[champion].name,
        "draw_rule": bracket.draw_rule,
        "third_place": bracket.third_place,
        "cup_forecast": forecast_context(view.forecast, entrants),
    }


def _league_state(league_slug: str, **_kwargs: str) -> LeagueState | None:
    return league_state(league_slug)


@cached_page("competition-bracket", _league_state)
def competition_bracket(
    request: HttpRequest, league_slug: str, competition_slug: str
) -> HttpResponse:
    """A knockout cup's bracket, its ties' chances and its forecast."""
    known = known_league(request, league_slug)
    league = known if known is not None else get_object_or_404(League, slug=league_slug)
    chosen = get_object_or_404(Competition, league=league, slug=competition_slug)
    if chosen.format != CompetitionFormat.KNOCKOUT:
        raise Http404(_("%(event)s is not a knockout cup.") % {"event": chosen.name})
    view = cup_view(chosen)
    context: dict[str, Any] = {"league": league, "competition": chosen, "bracket": None}
    if view is not None:
        context.update(bracket_context(view))
        context["bracket"] = True
    return render(request, "pages/competition_bracket.html", context)
