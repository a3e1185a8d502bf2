"""Invitations by link: an organiser creates one, the invited person accepts it.

An invitation without a player invites a co-organiser; one naming a player invites the
person who plays as that player to claim the record (``league.player_accounts``): copied by
hand from the page that made it, or mailed to an address by a Celery task
(``league.tasks.send_player_invitation``), which makes the token itself.

A link carries a random token (256 bits); only its SHA-256 digest is stored (as for API
tokens, ``league.api_tokens``), so the database never holds a usable link. An invitation
is single-use, expires after ``settings.INVITATION_DAYS`` and can be revoked while pending.
Whoever accepts it signed in becomes an organiser of its league, or holds its player. Every
refusal names why
(unknown, expired, used, revoked) without saying anything about any account.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import secrets
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from league.models import Invitation, League, Player
from league.organisers import add_organisers
from league.player_accounts import claim_player, is_forgotten
from league.validation import Errors, check_text

LABEL_MAX = Invitation._meta.get_field("label").max_length
#: Longest token the accept page looks up (a real one is 43 characters).
TOKEN_MAX = 100


class InvitationRefused(Exception):
    """Why an invitation link cannot be used: ``reason`` is unknown, expired, used or revoked."""

    def __init__(self, reason: str, invitation: Invitation | None = None) -> None:
        super().__init__(reason)
        self.reason, self.invitation = reason, invitation


def digest_of(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def create_invitation(league: League, by: Any, label: str = "") -> tuple[Invitation, str]:
    """A new invitation to co-organise ``league`` and its token (shown to ``by`` once).

    ``by`` must organise the league. ``label`` is a note for the organisers (who it is for).
    """
    errors = Errors()
    label = " ".join((label or "").split())
    if len(label) > LABEL_MAX:
        errors.add(
            "label",
            _("The note is too long (at most %(max)s characters)."),
            "too_long",
            max=LABEL_MAX,
        )
    check_text(label, errors, "label")
    if not league.is_organiser(by):
        errors.add("__all__", _("Only this league's organisers can invite."), "forbidden")
    errors.raise_if_any()
    token = secrets.token_urlsafe(32)
    now = timezone.now()
    invitation = Invitation.objects.create(
        league=league,
        digest=digest_of(token),
        label=label,
        created_by=by,
        created_at=now,
        expires_at=now + dt.timedelta(days=settings.INVITATION_DAYS),
    )
    return invitation, token


def new_token(invitation: Invitation) -> str:
    """A fresh token for ``invitation`` (its earlier link, if any, opens nothing now)."""
    token = secrets.token_urlsafe(32)
    Invitation.objects.filter(pk=invitation.pk).update(digest=digest_of(token))
    invitation.digest = digest_of(token)
    return token


def create_player_invitation(
    league: League,
    player: Player,
    by: Any,
    *,
    email: str = "",
    label: str = "",
) -> tuple[Invitation, str | None]:
    """A new invitation to claim ``player`` and its token to copy by hand; with ``email``,
    the token is None: the caller has it mailed (``league.tasks.mail_invitation``), and the
    task makes the token.

    Refused: ``by`` not an organiser; a player of another league, merged away, forgotten
    or already held by an account; an address that is not one.
    """
    from django.core.validators import validate_email

    errors = Errors()
    email = (email or "").strip()
    label = " ".join((label or "").split())
    if email:
        try:
            validate_email(email)
        except ValidationError:
            errors.add("email", _("Enter a valid e-mail address."), "invalid")
    if len(label) > LABEL_MAX:
        errors.add(
            "label",
            _("The note is too long (at most %(max)s characters)."),
            "too_long",
            max=LABEL_MAX,
        )
    check_text(label, errors, "label")
    if not league.is_organiser(by):
        errors.add("__all__", _("Only this league's organisers can invite."), "forbidden")
    elif player.league_id != league.pk:
        errors.add("player", _("This player is not in this league."), "other_league")
    elif player.merged_into_id is not None or is_forgotten(player):
        errors.add(
            "player",
            _("%(player)s was merged or forgotten: nobody can claim it.")
            % {"player": player.display_name},
            "unclaimable",
        )
    elif player.account_id is not None:
        errors.add(
            "player",
            _("Someone already holds %(player)s.") % {"player": player.display_name},
            "claimed",
        )
    errors.raise_if_any()
    token = secrets.token_urlsafe(32)
    now = timezone.now()
    invitation = Invitation.objects.create(
        league=league,
        player=player,
        email=email,
        digest=digest_of(token),
        label=label,
        created_by=by,
        created_at=now,
        expires_at=now + dt.timedelta(days=settings.INVITATION_DAYS),
    )
    return invitation, (None if email else token)


def invitations_of(league: League, *, players: bool = False) -> list[Invitation]:
    """The league's co-organiser invitations (``players``: its invitations to claim a
    player), newest first, used, revoked and expired ones included."""
    return list(
        Invitation.objects.filter(league=league, player__isnull=not players).select_related(
            "accepted_by", "player"
        )
    )


def check_invitation(token: str) -> Invitation:
    """The pending invitation ``token`` opens; :class:`InvitationRefused` otherwise."""
    if not token or len(token) > TOKEN_MAX:
        raise InvitationRefused("unknown")
    invitation = Invitation.objects.select_related("league").filter(digest=digest_of(token)).first()
    if invitation is None:
        raise InvitationRefused("unknown")
    if invitation.revoked_at is not None:
        raise InvitationRefused("revoked", invitation)
    if invitation.accepted_at is not None:
        raise InvitationRefused("used", invitation)
    if invitation.expires_at <= timezone.now():
        raise InvitationRefused("expired", invitation)
    return invitation


def accept_invitation(token: str, user: Any) -> League:
    """Make ``user`` (signed in) an organiser of the league ``token`` invites to, or the
    holder of the player it names; the link is used up. Raises :class:`InvitationRefused`,
    or ``ValidationError`` when the player cannot be claimed (see ``claim_player``); a user
    who organises the league already leaves a co-organiser link unused, for the person it
    was meant for."""
    if not getattr(user, "is_authenticated", False):
        raise ValidationError(_("Sign in to accept an invitation."), code="anonymous")
    with transaction.atomic():
        invitation = check_invitation(token)
        # Locked and checked again: of two simultaneous acceptances one wins.
        invitation = Invitation.objects.select_for_update().get(pk=invitation.pk)
        if invitation.accepted_at is not None:
            raise InvitationRefused("used", invitation)
        if invitation.revoked_at is not None:
            raise InvitationRefused("revoked", invitation)
        league = invitation.league
        if invitation.player is not None:
            # The reason is stored data (one language), naming the link by its number.
            claim_player(invitation.player, user, by=user, reason=f"invitation #{invitation.pk}")
        elif league.is_organiser(user):
            return league
        invitation.accepted_by = user
        invitation.accepted_at = timezone.now()
        invitation.save(update_fields=["accepted_by", "accepted_at"])
        if invitation.player is None:
            add_organisers(league, [user])
    return league


def revoke_invitation(league: League, invitation_id: int) -> Invitation | None:
    """Revoke the league's pending invitation ``invitation_id`` (None when it has no such
    pending invitation)."""
    with transaction.atomic():
        invitation = (
            Invitation.objects.select_for_update()
            .filter(league=league, pk=invitation_id, accepted_at=None, revoked_at=None)
            .first()
        )
        if invitation is None:
            return None
        invitation.revoked_at = timezone.now()
        invitation.save(update_fields=["revoked_at"])
    return invitation
