"""Asking to join a league as a player, and the organisers' answer.

In a league that lets players ask (``League.players_may_join``), a signed-in person who
holds no player there asks once at a time, under the name they play by. An organiser
accepts (registering a new player under that name, or linking a player the league lists
already: their decision) or refuses. Accepting appends the league's events through the
usual services (``player_registered``, ``player_claimed``); the request row only records
the conversation. Of two organisers answering at once, one answers.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from league import services
from league.models import JoinRequest, League, Player
from league.player_accounts import claim_player, player_of
from league.player_names import check_name_shape, clean_name
from league.validation import Errors, check_text

MESSAGE_MAX = 1000


def pending_request(league: League, user: Any) -> JoinRequest | None:
    """``user``'s pending request to join ``league``, if any."""
    if not getattr(user, "is_authenticated", False):
        return None
    found: JoinRequest | None = JoinRequest.objects.filter(
        league=league, account=user, status=JoinRequest.Status.PENDING
    ).first()
    return found


def ask_to_join(league: League, user: Any, name: str, *, message: str = "") -> JoinRequest:
    """A new pending request of ``user`` to play in ``league`` as ``name``."""
    errors = Errors()
    name = clean_name(name or "")
    message = (message or "").strip()
    if not getattr(user, "is_authenticated", False):
        errors.add("__all__", _("Sign in to ask to join."), "anonymous")
        errors.raise_if_any()
    if not league.players_may_join:
        errors.add("__all__", _("This league does not take requests to join."), "closed")
    check_name_shape(name, errors)
    check_text(message, errors, "message")
    if len(message) > MESSAGE_MAX:
        errors.add(
            "message",
            _("The message is too long (at most %(max)s characters)."),
            "too_long",
            max=MESSAGE_MAX,
        )
    if player_of(user, league) is not None:
        errors.add("__all__", _("You play in this league already."), "member")
    errors.raise_if_any()
    try:
        with transaction.atomic():
            return JoinRequest.objects.create(
                league=league, account=user, name=name, message=message
            )
    except IntegrityError:
        raise ValidationError(
            {"__all__": [_("You asked already; the organisers have not answered yet.")]},
            code="pending",
        ) from None


def requests_of(league: League) -> list[JoinRequest]:
    """The league's requests, pending first, newest first."""
    return sorted(
        JoinRequest.objects.filter(league=league).select_related("account", "player"),
        key=lambda item: (item.status != JoinRequest.Status.PENDING, -item.created_at.timestamp()),
    )


def _pending_locked(league: League, request_id: int) -> JoinRequest:
    found = (
        JoinRequest.objects.select_for_update()
        .filter(league=league, pk=request_id, status=JoinRequest.Status.PENDING)
        .first()
    )
    if found is None:
        raise ValidationError(
            {"request": [_("This league has no such pending request.")]}, code="not_pending"
        )
    return found


def accept_request(
    league: League, request_id: int, *, by: Any, player: Player | None = None
) -> JoinRequest:
    """Accept a pending request: link ``player`` (one the league lists, nobody holds) to the
    person, or register a new player under the name they gave."""
    if not league.is_organiser(by):
        raise ValidationError(
            {"__all__": [_("Only this league's organisers can answer requests.")]},
            code="forbidden",
        )
    with transaction.atomic():
        join = _pending_locked(league, request_id)
        if player is None:
            player = services.register_player(league, join.name, recorded_by=by)
        elif player.league_id != league.pk:
            raise ValidationError({"player": [_("This player is not in this league.")]})
        claim_player(player, join.account, by=by, reason=f"join request #{join.pk}")
        join.status = JoinRequest.Status.ACCEPTED
        join.player = player
        join.decided_at = timezone.now()
        join.decided_by = by
        join.save(update_fields=["status", "player", "decided_at", "decided_by"])
    return join


def refuse_request(league: League, request_id: int, *, by: Any) -> JoinRequest:
    """Refuse a pending request (the person may ask again)."""
    if not league.is_organiser(by):
        raise ValidationError(
            {"__all__": [_("Only this league's organisers can answer requests.")]},
            code="forbidden",
        )
    with transaction.atomic():
        join = _pending_locked(league, request_id)
        join.status = JoinRequest.Status.REFUSED
        join.decided_at = timezone.now()
        join.decided_by = by
        join.save(update_fields=["status", "decided_at", "decided_by"])
    return join
