"""Organiser pages for the league's events (competitions): create one, enter players
(late entries too), withdraw them, record requested byes (half, zero or a full point) and
forbidden pairings, pair the next round (a preview,
then publish), record the round's results and forfeits.

Every view is guarded by ``organiser_league``; writes go through ``league.competitions`` and
the one result path (``league.services.record_fixture_result``), and a bad input is answered
with a message naming the field, changing nothing.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from league import competitions as event_services
from league import cups, services
from league.competition_pairing import propose_round
from league.competitions import Outcome, competition_state
from league.idempotency_keys import new_key
from league.models import (
    ByeKind,
    Competition,
    CompetitionFormat,
    CupDrawRule,
    Fixture,
    League,
    Player,
)
from ratings.selectors.competitions import event_rounds, league_competitions
from ratings.selectors.configurations import live_config
from ratings.selectors.fixtures import strengths
from web.public.competitions import event_context
from web.workspace.access import SignInRequired, organiser_league, sign_in_redirect
from web.workspace.fixture_forms import ResultForm


def _guard(request: HttpRequest, league_slug: str) -> League | HttpResponse:
    try:
        return organiser_league(request, league_slug)
    except SignInRequired:
        return sign_in_redirect(request)


def _report(request: HttpRequest, error: ValidationError, prefix: str = "") -> None:
    """Each message of a service's error, as "field: message"."""
    for field, items in error.message_dict.items():
        for item in items:
            line = (
                item
                if field == "__all__"
                else _("%(field)s: %(message)s") % {"field": field, "message": item}
            )
            messages.error(request, f"{prefix}{line}")


def _event_url(competition: Competition) -> str:
    return reverse("workspace:competition", args=[competition.league.slug, competition.slug])


def _posted(request: HttpRequest, name: str) -> str:
    return request.POST.get(name, "").strip()


@require_http_methods(["GET", "POST"])
def competition_list(request: HttpRequest, league_slug: str) -> HttpResponse:
    """The league's events and a form to create one."""
    league = _guard(request, league_slug)
    if isinstance(league, HttpResponse):
        return league
    if request.method == "POST":
        cup = _posted(request, "format") == CompetitionFormat.KNOCKOUT
        try:
            created = event_services.create_competition(
                league,
                name=_posted(request, "name"),
                slug=_posted(request, "slug"),
                format=_posted(request, "format"),
                planned_rounds=_posted(request, "planned_rounds"),
                bye_points=_posted(request, "bye_points") or "1",
                rated=request.POST.get("rated") == "on",
                tiebreaks=_posted(request, "tiebreaks"),
                start_date=_posted(request, "start_date"),
                end_date=_posted(request, "end_date"),
                draw_rule=_posted(request, "draw_rule") if cup else None,
                third_place=request.POST.get("third_place") == "on",
                double_elimination=request.POST.get("double_elimination") == "on",
                bracket_reset=request.POST.get("bracket_reset") == "on",
                accelerated=request.POST.get("accelerated") == "on",
                recorded_by=request.user,
                idempotency_key=_posted(request, "idempotency_key") or None,
            )
        except ValidationError as error:
            _report(request, error)
        else:
            messages.success(request, _("Created %(event)s.") % {"event": created.name})
            return redirect(_event_url(created))
    context = {
        "league": league,
        "competitions": league_competitions(league),
        "formats": [
            (value, label)
            for value, label in CompetitionFormat.choices
            if value
            in (CompetitionFormat.SWISS, CompetitionFormat.ROUND_ROBIN, CompetitionFormat.KNOCKOUT)
        ],
        "draw_rules": CupDrawRule.choices,
        "posted": request.POST,
        "key": new_key(),
    }
    return render(request, "workspace/competitions.html", context)


def _competition(league: League, slug: str) -> Competition:
    return get_object_or_404(Competition, league=league, slug=slug)


def _proposal_context(competition: Competition, names: dict[int, str]) -> dict[str, Any] | None:
    """The next round as proposed by the pairing engine (a cup: by its bracket), for the
    preview."""
    cup = competition.format == CompetitionFormat.KNOCKOUT
    proposal = cups.propose_cup_round(competition) if cup else propose_round(competition)
    boards = proposal.boards or tuple(range(1, len(proposal.pairings) + 1))
    return {
        "number": proposal.round_number,
        "cup": cup,
        "games": [
            {"board": board, "first": first, "second": second,
             "first_name": names[first], "second_name": names[second]}
            for board, (first, second) in zip(boards, proposal.pairings, strict=True)
        ],
        "bye": None if proposal.bye is None else {"id": proposal.bye, "name": names[proposal.bye]},
        "cup_byes": [names[player] for player in proposal.byes],
        "requested": [
            {"name": names[player], "kind": ByeKind(kind).label}
            for player, kind, _p in proposal.requested
        ],
        "key": new_key(),
    }  # fmt: skip


@require_http_methods(["GET"])
def competition(request: HttpRequest, league_slug: str, competition_slug: str) -> HttpResponse:
    """One event: its table and rounds, with every organiser action beside them.

    ``?preview=1`` shows the next round as the pairing engine proposes it, to publish.
    """
    league = _guard(request, league_slug)
    if isinstance(league, HttpResponse):
        return league
    chosen = _competition(league, competition_slug)
    context = event_context(chosen)
    state = context["state"]
    names = {entrant.player_id: entrant.name for entrant in state.entrants}
    preview = None
    if request.GET.get("preview") == "1":
        try:
            preview = _proposal_context(chosen, names)
        except ValidationError as error:
            _report(request, error)
    entered = {entrant.player_id for entrant in state.entrants}
    next_round = state.rounds_paired + 1
    context.update(
        {
            "league": league,
            "preview": preview,
            "next_round": next_round,
            "can_pair": next_round <= state.planned_rounds,
            "players": Player.objects.filter(league=league, active=True, merged_into=None)
            .exclude(pk__in=entered)
            .order_by("display_name"),
            "playing": [
                entrant for entrant in state.entrants if entrant.withdrawn_from_round is None
            ],
            "bye_kinds": [
                (ByeKind.REQUESTED_HALF.value, ByeKind.REQUESTED_HALF.label),
                (ByeKind.REQUESTED_ZERO.value, ByeKind.REQUESTED_ZERO.label),
                (ByeKind.REQUESTED_FULL.value, ByeKind.REQUESTED_FULL.label),
            ],
            "can_forbid": chosen.format == CompetitionFormat.SWISS,
            "result_form": ResultForm(league),
            "keys": {
                "enter": new_key(),
                "withdraw": new_key(),
                "bye": new_key(),
                "forbid": new_key(),
            },
        }
    )
    cup = chosen.format == CompetitionFormat.KNOCKOUT
    context["cup"] = cup
    if cup and chosen.double_elimination and context["can_pair"]:
        # Without its second grand final the cup ends a round early.
        bracket = cups.cup_bracket(chosen)
        context["cup_decided"] = bracket is not None and bracket.decided
        context["can_pair"] = not context["cup_decided"]
    for view, round_cells in zip(event_rounds_of(context), context["rounds"], strict=True):
        for game, cells in zip(view.games, round_cells["games"], strict=True):
            cells["keys"] = {"result": new_key(), "forfeit": new_key(), "tie": new_key()}
            # A cup's drawn game (the latest of its tie) waits for a replay or a tie-break.
            cells["needs_tie_game"] = cup and game.entry.outcome == Outcome.DRAW
    context["tie_game_label"] = (
        _("Schedule the tie-break game")
        if chosen.draw_rule == CupDrawRule.DECIDER
        else _("Schedule the replay")
    )
    return render(request, "workspace/competition.html", context)


def _action(request: HttpRequest, league_slug: str, competition_slug: str):
    league = _guard(request, league_slug)
    if isinstance(league, HttpResponse):
        return league, None
    return league, _competition(league, competition_slug)


@require_POST
def enter(request: HttpRequest, league_slug: str, competition_slug: str) -> HttpResponse:
    """Enter a player (from the next round to pair, or the round given)."""
    league, chosen = _action(request, league_slug, competition_slug)
    if chosen is None:
        return league  # type: ignore[return-value]
    seed_rating: Any = _posted(request, "seed_rating") or None
    if seed_rating is None and chosen.format == CompetitionFormat.KNOCKOUT:
        seed_rating = _current_rating(league, _posted(request, "player"))
    try:
        entrant = event_services.enter_player(
            chosen,
            _posted(request, "player"),
            from_round=_posted(request, "from_round") or None,
            seed_rating=seed_rating,
            recorded_by=request.user,
            idempotency_key=_posted(request, "idempotency_key") or None,
        )
    except ValidationError as error:
        _report(request, error)
    else:
        messages.success(
            request,
            _("Entered %(player)s (number %(number)s, from round %(round)s).")
            % {
                "player": entrant.player.display_name,
                "number": entrant.number,
                "round": entrant.from_round,
            },
        )
    return redirect(f"{_event_url(chosen)}#entries")


@require_POST
def withdraw(request: HttpRequest, league_slug: str, competition_slug: str) -> HttpResponse:
    """Withdraw a player from a round on."""
    league, chosen = _action(request, league_slug, competition_slug)
    if chosen is None:
        return league  # type: ignore[return-value]
    try:
        entrant = event_services.withdraw_player(
            chosen,
            _posted(request, "player"),
            from_round=_posted(request, "from_round") or None,
            reason=_posted(request, "reason"),
            recorded_by=request.user,
            idempotency_key=_posted(request, "idempotency_key") or None,
        )
    except ValidationError as error:
        _report(request, error)
    else:
        messages.success(
            request,
            _("Withdrew %(player)s from round %(round)s on.")
            % {"player": entrant.player.display_name, "round": entrant.withdrawn_from_round},
        )
    return redirect(f"{_event_url(chosen)}#entries")


@require_POST
def bye(request: HttpRequest, league_slug: str, competition_slug: str) -> HttpResponse:
    """Record a requested bye for a round not yet paired."""
    league, chosen = _action(request, league_slug, competition_slug)
    if chosen is None:
        return league  # type: ignore[return-value]
    try:
        recorded = event_services.request_bye(
            chosen,
            _posted(request, "player"),
            round_number=_posted(request, "round_number"),
            kind=_posted(request, "kind"),
            recorded_by=request.user,
            idempotency_key=_posted(request, "idempotency_key") or None,
        )
    except ValidationError as error:
        _report(request, error)
    else:
        messages.success(
            request,
            _("%(player)s: %(bye)s in round %(round)s.")
            % {
                "player": recorded.player.display_name,
                "bye": recorded.get_kind_display(),
                "round": recorded.round_number,
            },
        )
    return redirect(f"{_event_url(chosen)}#entries")


@require_POST
def forbid(request: HttpRequest, league_slug: str, competition_slug: str) -> HttpResponse:
    """Forbid two players (or more) to be paired together, from a round to a round."""
    league, chosen = _action(request, league_slug, competition_slug)
    if chosen is None:
        return league  # type: ignore[return-value]
    named = [value.strip() for value in request.POST.getlist("players") if value.strip()]
    try:
        recorded = event_services.forbid_pairing(
            chosen,
            named,
            first_round=_posted(request, "first_round") or 1,
            last_round=_posted(request, "last_round") or None,
            reason=_posted(request, "reason"),
            recorded_by=request.user,
            idempotency_key=_posted(request, "idempotency_key") or None,
        )
    except ValidationError as error:
        _report(request, error)
    else:
        names = {e.player_id: e.name for e in competition_state(chosen).entrants}
        messages.success(
            request,
            _("%(players)s will not be paired together in rounds %(first)s to %(last)s.")
            % {
                "players": ", ".join(names[n] for n in recorded.details["players"]),
                "first": recorded.round_number,
                "last": recorded.details["last_round"],
            },
        )
    return redirect(f"{_event_url(chosen)}#forbidden")


@require_POST
def publish(request: HttpRequest, league_slug: str, competition_slug: str) -> HttpResponse:
    """Publish the previewed round: the games and the bye exactly as shown."""
    league, chosen = _action(request, league_slug, competition_slug)
    if chosen is None:
        return league  # type: ignore[return-value]
    firsts = request.POST.getlist("first")
    seconds = request.POST.getlist("second")
    if len(firsts) != len(seconds):
        messages.error(request, _("pairings: every game needs two players."))
        return redirect(_event_url(chosen))
    byes = [value for value in request.POST.getlist("bye") if value.strip()]
    try:
        if chosen.format == CompetitionFormat.KNOCKOUT:
            # A cup's round is its bracket's: paired again from the results, as previewed.
            published = cups.publish_cup_round(
                chosen,
                _posted(request, "round_number"),
                recorded_by=request.user,
                idempotency_key=_posted(request, "idempotency_key") or None,
            )
        else:
            published = event_services.publish_round(
                chosen,
                _posted(request, "round_number"),
                list(zip(firsts, seconds, strict=True)),
                byes,
                recorded_by=request.user,
                idempotency_key=_posted(request, "idempotency_key") or None,
            )
    except ValidationError as error:
        _report(request, error)
        return redirect(f"{_event_url(chosen)}?preview=1#pair")
    messages.success(
        request,
        _("Published round %(round)s: %(games)s games.")
        % {"round": published.round_number, "games": len(published.fixtures)},
    )
    return redirect(f"{_event_url(chosen)}#round-{published.round_number}-heading")


def _game(chosen: Competition, fixture_id: int) -> Fixture:
    return get_object_or_404(Fixture, competition=chosen, pk=fixture_id)


@require_POST
def result(
    request: HttpRequest, league_slug: str, competition_slug: str, fixture_id: int
) -> HttpResponse:
    """Record a game's result through the one result path (its fixture names it)."""
    league, chosen = _action(request, league_slug, competition_slug)
    if chosen is None:
        return league  # type: ignore[return-value]
    game = _game(chosen, fixture_id)
    form = ResultForm(chosen.league, request.POST)
    label = _("%(a)s v %(b)s: ") % {"a": game.player_a, "b": game.player_b}
    if not form.is_valid():
        for field, items in form.errors.items():
            for item in items:
                messages.error(
                    request,
                    label + _("%(field)s: %(message)s") % {"field": field, "message": item},
                )
        return redirect(f"{_event_url(chosen)}#round-{game.round_number}-heading")
    score_a, points = form.cleaned_data["score"]
    try:
        services.record_fixture_result(
            chosen.league,
            game,
            score_a=score_a,
            points=points,
            recorded_by=request.user,
            idempotency_key=form.cleaned_data["idempotency_key"] or None,
        )
    except ValidationError as error:
        _report(request, error, label)
    else:
        messages.success(request, _("Recorded %(game)s.") % {"game": label.rstrip(": ")})
    return redirect(f"{_event_url(chosen)}#round-{game.round_number}-heading")


@require_POST
def forfeit(
    request: HttpRequest, league_slug: str, competition_slug: str, fixture_id: int
) -> HttpResponse:
    """Record a forfeit: the winner named ("first", "second"), or a double forfeit."""
    league, chosen = _action(request, league_slug, competition_slug)
    if chosen is None:
        return league  # type: ignore[return-value]
    game = _game(chosen, fixture_id)
    label = _("%(a)s v %(b)s: ") % {"a": game.player_a, "b": game.player_b}
    winner_side = _posted(request, "winner")
    winners = {"first": game.player_a_id, "second": game.player_b_id, "none": None}
    if winner_side not in winners:
        messages.error(request, label + _("winner: choose who wins by forfeit, or neither."))
        return redirect(f"{_event_url(chosen)}#round-{game.round_number}-heading")
    try:
        event_services.record_forfeit(
            chosen,
            game,
            winner=winners[winner_side],
            note=_posted(request, "note"),
            recorded_by=request.user,
            idempotency_key=_posted(request, "idempotency_key") or None,
        )
    except ValidationError as error:
        _report(request, error, label)
    else:
        messages.success(
            request, _("Recorded the forfeit in %(game)s.") % {"game": label.rstrip(": ")}
        )
    return redirect(f"{_event_url(chosen)}#round-{game.round_number}-heading")


def event_rounds_of(context: dict[str, Any]) -> list[Any]:
    """The round views behind the context's rounds (the games in the same order)."""
    return event_rounds(context["state"])


def _current_rating(league: League, player: str) -> float | None:
    """A player's published rating now, to seed a cup by (None: not a player of the league,
    the service says so, or not rated yet)."""
    try:
        player_id = int(player)
    except ValueError:
        return None
    if not Player.objects.filter(league=league, pk=player_id).exists():
        return None
    strength = strengths(live_config(league), [player_id])[player_id]
    return round(strength.rating, 1) if strength.rated else None


@require_POST
def tie_game(
    request: HttpRequest, league_slug: str, competition_slug: str, fixture_id: int
) -> HttpResponse:
    """Schedule a cup tie's replay or tie-break game after its drawn game."""
    league, chosen = _action(request, league_slug, competition_slug)
    if chosen is None:
        return league  # type: ignore[return-value]
    game = _game(chosen, fixture_id)
    label = _("%(a)s v %(b)s: ") % {"a": game.player_a, "b": game.player_b}
    try:
        scheduled = cups.schedule_tie_game(
            chosen,
            game,
            recorded_by=request.user,
            idempotency_key=_posted(request, "idempotency_key") or None,
        )
    except ValidationError as error:
        _report(request, error, label)
    else:
        messages.success(request, _("Scheduled: %(label)s.") % {"label": scheduled.label})
    return redirect(f"{_event_url(chosen)}#round-{game.round_number}-heading")
