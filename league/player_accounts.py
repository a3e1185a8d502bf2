"""Players as people: which account holds which player record.

A person claims a player record (by an organiser's invitation, or an organiser links it on
their request): a ``player_claimed`` event names the account, and the event store sets
``Player.account``. The link ends with a ``player_released`` event (the person leaves, or an
organiser unlinks a wrong claim); the player record and its history stay. One account holds
at most one player per league, and any number of leagues; an organiser may be a player too.

Who may do what: the account itself claims for itself (an invitation proves the organisers'
consent) or a league's organiser links any account; the holder or an organiser releases.
Every check runs again under the league lock, so two claims of one record at the same
moment end with one holder.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models import QuerySet
from django.utils.translation import gettext as _

from league import event_store
from league.event_store import Submission
from league.event_store.vocabulary import PlayerClaimed, PlayerReleased
from league.models import Event, League, Player
from league.validation import Errors, check_text, clean_key

REASON_MAX = 1000


def _is_person(account: Any) -> bool:
    return bool(
        getattr(account, "is_authenticated", False) and getattr(account, "is_active", False)
    )


def _check_reason(reason: str, errors: Errors) -> None:
    check_text(reason, errors, "reason")
    if len(reason) > REASON_MAX:
        errors.add(
            "reason",
            _("The reason is too long (at most %(max)s characters)."),
            "reason_too_long",
            max=REASON_MAX,
        )


def claim_player(
    player: Player,
    account: Any,
    *,
    by: Any,
    reason: str = "",
    idempotency_key: str | None = None,
) -> Event:
    """Link ``player`` to ``account`` with a ``player_claimed`` event and return it.

    ``by`` is ``account`` itself or an organiser of the player's league. Refused (a
    ``ValidationError`` naming the field): an anonymous or inactive account; ``by`` neither;
    a player merged into another or forgotten; a player someone else holds; an account that
    already holds another player of the league. Claiming a player one already holds stores
    nothing and returns the claim that made it so.
    """
    league = player.league
    reason = (reason or "").strip()
    errors = Errors()
    if not _is_person(account):
        errors.add("account", _("Sign in to claim a player."), "anonymous")
    elif not (_is_person(by) and (by.pk == account.pk or league.is_organiser(by))):
        errors.add(
            "account",
            _("Only the person claiming or an organiser of %(league)s can link a player."),
            "forbidden",
            league=league.name,
        )
    _check_reason(reason, errors)
    key = clean_key(idempotency_key, errors)
    errors.raise_if_any()

    submission = Submission(
        PlayerClaimed(player_id=player.pk, account_id=account.pk, reason=reason), key
    )
    with transaction.atomic():
        event_store.lock_league(league)
        existing = event_store.existing_for(league, submission)
        if existing is None:
            current = Player.objects.get(pk=player.pk)
            if current.account_id == account.pk:
                claim = _last_claim(current)
                if claim is not None:
                    return claim
            _check_claim(league, current, account, errors)
            errors.raise_if_any()
        (event,) = event_store.append(league, [submission], recorded_by=by)
    player.refresh_from_db(fields=["account"])
    return event


def _check_claim(league: League, player: Player, account: Any, errors: Errors) -> None:
    """The refusals of ``claim_player`` that depend on stored state (under the lock)."""
    if player.merged_into_id is not None:
        errors.add(
            "player",
            _("%(player)s was merged into another player: claim that player instead."),
            "merged",
            player=player.display_name,
        )
    elif is_forgotten(player):
        errors.add("player", _("This player was forgotten and cannot be claimed."), "forgotten")
    elif player.account_id is not None:
        errors.add(
            "player",
            _("Someone else already holds %(player)s."),
            "claimed",
            player=player.display_name,
        )
    held = Player.objects.filter(league=league, account=account).exclude(pk=player.pk).first()
    if held is not None:
        errors.add(
            "account",
            _("This account already holds %(player)s in %(league)s: one player per league."),
            "one_per_league",
            player=held.display_name,
            league=league.name,
        )


def _last_claim(player: Player) -> Event | None:
    return (
        Event.objects.filter(
            league_id=player.league_id, kind=Event.Kind.PLAYER_CLAIMED, player=player
        )
        .order_by("-seq")
        .first()
    )


def is_forgotten(player: Player) -> bool:
    """Whether a ``player_forgotten`` event erased this player's person."""
    return Event.objects.filter(
        league_id=player.league_id, kind=Event.Kind.PLAYER_FORGOTTEN, player=player
    ).exists()


def release_player(
    player: Player,
    *,
    by: Any,
    reason: str = "",
    idempotency_key: str | None = None,
) -> Event:
    """End the link of ``player`` to its account with a ``player_released`` event.

    ``by`` is the holder or an organiser of the league. Refused when no account holds the
    player (an idempotent retry with the same key returns the stored event).
    """
    league = player.league
    reason = (reason or "").strip()
    errors = Errors()
    _check_reason(reason, errors)
    key = clean_key(idempotency_key, errors)
    errors.raise_if_any()
    with transaction.atomic():
        event_store.lock_league(league)
        current = Player.objects.get(pk=player.pk)
        if key:
            stored = event_store.find_by_key(league, key)
            if stored is not None and stored.kind == Event.Kind.PLAYER_RELEASED:
                submission = Submission(
                    PlayerReleased(
                        player_id=player.pk, account_id=stored.account_id, reason=reason
                    ),
                    key,
                )
                (event,) = event_store.append(league, [submission], recorded_by=by)
                return event
        if current.account_id is None:
            errors.add(
                "player",
                _("No account holds %(player)s."),
                "not_claimed",
                player=current.display_name,
            )
        elif not (_is_person(by) and (by.pk == current.account_id or league.is_organiser(by))):
            errors.add(
                "player",
                _("Only the person holding %(player)s or an organiser can release it."),
                "forbidden",
                player=current.display_name,
            )
        errors.raise_if_any()
        submission = Submission(
            PlayerReleased(player_id=current.pk, account_id=current.account_id, reason=reason),
            key,
        )
        (event,) = event_store.append(league, [submission], recorded_by=by)
    player.refresh_from_db(fields=["account"])
    return event


def players_of(user: Any, league: League | None = None) -> QuerySet[Player]:
    """The live player records ``user`` holds (not merged into another), in every league or
    in ``league``; none for an anonymous user."""
    if not getattr(user, "is_authenticated", False):
        return Player.objects.none()
    players = Player.objects.filter(account=user, merged_into__isnull=True)
    if league is not None:
        players = players.filter(league=league)
    return players.select_related("league").order_by("league__name", "display_name")


def player_of(user: Any, league: League) -> Player | None:
    """The live player ``user`` holds in ``league``, if any."""
    player: Player | None = players_of(user, league).first()
    return player
