"""The players page of the organisers' workspace: list, register, rename, deactivate and
reactivate, merge and unmerge, each through ``league.services`` (one event each, with the
organiser as its recorder and the reason typed here)."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.http import require_http_methods

from league import services
from league.models import Event, League, Player
from league.player_names import clean_name, name_key, same_name
from league.seeding import LIST_KINDS, seed_player
from ratings import services as rating_services
from web.workspace.access import SignInRequired, organiser_league, sign_in_redirect


def _messages_of(error: ValidationError) -> dict[str, list[str]]:
    """A service's refusal as field -> messages (``__all__`` for the rest)."""
    return error.message_dict if hasattr(error, "error_dict") else {"__all__": error.messages}


def _roster(league: League) -> list[Player]:
    return list(
        Player.objects.filter(league=league).select_related("merged_into").order_by("display_name")
    )


def _matching(players: list[Player], query: str) -> list[Player]:
    """The players whose name contains ``query``, compared as names are (``name_key``)."""
    key = name_key(clean_name(query))
    return [p for p in players if key in name_key(p.display_name)] if key else players


@require_http_methods(["GET", "POST"])
def players(request: HttpRequest, league_slug: str) -> HttpResponse:
    """Every player of the league with their status, and the form registering a new one."""
    try:
        league = organiser_league(request, league_slug)
    except SignInRequired:
        return sign_in_redirect(request)
    errors: dict[str, list[str]] = {}
    name = ""
    existing = None
    if request.method == "POST":
        name = request.POST.get("display_name", "")
        try:
            player = services.register_player(league, name, recorded_by=request.user)
        except ValidationError as error:
            errors = _messages_of(error)
            existing = same_name(league, clean_name(name))
        else:
            messages.success(
                request, gettext("%(player)s is registered.") % {"player": player.display_name}
            )
            return HttpResponseRedirect(reverse("workspace:players", args=[league.slug]))
    query = clean_name(request.GET.get("q", ""))[:120]
    everyone = _roster(league)
    return render(
        request,
        "workspace/players.html",
        {
            "league": league,
            "players": _matching(everyone, query),
            "total": len(everyone),
            "query": query,
            "errors": errors,
            "name": name,
            "existing": existing,
        },
        status=400 if errors else 200,
    )


#: The actions of a player's page: the service each calls, and its extra arguments.
ACTIONS = ("rename", "deactivate", "reactivate", "merge", "unmerge", "seed")


@require_http_methods(["GET", "POST"])
def player(request: HttpRequest, league_slug: str, player_slug: str) -> HttpResponse:
    """One player's page: rename, (de)activate, merge into another player or unmerge."""
    try:
        league = organiser_league(request, league_slug)
    except SignInRequired:
        return sign_in_redirect(request)
    target = get_object_or_404(
        Player.objects.select_related("merged_into"), league=league, slug=player_slug
    )
    errors: dict[str, list[str]] = {}
    action = request.POST.get("action", "") if request.method == "POST" else ""
    if request.method == "POST":
        try:
            done = _apply(league, target, action, request.POST, request.user)
        except ValidationError as error:
            errors = _messages_of(error)
        else:
            messages.success(request, done)
            target.refresh_from_db()
            return HttpResponseRedirect(
                reverse("workspace:player", args=[league.slug, target.slug])
            )
    others = [p for p in _roster(league) if p.pk != target.pk and p.merged_into_id is None]
    return render(
        request,
        "workspace/player.html",
        {
            "league": league,
            "player": target,
            "others": others,
            "absorbed": list(Player.objects.filter(merged_into=target).order_by("display_name")),
            "errors": errors,
            "action": action,
            "posted": request.POST if errors else {},
            "seed": Event.objects.filter(player=target, kind=Event.Kind.PLAYER_SEEDED)
            .order_by("-seq")
            .first(),
            "list_kinds": list(LIST_KINDS.items()),
        },
        status=400 if errors else 200,
    )


def _apply(league: League, player: Player, action: str, data: Any, user: Any) -> str:
    """Run ``action`` on ``player``; the success message. Raises the service's refusal."""
    reason = data.get("reason", "")
    if action not in ACTIONS:
        raise ValidationError({"action": [gettext("Choose what to do with the player.")]})
    if not reason.strip():
        # Every change of a player says why: the reason is shown in the public event log.
        raise ValidationError(
            {"reason": [gettext("Give a reason (it is shown in the event log).")]}
        )
    before = player.display_name
    if action == "seed":
        config = rating_services.latest_config(league)
        event = seed_player(
            league,
            player,
            rating=data.get("rating", ""),
            list_kind=data.get("list_kind", ""),
            games=data.get("games", ""),
            rd=data.get("rd", ""),
            reason=reason,
            recorded_by=user,
            max_rd=float(config.max_rd) if config is not None else 350.0,
        )
        return gettext(
            "%(player)s starts from %(rating).0f, RD %(rd).0f: the standings are being recomputed."
        ) % {"player": before, "rating": event.seed_rating, "rd": event.seed_rd}
    if action == "rename":
        services.rename_player(
            league, player, data.get("display_name", ""), reason=reason, recorded_by=user
        )
        return gettext("%(before)s is now called %(name)s.") % {
            "before": before,
            "name": player.display_name,
        }
    if action == "deactivate":
        services.deactivate_player(league, player, reason=reason, recorded_by=user)
        return gettext("%(player)s is inactive: no new result can be recorded for them.") % {
            "player": before
        }
    if action == "reactivate":
        services.reactivate_player(league, player, reason=reason, recorded_by=user)
        return gettext("%(player)s is active again.") % {"player": before}
    if action == "merge":
        into = data.get("into", "")
        if not into:
            raise ValidationError({"into": [gettext("Choose the player to merge into.")]})
        services.merge_player(league, player, into, reason=reason, recorded_by=user)
        survivor = Player.objects.get(pk=player.merged_into_id)
        return gettext(
            "%(player)s is merged into %(into)s: their matches count as %(into)s's; "
            "the standings are being recomputed."
        ) % {"player": before, "into": survivor.display_name}
    survivor_name = player.merged_into.display_name if player.merged_into else ""
    services.unmerge_player(league, player, reason=reason, recorded_by=user)
    return gettext(
        "%(player)s is unmerged from %(into)s: their matches count as their own again; "
        "the standings are being recomputed."
    ) % {"player": before, "into": survivor_name}
