"""Everything the site holds about one person, for their privacy page and its JSON export.

``personal_data(user)`` gathers, as plain data (numbers, strings, ISO moments): the account
(name, address, when it joined and last signed in, its preferences), every player record it
holds or held (by the claims naming it) with every event naming those players, the
invitations it accepted or that named its players, its join requests, its sign-in links
(when made and used, never their secrets) and its API tokens (names and prefixes, never
their secrets). The web layer formats it; nothing here is translated.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

from django.db.models import Q

from league.models import (
    AccountPreferences,
    ApiToken,
    BoardOrder,
    Event,
    Invitation,
    JoinRequest,
    MatchParticipant,
    Player,
    RosterEntry,
    SignInLink,
    Team,
)


def _plain(value: Any) -> Any:
    if isinstance(value, dt.datetime | dt.date):
        return value.isoformat()
    if isinstance(value, Decimal):
        return str(value)
    return value


def _row(values: dict[str, Any]) -> dict[str, Any]:
    return {key: _plain(value) for key, value in values.items()}


def players_held(user: Any) -> list[Player]:
    """Every player the account holds now or held once (a claim named it)."""
    claimed = Event.objects.filter(
        kind__in=[Event.Kind.PLAYER_CLAIMED, Event.Kind.PLAYER_RELEASED], account_id=user.pk
    ).values_list("player_id", flat=True)
    return list(
        Player.objects.filter(Q(account=user) | Q(pk__in=list(claimed)))
        .select_related("league")
        .order_by("league__name", "display_name")
    )


EVENT_FIELDS = (
    "seq",
    "kind",
    "recorded_at",
    "player_id",
    "display_name",
    "other_player_id",
    "account_id",
    "player_a_id",
    "player_b_id",
    "score_a",
    "points",
    "played_at",
    "note",
    "reason",
    "scheduled_at",
    "venue",
)


def personal_data(user: Any) -> dict[str, Any]:
    """What the site holds about ``user`` (signed in), as JSON-ready data."""
    preferences = AccountPreferences.objects.filter(user=user).first()
    players = players_held(user)
    ids = [player.pk for player in players]
    in_sides = MatchParticipant.objects.filter(player_id__in=ids).values_list("event_id", flat=True)
    events = (
        Event.objects.filter(
            Q(player_id__in=ids)
            | Q(player_a_id__in=ids)
            | Q(player_b_id__in=ids)
            | Q(other_player_id__in=ids)
            | Q(pk__in=list(in_sides))
            | Q(account_id=user.pk)
        )
        .select_related("league")
        .order_by("league__slug", "seq")
    )
    return {
        "account": {
            "username": user.get_username(),
            "email": user.email,
            "first_name": user.first_name,
            "last_name": user.last_name,
            "date_joined": _plain(user.date_joined),
            "last_login": _plain(user.last_login),
            "hide_own_rating": bool(preferences and preferences.hide_own_rating),
            "organises": sorted(user.organised_leagues.values_list("slug", flat=True)),
        },
        "players": [
            {
                "league": player.league.slug,
                "id": player.pk,
                "name": player.display_name,
                "slug": player.slug,
                "active": player.active,
                "held_now": player.account_id == user.pk,
                "created_at": _plain(player.created_at),
            }
            for player in players
        ],
        "events": [
            {"league": event.league.slug, **_row({f: getattr(event, f) for f in EVENT_FIELDS})}
            for event in events
        ],
        "teams": [
            _row(row)
            for row in RosterEntry.objects.filter(player_id__in=ids)
            .order_by("added_at")
            .values("team__league__slug", "team__name", "player_id", "added_at")
        ],
        "captain_of": list(
            Team.objects.filter(captain_id__in=ids)
            .order_by("pk")
            .values("league__slug", "name", "captain_id")
        ),
        "board_orders": _board_orders(ids),
        "invitations": [
            _row(row)
            for row in Invitation.objects.filter(Q(accepted_by=user) | Q(player_id__in=ids))
            .order_by("created_at")
            .values("league__slug", "player_id", "email", "created_at", "expires_at", "accepted_at")
        ],
        "join_requests": [
            _row(row)
            for row in JoinRequest.objects.filter(account=user)
            .order_by("created_at")
            .values("league__slug", "name", "message", "status", "created_at", "decided_at")
        ],
        "sign_in_links": [
            _row(row)
            for row in SignInLink.objects.filter(user=user)
            .order_by("created_at")
            .values("created_at", "expires_at", "used_at")
        ],
        "api_tokens": [
            _row(row)
            for row in ApiToken.objects.filter(user=user)
            .order_by("created_at")
            .values("name", "prefix", "created_at", "last_used_at", "revoked_at")
        ],
    }


def _board_orders(ids: list[int]) -> list[dict[str, Any]]:
    """The club matches' board orders naming the players ``ids``: match, team and board."""
    wanted = set(ids)
    orders = (
        BoardOrder.objects.filter(team__roster__player_id__in=ids)
        .select_related("club_match__league", "team")
        .distinct()
        .order_by("pk")
    )
    return [
        {
            "league": order.club_match.league.slug,
            "club_match": order.club_match_id,
            "team": order.team.name,
            "player_id": player,
            "board": board,
        }
        for order in orders
        for board, player in enumerate(order.players, start=1)
        if player in wanted
    ]


def hides_own_rating(user: Any) -> bool:
    """Whether ``user`` chose not to see their own rating."""
    if not getattr(user, "is_authenticated", False):
        return False
    return AccountPreferences.objects.filter(user=user, hide_own_rating=True).exists()


def set_hide_own_rating(user: Any, hide: bool) -> None:
    """Record ``user``'s choice to see their own rating or not."""
    AccountPreferences.objects.update_or_create(user=user, defaults={"hide_own_rating": hide})
